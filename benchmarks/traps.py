"""Spider traps and scope on a loopback web: requests per trap host, and the yield table.

The web of ``tests/test_traps_crawl.py``: www.alpha.test (prose, links to everything below),
cal.alpha.test (an events calendar without end), shop.beta.test (10 pages whose links all carry
a fresh PHPSESSID), www.gamma.test (out of the scope derived from the two seeds). Three crawls:

- wackycrawl: project settings (canonical fingerprint, detector, budget);
- no detector: WACKY_TRAP_WINDOW = 0, so only the host budget stops the calendar;
- Scrapy fingerprint: Scrapy's RequestFingerprinter (no session-id stripping), no detector.

    python benchmarks/traps.py [--budget 200] [--window 50]

Prints, per crawl: requests to each trap host (robots.txt not counted) against the budget, to
the out-of-scope host, the trap counters, wall time; then the first crawl's yield table (kept
words per fetched MB; top and bottom hosts).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.test_traps_crawl import build_web

SEEDS = ["http://www.alpha.test/", "http://shop.beta.test/"]
HOSTS = ("cal.alpha.test", "shop.beta.test", "www.gamma.test")


def crawl(settings: dict) -> tuple[dict, dict, float, list[dict]]:
    with LocalWeb() as web, tempfile.TemporaryDirectory() as tmp:
        build_web(web)
        t0 = time.monotonic()
        result = run_crawl(web, SEEDS, Path(tmp), settings, timeout=600)
        wall = time.monotonic() - t0
        hits = {h: sum(1 for x in web.hits if x.host == h and x.path != "/robots.txt")
                for h in HOSTS}
        table = result.outdir / "host-yield.tsv"
        rows = list(csv.DictReader(table.open(encoding="utf-8"), delimiter="\t")) \
            if table.exists() else []
        return hits, result.stats, wall, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--window", type=int, default=50)
    a = ap.parse_args()
    base = {"WACKY_LANGUAGES": "en", "WACKY_HOST_BUDGET": str(a.budget),
            "WACKY_TRAP_WINDOW": str(a.window), "WACKY_SCOPE_FROM_SEEDS": "domain",
            "DEPTH_LIMIT": "0"}
    runs = {"wackycrawl": base,
            "no detector": {**base, "WACKY_TRAP_WINDOW": "0"},
            "Scrapy fingerprint": {**base, "WACKY_TRAP_WINDOW": "0",
                                   "REQUEST_FINGERPRINTER_CLASS":
                                       "scrapy.utils.request.RequestFingerprinter"}}
    print(f"budget {a.budget} requests per host, detector window {a.window} pages\n")
    print(f"{'crawl':20} {'cal.alpha':>9} {'shop.beta':>9} {'gamma':>6} {'tripped':>7} "
          f"{'budget cuts':>11} {'scope out':>9} {'docs':>5} {'wall s':>6}")
    first_rows = None
    for label, settings in runs.items():
        hits, stats, wall, rows = crawl(settings)
        first_rows = first_rows if first_rows is not None else rows
        print(f"{label:20} {hits['cal.alpha.test']:>9} {hits['shop.beta.test']:>9} "
              f"{hits['www.gamma.test']:>6} {stats.get('wacky/trap/patterns_tripped', 0):>7} "
              f"{stats.get('wacky/trap/budget', 0):>11} {stats.get('wacky/scope/out', 0):>9} "
              f"{stats.get('wacky/kept', 0):>5} {wall:>6.1f}")
    print("\nyield table of the first crawl (host-yield.tsv, best first):")
    print(f"{'host':18} {'pages':>5} {'MB':>7} {'docs':>4} {'words':>6} {'words/MB':>8}")
    for r in first_rows:
        print(f"{r['host']:18} {r['pages']:>5} {r['mb_fetched']:>7} {r['docs']:>4} "
              f"{r['words']:>6} {r['words_per_mb']:>8}")


if __name__ == "__main__":
    main()
