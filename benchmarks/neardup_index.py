"""Near-duplicate index and checksum set at 100k and 1M random 64-bit fingerprints.

Side by side: bytes per document (array ``nbytes`` and the process RSS growth while
building), adds per second, microseconds per lookup, and recall / false hits of lookups,
for wackycrawl.dedup.index.SimhashIndex (permuted tables, Manku et al. 2007), the
``simhash`` package's SimhashIndex (at the smallest size only: it is slow), the compact
ChecksumSet and a plain Python ``set`` of the same checksums. Each structure is built in a
fresh forked process so RSS deltas do not mix; RSS also counts memory the C allocator
keeps after the merges freed it (run with ``MALLOC_MMAP_THRESHOLD_=131072`` to see the
live size). Half of the queries are stored
fingerprints with 0..k bits flipped (should be found), half are random (should not).

Usage: python benchmarks/neardup_index.py [--sizes 100000 1000000] [--queries 10000] [--k 3]
"""

import argparse
import multiprocessing as mp
import random
import time

import numpy as np
import simhash

from wackycrawl.dedup.index import ChecksumSet, SimhashIndex


def rss_bytes() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def workload(n: int, n_queries: int, k: int, seed: int = 1):
    """(stored fingerprints, queries, expected hit flags) as Python ints."""
    rng = np.random.default_rng(seed)
    stored = rng.integers(0, 2**64, size=n, dtype=np.uint64).tolist()
    flips = random.Random(seed)
    queries, expected = [], []
    for i in range(n_queries):
        if i % 2:
            queries.append(int(rng.integers(0, 2**64, dtype=np.uint64)))
            expected.append(False)
        else:
            q = flips.choice(stored)
            for bit in flips.sample(range(64), i // 2 % (k + 1)):
                q ^= 1 << bit
            queries.append(q)
            expected.append(True)
    return stored, queries, expected


def ours(stored, queries, k):
    index = SimhashIndex(k=k)
    t0 = time.perf_counter()
    for fp in stored:
        index.add(fp)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = [index.find(q) is not None for q in queries]
    return index, index.nbytes, build, time.perf_counter() - t0, found


def package(stored, queries, k):
    index = simhash.SimhashIndex([], f=64, k=k)
    t0 = time.perf_counter()
    for i, fp in enumerate(stored):
        index.add(str(i), simhash.Simhash(fp))
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = [bool(index.get_near_dups(simhash.Simhash(q))) for q in queries]
    return index, None, build, time.perf_counter() - t0, found


def checksums(stored, queries, k):
    s = ChecksumSet()
    t0 = time.perf_counter()
    for v in stored:
        s.add(v)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = [q in s for q in queries]
    return s, s.nbytes, build, time.perf_counter() - t0, found


def python_set(stored, queries, k):
    s = set()
    t0 = time.perf_counter()
    for v in stored:
        s.add(v ^ 0)  # a new int object owned by the set, as a pipeline's checksum would be
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = [q in s for q in queries]
    return s, None, build, time.perf_counter() - t0, found


def run(fn, n, n_queries, k, conn):
    stored, queries, expected = workload(n, n_queries, k)
    before = rss_bytes()
    keep, nbytes, build, lookup, found = fn(stored, queries, k)
    grown = rss_bytes() - before
    near = [f for f, e in zip(found, expected) if e]
    rand = [f for f, e in zip(found, expected) if not e]
    conn.send((nbytes, grown, build, lookup, sum(near), len(near), sum(rand), len(rand)))
    del keep


STRUCTURES = {
    "ours SimhashIndex": (ours, False),
    "simhash.SimhashIndex": (package, True),
    "ours ChecksumSet": (checksums, False),
    "python set": (python_set, False),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--k", type=int, default=3)
    args = ap.parse_args()
    ctx = mp.get_context("fork")
    print(f"k={args.k}, {args.queries} queries (half stored with 0..k flipped bits, half random)")
    print(f"{'structure':<22}{'docs':>9}{'B/doc nbytes':>14}{'B/doc RSS':>11}{'adds/s':>10}"
          f"{'us/lookup':>11}{'near found':>13}{'random hits':>13}")
    for n in args.sizes:
        for name, (fn, small_only) in STRUCTURES.items():
            if small_only and n != min(args.sizes):
                continue
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=run, args=(fn, n, args.queries, args.k, child))
            proc.start()
            nbytes, grown, build, lookup, near, n_near, rand, n_rand = parent.recv()
            proc.join()
            per_doc = f"{nbytes / n:.1f}" if nbytes is not None else "-"
            print(f"{name:<22}{n:>9}{per_doc:>14}{grown / n:>11.1f}{n / build:>10.0f}"
                  f"{lookup / args.queries * 1e6:>11.1f}{f'{near}/{n_near}':>13}"
                  f"{f'{rand}/{n_rand}':>13}")


if __name__ == "__main__":
    main()
