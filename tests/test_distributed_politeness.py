"""Cluster-wide politeness on a real redis-server: two RedisHostSchedules (two workers) share
one host schedule (owner, intervals, holds, back-off, leases of dead workers), and two worker
processes crawling the local web never hit one host closer than its interval (server log)."""

from __future__ import annotations

import time
from itertools import pairwise

import pytest
from scrapy.utils.test import get_crawler

from tests.crawlrun import finish, start_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import SETTINGS
from wackycrawl.crawl.politeness import Backoff, HostSchedule
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.politeness import RedisHostSchedule
from wackycrawl.middlewares.politeness import host_schedule

HOST = "a.example.test"
TOLERANCE = 0.05  # seconds; arrival times are taken by the server, claims by Redis


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


@pytest.fixture
def workers(redis_server, request):
    """Two workers' schedules of one fresh crawl, DOWNLOAD_DELAY 1 s."""
    keys = CrawlKeys(request.node.name.replace("[", "-").replace("]", ""))
    return tuple(RedisHostSchedule(redis_server.client(), keys, w, 1.0) for w in ("w0", "w1"))


def test_one_request_in_flight_per_host_across_workers(workers):
    a, b = workers
    req_a, req_b = object(), object()
    assert a.claim(HOST, req_a) == 0.0
    assert b.claim(HOST, req_b) is None  # w0's request is in flight
    assert a.claim("other.example.test", object()) == 0.0  # hosts are independent
    assert a.release(HOST, req_a)
    assert not b.release(HOST, req_b)  # held nothing
    wait = b.claim(HOST, req_b)
    assert wait is not None and 0.5 < wait <= 1.0  # the interval runs from w0's release


def test_zero_interval_does_not_serialise(redis_server):
    keys = CrawlKeys("zero")
    a, b = (RedisHostSchedule(redis_server.client(), keys, w, 0.0) for w in ("w0", "w1"))
    assert a.claim(HOST, object()) == 0.0
    assert b.claim(HOST, object()) == 0.0


def test_crawl_delay_set_by_one_worker_spaces_the_other(workers):
    a, b = workers
    a.set_interval(HOST, 30.0)
    assert b.interval(HOST) == 30.0
    req = object()
    assert b.claim(HOST, req) == 0.0
    b.release(HOST, req)
    assert a.claim(HOST, object()) > 29.0


def test_host_interval_is_the_largest_of_its_robots_txt_across_workers(workers):
    a, b = workers  # w0 parsed port 8001's robots.txt (Crawl-delay 30), w1 port 8002's (none)
    assert a.set_source_interval(HOST, f"http://{HOST}:8001", 30.0) == 30.0
    assert b.set_source_interval(HOST, f"http://{HOST}:8002", 1.0) == 30.0
    assert a.interval(HOST) == b.interval(HOST) == 30.0
    assert b.set_source_interval(HOST, f"http://{HOST}:8001", 2.0) == 2.0  # refetched
    assert a.interval(HOST) == 2.0


def test_hold_and_back_off_of_one_worker_hold_the_other(workers):
    a, b = workers
    a.hold(HOST, a.clock() + 100)
    a.hold(HOST, a.clock() + 10)  # a later hold wins
    assert b.claim(HOST, object()) > 99
    wait = a.back_off("b.example.test", a.clock(), None, u=0.0)
    assert wait == 2.0 and b.interval("b.example.test") == 2.0  # max(base 1, 1) * 2
    sent_before = a.clock() - 5  # an answer of the same burst: no second raise
    assert a.back_off("b.example.test", sent_before, 30.0, u=0.0) == 30.0
    assert b.interval("b.example.test") == 2.0
    assert b.claim("b.example.test", object()) > 29
    b.relax("b.example.test")
    assert a.interval("b.example.test") == pytest.approx(1.8)
    assert not a.release("b.example.test", object(), relax="b.example.test")  # held nothing
    assert b.interval("b.example.test") == pytest.approx(1.62)  # relaxed in the same step
    for _ in range(10):
        a.relax("b.example.test")
    assert b.interval("b.example.test") == 1.0  # back at the normal interval


