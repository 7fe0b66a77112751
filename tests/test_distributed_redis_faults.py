"""Redis faults beyond a clean restart, with real crawls over the local web and a real
redis-server: a server frozen (SIGSTOP) for less than the outage limit is a clean pause that
fetches no page twice (the server's clock ran on while nobody could renew a lease), frozen for
longer closes the workers with reason ``redis_outage``, and a server restarted without its
data is found out by the crawl's identity key (reason ``redis_state_lost``, nothing written
twice)."""

from __future__ import annotations

import signal
import time

import pytest
from scrapy.settings import Settings

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import build_chain_web, corpus_docs
from tests.test_distributed_crawl import SEED, page_hits, worker_settings
from tests.test_distributed_faults import assert_clean_pause
from wackycrawl.distributed import connection
from wackycrawl.distributed.keys import CrawlKeys

pytestmark = pytest.mark.crawl


def test_redis_frozen_under_the_limit_is_a_clean_pause(tmp_path):
    """SIGSTOP for longer than a lease: the workers notice the hung server within the
    command timeout (one WARNING each way), nobody reclaims a live worker's lease, no page
    is fetched twice, no lease is lost."""
    crawl = "frozen"
    corpus = tmp_path / "corpus"
    with RedisServer() as srv, LocalWeb() as web:
        expected = build_chain_web(web, hosts=4, per_host=6)
        s = {**worker_settings(srv, crawl, corpus, "w0", "0.2"),
             "WACKY_LEASE_SECONDS": "3", "WACKY_LEASE_RENEW_SECONDS": "0.5",
             "WACKY_REDIS_OUTAGE_SECONDS": "60"}
        procs = [start_crawl(web, [SEED], tmp_path / f"w{i}", {**s, "WACKY_WORKER_ID": f"w{i}"})
                 for i in range(2)]
        assert wait_for(lambda: len(corpus_docs(corpus)) >= 4, timeout=90)
        srv.proc.send_signal(signal.SIGSTOP)
        time.sleep(8)  # well past the 3 s leases, well below the 60 s limit
        srv.proc.send_signal(signal.SIGCONT)
        results = [finish(p, tmp_path / f"w{i}", f, timeout=180) for i, (p, f) in enumerate(procs)]
        hits = page_hits(web)
    for result in assert_clean_pause(results, hits, corpus, expected):
        assert "dead worker put back" not in result.log
        assert not result.stat("wacky/frontier/lease_lost"), result.log[-3000:]


def test_redis_frozen_past_the_limit_closes_the_workers(tmp_path):
    """A hung server counts toward WACKY_REDIS_OUTAGE_SECONDS from the command that hung:
    the worker closes with reason redis_outage soon after the limit, not after the socket
    timeouts of scrapy-redis (30 s, twice)."""
    crawl = "hung"
    corpus = tmp_path / "corpus"
    with RedisServer() as srv, LocalWeb() as web:
        build_chain_web(web, hosts=4, per_host=6)
        s = {**worker_settings(srv, crawl, corpus, "w0", "0.3"),
             "WACKY_LEASE_SECONDS": "4", "WACKY_LEASE_RENEW_SECONDS": "0.5",
             "WACKY_REDIS_OUTAGE_SECONDS": "4"}
        proc, stats = start_crawl(web, [SEED], tmp_path / "w0", s)
        assert wait_for(lambda: len(corpus_docs(corpus)) >= 2, timeout=90)
        srv.proc.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            assert wait_for(lambda: proc.poll() is not None, timeout=30)
            took = time.monotonic() - stopped
        finally:
            srv.proc.send_signal(signal.SIGCONT)
        result = finish(proc, tmp_path / "w0", stats, timeout=30)
    assert result.stats.get("finish_reason") == "redis_outage", result.log[-3000:]
    assert result.returncode == 1
    assert took < 20, f"closed {took:.1f} s after the server froze (limit 4 s)"
    assert "Traceback" not in result.log, result.log[-3000:]
    assert result.log.count("crawl paused until it answers") == 1


