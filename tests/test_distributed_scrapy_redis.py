"""A distributed crawl configured as scrapy-redis documents it (REDIS_HOST/REDIS_PORT,
REDIS_PARAMS, SCHEDULER_QUEUE_KEY, DUPEFILTER_CLASS, SCHEDULER_PERSIST,
SCHEDULER_FLUSH_ON_START, REDIS_START_URLS_KEY, REDIS_START_URLS_AS_SET) and one seeded with
plain ``redis-cli lpush <redis_key> URL``, over the local web with a real redis-server."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.crawlrun import finish, start_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import build_chain_web, corpus_docs
from tests.test_distributed_crawl import SEED, page_hits, wackycrawl, worker_settings
from wackycrawl.distributed.fingerprint import fingerprint

pytestmark = pytest.mark.crawl


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


def redis_cli(srv: RedisServer, *args: str) -> str:
    return subprocess.run(["redis-cli", "-p", str(srv.port), *args], capture_output=True,
                          text=True, check=True, timeout=10).stdout


def test_crawl_configured_with_scrapy_redis_settings(redis_server, tmp_path):
    r = redis_server.client()
    settings = {**worker_settings(redis_server, "sr", tmp_path / "corpus", "w"),
                "REDIS_URL": "", "REDIS_HOST": "127.0.0.1", "REDIS_PORT": str(redis_server.port),
                "REDIS_PARAMS": json.dumps({"socket_timeout": 10}),
                "SCHEDULER": "wackycrawl.distributed.scheduler.FrontierScheduler",
                "SCHEDULER_QUEUE_CLASS": "wackycrawl.distributed.queue.FrontierQueue",
                "SCHEDULER_QUEUE_KEY": "%(spider)s:requests",
                "SCHEDULER_DUPEFILTER_CLASS": "",
                "DUPEFILTER_CLASS": "wackycrawl.distributed.dupefilter.FrontierDupeFilter",
                "SCHEDULER_DUPEFILTER_KEY": "%(spider)s:dupefilter",
                "SCHEDULER_PERSIST": "False", "SCHEDULER_FLUSH_ON_START": "True",
                "REDIS_START_URLS_KEY": "%(name)s:start_urls", "REDIS_START_URLS_AS_SET": "True"}
    # left over from an earlier crawl: without the flush on start p1 would count as seen
    r.sadd("sr:dupefilter", fingerprint("GET", "http://h0.chain.test/p1.html"))
    r.zadd("sr:requests", {"stale": 0})
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(SEED + "\n", encoding="utf-8")
    out = wackycrawl("seeds", "push", str(seeds), "--redis", redis_server.url,
                     "--key", "sr:start_urls", "--set")
    assert out.returncode == 0 and r.scard("sr:start_urls") == 1, out.stderr
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=3)
        proc, stats = start_crawl(web, ["# seeds come from Redis"], tmp_path / "w", settings)
        result = finish(proc, tmp_path / "w", stats, timeout=120)
        hits = page_hits(web)
    assert result.returncode == 0, result.log[-3000:]
    assert "Redis frontier sr:requests" in result.log
    assert result.stat("wacky/frontier/seeds") == 1
    assert {d.url for d in corpus_docs(tmp_path / "corpus")} == expected
    assert max(hits.values()) == 1
    assert result.stat("wacky/frontier/dead_letter") == 0
    assert not r.exists("sr:requests", "sr:dupefilter", "sr:start_urls")  # not persisted


def test_seeds_pushed_with_redis_cli_lpush(redis_server, tmp_path):
    key = "wacky:lp:start_urls"
    redis_cli(redis_server, "lpush", key, SEED, SEED, "not a url", '{"url": "ftp://x.test/"}')
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=3)
        proc, stats = start_crawl(web, ["# seeds come from Redis"], tmp_path / "w",
                                  worker_settings(redis_server, "lp", tmp_path / "corpus", "w"))
        result = finish(proc, tmp_path / "w", stats, timeout=120)
        hits = page_hits(web)
    assert result.returncode == 0, result.log[-3000:]
    assert {d.url for d in corpus_docs(tmp_path / "corpus")} == expected
    assert max(hits.values()) == 1  # the seed pushed twice is fetched once, and counted
    assert result.stat("wacky/frontier/repeated") == 1
    assert result.stat("wacky/frontier/dead_letter") == 2
    dead = redis_server.client().lrange("wacky:lp:queue:dead", 0, -1)
    assert sorted(d.split(b"\t")[0] for d in dead) == [b"bad_seed", b"bad_seed"]
    assert "String request is deprecated" not in result.log
