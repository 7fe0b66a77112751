"""Seeds pushed to a Redis crawl's start-URL key are fetched exactly once through ``kill -9``:
a real redis-server, real workers over the local web, each worker killed at a moment when it
has just taken seeds from the start key, holds a seed it has not yet queued as a request, or is
fetching (writes to Redis are paused with ``CLIENT PAUSE WRITE`` the moment the test sees that state,
so the worker is stopped between two of its steps, then killed). After the restarts every
seed is fetched, and fetched twice only if a killed worker held its request's lease."""

from __future__ import annotations

import json
import pickle
import time
from collections import Counter

import pytest

from tests.crawlrun import finish, start_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_distributed_crawl import worker_settings
from tests.test_robots_crawl import NO_PIPELINES, PAGE
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.leasequeue import SEED_PREFIX

pytestmark = pytest.mark.crawl

CRAWL = "seedkill"


def seed_web(web: LocalWeb, hosts: int, per_host: int) -> list[str]:
    urls = [f"http://s{h}.seeds.test/p{i}.html" for h in range(hosts) for i in range(per_host)]
    for url in urls:
        web.add(url, PAGE, delay=0.02)
    return urls


def leased_pages(r, keys: CrawlKeys, worker: str) -> set[str]:
    """URLs of the requests (not raw seeds) ``worker`` holds leases on now."""
    out = set()
    for rid, token in r.hgetall(keys.leases).items():
        payload = r.hget(keys.requests, rid)
        if token.decode().split("#", 1)[0] == worker and payload and payload[:1] == b"\x01":
            out.add(pickle.loads(payload[1:])["url"])
    return out


def raw_seed_leases(r, keys: CrawlKeys) -> int:
    return sum(k.startswith(SEED_PREFIX.encode()) for k in r.hkeys(keys.leases))


def kill_when(proc, r, moment, timeout: float = 90) -> bool:
    """Poll Redis until ``moment(r)``; then pause its writes, SIGKILL ``proc`` and unpause.
    Returns whether the moment came."""
    end = time.monotonic() + timeout
    while not (came := moment(r)) and time.monotonic() < end and proc.poll() is None:
        pass
    if came:
        r.client_pause(10_000, all=False)
    proc.kill()
    proc.wait()
    r.client_unpause()
    return came


def test_pushed_seeds_are_fetched_once_through_kill_9_of_workers_holding_them(tmp_path):
    with RedisServer() as srv, LocalWeb() as web:
        r, keys = srv.client(), CrawlKeys(CRAWL)
        seeds = seed_web(web, hosts=8, per_host=5)
        # bare URLs and JSON; the last one pushed twice in a row: fetched once
        pushes = [json.dumps({"url": u}) if i % 2 else u for i, u in enumerate(seeds)]
        r.lpush(keys.start_urls, *pushes, pushes[-1])
        s = {**worker_settings(srv, CRAWL, tmp_path / "corpus", "w0"), **NO_PIPELINES,
             "CONCURRENT_REQUESTS": "6", "DOWNLOAD_DELAY": "0.02",
             "DOWNLOAD_TIMEOUT": "3", "WACKY_HOST_LEASE_SECONDS": "4"}  # dead workers' hosts
        pushed = len(seeds) + 1
        moments = {  # what the killed worker holds
            "seeds taken from the start key": lambda r: r.llen(keys.start_urls) < pushed,
            "a seed leased, not yet queued as its request": lambda r: raw_seed_leases(r, keys),
            "seeds taken again": lambda r: r.llen(keys.start_urls) < left,
            "its seeds' pages being fetched": lambda r: len(web.hits) > served + 2,
        }
        dead_leases: set[str] = set()
        held_raw = 0  # seeds a killed worker had leased and not yet queued as requests
        for n, (what, moment) in enumerate(moments.items()):
            left, served = r.llen(keys.start_urls), len(web.hits)
            proc, _ = start_crawl(web, ["# seeds come from Redis"], tmp_path / f"w{n}",
                                  {**s, "WACKY_WORKER_ID": f"w{n}"})
            assert kill_when(proc, r, moment), f"never came: {what}"
            dead_leases |= leased_pages(r, keys, f"w{n}")
            held_raw = max(held_raw, raw_seed_leases(r, keys))
        assert r.llen(keys.start_urls) < pushed - 6, "the kills came before seeds were read"
        proc, stats = start_crawl(web, ["# seeds come from Redis"], tmp_path / "last",
                                  {**s, "WACKY_WORKER_ID": "last"})
        last = finish(proc, tmp_path / "last", stats, timeout=120)
        hits = Counter(f"http://{h.host}{h.path}" for h in web.hits if h.path != "/robots.txt")
        left_over = (r.llen(keys.start_urls), r.zcard(keys.queue), r.zcard(keys.inflight),
                     r.hlen(keys.requests), r.llen(keys.dead))
    assert last.returncode == 0, last.log[-3000:]
    assert last.stats.get("finish_reason") == "finished"
    assert held_raw >= 1 and last.stat("wacky/frontier/reclaimed") >= held_raw
    assert set(hits) == set(seeds), f"seeds never fetched: {set(seeds) - set(hits)}"
    twice = {u for u, k in hits.items() if k > 1}
    assert twice <= dead_leases, f"fetched twice beyond the killed workers' leases: {twice}"
    assert left_over == (0, 0, 0, 0, 0)


def test_seed_file_urls_are_fetched_once_through_kill_9_while_the_file_is_read(tmp_path):
    """The seeds of ``-a seeds=FILE`` are recorded as seen and queued in one step: a worker
    killed while it reads the file (the moment a URL is seen and not yet queued, if the
    test ever sees one, else half-way) leaves none seen but unqueued, so its restart with
    the same file fetches every seed."""
    with RedisServer() as srv, LocalWeb() as web:
        r, keys = srv.client(), CrawlKeys("seedfile")
        seeds = seed_web(web, hosts=8, per_host=5)
        s = {**worker_settings(srv, "seedfile", tmp_path / "corpus", "a"), **NO_PIPELINES,
             "DOWNLOAD_TIMEOUT": "3", "WACKY_HOST_LEASE_SECONDS": "4"}
        proc, _ = start_crawl(web, seeds, tmp_path / "a", s)
        assert kill_when(proc, r, lambda r: (n := r.scard(keys.seen)) and (
            n > r.hlen(keys.requests) + len(web.hits) or r.hlen(keys.requests) >= 20))
        unqueued = r.scard(keys.seen) - r.hlen(keys.requests) - len(web.hits)
        dead = leased_pages(r, keys, "a")
        proc, stats = start_crawl(web, seeds, tmp_path / "b", {**s, "WACKY_WORKER_ID": "b"})
        result = finish(proc, tmp_path / "b", stats, timeout=120)
        hits = Counter(f"http://{h.host}{h.path}" for h in web.hits if h.path != "/robots.txt")
    assert result.returncode == 0, result.log[-3000:]
    assert unqueued <= 0
    assert set(hits) == set(seeds), f"seeds never fetched: {set(seeds) - set(hits)}"
    assert {u for u, k in hits.items() if k > 1} <= dead
