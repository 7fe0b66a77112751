"""End to end: a real ``scrapy crawl seeds`` over a local multi-host web on 127.0.0.1.

The web holds one host per case of the main job: robots.txt Disallow and Crawl-delay, a tiny
page whose links are followed, an oversize page, a gzip bomb, a cp1252 page labelled
ISO-8859-1, a page in another language, an exact and a near copy on other hosts, a word list
without prose and a page whose text contains TREC markup. Assertions are on the TREC files
(read back with the project's reader) and on the crawl's stats.
"""

from __future__ import annotations

import gzip
import itertools
import os
import signal
from pathlib import Path

import pytest

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.webpages import page, prose, word_list
from wackycrawl.settings import WACKY_STAGES
from wackycrawl.trec.reader import check, iter_docs

pytestmark = pytest.mark.crawl

SETTINGS = {"WACKY_LANGUAGES": "en", "CONCURRENT_REQUESTS_PER_DOMAIN": "1"}


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.glob("*.trec.gz*") if not p.name.endswith(".tsv"))


def corpus_docs(corpus: Path) -> list:
    return [doc for f in corpus_files(corpus) for _, doc in iter_docs(str(f))]


def build_case_web(web: LocalWeb) -> dict:
    """Register the cases; returns what the crawl must keep and must refuse."""
    txt = "text/plain"
    a1 = page("Alpha one", prose(1))
    web.add("http://www.alpha.test/robots.txt", "User-agent: *\nDisallow: /private/\n",
            content_type=txt)
    web.add("http://www.alpha.test/", page("Alpha", prose(0), links=[
        "/a1.html", "/private/secret.html", "/tiny.html", "http://slow.test/",
        "http://big.test/", "http://bomb.test/", "http://latin.test/", "http://fremd.test/",
        "http://copy.test/", "http://near.test/", "http://words.test/", "http://markup.test/",
        "/report.pdf"]))
    web.add("http://www.alpha.test/a1.html", a1)
    web.add("http://www.alpha.test/private/secret.html", page("Secret", prose(2)))
    web.add("http://www.alpha.test/tiny.html",
            '<html><body><a href="http://tinychild.test/">more</a></body></html>')
    web.add("http://tinychild.test/", page("Child", prose(3)))
    # Crawl-delay: 1 s between requests to slow.test, the robots.txt request included
    web.add("http://slow.test/robots.txt", "User-agent: *\nCrawl-delay: 1\n", content_type=txt)
    web.add("http://slow.test/", page("Slow", prose(4), links=["/s1.html", "/s2.html"]))
    web.add("http://slow.test/s1.html", page("Slow 1", prose(5)))
    web.add("http://slow.test/s2.html", page("Slow 2", prose(6)))
    web.add("http://big.test/", page("Big", prose(7, min_chars=300_000)))
    web.add("http://bomb.test/", gzip.compress(b"<html><body>" + b" " * 30_000_000),
            headers={"Content-Encoding": "gzip"})
    latin = page("Latin", prose(8) + [("Price: \u20ac10 \u2013 \u201cspecial\u201d offer, don\u2019t"
                                      " miss it: the caf\u00e9 and the na\u00efve cr\u00e8me.")])
    web.add("http://latin.test/", latin.encode("cp1252"),
            content_type="text/html; charset=ISO-8859-1")
    web.add("http://fremd.test/", page("Fremd", prose(9, lang="de")))
    web.add("http://copy.test/", a1)
    near = prose(1)
    near[0] = near[0].replace("The", "A", 1)
    web.add("http://near.test/", page("Alpha one (mirror)", near, nav_links=5))
    web.add("http://words.test/", word_list(10))
    markup = prose(11) + [("The file ends with </DOC> and then <DOC><DOCNO>FAKE-1</DOCNO> "
                          "starts &amp; nothing else happens.")]
    web.add("http://markup.test/", page("Markup", markup))
    web.add("http://www.alpha.test/report.pdf", b"%PDF-1.4 binary", content_type="application/pdf")
    return {
        "kept": {"http://www.alpha.test/", "http://tinychild.test/", "http://slow.test/",
                 "http://slow.test/s1.html", "http://slow.test/s2.html", "http://latin.test/",
                 "http://markup.test/"},
        "one_of": {"http://www.alpha.test/a1.html", "http://copy.test/", "http://near.test/"},
        "refused": {"http://www.alpha.test/tiny.html", "http://big.test/", "http://bomb.test/",
                    "http://fremd.test/", "http://words.test/"},
    }


@pytest.fixture(scope="module")
def case_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("e2e")
    with LocalWeb() as web:
        expected = build_case_web(web)
        result = run_crawl(web, ["# seeds", "http://www.alpha.test/"], out, SETTINGS, timeout=180)
        hits = list(web.hits)
    return result, expected, hits


