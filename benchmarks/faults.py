"""Exactly once through faults: extra fetches after ``kill -9`` of a worker and after a Redis
outage, and the time from Redis back to crawling again.

Two workers crawl a generated loopback web (``tests.localweb``, H hosts x P pages linking to
each other) through a redis-server of their own (AOF, ``appendfsync always``):

* ``kill``: once K documents are written one worker is killed with SIGKILL and started
  again under a new id; every page the local web served twice is counted, and split into
  those the dead worker held a lease on at the kill (expected: its in-flight pages) and the
  rest ("extra", target 0);
* ``outage``: once K documents are written redis-server is killed, kept down S seconds and
  restarted from its AOF; pages served twice (target 0), seconds from the restart to the
  first page the web served after it, and the WARNING / ERROR / traceback lines in the logs;
* ``seeds``: S seeds pushed to the start-URL key (``LPUSH``, bare URLs and JSON), one worker
  at a time, each killed (SIGKILL) the moment it has taken seeds from the key (writes to
  Redis paused with ``CLIENT PAUSE WRITE`` when the key shrinks, so the kill falls between
  the worker's steps), K times, then a worker that runs to the end: seeds never fetched
  (target 0) and fetched twice beyond the killed workers' leases (target 0).

    python benchmarks/faults.py [--hosts 6] [--pages 8] [--outage 5] [--runs 1]
                                [--seeds 48] [--kills 4] [--only kill|outage|seeds]

Runs against whatever wackycrawl this checkout holds (the crawls run from its root), so an
older checkout gives the BEFORE figures.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.crawlrun import finish, start_crawl, wait_for  # noqa: E402
from tests.localweb import LocalWeb  # noqa: E402
from tests.redisserver import RedisServer  # noqa: E402
from tests.test_crawl_e2e import build_chain_web, corpus_docs  # noqa: E402
from wackycrawl.distributed.keys import CrawlKeys  # noqa: E402

SEED = "http://h0.chain.test/p0.html"


def settings(srv, crawl: str, corpus: Path, worker: str) -> dict:
    return {"WACKY_LANGUAGES": "en", "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
            "REDIS_URL": srv.url, "WACKY_CRAWL_NAME": crawl, "WACKY_OUTPUT_DIR": str(corpus),
            "WACKY_WORKER_ID": worker, "DOWNLOAD_DELAY": "0.2", "DEPTH_LIMIT": "0",
            "WACKY_IDLE_CLOSE_SECONDS": "3", "WACKY_LEASE_SECONDS": "5",
            "WACKY_LEASE_RENEW_SECONDS": "1", "WACKY_REDIS_OUTAGE_SECONDS": "120"}


def hits(web) -> Counter:
    return Counter((h.host, h.path) for h in web.hits if h.path != "/robots.txt")


def leased_pages(r, keys, worker: str, urls: bool = False) -> set:
    out = set()
    for rid, token in r.hgetall(keys.leases).items():
        if token.decode().split("#", 1)[0] != worker:
            continue
        payload = r.hget(keys.requests, rid) or b""
        if rid.startswith(b"seed:"):  # a raw seed, not yet a request
            continue
        data = pickle.loads(payload[1:] if payload[:1] == b"\x01" else payload)
        parts = urlsplit(data["url"])
        out.add((parts.hostname, data["url"] if urls else parts.path))
    return out


def log_lines(results) -> dict:
    text = "".join(r.log for r in results)
    return {"warnings": text.count(" WARNING: "), "errors": text.count(" ERROR: "),
            "tracebacks": text.count("Traceback")}


def kill_run(a, tmp: Path) -> dict:
    corpus = tmp / "corpus"
    with RedisServer(aof=True) as srv, LocalWeb() as web:
        r, keys = srv.client(), CrawlKeys("bench")
        expected = build_chain_web(web, hosts=a.hosts, per_host=a.pages)
        procs = {w: start_crawl(web, [SEED], tmp / w, settings(srv, "bench", corpus, w))
                 for w in ("wa", "wb")}
        wait_for(lambda: len(corpus_docs(corpus)) >= a.after and leased_pages(r, keys, "wa"),
                 timeout=180)
        procs["wa"][0].kill()
        procs["wa"][0].wait()
        dead = leased_pages(r, keys, "wa")
        procs["wa2"] = start_crawl(web, [SEED], tmp / "wa2", settings(srv, "bench", corpus, "wa2"))
        results = [finish(p, tmp / w, f, timeout=600) for w, (p, f) in procs.items() if w != "wa"]
        served = hits(web)
    twice = {k for k, n in served.items() if n > 1}
    urls = [d.url for d in corpus_docs(corpus)]
    return {"pages": len(expected), "served twice": len(twice),
            "dead worker's leases": len(dead), "extra fetches": len(twice - dead),
            "docs == expected": set(urls) == expected, "docs written twice":
            len(urls) - len(set(urls)), **log_lines(results)}


def outage_run(a, tmp: Path) -> dict:
    corpus = tmp / "corpus"
    with RedisServer(aof=True) as srv, LocalWeb() as web:
        expected = build_chain_web(web, hosts=a.hosts, per_host=a.pages)
        procs = {w: start_crawl(web, [SEED], tmp / w, settings(srv, "bench", corpus, w))
                 for w in ("w0", "w1")}
        wait_for(lambda: len(corpus_docs(corpus)) >= a.after, timeout=180)
        srv.kill()
        time.sleep(a.outage)
        srv.start()
        back = time.time()
        results = [finish(p, tmp / w, f, timeout=600) for w, (p, f) in procs.items()]
        served = hits(web)
        first = min((h.time for h in web.hits if h.time > back), default=None)
    urls = [d.url for d in corpus_docs(corpus)]
    return {"pages": len(expected), "served twice": sum(n > 1 for n in served.values()),
            "extra fetches": sum(n - 1 for n in served.values()),
            "s to crawling again": round(first - back, 2) if first else None,
            "docs == expected": set(urls) == expected,
            "docs written twice": len(urls) - len(set(urls)),
            "closed by themselves": all(r.returncode == 0 for r in results), **log_lines(results)}


def seeds_run(a, tmp: Path) -> dict:
    with RedisServer() as srv, LocalWeb() as web:
        r, keys = srv.client(), CrawlKeys("bench")
        hosts = max(1, a.seeds // 6)
        seeds = [f"http://s{i % hosts}.seeds.test/p{i}.html" for i in range(a.seeds)]
        for url in seeds:
            web.add(url, "<html><body><p>page</p></body></html>", delay=0.02)
        r.lpush(keys.start_urls, *[json.dumps({"url": u}) if i % 2 else u
                                   for i, u in enumerate(seeds)])
        s = {**settings(srv, "bench", tmp / "corpus", "w"), "ITEM_PIPELINES": "{}",
             "WACKY_FOLLOW_LINKS": "False", "DOWNLOAD_DELAY": "0.02",
             "CONCURRENT_REQUESTS": "6", "WACKY_LEASE_SECONDS": "3",
             "DOWNLOAD_TIMEOUT": "3", "WACKY_HOST_LEASE_SECONDS": "4"}
        dead, kills = set(), 0
        for n in range(a.kills):
            left = r.llen(keys.start_urls)
            if not left:
                break
            proc, _ = start_crawl(web, ["# seeds come from Redis"], tmp / f"w{n}",
                                  {**s, "WACKY_WORKER_ID": f"w{n}"})
            end = time.monotonic() + 120
            while r.llen(keys.start_urls) == left and time.monotonic() < end:
                pass
            r.client_pause(10_000, all=False)
            proc.kill()
            proc.wait()
            kills += 1
            dead |= {u for _, u in leased_pages(r, keys, f"w{n}", urls=True)}
            r.client_unpause()
        proc, f = start_crawl(web, ["# seeds come from Redis"], tmp / "last",
                              {**s, "WACKY_WORKER_ID": "last"})
        result = finish(proc, tmp / "last", f, timeout=600)
        served = Counter(f"http://{h.host}{h.path}" for h in web.hits if h.path != "/robots.txt")
    twice = {u for u, k in served.items() if k > 1}
    return {"seeds pushed": len(seeds), "kills": kills,
            "seeds never fetched": len(set(seeds) - set(served)),
            "fetched twice": len(twice), "killed workers' leases": len(dead),
            "extra fetches": len(twice - dead), "last worker closed": result.returncode == 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hosts", type=int, default=6)
    ap.add_argument("--pages", type=int, default=8, help="pages per host")
    ap.add_argument("--after", type=int, default=8, help="documents written before the fault")
    ap.add_argument("--outage", type=float, default=5.0, help="seconds Redis stays down")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=48, help="seeds pushed (seeds scenario)")
    ap.add_argument("--kills", type=int, default=4, help="workers killed (seeds scenario)")
    ap.add_argument("--only", choices=("kill", "outage", "seeds"), default=None)
    a = ap.parse_args()
    scenarios = {"kill": ("kill -9 of one of two workers", kill_run),
                 "outage": (f"Redis down {a.outage:g} s, restarted from its AOF", outage_run),
                 "seeds": (f"kill -9 of a worker that has taken seeds, {a.kills} times",
                           seeds_run)}
    for _ in range(a.runs):
        for name, run in [v for k, v in scenarios.items() if a.only in (None, k)]:
            with tempfile.TemporaryDirectory() as d:
                row = run(a, Path(d))
            print(f"{name}:")
            for k, v in row.items():
                print(f"  {k:<24} {v}")


if __name__ == "__main__":
    main()
