"""Redis memory of the frontier: bytes per queued request, per leased request, per seen URL
(exact SET vs Bloom filter), and the Bloom filter's measured false-positive rate.

Starts its own redis-server (``/usr/bin/redis-server``, no persistence) on a free loopback
port. Requests are what the seeds spider queues: a GET of a URL ~70 characters long with
``depth`` meta, serialised as the scheduler does (``Request.to_dict`` pickled, defaults left out). Memory is
the ``used_memory`` delta of ``INFO memory`` and ``MEMORY USAGE key SAMPLES 0`` of the
frontier's keys. For comparison, notes/stack.md 4.8 measured scrapy-redis 0.9.1 at ~409 B
per queued request and ~81 B per seen fingerprint (40-hex SET member).

    python benchmarks/redis_memory.py [--n 20000] [--bloom-capacity 200000]
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scrapy import Request

from tests.redisserver import RedisServer
from wackycrawl.distributed.fingerprint import fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.leasequeue import LeaseQueue
from wackycrawl.distributed.scheduler import encode
from wackycrawl.distributed.seen import RedisBloom, RedisSeenSet, bloom_size


def url(i: int) -> str:
    return f"http://www.host{i % 5000}.example.org/section/{i // 5000}/article-{i}.html?page=2"


def used(r) -> int:
    return r.info("memory")["used_memory"]


def key_bytes(r, *keys) -> int:
    return sum(r.memory_usage(k, samples=0) or 0 for k in keys)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000, help="requests / URLs (default %(default)s)")
    ap.add_argument("--bloom-capacity", type=int, default=200_000,
                    help="capacity of the measured Bloom filter (default %(default)s)")
    ap.add_argument("--bloom-error", type=float, default=0.001)
    args = ap.parse_args()
    n, keys, rows = args.n, CrawlKeys("bench"), []
    with RedisServer() as srv:
        r = srv.client()
        q = LeaseQueue(r, keys, "bench")
        before, t0 = used(r), time.perf_counter()
        for i in range(n):
            req = Request(url(i), meta={"depth": 2})
            q.push(fingerprint("GET", req.url).hex(), -2, encode(req))
        push_s = time.perf_counter() - t0
        queued = used(r) - before
        rows.append(("queued request (INFO delta)", queued / n, f"{n / push_s:,.0f} pushes/s"))
        rows.append(("queued request (MEMORY USAGE)",
                     key_bytes(r, keys.queue, keys.requests, keys.seq) / n,
                     "ZSET queue + HASH requests"))
        before, t0 = used(r), time.perf_counter()
        leased = [q.pop() for _ in range(min(n, 10_000))]
        pop_s = time.perf_counter() - t0
        rows.append(("lease overhead per in-flight request",
                     (used(r) - before) / len(leased),
                     f"{len(leased) / pop_s:,.0f} pops/s; ZSET inflight + HASH leases"))
        r.flushall()

        exact = RedisSeenSet(r, keys.seen)
        before = used(r)
        for i in range(n):
            exact.add(fingerprint("GET", url(i)))
        rows.append(("seen URL, exact SET (20-byte members)", (used(r) - before) / n,
                     f"{(used(r) - before) / n * 1e8 / 1e9:.1f} GB per 100M URLs"))
        r.flushall()

        bloom = RedisBloom(r, keys, args.bloom_capacity, args.bloom_error)
        before = used(r)
        for i in range(args.bloom_capacity):
            bloom.add(fingerprint("GET", url(i)))
        misses = sum(not bloom.add(fingerprint("GET", url(i) + "&new=1")) for i in range(n))
        rows.append((f"seen URL, Bloom at capacity {args.bloom_capacity:,}",
                     (used(r) - before) / args.bloom_capacity,
                     f"false positives {misses / n:.5f} measured vs {args.bloom_error} set"))
        m, k = bloom_size(100_000_000, args.bloom_error)
        rows.append((f"seen URL, Bloom for 100M at p={args.bloom_error} (computed)",
                     m / 8 / 1e8, f"{m / 8 / 1e6:.0f} MB, k = {k}"))
    print(f"{'what':55s} {'bytes each':>11s}  notes")
    for name, per, note in rows:
        print(f"{name:55s} {per:11.1f}  {note}")
    print(f"{'scrapy-redis 0.9.1 queued request (notes/stack.md 4.8)':55s} {409:11.1f}")
    print(f"{'scrapy-redis 0.9.1 seen fingerprint (notes/stack.md 4.8)':55s} {81:11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
