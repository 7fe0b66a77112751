"""The single-machine frontier (SQLite in JOBDIR): lease/ack rule, and a crawl killed with
``kill -9`` that resumes to the same documents as an uninterrupted one (C20)."""

from __future__ import annotations

import inspect

import pytest
from scrapy.core.engine import _Slot

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs
from tests.webpages import page, prose
from wackycrawl.distributed.local import FrontierLockedError, LocalFrontier
from wackycrawl.distributed.scheduler import frontier_mode
from wackycrawl.spiders.seeds import seed_request


def test_order_lease_ack_and_requeue(tmp_path):
    f = LocalFrontier(str(tmp_path), "w")
    f.open()
    for i, prio in enumerate([0, 0, 1, -1]):
        assert f.push(f"id{i}", prio, b"p%d" % i)
    assert not f.push("id0", 0, b"again")
    a = f.pop()
    assert a.id == "id2" and a.payload == b"p2"
    assert f.queued() == 3 and f.in_flight() == 1
    assert not f.ack("id2", "w#99")
    assert f.ack("id2", a.token) and f.in_flight() == 0
    b = f.pop()
    assert f.ack(b.id, b.token, requeue=True)
    assert [f.pop().id for _ in range(3)] == ["id0", "id1", "id3"]
    f.close()


def test_reopen_puts_leases_of_the_dead_run_back(tmp_path):
    f = LocalFrontier(str(tmp_path))
    f.open()
    f.push("a", 0, b"1")
    f.push("b", 0, b"2")
    f.pop()
    assert f.add(b"fp") and not f.add(b"fp")
    f.db.close()  # a crash: no close() of the run
    f._lock.close()
    g = LocalFrontier(str(tmp_path))
    assert g.open() == 1
    assert g.queued() == 2 and len(g) == 1 and not g.add(b"fp")
    assert [g.pop().id, g.pop().id] == ["a", "b"]
    g.close()


def test_second_process_on_one_jobdir_is_refused(tmp_path):
    f = LocalFrontier(str(tmp_path))
    f.open()
    with pytest.raises(FrontierLockedError):
        LocalFrontier(str(tmp_path)).open()
    f.close()


def test_mode_switch(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert frontier_mode({}) == "scrapy"
    assert frontier_mode({"JOBDIR": "/tmp/j"}) == "local"
    assert frontier_mode({"JOBDIR": "/tmp/j", "REDIS_URL": "redis://x"}) == "redis"
    monkeypatch.setenv("REDIS_URL", "redis://x")
    assert frontier_mode({}) == "redis"
    assert frontier_mode({"WACKY_FRONTIER": "scrapy"}) == "scrapy"
    with pytest.raises(ValueError):
        frontier_mode({"WACKY_FRONTIER": "disk"})


def test_engine_internals_the_ack_rule_relies_on():
    """Requests leave the engine slot's ``inprogress`` set only once fully handled; the
    slot's ``nextcall`` wakes the engine."""
    source = inspect.getsource(_Slot)
    assert "self.inprogress" in source and "self.nextcall" in source


def test_seed_formats():
    assert seed_request(b'{"url": "http://a.test/", "meta": {"k": 1}}').meta["k"] == 1
    req = seed_request(b"http://a.test/x")
    assert req.url == "http://a.test/x" and req.dont_filter
    assert seed_request(b'{"nourl": 1}') is None
    assert seed_request(b"ftp://a.test/") is None
    assert seed_request(b"{broken") is None


def build_copy_web(web: LocalWeb) -> set[str]:
    """The chain web plus a slow late page whose text is the seed page's (an exact copy)."""
    expected = build_chain_web(web)
    web.add("http://h3.chain.test/p7.html", page("Page 31", prose(131), links=[
        "http://h0.chain.test/p0.html", "http://copy.chain.test/"]), delay=0.05)
    web.add("http://copy.chain.test/", page("Page 0", prose(100), links=[
        "http://h0.chain.test/p1.html", "http://h1.chain.test/p0.html"]), delay=0.05)
    return expected


@pytest.mark.crawl
def test_kill_9_and_resume_gives_the_documents_of_an_uninterrupted_crawl(tmp_path):
    """C20 for the local frontier: the requests in flight when the crawl is killed are
    fetched on resume (none lost), no URL is written twice, and the seed page's copy, seen
    after the resume, is still an exact duplicate although the dedup state was never
    saved (WACKY_DEDUP_SAVE_EVERY is larger than the crawl)."""
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "1", "WACKY_DEDUP_SAVE_EVERY": "1000"}
    seeds = ["http://h0.chain.test/p0.html"]
    with LocalWeb() as web:
        expected = build_copy_web(web)
        full = run_crawl(web, seeds, tmp_path / "full", settings)
        assert {d.url for d in corpus_docs(full.outdir)} == expected
        assert full.stat("wacky/drop/exact_duplicate") == 1

        out = tmp_path / "killed"
        job = {**settings, "JOBDIR": str(out / "job")}
        proc, _ = start_crawl(web, seeds, out, job)
        corpus = out / "corpus"
        assert wait_for(lambda: sum(len(p.read_text().splitlines())
                                    for p in corpus.glob("*.idx.tsv")) >= 7, timeout=60)
        proc.kill()
        proc.wait()
        n_killed = len(corpus_docs(corpus))
        assert 0 < n_killed < len(expected)
        second = run_crawl(web, seeds, out, job)
    assert second.returncode == 0, second.log[-3000:]
    assert "in flight in the last run put back" in second.log
    assert second.stat("wacky/frontier/reclaimed") >= 1  # killed with requests in flight
    assert second.stat("wacky/frontier/replayed") >= n_killed - 1
    urls = [d.url for d in corpus_docs(corpus)]
    assert len(urls) == len(set(urls)), "a document was written twice"
    assert set(urls) == expected