def test_crawl_finishes_and_writes_valid_trec(case_crawl):
    result, _, _ = case_crawl
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats.get("finish_reason") == "finished"
    files = corpus_files(result.outdir)
    assert files and all(not f.name.endswith(".open") for f in files)
    for f in files:
        assert check(str(f)).ok, check(str(f)).problems
    assert "wacky summary: pages fetched" in result.log


def test_kept_documents(case_crawl):
    result, expected, _ = case_crawl
    urls = [d.url for d in corpus_docs(result.outdir)]
    assert len(urls) == len(set(urls)), "a URL was written twice"
    assert expected["kept"] <= set(urls)
    assert len(set(urls) & expected["one_of"]) == 1, "exact/near copies must be kept once"
    assert not set(urls) & expected["refused"]
    assert result.stat("wacky/kept") == len(urls)
    # which of the three is kept depends on arrival order; the other two are duplicates
    assert result.stat("wacky/drop/exact_duplicate") + result.stat("wacky/drop/near_duplicate") == 2


def test_robots_disallow_and_crawl_delay(case_crawl):
    result, _, hits = case_crawl
    paths = {(h.host, h.path) for h in hits}
    assert ("www.alpha.test", "/private/secret.html") not in paths
    assert result.stat("wacky/robots/forbidden") >= 1
    slow = sorted(h.time for h in hits if h.host == "slow.test")
    assert len(slow) >= 4  # robots.txt, 3 pages and the links of their menus
    gaps = [b - a for a, b in itertools.pairwise(slow)]
    assert min(gaps) >= 0.95, gaps


def test_size_window(case_crawl):
    result, _, hits = case_crawl
    assert ("tinychild.test", "/") in {(h.host, h.path) for h in hits}  # tiny page's link followed
    assert result.stat("wacky/size/too_small") >= 1
    assert result.stat("wacky/size/too_large_wire") + result.stat("wacky/size/too_large_decoded") >= 2
    # the 30 MB gzip bomb is cancelled once its decoded bytes pass the window, never expanded
    # in full (peak RSS cannot show it: loading the stages peaks higher than 30 MB)
    bomb = [line for line in result.log.splitlines() if "too_large_decoded: http://bomb.test/" in line]
    assert len(bomb) == 1 and "download cancelled" in bomb[0], bomb
    assert ("www.alpha.test", "/report.pdf") not in {(h.host, h.path) for h in hits}


def test_encoding_language_prose_and_markup(case_crawl):
    result, _, _ = case_crawl
    docs = {d.url: d for d in corpus_docs(result.outdir)}
    latin = docs["http://latin.test/"].text
    assert "\u20ac10 \u2013 \u201cspecial\u201d offer" in latin and "\ufffd" not in latin
    assert result.stat("wacky/drop/wrong_language") == 1
    assert result.stat("wacky/drop/not_prose") == 1
    markup = docs["http://markup.test/"]
    assert "ends with </DOC> and then <DOC><DOCNO>FAKE-1</DOCNO> starts &amp; nothing" in markup.text
    assert markup.meta["Language"] == "en"
    for key in ("Language-Score", "Encoding", "Raw-Bytes", "Clean-Chars", "Simhash", "Extractor"):
        assert key in markup.meta, key
    lang_meta = {k: markup.meta[k] for k in ("Language-Top2", "Language-Mix", "Language-Foreign",
                                             "Funcword-Share", "Funcword-Types", "Funcword-Tokens")}
    assert lang_meta["Language-Top2"].startswith("en:") and lang_meta["Language-Mix"][:3] == "en:"
    assert lang_meta["Language-Foreign"] == "-" and 0 < float(lang_meta["Funcword-Share"]) < 1
    assert int(lang_meta["Funcword-Types"]) >= 10 and int(lang_meta["Funcword-Tokens"]) >= 30
    docnos = [d.docno for d in docs.values()]
    assert len(docnos) == len(set(docnos))


# --- stop and resume ------------------------------------------------------------------------

def build_chain_web(web: LocalWeb, hosts: int = 4, per_host: int = 8) -> set[str]:
    """Hosts whose pages link to each other: a crawl of a few seconds at one request per host."""
    urls = [f"http://h{h}.chain.test/p{i}.html" for h in range(hosts) for i in range(per_host)]
    for n, url in enumerate(urls):
        links = [urls[(n + 1) % len(urls)], urls[(n + per_host) % len(urls)]]
        web.add(url, page(f"Page {n}", prose(100 + n), links=links), delay=0.05)
    return set(urls)


