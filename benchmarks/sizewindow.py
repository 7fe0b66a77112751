"""Size window: C08 verdicts on wire vs decoded size, and the cost of the decoded-size meter.

Usage: python benchmarks/sizewindow.py [SHARED_DIR]   (default: ../shared from the repo root)

Prints, side by side:
1. for each C08 page: wire size, decoded size, the verdict a wire-size check would give and
   the verdict of :func:`window_reason` on the decoded size;
2. speed of :class:`DecodedMeter` against a full decode (Scrapy's bounded ``gunzip``);
3. 10 MB bombs in gzip, br, zstd and gzip-in-gzip: bytes decoded, peak Python memory
   (tracemalloc) and time of Scrapy's own decoder at the backstop bound (what stopped br,
   zstd and stacked bombs before the meter followed them) and of the meter in 4 KiB reads.
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


def _bombs() -> dict[str, bytes]:
    import brotli

    from wackycrawl.crawl.sizewindow import zstd

    zeros = b"\0" * 10_000_000
    return {"gzip": gzip.compress(zeros), "br": brotli.compress(zeros),
            "zstd": zstd.compress(zeros), "gzip, gzip": gzip.compress(gzip.compress(zeros))}


def bomb() -> None:
    """Per coding: what Scrapy's own decoder does with the backstop bound the size window
    sets (DOWNLOAD_MAXSIZE = limit + 128 KiB: what stopped a br, zstd or stacked bomb before
    the meter followed them) against the meter fed in 4 KiB reads."""
    from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware

    from wackycrawl.crawl.sizewindow import content_codings
    from wackycrawl.middlewares.sizewindow import BACKSTOP_SLACK

    backstop = MAX_DOC_BYTES + BACKSTOP_SLACK
    print(f"\nbombs of 10000000 B decoded; limit {MAX_DOC_BYTES} B, Scrapy backstop {backstop} B")
    print(f"{'coding':<12}{'wire B':>8}  {'decoder':<26}{'decoded B':>11}{'peak KiB':>10}{'ms':>8}")
    for coding, wire in _bombs().items():
        def meter(coding=coding, wire=wire) -> int:
            m = DecodedMeter(coding, MAX_DOC_BYTES)
            for i in range(0, len(wire), 4096):
                if m.feed(wire[i:i + 4096]) > MAX_DOC_BYTES or m.over:
                    break
            return m.size

        def scrapy(coding=coding, wire=wire) -> int:
            body = wire
            try:
                for c in reversed(content_codings([coding])):
                    body = HttpCompressionMiddleware._decode(body, c.encode(), backstop)
            except ValueError as exc:  # scrapy's _DecompressionMaxSizeExceeded
                return exc.decompressed_size
            return len(body)

        for name, fn in (("scrapy backstop (before)", scrapy), ("DecodedMeter (now)", meter)):
            tracemalloc.start()
            t0 = time.perf_counter()
            decoded = fn()
            ms = (time.perf_counter() - t0) * 1000
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"{coding:<12}{len(wire):>8}  {name:<26}{decoded:>11}{peak / 1024:>10.0f}"
                  f"{ms:>8.1f}")


if __name__ == "__main__":
    shared = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared"
    c08(shared)
    speed(shared)
    bomb()
