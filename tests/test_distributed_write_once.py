"""Exactly once through a Redis outage and ``kill -9``, with real crawls over the local web and
a real redis-server. Redis stops while a document is on its way to the TREC writer (a pipeline
before the writer stops it, so the moment is exact):

* the worker does not know yet (no round trip per document): the document is written, its
  record waits, the worker is killed (``kill -9``) in the outage; a worker started on the same
  output folder recovers the dead worker's TREC file and records its URLs as written, so the
  page is not written again;
* the worker knows (a command waited for Redis, killed, before the document reached the
  writer) and the outage passes its limit: the document is not written (``redis_unreachable``), and the
  worker that finishes the crawl writes it, once.

And Redis up, a worker killed (``kill -9``) right after writing a document, before its URL
is recorded: a worker on another output folder writes the page again once the lease expires,
and a worker started on the dead one's folder leaves the dead worker's copy out of the
recovered file: across both folders every page once."""

from __future__ import annotations

import json
import os
import signal

import pytest
import redis

from tests.crawlrun import finish, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import build_chain_web, corpus_docs
from tests.test_distributed_crawl import SEED, wackycrawl, worker_settings
from wackycrawl.settings import ITEM_PIPELINES

pytestmark = pytest.mark.crawl

FREEZE_AT = 3  # the kept document on whose way to the writer Redis is stopped
KILL_AT = 3  # the written document after which the worker kills itself


class StopRedisBeforeTheWriter:
    """Test pipeline before the TREC writer: at the ``FREEZE_AT``-th item, send the
    redis-server (environment ``WACKY_TEST_REDIS_PID``) ``WACKY_TEST_REDIS_SIGNAL`` (SIGKILL:
    the record of the document is lost with the server; SIGSTOP: it would wait in the
    server's socket); with ``WACKY_TEST_REDIS_WAIT=1`` also wait for it through the crawl's
    blocking client (the worker then knows of the outage)."""

    def __init__(self, crawler):
        from wackycrawl.distributed import connection

        self.pid = int(os.environ["WACKY_TEST_REDIS_PID"])
        self.signal = int(os.environ["WACKY_TEST_REDIS_SIGNAL"])
        self.wait = os.environ.get("WACKY_TEST_REDIS_WAIT") == "1"
        self.server = connection.from_settings(crawler.settings)
        self.items = 0

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item):
        self.items += 1
        if self.items == FREEZE_AT:
            os.kill(self.pid, self.signal)
            if self.wait:
                try:
                    self.server.ping()
                except redis.RedisError:
                    pass  # past WACKY_REDIS_OUTAGE_SECONDS
        return item


def pipelines() -> str:
    return json.dumps({**ITEM_PIPELINES, f"{__name__}.StopRedisBeforeTheWriter": 800})


def settings(srv, crawl: str, corpus, sig: int, wait: bool, monkeypatch) -> dict:
    monkeypatch.setenv("WACKY_TEST_REDIS_PID", str(srv.proc.pid))
    monkeypatch.setenv("WACKY_TEST_REDIS_SIGNAL", str(int(sig)))
    monkeypatch.setenv("WACKY_TEST_REDIS_WAIT", "1" if wait else "0")
    return {**worker_settings(srv, crawl, corpus, "wa", "0.2"), "ITEM_PIPELINES": pipelines()}


def assert_written_once(corpus, expected: set[str], log: str) -> None:
    urls = [d.url for d in corpus_docs(corpus)]
    assert sorted({u for u in urls if urls.count(u) > 1}) == [], log[-3000:]
    assert set(urls) == expected


def first_worker(srv, web, tmp_path, crawl: str, wait: bool, outage: str, monkeypatch):
    """The chain web served, and the first worker started on it (Redis killed on the way
    to its writer): (expected URLs, its settings, its process, its stats file)."""
    expected = build_chain_web(web, hosts=4, per_host=6)
    s = {**settings(srv, crawl, tmp_path / "corpus", signal.SIGKILL, wait, monkeypatch),
         "WACKY_REDIS_OUTAGE_SECONDS": outage}
    return (expected, s, *start_crawl(web, [SEED], tmp_path / "a", s))


def second_worker(srv, web, tmp_path, s: dict):
    """Redis restarted from its AOF, then a second worker on the same output folder, without
    the test pipeline, run to its end: its CrawlResult."""
    srv.start()
    b, b_stats = start_crawl(web, [SEED], tmp_path / "b",
                             {**s, "WACKY_WORKER_ID": "wb",
                              "ITEM_PIPELINES": json.dumps(ITEM_PIPELINES)})
    return finish(b, tmp_path / "b", b_stats, timeout=120)