def test_graceful_stop_and_resume_gives_the_same_documents(tmp_path):
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0"}
    with LocalWeb() as web:
        expected = build_chain_web(web)
        seeds = ["http://h0.chain.test/p0.html"]
        full = run_crawl(web, seeds, tmp_path / "full", settings)
        assert {d.url for d in corpus_docs(full.outdir)} == expected

        out = tmp_path / "resumed"
        job = {**settings, "JOBDIR": str(out / "job")}
        proc, stats_file = start_crawl(web, seeds, out, job)
        assert wait_for(lambda: len(list((out / "corpus").glob("*.idx.tsv"))) and sum(
            len(p.read_text().splitlines()) for p in (out / "corpus").glob("*.idx.tsv")) >= 6,
            timeout=60)
        proc.send_signal(signal.SIGTERM)
        first = finish(proc, out, stats_file)
        assert first.stats.get("finish_reason") == "shutdown"
        n_first = len(corpus_docs(out / "corpus"))
        assert 0 < n_first < len(expected)
        second = run_crawl(web, seeds, out, job)
        assert second.returncode == 0
    urls = [d.url for d in corpus_docs(out / "corpus")]
    assert len(urls) == len(set(urls)), "a document was written twice"
    assert set(urls) == expected


def test_kill_9_leaves_every_file_valid(tmp_path):
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0"}
    with LocalWeb() as web:
        build_chain_web(web)
        out = tmp_path / "killed"
        proc, _ = start_crawl(web, ["http://h0.chain.test/p0.html"], out,
                              {**settings, "JOBDIR": str(out / "job")})
        corpus = out / "corpus"
        assert wait_for(lambda: sum(len(p.read_text().splitlines())
                                    for p in corpus.glob("*.idx.tsv")) >= 4, timeout=60)
        proc.kill()
        proc.wait()
    files = corpus_files(corpus)
    assert files
    for f in files:
        result = check(str(f))
        assert result.ok, (f, result.problems)
        assert result.docs >= 1


class KillOnce:
    """A test stage, first in WACKY_STAGES: kills its own process (a stage worker, as the OOM
    killer would) at the page named by the environment variable ``KILL_ONCE_URL``, the first
    time only (the marker file ``KILL_ONCE_MARKER`` is made first)."""

    @classmethod
    def from_crawler(cls, crawler):
        return cls()

    def process_item(self, item):
        if item["url"] == os.environ.get("KILL_ONCE_URL"):
            try:
                with open(os.environ["KILL_ONCE_MARKER"], "x"):
                    pass
            except FileExistsError:
                return item
            os.kill(os.getpid(), signal.SIGKILL)
        return item


def test_a_page_lost_with_a_dead_stage_worker_is_fetched_again(tmp_path, monkeypatch):
    # The stage worker process dies with a page in flight: the page is dropped
    # (stage_worker_died) but its request goes back to the JOBDIR frontier, not acknowledged,
    # so the same crawl fetches it again and writes it: nothing lost, nothing doubled.
    monkeypatch.setenv("KILL_ONCE_URL", "http://h1.chain.test/p2.html")
    monkeypatch.setenv("KILL_ONCE_MARKER", str(tmp_path / "killed"))
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.1", "DEPTH_LIMIT": "0",
                "WACKY_STAGE_WORKERS": "1",
                "WACKY_STAGES": ",".join(["tests.test_crawl_e2e.KillOnce", *WACKY_STAGES])}
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=4)
        out = tmp_path / "out"
        result = run_crawl(web, ["http://h0.chain.test/p0.html"], out,
                           {**settings, "JOBDIR": str(out / "job")})
    assert (tmp_path / "killed").exists()
    assert result.stats.get("finish_reason") == "finished", result.log[-3000:]
    assert result.stat("wacky/drop/stage_worker_died") >= 1
    assert result.stat("wacky/stages/worker_restarts") == 1
    assert result.stat("wacky/frontier/requeued") >= 1
    assert "Traceback" not in result.log
    urls = [d.url for d in corpus_docs(out / "corpus")]
    assert sorted(urls) == sorted(expected)


def test_a_document_that_cannot_be_written_closes_the_crawl_and_its_page_stays_queued(tmp_path):
    # A DOCNO prefix too long for a file name: the first TREC write fails, as on a full disk.
    # The crawl closes (trec_write_error) instead of fetching pages whose documents would all
    # be lost, and its JOBDIR frontier keeps the pages not written: a resume writes them all.
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0"}
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=4)
        seeds = ["http://h0.chain.test/p0.html"]
        out = tmp_path / "out"
        job = {**settings, "JOBDIR": str(out / "job")}
        failed = run_crawl(web, seeds, out, {**job, "WACKY_DOCNO_PREFIX": "x" * 250})
        assert failed.stats.get("finish_reason") == "trec_write_error", failed.log[-3000:]
        assert failed.returncode == 1  # closed by a failure
        assert failed.stat("wacky/drop/trec_write_error") >= 1
        assert failed.stat("wacky/frontier/requeued") >= 1
        assert failed.stat("response_received_count") < len(expected)  # stopped early
        assert "Traceback" not in failed.log
        resumed = run_crawl(web, seeds, out, job)
        assert resumed.returncode == 0, resumed.log[-3000:]
    urls = [d.url for d in corpus_docs(out / "corpus")]
    assert len(urls) == len(set(urls)) and set(urls) == expected