def test_redis_restarted_without_its_data_closes_the_crawl(tmp_path):
    """An empty Redis after a restart (no AOF/RDB) has lost the seen set, the written set and
    the dedup index: the workers find the identity key gone, say so in one ERROR each and
    close with reason redis_state_lost; nothing is written twice."""
    crawl = "amnesia"
    corpus = tmp_path / "corpus"
    with RedisServer() as srv, LocalWeb() as web:
        build_chain_web(web, hosts=4, per_host=8)
        s = {**worker_settings(srv, crawl, corpus, "w0", "0.2"),
             "WACKY_REDIS_OUTAGE_SECONDS": "60"}
        procs = [start_crawl(web, [SEED], tmp_path / f"w{i}", {**s, "WACKY_WORKER_ID": f"w{i}"})
                 for i in range(2)]
        assert wait_for(lambda: len(corpus_docs(corpus)) >= 6, timeout=90)
        assert srv.client().get(CrawlKeys(crawl).id)
        srv.kill()
        time.sleep(1)
        srv.start()  # same port, no data
        results = [finish(p, tmp_path / f"w{i}", f, timeout=90) for i, (p, f) in enumerate(procs)]
        hits = page_hits(web)
    for result in results:
        assert result.returncode == 1, result.log[-3000:]  # closed by a failure
        assert result.stats.get("finish_reason") == "redis_state_lost", result.log[-3000:]
        assert result.stat("wacky/redis/state_lost") == 1
        assert "Traceback" not in result.log, result.log[-3000:]
        errors = [line for line in result.log.splitlines() if " ERROR: " in line]
        assert len(errors) == 1 and "lost the state of crawl amnesia" in errors[0], errors
        assert "restore" in errors[0].lower() and "new crawl" in errors[0]
    urls = [d.url for d in corpus_docs(corpus)]
    assert len(urls) == len(set(urls)), [u for u in urls if urls.count(u) > 1]
    assert max(hits.values()) <= 2


def test_a_worker_started_on_a_redis_that_lost_a_finished_crawl_writes_nothing(tmp_path):
    """All workers had stopped when Redis lost its data: a worker started then finds no state
    in Redis, but the output folder recorded the crawl's identity. Taken for a new crawl it
    would fetch and write every page again into that folder; it says so in one ERROR, writes
    nothing and closes with reason redis_state_lost (exit status 1)."""
    crawl = "forgotten"
    corpus = tmp_path / "corpus"
    with RedisServer() as srv, LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=4)
        s = worker_settings(srv, crawl, corpus, "w0")
        first = run_crawl(web, [SEED], tmp_path / "w0", s)
        assert first.stats.get("finish_reason") == "finished", first.log[-3000:]
        assert (corpus / "wacky-crawl-id.txt").read_text().strip() == \
            srv.client().get(CrawlKeys(crawl).id).decode()
        srv.client().flushall()  # as a restart without AOF or RDB leaves it
        served = len(web.hits)
        again = run_crawl(web, [SEED], tmp_path / "w1", {**s, "WACKY_WORKER_ID": "w1"})
        fetched_again = len(web.hits) - served
    assert again.returncode == 1, again.log[-3000:]
    assert again.stats.get("finish_reason") == "redis_state_lost", again.log[-3000:]
    assert again.stat("wacky/redis/state_lost") == 1
    assert "Traceback" not in again.log, again.log[-3000:]
    errors = [line for line in again.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "holds no state of crawl forgotten" in errors[0], errors
    assert fetched_again == 0
    urls = [d.url for d in corpus_docs(corpus)]
    assert sorted(urls) == sorted(expected)


def test_identity_key_of_a_new_crawl_and_of_an_older_one(tmp_path, caplog):
    """A worker's start: no key and no state - a new crawl, a new id; state without a key
    (a crawl made before identity keys) - adopted; a key - kept."""
    from wackycrawl.distributed.connection import CrawlState

    with RedisServer() as srv:
        r = srv.client()
        new, old = CrawlKeys("new"), CrawlKeys("old")
        r.sadd(old.seen, b"x" * 20)
        caplog.set_level("INFO")
        try:
            first = CrawlState.open(r, new)
            assert r.get(new.id).decode() == first and "is new" in caplog.text
            assert CrawlState.open(r, new) == first
            adopted = CrawlState.open(r, old)
            assert r.get(old.id).decode() == adopted and "adopted" in caplog.text
            assert adopted != first
        finally:
            CrawlState.reset()


def test_command_timeout_is_derived_from_the_leases_unless_given():
    # (lease - 2 renewals) / 2 within 0.5..5 s; WACKY_REDIS_TIMEOUT wins; REDIS_PARAMS'
    # socket timeouts win over both, for the blocking and the asyncio client
    def timeout(**values):
        return connection.command_timeout(Settings(values))

    assert timeout() == 5.0  # leases of 60 s renewed every 10 s
    assert timeout(WACKY_LEASE_SECONDS=3, WACKY_LEASE_RENEW_SECONDS=0.5) == 1.0
    assert timeout(WACKY_LEASE_SECONDS=1, WACKY_LEASE_RENEW_SECONDS=0.4) == 0.5
    assert timeout(WACKY_REDIS_TIMEOUT=2) == 2.0
    with RedisServer() as srv:
        base = {"REDIS_URL": srv.url, "WACKY_FRONTIER": "redis"}
        derived = connection.from_settings(Settings(base))
        given = Settings({**base, "REDIS_PARAMS": {"socket_timeout": 9}})
        kwargs = [c.connection_pool.connection_kwargs for c in (
            derived, connection.from_settings(given), connection.async_from_settings(given))]
        assert [k["socket_timeout"] for k in kwargs] == [5.0, 9, 9]
        assert [k["socket_connect_timeout"] for k in kwargs] == [5.0, 5.0, 5.0]