def test_c17_every_spider_starts_with_async_start():
    """Scrapy >= 2.16 never calls start_requests(): a spider relying on it crawls nothing,
    silently (C17). Seeds of a Redis crawl come through the scheduler, not RedisSpider."""
    from scrapy.spiderloader import SpiderLoader
    from scrapy.utils.project import get_project_settings

    loader = SpiderLoader.from_settings(get_project_settings())
    assert loader.list()
    for name in loader.list():
        cls = loader.load(name)
        assert inspect.isasyncgenfunction(cls.start) and "start" in vars(cls), name
        assert "start_requests" not in vars(cls), f"{name} defines start_requests()"


@pytest.mark.crawl
def test_second_crawl_on_a_jobdir_in_use_stops_in_one_error_line(tmp_path):
    """A resume started while the first crawl still runs on the JOBDIR: one ERROR line
    naming the frontier file, exit status 1, no traceback, and the first crawl's corpus is
    untouched (it finishes with every document, none twice)."""
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "1"}
    seeds = ["http://h0.chain.test/p0.html"]
    first_out = tmp_path / "first"
    job = {**settings, "JOBDIR": str(first_out / "job")}
    with LocalWeb() as web:
        expected = build_chain_web(web)
        proc, stats = start_crawl(web, seeds, first_out, job)
        corpus = first_out / "corpus"
        assert wait_for(lambda: any(p.read_text().count("\n") >= 3
                                    for p in corpus.glob("*.idx.tsv")), timeout=90)
        assert proc.poll() is None, "the first crawl ended before the second one started"
        second = run_crawl(web, seeds, tmp_path / "second",
                           {**job, "WACKY_OUTPUT_DIR": str(corpus)}, timeout=120)
        first = finish(proc, first_out, stats, timeout=180)
    assert second.returncode == 1, second.log[-3000:]
    errors = [line for line in second.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "wacky-frontier.sqlite is used by another process" in errors[0]
    assert "Traceback" not in second.log and "Spider opened" not in second.log
    assert first.returncode == 0, first.log[-3000:]
    urls = [d.url for d in corpus_docs(corpus)]
    assert len(urls) == len(set(urls)) and set(urls) == expected


def test_promote_raises_a_queued_request_and_leaves_a_leased_one(tmp_path):
    f = LocalFrontier(str(tmp_path))
    f.open()
    f.push("first", -1, b"depth 1")
    f.push("deep", -3, b"depth 3")
    f.push("other", -2, b"depth 2")
    assert f.promote("deep", -1, lambda: b"depth 1 now")  # found again at depth 1
    assert not f.promote("deep", -2, lambda: pytest.fail("payload built for no change"))
    assert not f.promote("nowhere", 0, lambda: b"")
    popped = [f.pop() for _ in range(2)]
    assert [(p.id, p.payload) for p in popped] == [("first", b"depth 1"),
                                                     ("deep", b"depth 1 now")]
    assert not f.promote("deep", 0, lambda: b"leased")  # leased: not changed
    f.ack("deep", popped[1].token)
    assert f.pop().id == "other"
    f.close()
