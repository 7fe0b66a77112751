"""When a Redis worker closes, in real crawls over the local web with a real redis-server:
a crawl whose last host answers robots.txt 503 closes with reason ``idle`` after
WACKY_IDLE_CLOSE_SECONDS, its parked requests kept in Redis and fetched by a worker started
once they are due; scrapy-redis's MAX_IDLE_TIME_BEFORE_CLOSE (0: a standing worker that
waits for seeds) and SCHEDULER_IDLE_BEFORE_CLOSE (a wait for new requests, not a blocking
pop) keep their documented meaning."""

from __future__ import annotations

import time

import pytest

from tests.crawlrun import finish, start_crawl, stop, wait_for
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_distributed_crawl import page_hits, worker_settings
from tests.test_parking_crawl import down_web
from tests.test_robots_crawl import NO_PIPELINES, TXT, add_pages, pages, paths
from wackycrawl.distributed.keys import CrawlKeys

pytestmark = pytest.mark.crawl

NO_SEEDS = ["# seeds come from Redis"]


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


def settings(srv, crawl: str, tmp_path, **extra: str) -> dict:
    return {**worker_settings(srv, crawl, tmp_path / "corpus", "w"), **NO_PIPELINES, **extra}


def seen_at(log_path, text: str, timeout: float = 90) -> float:
    """time.monotonic() when ``text`` first appears in the crawl log (polled every 20 ms)."""
    assert wait_for(lambda: text in log_path.read_text(errors="replace"), timeout, 0.02), text
    return time.monotonic()


def test_last_host_with_robots_503_closes_as_idle_and_its_parked_requests_wait_in_redis(
        redis_server, tmp_path):
    r, keys = redis_server.client(), CrawlKeys("park")
    s = settings(redis_server, "park", tmp_path, WACKY_ROBOTS_RETRY_SECONDS="6",
                 WACKY_IDLE_CLOSE_SECONDS="2", WACKY_PROGRESS_INTERVAL="1")
    seeds = pages("ok.test", 2) + pages("down.test", 2)
    with LocalWeb() as web:
        down_web(web)
        proc, stats = start_crawl(web, seeds, tmp_path / "first", s)
        log = tmp_path / "first" / "crawl.log"
        idle = seen_at(log, "only 2 parked requests left: closing as idle in 2 s")
        closed = seen_at(log, "Closing spider (idle)")
        first = finish(proc, tmp_path / "first", stats, timeout=60)
        assert 1.5 < closed - idle < 2 + 6, closed - idle  # the idle time, not an open end
        assert r.zcard(keys.parked) == 2 and r.zcard(keys.queue) == r.zcard(keys.inflight) == 0
        assert paths(web, "down.test") == ["/robots.txt"]

        web.add("http://down.test/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT)
        due = r.zrange(keys.parked, -1, -1, withscores=True)[0][1]
        assert wait_for(lambda: (t := r.time())[0] + t[1] / 1e6 > due, timeout=30)
        proc, stats = start_crawl(web, seeds, tmp_path / "second", s)
        second = finish(proc, tmp_path / "second", stats, timeout=90)
    assert first.returncode == 0 and first.stats.get("finish_reason") == "idle", first.log[-3000:]
    assert "parked 2 on 1 hosts, next retry in" in first.log
    assert second.stats.get("finish_reason") == "finished", second.log[-3000:]
    assert sorted(paths(web, "down.test")) == ["/p0.html", "/p1.html", "/robots.txt",
                                               "/robots.txt"]
    assert sorted(paths(web, "ok.test")) == ["/p0.html", "/p1.html", "/robots.txt"]  # once each
    assert r.zcard(keys.parked) == 0


def test_max_idle_time_before_close_0_is_a_standing_worker_waiting_for_seeds(
        redis_server, tmp_path):
    key = "standing:seeds"  # the spider's redis_key, given as scrapy-redis allows: -a
    s = settings(redis_server, "standing", tmp_path, MAX_IDLE_TIME_BEFORE_CLOSE="0",
                 WACKY_IDLE_CLOSE_SECONDS="1")
    with LocalWeb() as web:
        add_pages(web, "late.test", 1)
        proc, stats = start_crawl(web, NO_SEEDS, tmp_path / "w", s,
                                  spider_args={"redis_key": key})
        log = tmp_path / "w" / "crawl.log"
        seen_at(log, f"not closing, waiting for seeds in {key}")
        time.sleep(3)  # three times WACKY_IDLE_CLOSE_SECONDS: still running
        assert proc.poll() is None, log.read_text()[-3000:]
        redis_server.client().lpush(key, pages("late.test", 1)[0])
        assert wait_for(lambda: paths(web, "late.test") == ["/robots.txt", "/p0.html"], 60)
        assert wait_for(lambda: log.read_text().count("waiting for seeds in") == 2, 30)
        time.sleep(2)
        assert proc.poll() is None
        stop(proc)
        result = finish(proc, tmp_path / "w", stats, timeout=60)
    assert result.stats.get("finish_reason") == "shutdown", result.log[-3000:]


@pytest.mark.parametrize("setting", ["MAX_IDLE_TIME_BEFORE_CLOSE", "SCHEDULER_IDLE_BEFORE_CLOSE"])
def test_idle_settings_of_scrapy_redis_wait_for_new_work_then_close(redis_server, tmp_path,
                                                                   setting):
    """MAX_IDLE_TIME_BEFORE_CLOSE=3 wins over WACKY_IDLE_CLOSE_SECONDS=30;
    SCHEDULER_IDLE_BEFORE_CLOSE=3 lengthens WACKY_IDLE_CLOSE_SECONDS=1. Either way a seed
    pushed during the wait is crawled (by this worker, without a blocking pop), and the
    worker closes as finished 3 s after it ran out of work again."""
    crawl = setting.split("_")[0].lower()
    wacky = "30" if setting.startswith("MAX") else "1"
    s = settings(redis_server, crawl, tmp_path, **{setting: "3", "WACKY_IDLE_CLOSE_SECONDS": wacky})
    start_key = CrawlKeys(crawl).start_urls
    r = redis_server.client()
    with LocalWeb() as web:
        add_pages(web, "a.test", 1)
        add_pages(web, "b.test", 1)
        r.lpush(start_key, "http://a.test/p0.html")
        proc, stats = start_crawl(web, NO_SEEDS, tmp_path / "w", s)
        log = tmp_path / "w" / "crawl.log"
        waiting = "nothing queued, leased or parked: closing in 3 s unless work arrives"
        seen_at(log, waiting)
        time.sleep(1.5)
        r.lpush(start_key, '{"url": "http://b.test/p0.html"}')
        assert wait_for(lambda: log.read_text().count(waiting) == 2, 60, 0.02)
        again = time.monotonic()
        closed = seen_at(log, "Closing spider (finished)")
        result = finish(proc, tmp_path / "w", stats, timeout=60)
        hits = page_hits(web)
    assert result.returncode == 0, result.log[-3000:]
    assert 2.5 < closed - again < 3 + 6, closed - again
    assert hits == {("a.test", "/p0.html"): 1, ("b.test", "/p0.html"): 1}
    assert result.stat("wacky/frontier/seeds") == 2
