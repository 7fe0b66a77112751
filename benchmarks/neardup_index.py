"""Near-duplicate index, sketches and checksum set at 100k and 1M random 64-bit fingerprints.

Side by side: bytes per document (array ``nbytes`` and the process RSS growth while
building), adds per second, microseconds per lookup (wall clock, and CPU time of the process,
which a loaded machine inflates less), and recall of planted copies per distance band
(0-3, 4-7, 8-11 bits) plus hits of random queries, for

* ``ours detector``: what :class:`~wackycrawl.dedup.detector.DuplicateDetector` keeps per
  document with enough features - SimhashIndex (4 permuted tables probed around each block,
  Manku et al. 2007, with the candidate cap) and the checksum + shingle-sketch records;
* ``ours SimhashIndex`` alone, at ``--k`` and at Manku's k = 3;
* the ``simhash`` package's SimhashIndex (at the smallest size only: it is slow);
* the compact ChecksumSet and a plain Python ``set`` of the same checksums.

Each structure is built in a fresh forked process so RSS deltas do not mix; RSS also counts
memory the C allocator keeps after the merges freed it. The index's compiled loops (numba)
are loaded in each process before its figures are taken: that one-off cost, in CPU time and
memory, is printed below the table. Random queries within k of a stored fingerprint are
real candidates (the shingles would reject them), not index errors.

Usage: python benchmarks/neardup_index.py [--sizes 100000 1000000] [--queries 10000] [--k 11]
"""

import argparse
import multiprocessing as mp
import random
import time

import numpy as np
import simhash

from wackycrawl.dedup.detector import K, DuplicateDetector
from wackycrawl.dedup.index import ChecksumSet, SimhashIndex

BANDS = [(0, 3), (4, 7), (8, 11)]


def rss_bytes(field: str = "VmRSS") -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def load_compiled():
    """Load the compiled loops as a process's first merges and lookup do: (CPU seconds,
    anonymous and file-backed bytes of RSS it added)."""
    c0, anon, file = time.process_time(), rss_bytes("RssAnon"), rss_bytes("RssFile")
    index = SimhashIndex(k=3, buffer_size=1)
    index.add(0)
    index.candidates(0)
    checksums = ChecksumSet(buffer_size=1)
    checksums.add(0)
    return (time.process_time() - c0, rss_bytes("RssAnon") - anon,
            rss_bytes("RssFile") - file)