def test_kill_9_in_an_outage_after_a_write_writes_each_page_once(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    with RedisServer(aof=True) as srv, LocalWeb() as web:
        expected, s, proc, _ = first_worker(srv, web, tmp_path, "once", False, "60", monkeypatch)
        log = tmp_path / "a" / "crawl.log"
        try:
            assert wait_for(lambda: "Redis unreachable" in log.read_text()
                            or proc.poll() is not None, timeout=90), \
                log.read_text()[-3000:]
            assert proc.poll() is None, log.read_text()[-3000:]
            proc.kill()
            proc.wait()
        finally:
            srv.kill()
        first = log.read_text()
        result = second_worker(srv, web, tmp_path, s)
    assert "Traceback" not in first and "Traceback" not in result.log, result.log[-3000:]
    assert result.returncode == 0, result.log[-3000:]
    assert_written_once(corpus, expected, first)
    assert result.stat("wacky/frontier/reconciled") == 1, result.log[-3000:]


def test_a_document_is_not_written_in_an_outage_past_its_limit(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    with RedisServer(aof=True) as srv, LocalWeb() as web:
        expected, s, proc, stats = first_worker(srv, web, tmp_path, "refused", True, "2",
                                                monkeypatch)
        try:
            first = finish(proc, tmp_path / "a", stats, timeout=90)
        finally:
            srv.kill()
        result = second_worker(srv, web, tmp_path, s)
    assert first.stats.get("finish_reason") == "redis_outage", first.log[-3000:]
    assert result.returncode == 0, result.log[-3000:]
    assert_written_once(corpus, expected, first.log)
    assert first.stat("wacky/redis/writes_refused") == 1, first.log[-3000:]
    assert first.stat("wacky/frontier/written_unrecorded") == 0
    assert first.log.count("documents are written once it answers again") == 1


class KillAfterTheWrite:
    """Test pipeline after the TREC writer: at the ``KILL_AT``-th document written, SIGKILL
    this worker. Its URL would be recorded after every stage: it is not."""

    def __init__(self):
        self.written = 0

    @classmethod
    def from_crawler(cls, crawler):
        return cls()

    def process_item(self, item):
        if item.get("docno"):
            self.written += 1
            if self.written == KILL_AT:
                os.kill(os.getpid(), signal.SIGKILL)
        return item


@pytest.mark.parametrize("dedup", [True, False], ids=["dedup", "no-dedup"])
def test_a_page_written_again_after_a_kill_9_is_once_in_the_corpus(tmp_path, dedup):
    """A is killed right after a write; B (another folder) writes that page again when A's
    lease expires; C, started on A's folder, leaves A's copy out of the recovered file."""
    folders = {w: tmp_path / w / "corpus" for w in ("a", "b")}
    with RedisServer() as srv, LocalWeb() as web:
        expected = build_chain_web(web, hosts=4, per_host=6)
        s = {**worker_settings(srv, "killed", folders["a"], "wa", "0.2"),
             **({} if dedup else {"WACKY_DEDUP_ENABLED": "False"})}
        killer = json.dumps({**ITEM_PIPELINES, f"{__name__}.KillAfterTheWrite": 950})
        a, _ = start_crawl(web, [SEED], tmp_path / "a", {**s, "ITEM_PIPELINES": killer})
        a.wait(timeout=90)
        assert a.returncode == -signal.SIGKILL
        assert list(folders["a"].glob("*.trec.gz.open"))
        b, b_stats = start_crawl(web, [SEED], tmp_path / "b", {
            **s, "WACKY_WORKER_ID": "wb", "WACKY_OUTPUT_DIR": str(folders["b"])})
        b = finish(b, tmp_path / "b", b_stats, timeout=120)
        c, c_stats = start_crawl(web, [SEED], tmp_path / "c", {**s, "WACKY_WORKER_ID": "wc"})
        c = finish(c, tmp_path / "c", c_stats, timeout=120)
        r = srv.client()
        assert not r.keys("wacky:killed:pending:*")
    for result in (b, c):
        assert result.returncode == 0 and "Traceback" not in result.log, result.log[-3000:]
    urls = [d.url for f in folders.values() for d in corpus_docs(f)]
    assert sorted({u for u in urls if urls.count(u) > 1}) == [], c.log[-3000:]
    assert set(urls) == expected
    check = wackycrawl("trec", "check", *map(str, folders.values()))
    assert check.returncode == 0 and "REPEATED" not in check.stdout, check.stdout[-3000:]
    assert c.stat("wacky/frontier/superseded") >= 1, c.log[-3000:]
    assert c.log.count("written again by another worker after their leases expired") == 1
    assert corpus_docs(folders["a"]), "the documents the dead worker recorded are kept"
