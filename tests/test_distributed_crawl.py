"""Real crawls sharing one Redis (a redis-server of the test's own) over the local web:
two workers fetch each URL once and keep the documents of a one-worker crawl; workers close
when the crawl is idle; seeds pushed from the command line; ``wackycrawl status``. Faults
(``kill -9``, Redis outages) are in test_distributed_faults.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from tests.crawlrun import ROOT, finish, start_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs

pytestmark = pytest.mark.crawl

SEED = "http://h0.chain.test/p0.html"


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


def worker_settings(srv: RedisServer, crawl: str, corpus, worker: str,
                    delay: str = "0.05") -> dict:
    return {**SETTINGS, "REDIS_URL": srv.url, "WACKY_CRAWL_NAME": crawl,
            "WACKY_OUTPUT_DIR": str(corpus), "WACKY_WORKER_ID": worker,
            "DOWNLOAD_DELAY": delay, "DEPTH_LIMIT": "0", "WACKY_IDLE_CLOSE_SECONDS": "2",
            "WACKY_LEASE_SECONDS": "3", "WACKY_LEASE_RENEW_SECONDS": "0.5",
            "WACKY_STATS_PUBLISH_SECONDS": "1"}


def page_hits(web: LocalWeb) -> Counter:
    return Counter((h.host, h.path) for h in web.hits if h.path != "/robots.txt")


def wackycrawl(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    code = "from wackycrawl.cli import main; raise SystemExit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False,
                          env={**os.environ, "WACKY_CRAWL_NAME": "", **(env or {})})


def crawl_workers(srv, web, tmp_path, crawl: str, n: int):
    corpus = tmp_path / crawl / "corpus"
    procs = [start_crawl(web, [SEED], tmp_path / crawl / f"w{i}",
                         worker_settings(srv, crawl, corpus, f"w{i}")) for i in range(n)]
    results = [finish(p, tmp_path / crawl / f"w{i}", stats, timeout=180)
               for i, (p, stats) in enumerate(procs)]
    return results, corpus


def test_two_workers_fetch_each_url_once_and_keep_what_one_worker_keeps(redis_server, tmp_path):
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=4, per_host=5)
        (single,), corpus1 = crawl_workers(redis_server, web, tmp_path, "single", 1)
    with LocalWeb() as web:
        build_chain_web(web, hosts=4, per_host=5)
        pair, corpus2 = crawl_workers(redis_server, web, tmp_path, "pair", 2)
        hits = page_hits(web)
    for result in [single, *pair]:
        assert result.returncode == 0, result.log[-3000:]
        assert result.stats.get("finish_reason") == "finished"  # idle close
    one = [d.url for d in corpus_docs(corpus1)]
    two = [d.url for d in corpus_docs(corpus2)]
    assert set(one) == expected
    assert len(two) == len(set(two)) and set(two) == set(one)
    assert all(n == 1 for n in hits.values()), [k for k, n in hits.items() if n > 1]
    assert all(r.stat("response_received_count") > 0 for r in pair), "both workers worked"
    docnos = [d.docno for d in corpus_docs(corpus2)]
    assert len(docnos) == len(set(docnos))

    out = wackycrawl("status", "--redis", redis_server.url, "--crawl", "pair", "--json")
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)
    assert status["queued"] == 0 and status["in_flight"] == 0
    assert status["kept"] == len(two) and status["written"] == len(two)
    assert status["seen"] >= len(expected) and set(status["workers"]) == {"w0", "w1"}
    text = wackycrawl("status", "--redis", redis_server.url, "--crawl", "pair").stdout
    assert "pages/min" in text and "worker w0" in text
    assert "canonical URLs ever scheduled" in text and "waiting for their host's turn" in text
    assert "leases now; published" in text and "as the workers published them" in text
    # WACKY_CRAWL_NAME in the environment names the crawl, as the workers' setting does
    env = wackycrawl("status", "--redis", redis_server.url, "--json",
                     env={"WACKY_CRAWL_NAME": "pair"})
    assert json.loads(env.stdout)["written"] == len(two)
    # a crawl no worker joined: said so, with the crawls that exist
    wrong = wackycrawl("status", "--redis", redis_server.url).stdout
    assert "no worker ever joined crawl 'seeds'" in wrong and "pair" in wrong


def test_seeds_pushed_from_the_command_line_are_crawled(redis_server, tmp_path):
    crawl = "pushed"
    seeds = tmp_path / "push.txt"
    seeds.write_text(f"# one seed twice\n{SEED}\nnot a url\n{SEED}\n", encoding="utf-8")
    out = wackycrawl("seeds", "push", str(seeds), "--redis", redis_server.url, "--crawl", crawl)
    assert out.returncode == 0 and "pushed 2 seeds" in out.stdout
    assert "not an http(s) URL" in out.stderr
    assert f"wacky:{crawl}:start_urls (crawl {crawl})" in out.stdout
    assert f"no worker has joined crawl {crawl!r} yet" in out.stderr  # none started yet
    corpus = tmp_path / crawl / "corpus"
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=3)
        proc, stats = start_crawl(web, ["# seeds come from Redis"], tmp_path / crawl / "w",
                                  worker_settings(redis_server, crawl, corpus, "w"))
        result = finish(proc, tmp_path / crawl / "w", stats, timeout=120)
    assert result.stat("wacky/frontier/seeds") == 1
    assert result.stat("wacky/seeds/repeated") == 1  # the seed pushed twice: fetched once
    assert result.log.count("pushed again while queued") == 1
    assert {d.url for d in corpus_docs(corpus)} == expected


def test_links_are_recorded_as_seen_only_by_the_script_that_queues_them(redis_server, tmp_path):
    """A link recorded as seen but not yet queued would be lost with its worker (the page is
    fetched again, its link skipped as seen): the seen SET is written only inside the queue
    script (MONITOR shows a script's commands as ``[db lua]``)."""
    monitor = tmp_path / "monitor.txt"
    with open(monitor, "wb") as out:
        mon = subprocess.Popen(["redis-cli", "-p", str(redis_server.port), "monitor"],
                               stdout=out)
        try:
            with LocalWeb() as web:
                expected = build_chain_web(web, hosts=2, per_host=4)
                (result,), corpus = crawl_workers(redis_server, web, tmp_path, "atomic", 1)
        finally:
            mon.terminate()
            mon.wait()
    assert result.returncode == 0, result.log[-3000:]
    assert {d.url for d in corpus_docs(corpus)} == expected
    seen_key = '"wacky:atomic:seen"'
    writes = [line for line in monitor.read_text(errors="replace").splitlines()
              if seen_key in line and '"SADD"' in line.upper()]
    assert writes and all(" lua]" in line for line in writes), writes[:3]
    assert result.stat("wacky/frontier/filtered") > 0  # repeated links were filtered