def workload(n: int, n_queries: int, seed: int = 1):
    """(stored fingerprints, queries, band of each query or None for a random one)."""
    rng = np.random.default_rng(seed)
    stored = rng.integers(0, 2**64, size=n, dtype=np.uint64).tolist()
    flips = random.Random(seed)
    queries, bands = [], []
    for i in range(n_queries):
        if i % 2:
            queries.append(int(rng.integers(0, 2**64, dtype=np.uint64)))
            bands.append(None)
            continue
        band = (i // 2) % len(BANDS)
        low, high = BANDS[band]
        q = flips.choice(stored)
        for bit in flips.sample(range(64), flips.randint(low, high)):
            q ^= 1 << bit
        queries.append(q)
        bands.append(band)
    return stored, queries, bands


def timed_lookups(find, queries):
    t0, c0 = time.perf_counter(), time.process_time()
    found = [find(q) for q in queries]
    return found, time.perf_counter() - t0, time.process_time() - c0


def index_only(k):
    def build(stored, queries):
        index = SimhashIndex(k=k)
        t0 = time.perf_counter()
        for fp in stored:
            index.add(fp)
        build = time.perf_counter() - t0
        found, wall, cpu = timed_lookups(lambda q: bool(index.candidates(q)), queries)
        return index, index.nbytes, build, wall, cpu, found
    return build


def detector(stored, queries, k=K):
    """The detector's stores, filled the way DuplicateDetector.add fills them for texts
    with enough features (the simhash, and a record of a random checksum and a sketch-sized
    row; no texts to fingerprint)."""
    det = DuplicateDetector(k=k, stopwords=frozenset())
    rng = np.random.default_rng(2)
    sketch_bytes = det.records.width - 8
    sketches = [bytes(row) for row in rng.integers(0, 256, size=(1024, sketch_bytes),
                                                   dtype=np.uint8)]
    t0 = time.perf_counter()
    for i, fp in enumerate(stored):
        det.simhashes.add(fp)
        checksum = fp * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF  # no array of them counted
        det.records.append(checksum.to_bytes(8, "little") + sketches[i % 1024])
    build = time.perf_counter() - t0

    def find(q):  # the lookup and the records of its candidates (the confirmation's input)
        return [det.records[doc] for _, doc, _ in det.simhashes.candidates(q)]

    found, wall, cpu = timed_lookups(lambda q: bool(find(q)), queries)
    return det, det.nbytes, build, wall, cpu, found


def package(stored, queries):
    index = simhash.SimhashIndex([], f=64, k=3)
    t0 = time.perf_counter()
    for i, fp in enumerate(stored):
        index.add(str(i), simhash.Simhash(fp))
    build = time.perf_counter() - t0
    found, wall, cpu = timed_lookups(
        lambda q: bool(index.get_near_dups(simhash.Simhash(q))), queries)
    return index, None, build, wall, cpu, found


def checksums(stored, queries):
    s = ChecksumSet()
    t0 = time.perf_counter()
    for v in stored:
        s.add(v)
    build = time.perf_counter() - t0
    found, wall, cpu = timed_lookups(lambda q: q in s, queries)
    return s, s.nbytes, build, wall, cpu, found


def python_set(stored, queries):
    s = set()
    t0 = time.perf_counter()
    for v in stored:
        s.add(v ^ 0)  # a new int object owned by the set, as a pipeline's checksum would be
    build = time.perf_counter() - t0
    found, wall, cpu = timed_lookups(lambda q: q in s, queries)
    return s, None, build, wall, cpu, found


def run(fn, n, n_queries, conn):
    stored, queries, bands = workload(n, n_queries)
    load = load_compiled()
    before = rss_bytes()
    keep, nbytes, build, wall, cpu, found = fn(stored, queries)
    grown = rss_bytes() - before
    per_band = [(sum(f for f, b in zip(found, bands) if b == band), bands.count(band))
                for band in range(len(BANDS))]
    rand = sum(f for f, b in zip(found, bands) if b is None and f)
    conn.send((nbytes, grown, build, wall, cpu, per_band, rand, bands.count(None), load))
    del keep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--k", type=int, default=K)
    args = ap.parse_args()
    structures = {
        f"ours detector k={args.k}": (lambda s, q: detector(s, q, args.k), False),
        f"ours SimhashIndex k={args.k}": (index_only(args.k), False),
        "ours SimhashIndex k=3": (index_only(3), False),
        "simhash.SimhashIndex k=3": (package, True),
        "ours ChecksumSet": (checksums, False),
        "python set": (python_set, False),
    }
    ctx = mp.get_context("fork")
    print(f"{args.queries} queries: half stored fingerprints with bits flipped in the bands "
          f"{BANDS}, half random; recall per band")
    print(f"{'structure':<26}{'docs':>9}{'B/doc':>7}{'B/doc RSS':>10}{'adds/s':>9}"
          f"{'us/lookup':>10}{'us CPU':>8}" + "".join(f"{f'{a}-{b} bits':>12}" for a, b in BANDS)
          + f"{'random hits':>13}")
    for n in args.sizes:
        for name, (fn, small_only) in structures.items():
            if small_only and n != min(args.sizes):
                continue
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=run, args=(fn, n, args.queries, child))
            proc.start()
            nbytes, grown, build, wall, cpu, per_band, rand, n_rand, load = parent.recv()
            proc.join()
            per_doc = f"{nbytes / n:.1f}" if nbytes is not None else "-"
            bands = "".join(f"{f'{hit}/{total}' if total else '-':>12}" for hit, total in per_band)
            print(f"{name:<26}{n:>9}{per_doc:>7}{grown / n:>10.1f}{n / build:>9.0f}"
                  f"{wall / args.queries * 1e6:>10.1f}{cpu / args.queries * 1e6:>8.1f}"
                  f"{bands}{f'{rand}/{n_rand}':>13}")
    cpu, anon, file = load
    print(f"once per process, before the figures: loading the index's compiled loops (numba) "
          f"took {cpu:.2f} s CPU, {anon / 2**20:.0f} MiB anonymous memory and "
          f"{file / 2**20:.0f} MiB of shared libraries")


if __name__ == "__main__":
    main()
