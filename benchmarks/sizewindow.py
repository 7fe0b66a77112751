"""Size window: C08 verdicts on wire vs decoded size, and the cost of the decoded-size meter.

Usage: python benchmarks/sizewindow.py [SHARED_DIR]   (default: ../shared from the repo root)

Prints, side by side:
1. for each C08 page: wire size, decoded size, the verdict a wire-size check would give and
   the verdict of :func:`window_reason` on the decoded size;
2. speed of :class:`DecodedMeter` against a full decode (Scrapy's bounded ``gunzip``);
3. peak Python memory (tracemalloc) while judging a 10 MB gzip bomb: unbounded
   ``gzip.decompress``, Scrapy's ``gunzip(max_size=...)``, and the meter fed in 4 KiB reads.
"""

from __future__ import annotations

import gzip
import sys
import time
import tracemalloc
from pathlib import Path

from scrapy.utils.gz import gunzip

from wackycrawl.crawl.sizewindow import MAX_DOC_BYTES, MIN_DOC_BYTES, DecodedMeter, window_reason

ROOT = Path(__file__).resolve().parent.parent


def c08(shared: Path) -> None:
    print(f"{'page':<22}{'wire B':>9}{'decoded B':>11}  {'wire check':<18}{'decoded check':<18}")
    for f in sorted((shared / "cases" / "C08").glob("page_*")):
        wire = f.read_bytes()
        body = gzip.decompress(wire) if f.suffix == ".gz" else wire
        by_wire = window_reason(len(wire), MIN_DOC_BYTES, MAX_DOC_BYTES) or "keep"
        by_decoded = window_reason(len(body), MIN_DOC_BYTES, MAX_DOC_BYTES,
                                   encoded=f.suffix == ".gz") or "keep"
        print(f"{f.name:<22}{len(wire):>9}{len(body):>11}  {by_wire:<18}{by_decoded:<18}")


def speed(shared: Path, rounds: int = 200) -> None:
    wire = (shared / "cases" / "C08" / "page_180k.html.gz").read_bytes()
    reads = [wire[i:i + 4096] for i in range(0, len(wire), 4096)]
    t0 = time.perf_counter()
    for _ in range(rounds):
        meter = DecodedMeter("gzip", MAX_DOC_BYTES)
        for r in reads:
            meter.feed(r)
    t_meter = (time.perf_counter() - t0) / rounds
    t0 = time.perf_counter()
    for _ in range(rounds):
        gunzip(wire, max_size=MAX_DOC_BYTES)
    t_full = (time.perf_counter() - t0) / rounds
    print(f"\npage_180k.html.gz ({len(wire)} B wire, {meter.size} B decoded), {rounds} rounds")
    print(f"{'meter, 4 KiB reads':<28}{t_meter * 1000:8.2f} ms/page")
    print(f"{'scrapy gunzip (full decode)':<28}{t_full * 1000:8.2f} ms/page")


def bomb() -> None:
    wire = gzip.compress(b"\0" * 10_000_000)
    print(f"\ngzip bomb: {len(wire)} B wire, 10000000 B decoded; limit {MAX_DOC_BYTES} B")

    def meter() -> int:
        m = DecodedMeter("gzip", MAX_DOC_BYTES)
        for i in range(0, len(wire), 4096):
            if m.feed(wire[i:i + 4096]) > MAX_DOC_BYTES:
                break
        return m.size

    def bounded() -> int:
        try:
            return len(gunzip(wire, max_size=MAX_DOC_BYTES))
        except ValueError as exc:  # scrapy's _DecompressionMaxSizeExceeded
            return exc.decompressed_size

    for name, fn in (("gzip.decompress (no bound)", lambda: len(gzip.decompress(wire))),
                     ("scrapy gunzip(max_size)", bounded), ("DecodedMeter", meter)):
        tracemalloc.start()
        decoded = fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{name:<28}decoded {decoded:>9} B   peak {peak / 1024:9.0f} KiB")


if __name__ == "__main__":
    shared = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared"
    c08(shared)
    speed(shared)
    bomb()