def test_per_ip_key_spaces_hostnames_across_workers(workers):
    a, b = workers
    a.set_interval("ip:192.0.2.7", 0.8)
    assert a.claim(("h1.test", "ip:192.0.2.7"), "r1") == 0.0
    assert b.claim(("h2.test", "ip:192.0.2.7"), "r2") is None


def test_claim_of_a_dead_worker_expires_after_its_lease(redis_server):
    keys = CrawlKeys("lease")
    dead = RedisHostSchedule(redis_server.client(), keys, "dead", 0.1, lease_seconds=0.3)
    alive = RedisHostSchedule(redis_server.client(), keys, "alive", 0.1, lease_seconds=0.3)
    assert dead.claim(HOST, object()) == 0.0  # and never released: kill -9
    assert alive.claim(HOST, object()) is None
    time.sleep(0.4)
    assert alive.claim(HOST, "r") == 0.0
    assert not dead.release(HOST, object())


def test_clock_is_the_redis_servers(workers, redis_server):
    secs, usecs = redis_server.client().time()
    assert abs(workers[0].clock() - (secs + usecs / 1e6)) < 1.0


def test_middleware_picks_the_redis_schedule_only_with_redis_url(redis_server):
    backoff = Backoff()
    local = host_schedule(get_crawler(settings_dict={}), 1.0, backoff)
    assert isinstance(local, HostSchedule)
    crawler = get_crawler(settings_dict={"REDIS_URL": redis_server.url,
                                         "WACKY_CRAWL_NAME": "mw", "WACKY_WORKER_ID": "w9"})
    shared = host_schedule(crawler, 1.0, backoff)
    assert isinstance(shared, RedisHostSchedule) and shared.backoff is backoff
    shared.set_interval(HOST, 4.0)
    assert redis_server.client().hget("wacky:mw:host:" + HOST, "interval") == b"4.0"


# --- two worker processes -------------------------------------------------------------------

PAGE = "<html><body><p>page</p></body></html>"


def smallest_gap(web: LocalWeb, host: str) -> float:
    times = sorted(h.time for h in web.hits_for(host))
    return min(b - a for a, b in pairwise(times))


@pytest.mark.crawl
def test_two_workers_keep_each_hosts_interval(redis_server, tmp_path):
    """DOWNLOAD_DELAY 1 s on one host, Crawl-delay 2 s on another; robots.txt included."""
    delays = {"d1.test": 1.0, "cd2.test": 2.0}
    with LocalWeb() as web:
        seeds = []
        web.add("http://cd2.test/robots.txt", "User-agent: *\nCrawl-delay: 2\n",
                content_type="text/plain")
        for host, n in (("d1.test", 10), ("cd2.test", 6)):
            for i in range(n):
                web.add(f"http://{host}/p{i}.html", PAGE)
                seeds.append(f"http://{host}/p{i}.html")
        settings = {**SETTINGS, "REDIS_URL": redis_server.url, "WACKY_CRAWL_NAME": "gaps",
                    "DOWNLOAD_DELAY": "1.0", "CONCURRENT_REQUESTS": "2",
                    "CONCURRENT_REQUESTS_PER_DOMAIN": "2", "ITEM_PIPELINES": "{}",
                    "WACKY_FOLLOW_LINKS": "False", "WACKY_IDLE_CLOSE_SECONDS": "1",
                    "WACKY_LEASE_RENEW_SECONDS": "0.5"}
        procs = [start_crawl(web, seeds, tmp_path / w, {**settings, "WACKY_WORKER_ID": w})
                 for w in ("w0", "w1")]
        results = [finish(p, tmp_path / w, stats, timeout=120)
                   for (p, stats), w in zip(procs, ("w0", "w1"), strict=True)]
        gaps = {host: smallest_gap(web, host) for host in delays}
        pages = {host: sum(h.path != "/robots.txt" for h in web.hits_for(host)) for host in delays}
    for result in results:
        assert result.returncode == 0, result.log[-3000:]
    assert all(r.stat("response_received_count") > 2 for r in results), "both workers worked"
    assert pages == {"d1.test": 10, "cd2.test": 6}
    print(f"smallest gap per host across 2 workers: {gaps}")
    for host, delay in delays.items():
        assert gaps[host] >= delay - TOLERANCE, (host, gaps[host])
