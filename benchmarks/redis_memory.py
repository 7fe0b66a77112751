"""Redis memory of the frontier: bytes per queued request, per leased request, per seen URL
(exact SET vs Bloom filter), and the Bloom filter's measured false-positive rate; of the
shared dedup index: bytes per document at several sizes (random 64-bit checksums and
simhashes, so buckets fill as a real crawl's do); of cluster-wide politeness: bytes per host.

Starts its own redis-server (``/usr/bin/redis-server``, no persistence) on a free loopback
port. Requests are what the seeds spider queues: a GET of a URL ~70 characters long with
``depth`` meta, serialised as the scheduler does (``Request.to_dict`` pickled, defaults left out). Memory is
the ``used_memory`` delta of ``INFO memory`` and ``MEMORY USAGE key SAMPLES 0`` of the
frontier's keys. For comparison, notes/stack.md 4.8 measured scrapy-redis 0.9.1 at ~409 B
per queued request and ~81 B per seen fingerprint (40-hex SET member).

    python benchmarks/redis_memory.py [--n 20000] [--bloom-capacity 200000] [--docs 200000]
        [--hosts 10000]
"""

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scrapy import Request

from tests.redisserver import RedisServer
from wackycrawl.dedup.detector import Fingerprint
from wackycrawl.distributed.fingerprint import fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.leasequeue import LeaseQueue
from wackycrawl.distributed.politeness import RedisHostSchedule
from wackycrawl.distributed.queue import encode
from wackycrawl.distributed.seen import RedisBloom, RedisSeenSet, bloom_size
from wackycrawl.distributed.simhash import REST_BYTES, RedisDedupIndex


def url(i: int) -> str:
    return f"http://www.host{i % 5000}.example.org/section/{i // 5000}/article-{i}.html?page=2"


def used(r) -> int:
    return r.info("memory")["used_memory"]


def key_bytes(r, *keys) -> int:
    return sum(r.memory_usage(k, samples=0) or 0 for k in keys)


def dedup_rows(r, keys: CrawlKeys, docs: int) -> list[tuple[str, float, str]]:
    """Bytes per document of the shared dedup index after 1/20, 1/4 and all of ``docs``."""
    rows, rng, index = [], random.Random(1), RedisDedupIndex(r, keys)
    before, t0, added = used(r), time.perf_counter(), 0
    for size in (docs // 20, docs // 4, docs):
        previous = used(r)
        for i in range(added, size):
            fp = Fingerprint(rng.getrandbits(64), rng.getrandbits(64), 200, rng.randbytes(84))
            index.check_and_add(fp, f"http://host{i % 5000}.example.org/{i}.html")
        seconds = time.perf_counter() - t0
        n_keys = sum(1 for _ in r.scan_iter(keys.prefix + "*", count=10_000))
        last = f"{(used(r) - previous) / (size - added):.1f} B/doc for the last {size - added:,}"
        rows.append((f"document in the dedup index at {size:,} docs (INFO delta)",
                     (used(r) - before) / size,
                     f"{last}; {n_keys:,} keys; {size / seconds:,.0f} adds/s"))
        added = size
    sample = [k for _, k in zip(range(200), r.scan_iter(keys.near_bucket_prefix + "1:*"))]
    per_member = sum(r.memory_usage(k, samples=0) for k in sample) / (
        sum(map(r.strlen, sample)) / REST_BYTES)
    encoding = r.object("encoding", sample[0]).decode()
    rows.append(("  a bucket (tables 0..3) per member, key included", per_member,
                 f"encoding {encoding}; in memory 4 x 6 + 4 (tables, ids) + 92 (records) B/doc"))
    return rows


def politeness_rows(r, keys: CrawlKeys, hosts: int) -> list[tuple[str, float, str]]:
    schedule = RedisHostSchedule(r, keys, "bench", 1.0)
    before, t0 = used(r), time.perf_counter()
    for i in range(hosts):
        host = f"www.host{i}.example.org"
        schedule.set_interval(host, 2.0)  # a Crawl-delay
        schedule.claim(host, i)
        schedule.release(host, i)
    seconds = time.perf_counter() - t0
    return [("host in the politeness schedule (interval, last)", (used(r) - before) / hosts,
             f"{hosts / seconds:,.0f} set_interval+claim+release/s")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000, help="requests / URLs (default %(default)s)")
    ap.add_argument("--bloom-capacity", type=int, default=200_000,
                    help="capacity of the measured Bloom filter (default %(default)s)")
    ap.add_argument("--bloom-error", type=float, default=0.001)
    ap.add_argument("--docs", type=int, default=200_000,
                    help="documents added to the dedup index (default %(default)s)")
    ap.add_argument("--hosts", type=int, default=10_000,
                    help="hosts in the politeness schedule (default %(default)s)")
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
        r.flushall()
        rows += dedup_rows(r, keys, args.docs)
        r.flushall()
        rows += politeness_rows(r, keys, args.hosts)
    print(f"{'what':55s} {'bytes each':>11s}  notes")
    for name, per, note in rows:
        print(f"{name:55s} {per:11.1f}  {note}")
    print(f"{'scrapy-redis 0.9.1 queued request (notes/stack.md 4.8)':55s} {409:11.1f}")
    print(f"{'scrapy-redis 0.9.1 seen fingerprint (notes/stack.md 4.8)':55s} {81:11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
