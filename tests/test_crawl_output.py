"""A new crawl refuses an output folder that already holds TREC files (it would write every
document again); a resumed JOBDIR crawl and a distributed worker write into it as before."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.crawlrun import ROOT, run_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs
from tests.test_trec_writer import leave_open_file
from wackycrawl.distributed.local import FILENAME

pytestmark = pytest.mark.crawl


def snapshot(folder) -> dict:
    """Every file under ``folder``: its size and modification time."""
    return {os.path.join(d, n): (os.stat(os.path.join(d, n)).st_size,
                                 os.stat(os.path.join(d, n)).st_mtime_ns)
            for d, _, names in os.walk(folder) for n in names}


def scrapy_crawl(tmp_path, corpus, *settings: str) -> subprocess.CompletedProcess:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_HOST")}
    args = [a for s in (f"WACKY_OUTPUT_DIR={corpus}", *settings) for a in ("-s", s)]
    return subprocess.run([sys.executable, "-m", "scrapy", "crawl", "seeds", "-a",
                           f"seeds={seeds}", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env, check=False)


def assert_refused(run: subprocess.CompletedProcess, corpus) -> None:
    errors = [line for line in run.stderr.splitlines() if " ERROR: " in line]
    assert run.returncode == 1, run.stderr[-3000:]
    assert len(errors) == 1, run.stderr[-3000:]
    assert f"cannot start the crawl: WACKY_OUTPUT_DIR {corpus} already holds" in errors[0]
    assert "JOBDIR" in errors[0] and "another WACKY_OUTPUT_DIR" in errors[0]
    assert "Traceback" not in run.stderr and "Spider opened" not in run.stderr


def test_a_second_crawl_into_the_same_folder_is_refused_and_writes_nothing(tmp_path):
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=3)
        first = run_crawl(web, ["http://h0.chain.test/p0.html"], tmp_path / "first",
                          {**SETTINGS, "DEPTH_LIMIT": "0"})
        assert first.returncode == 0, first.log[-3000:]
        before, hits = snapshot(first.outdir), len(web.hits)
        again = run_crawl(web, ["http://h0.chain.test/p0.html"], tmp_path / "again",
                          {**SETTINGS, "WACKY_OUTPUT_DIR": str(first.outdir)})
        assert len(web.hits) == hits, "the refused crawl fetched"
    assert again.returncode == 1, again.log[-3000:]
    errors = [line for line in again.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and f"WACKY_OUTPUT_DIR {first.outdir} already holds" in errors[0]
    assert "Spider opened" not in again.log
    assert snapshot(first.outdir) == before
    urls = [d.url for d in corpus_docs(first.outdir)]
    assert len(urls) == len(set(urls)) and set(urls) == expected


def test_an_open_file_or_a_jobdir_without_frontier_is_refused_too(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    leave_open_file(corpus, "k9", 2)  # a crawl killed before it closed its file
    before = snapshot(corpus)
    assert_refused(scrapy_crawl(tmp_path, corpus), corpus)
    job = tmp_path / "job"  # a JOBDIR never used: a new crawl as well
    assert_refused(scrapy_crawl(tmp_path, corpus, f"JOBDIR={job}"), corpus)
    assert not job.exists() and snapshot(corpus) == before
    # the rejects stream's folder counts as well: alone, it is a corpus of rejects
    rejects = tmp_path / "other" / "rejects"
    rejects.mkdir(parents=True)
    leave_open_file(rejects, "k9-rejects", 1)
    run = scrapy_crawl(tmp_path, tmp_path / "other", "WACKY_KEEP_REJECTS=True")
    assert run.returncode == 1 and f"{rejects} already holds" in run.stderr, run.stderr[-3000:]
    empty = tmp_path / "empty"  # an existing folder without TREC files is fine
    (empty / "notes").mkdir(parents=True)
    ok = scrapy_crawl(tmp_path, empty, "WACKY_PROFILE=local", "CLOSESPIDER_TIMEOUT=1")
    assert "already holds" not in ok.stderr and "Spider opened" in ok.stderr, ok.stderr[-3000:]


def test_a_resumed_jobdir_crawl_and_a_distributed_worker_write_into_the_folder(tmp_path):
    def written(name: str):  # a folder a crawl wrote before folders named their crawl
        corpus = tmp_path / name
        corpus.mkdir()
        leave_open_file(corpus, "k9", 2)
        return corpus

    job = tmp_path / "job"
    job.mkdir()
    (job / FILENAME).touch()  # the frontier of the crawl that wrote the folder: a resume
    corpus = written("corpus")
    resumed = scrapy_crawl(tmp_path, corpus, f"JOBDIR={job}", "WACKY_PROFILE=local",
                           "CLOSESPIDER_TIMEOUT=1")
    assert "already holds" not in resumed.stderr, resumed.stderr[-3000:]
    assert "Spider opened" in resumed.stderr and "recovered" in resumed.stderr
    scrapy_job = tmp_path / "scrapy-job"  # Scrapy's own JOBDIR queue (WACKY_FRONTIER=scrapy)
    (scrapy_job / "requests.queue").mkdir(parents=True)
    scrapy_resumed = scrapy_crawl(tmp_path, written("scrapy-corpus"), f"JOBDIR={scrapy_job}",
                                  "WACKY_FRONTIER=scrapy", "WACKY_PROFILE=local",
                                  "CLOSESPIDER_TIMEOUT=1")
    assert "already holds" not in scrapy_resumed.stderr, scrapy_resumed.stderr[-3000:]
    assert "Spider opened" in scrapy_resumed.stderr
    with RedisServer() as srv:  # several workers write into one folder by design
        shared = written("shared")
        for _ in range(2):
            worker = scrapy_crawl(tmp_path, shared, f"REDIS_URL={srv.url}",
                                  "WACKY_IDLE_CLOSE_SECONDS=1", "WACKY_PROFILE=local")
            assert worker.returncode == 0, worker.stderr[-3000:]
            assert "already holds" not in worker.stderr and "Spider opened" in worker.stderr


def refused_as(run: subprocess.CompletedProcess, text: str) -> None:
    errors = [line for line in run.stderr.splitlines() if " ERROR: " in line]
    assert run.returncode == 1 and len(errors) == 1, run.stderr[-3000:]
    assert "cannot start the crawl: " + text in errors[0], errors[0]
    assert "Traceback" not in run.stderr and "Spider opened" not in run.stderr


def test_a_folder_holding_another_crawls_documents_is_refused_to_resumes_and_workers(tmp_path):
    """A JOBDIR resumed with another (or a forgotten) WACKY_OUTPUT_DIR, or a worker of another
    crawl, wrote documents of one crawl a second time into a folder of another."""
    job, first = tmp_path / "job", tmp_path / "corpus-a"
    start = scrapy_crawl(tmp_path, first, f"JOBDIR={job}", "WACKY_PROFILE=local",
                         "CLOSESPIDER_TIMEOUT=1")
    assert start.returncode == 0 and (job / FILENAME).exists(), start.stderr[-3000:]
    leave_open_file(first, "k9", 2)  # its documents
    other = tmp_path / "corpus-b"
    refused_as(scrapy_crawl(tmp_path, other, f"JOBDIR={job}"),
               f"JOBDIR {job} wrote its documents to {first}; resume it with -s "
               f"WACKY_OUTPUT_DIR={first}")
    assert not other.exists()
    again = scrapy_crawl(tmp_path, first, f"JOBDIR={job}", "WACKY_PROFILE=local",
                         "CLOSESPIDER_TIMEOUT=1")  # its own folder: resumed
    assert again.returncode == 0 and "Spider opened" in again.stderr, again.stderr[-3000:]
    with RedisServer() as srv:
        refused_as(scrapy_crawl(tmp_path, first, f"REDIS_URL={srv.url}"),
                   f"WACKY_OUTPUT_DIR {first} holds the documents of the crawl of JOBDIR {job}")
        shared = tmp_path / "shared"  # a distributed crawl's folder, then another crawl's
        demo = scrapy_crawl(tmp_path, shared, f"REDIS_URL={srv.url}", "WACKY_CRAWL_NAME=demo",
                            "WACKY_IDLE_CLOSE_SECONDS=1", "WACKY_PROFILE=local")
        assert demo.returncode == 0, demo.stderr[-3000:]
        leave_open_file(shared, "demo-w1", 1)
        refused_as(scrapy_crawl(tmp_path, shared, f"REDIS_URL={srv.url}",
                                "WACKY_CRAWL_NAME=other"),
                   f"WACKY_OUTPUT_DIR {shared} holds the documents of the distributed crawl demo")
        (tmp_path / "job2").mkdir()
        (tmp_path / "job2" / FILENAME).touch()
        refused_as(scrapy_crawl(tmp_path, shared, f"JOBDIR={tmp_path / 'job2'}"),
                   f"WACKY_OUTPUT_DIR {shared} holds the documents of the distributed crawl demo")


def test_running_a_finished_crawl_again_says_its_seeds_were_seen(tmp_path):
    with LocalWeb() as web:
        build_chain_web(web, hosts=1, per_host=2)
        job = {**SETTINGS, "DEPTH_LIMIT": "0", "JOBDIR": str(tmp_path / "job")}
        first = run_crawl(web, ["http://h0.chain.test/p0.html"], tmp_path / "run", job)
        assert first.returncode == 0 and first.stat("wacky/seeds/already_seen") == 0
        hits = len(web.hits)
        again = run_crawl(web, ["http://h0.chain.test/p0.html"], tmp_path / "run", job)
        assert len(web.hits) == hits
    assert again.returncode == 0, again.log[-3000:]
    assert again.stat("wacky/seeds/already_seen") == 1
    assert ("seed http://h0.chain.test/p0.html was seen before in this crawl and is not "
            "fetched again") in again.log


def test_running_a_finished_distributed_crawl_again_says_its_seeds_were_seen(tmp_path):
    with LocalWeb() as web, RedisServer() as srv:
        build_chain_web(web, hosts=1, per_host=2)
        crawl = {**SETTINGS, "DEPTH_LIMIT": "0", "REDIS_URL": srv.url,
                 "WACKY_IDLE_CLOSE_SECONDS": "1"}
        first = run_crawl(web, ["http://h0.chain.test/p0.html"], tmp_path / "run", crawl)
        assert first.returncode == 0, first.log[-3000:]
        again = run_crawl(web, ["http://h0.chain.test/p0.html"], tmp_path / "run", crawl)
    assert again.returncode == 0, again.log[-3000:]
    assert again.stat("wacky/seeds/already_seen") == 1
    assert "seed http://h0.chain.test/p0.html was seen before in this crawl" in again.log


def test_a_warc_folder_holding_another_crawls_warc_files_is_refused(tmp_path):
    """WACKY_WARC_DIR is judged as WACKY_OUTPUT_DIR is: a new crawl refuses a folder that
    holds WARC files, a resumed crawl one whose WARC files are another crawl's; the crawl
    that wrote them resumes into it."""
    warc = tmp_path / "warc"
    warc.mkdir()
    (warc / "WACKY-old-00000.warc.gz").write_bytes(b"")  # another crawl's archive
    before = snapshot(warc)
    refused_as(scrapy_crawl(tmp_path, tmp_path / "new", f"WACKY_WARC_DIR={warc}"),
               f"WACKY_WARC_DIR {warc} already holds 1 WARC file; a new crawl would mix its "
               "archive into theirs: give another WACKY_WARC_DIR")
    assert snapshot(warc) == before and not (tmp_path / "new").exists()
    job, own = tmp_path / "job", tmp_path / "own-warc"  # a JOBDIR crawl and its archive
    start = scrapy_crawl(tmp_path, tmp_path / "corpus-a", f"JOBDIR={job}",
                         f"WACKY_WARC_DIR={own}", "WACKY_PROFILE=local", "CLOSESPIDER_TIMEOUT=1")
    assert start.returncode == 0 and (job / FILENAME).exists(), start.stderr[-3000:]
    (own / "WACKY-w1-00000.warc.gz.open").write_bytes(b"")  # its file, left by kill -9
    job2 = tmp_path / "job2"  # another crawl, resumed, given that folder
    job2.mkdir()
    (job2 / FILENAME).touch()
    refused_as(scrapy_crawl(tmp_path, tmp_path / "corpus-b", f"JOBDIR={job2}",
                            f"WACKY_WARC_DIR={own}"),
               f"WACKY_WARC_DIR {own} holds the WARC files of the crawl of JOBDIR {job}; "
               f"this crawl (the crawl of JOBDIR {job2}) would mix its archive into theirs")
    assert not (tmp_path / "corpus-b").exists()
    again = scrapy_crawl(tmp_path, tmp_path / "corpus-a", f"JOBDIR={job}",
                         f"WACKY_WARC_DIR={own}", "WACKY_PROFILE=local", "CLOSESPIDER_TIMEOUT=1")
    assert again.returncode == 0 and "Spider opened" in again.stderr, again.stderr[-3000:]


def test_closed_files_of_a_crawl_without_jobdir_are_not_offered_a_resume(tmp_path):
    """A finished crawl without JOBDIR (marker ``once``) cannot be resumed: the refusal of
    its folder offers another folder only; a JOBDIR crawl's names its JOBDIR."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "WACKY-once-00000.trec.gz").write_bytes(b"")
    (corpus / "wacky-crawl.txt").write_text("once 18481\n", encoding="utf-8")
    run = scrapy_crawl(tmp_path, corpus)
    refused_as(run, f"WACKY_OUTPUT_DIR {corpus} already holds 1 TREC file; a new crawl would "
               "write their documents again: give another WACKY_OUTPUT_DIR, or remove the "
               "folder (the crawl that wrote them had no JOBDIR: it cannot be resumed)")
    assert "JOBDIR=" not in run.stderr
    (corpus / "wacky-crawl.txt").write_text(f"jobdir {tmp_path / 'job'}\n", encoding="utf-8")
    run = scrapy_crawl(tmp_path, corpus)
    assert run.returncode == 1 and ("give another WACKY_OUTPUT_DIR, or resume the crawl that "
                                    "wrote them: its command again, with -s "
                                    f"JOBDIR={tmp_path / 'job'}\n") in run.stderr, run.stderr


def test_an_unfinished_file_of_a_killed_crawl_without_jobdir_is_named_with_its_remedy(tmp_path):
    """A crawl without JOBDIR killed with kill -9 left a .open file: a new crawl into that
    folder says so, and that 'wackycrawl trec recover' closes it, not to resume a JOBDIR."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    leave_open_file(corpus, "k9", 1)
    (corpus / "wacky-crawl.txt").write_text("once 4242\n", encoding="utf-8")  # its marker
    refused_as(scrapy_crawl(tmp_path, corpus),
               f"WACKY_OUTPUT_DIR {corpus} already holds 1 unfinished TREC file (.trec.gz.open), "
               "left by a crawl that was killed (or one still running): 'wackycrawl trec "
               f"recover {corpus}' closes it; a new crawl would write their documents again: "
               "give it another WACKY_OUTPUT_DIR (the crawl that wrote it had no JOBDIR: it "
               "cannot be resumed)")
    (corpus / "wacky-crawl.txt").write_text(f"jobdir {tmp_path / 'job'}\n", encoding="utf-8")
    run = scrapy_crawl(tmp_path, corpus)
    assert run.returncode == 1 and (
        f"'wackycrawl trec recover {corpus}' closes it; a new crawl would write their documents "
        f"again: give it another WACKY_OUTPUT_DIR; or resume that crawl: its command again, "
        f"with -s JOBDIR={tmp_path / 'job'}\n") in run.stderr, run.stderr[-3000:]


def test_a_folder_claimed_by_a_crawl_that_has_written_nothing_yet_is_refused(tmp_path):
    """Two crawls (other JOBDIRs, other DOCNO prefixes) into one folder: the second one,
    started before the first has written its first document, is refused while the first runs,
    and still when the first was stopped (its JOBDIR resumes into the folder), naming it; the
    first then resumes there and writes every page once."""
    from tests.crawlrun import finish, start_crawl, wait_for
    from wackycrawl.crawl.owner import MARKER

    corpus = tmp_path / "corpus"
    first_job = {**SETTINGS, "DEPTH_LIMIT": "0", "WACKY_OUTPUT_DIR": str(corpus),
                 "JOBDIR": str(tmp_path / "job1")}
    seeds = ["http://h0.chain.test/p0.html"]
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=1, per_host=3)
        proc, stats = start_crawl(web, seeds, tmp_path / "first",
                                  {**first_job, "DOWNLOAD_DELAY": "30"})
        assert wait_for(lambda: (corpus / MARKER).exists() and web.hits, timeout=60)
        second = {**first_job, "JOBDIR": str(tmp_path / "job2"), "WACKY_DOCNO_PREFIX": "OTHER"}
        running = run_crawl(web, seeds, tmp_path / "second", second)
        assert proc.poll() is None and not list(corpus.glob("*.trec.gz*"))
        proc.terminate()
        stopped = finish(proc, tmp_path / "first", stats)
        assert stopped.stats.get("finish_reason") == "shutdown", stopped.log[-3000:]
        later = run_crawl(web, seeds, tmp_path / "later", second)
        resumed = run_crawl(web, seeds, tmp_path / "first", first_job)
    for refused, why in ((running, "which is running now"),
                         (later, "which has written no document yet and is resumed into it")):
        assert refused.returncode == 1, refused.log[-3000:]
        errors = [line for line in refused.log.splitlines() if " ERROR: " in line]
        assert len(errors) == 1 and f"WACKY_OUTPUT_DIR {corpus} is the folder of the crawl " \
            f"of JOBDIR {tmp_path / 'job1'}, {why}" in errors[0], errors
        assert "Spider opened" not in refused.log
    assert not (tmp_path / "job2" / FILENAME).exists()
    assert resumed.returncode == 0, resumed.log[-3000:]
    urls = [d.url for d in corpus_docs(corpus)]
    assert len(urls) == len(set(urls)) and set(urls) == expected
    assert all(d.docno.startswith("WACKY-") for d in corpus_docs(corpus))
