"""BootCaT-style seeding: tuples from real text, and seeds per domain in a seeded crawl.

1. Tuples: the gold texts of the devset's boilerplate sets (``../shared/devset/boilerplate``),
   counted per language, through the ``wackycrawl tuples`` stages with the project defaults
   (skip 100 ranks, band 5,000, k = 3): words, band size, tuples drawn, distinct as sets.
2. Seeded crawl: a fake Brave Search API host on the local web (``tests.localweb``) answers Q queries with
   R results each, drawn from a Zipf-like pool of hosts under D registered domains (several
   hosts per domain: ``www.``, ``blog.``, ``.co.uk``), so results repeat within and across
   queries. A real ``scrapy crawl seeds -s WACKY_FOLLOW_LINKS=False`` runs once; the figures
   are, side by side, what seeding every result would give and what the crawl fetched: seeds,
   registered domains, most seeds of one domain, smallest gap between two requests to the
   engine against WACKY_SERP_DELAYS, and the API key's appearances in log and output.

    python benchmarks/seeding.py [--shared ../shared] [--queries 40] [--results 10]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from wackycrawl.seeding import engines, serp
from wackycrawl.seeding import tuples as tp
from wackycrawl.text.funcwords import function_words

KEY = "bench-secret-key-0042"


def tuples_figures(shared: Path) -> None:
    texts: dict[str, list[str]] = {}
    for manifest in sorted((shared / "devset" / "boilerplate").glob("*/manifest.tsv")):
        for row in manifest.read_text(encoding="utf-8").splitlines()[1:]:
            cols = row.split("\t")
            gold = manifest.parent / f"{cols[0]}.txt"
            if gold.exists():
                texts.setdefault(cols[1], []).extend(gold.read_text("utf-8").splitlines())
    print("tuples from devset gold texts (skip 100, band 5000, k=3, 1000 tuples, seed 0)")
    print(f"{'lang':5} {'tokens':>8} {'words':>7} {'band':>6} {'tuples':>7} {'distinct':>8}"
          f" {'ms':>6}")
    for lang, lines in sorted(texts.items(), key=lambda kv: -len(kv[1]))[:4]:
        t0 = time.perf_counter()
        counts = tp.count_words(lines)
        words = tp.clean(counts)
        band = tp.mid_frequency_band(words, tp.SKIP_TOP, tp.BAND, function_words())
        try:
            drawn = tp.sample_tuples(band, 1000, 3, 0)
        except ValueError:
            drawn = []
        ms = (time.perf_counter() - t0) * 1000
        print(f"{lang:5} {sum(counts.values()):8} {len(words):7} {len(band):6} {len(drawn):7}"
              f" {len({frozenset(t) for t in drawn}):8} {ms:6.0f}")


def host_pool(domains: int) -> list[str]:
    pool = []
    for d in range(domains):
        base = f"site{d}.co.uk" if d % 3 == 0 else f"site{d}.test"
        pool += [f"www.{base}", f"blog.{base}", base]
    return pool


def crawl_figures(queries: int, results: int, domains: int, delay: float) -> None:
    rng = random.Random(1)
    pool = host_pool(domains)
    weights = [1 / (i + 1) for i in range(len(pool))]
    answers = {f"q{i} w{i} v{i}": [f"http://{h}/p{rng.randint(0, 9)}.html"
                                    for h in rng.choices(pool, weights, k=results)]
               for i in range(queries)}
    brave = engines.BRAVE

    def body(path: str) -> bytes:
        q = parse_qs(urlsplit(path).query)["q"][0]
        return json.dumps({"web": {"results": [{"url": u} for u in answers[q]]}}).encode()

    all_results = [u for urls in answers.values() for u in urls]
    naive = Counter(serp.registered_domain(urlsplit(u).hostname) for u in set(all_results))
    with LocalWeb() as web, tempfile.TemporaryDirectory() as tmp:
        seeds = []
        for q in answers:
            url = brave.url(q.split(), results)
            web.add(url, body, content_type="application/json")
            seeds.append(url)
        for h in pool:
            for p in range(10):
                web.add(f"http://{h}/p{p}.html", f"<html><body><p>{h} {p}</p></body></html>")
        settings = {"WACKY_FOLLOW_LINKS": "False",
                    "WACKY_SERP_MAX_RESULTS": str(results),
                    "WACKY_SERP_DELAYS": json.dumps({"brave": delay}), "LOG_LEVEL": "DEBUG"}
        os.environ[brave.key_env] = KEY  # the crawl subprocess inherits it
        t0 = time.monotonic()
        result = run_crawl(web, seeds, Path(tmp), settings, timeout=600)
        wall = time.monotonic() - t0
        api = urlsplit(brave.template).hostname
        fetched = [h for h in web.hits if h.host != api and h.path != "/robots.txt"]
        engine = [h.time for h in web.hits if h.host == api and h.path != "/robots.txt"]
        leaks = result.log.count(KEY) + sum(f.read_bytes().count(KEY.encode())
                                            for f in Path(tmp).rglob("*") if f.is_file())
    crawled = Counter(serp.registered_domain(h.host) for h in fetched)
    gap = min((b - a for a, b in pairwise(engine)), default=float("nan"))
    print(f"\nseeded crawl: {queries} queries x {results} results, {len(pool)} hosts under "
          f"{domains} registered domains, engine delay {delay:g} s, wall {wall:.1f} s")
    print(f"{'':28} {'every result':>13} {'crawl':>8}")
    print(f"{'seed URLs':28} {len(set(all_results)):13} {len(fetched):8}")
    print(f"{'registered domains':28} {len(naive):13} {len(crawled):8}")
    print(f"{'seeds per domain, max':28} {max(naive.values()):13} {max(crawled.values()):8}")
    print(f"{'stats wacky/serp/max_per_domain':32} {result.stat('wacky/serp/max_per_domain'):17}")
    print(f"{'engine requests, min gap (s)':28} {'-':>13} {gap:8.2f}  (delay {delay:g} s)")
    print(f"{'API key occurrences':28} {'-':>13} {leaks:8}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--results", type=int, default=10)
    ap.add_argument("--domains", type=int, default=60)
    ap.add_argument("--delay", type=float, default=0.2)
    args = ap.parse_args()
    tuples_figures(Path(args.shared))
    crawl_figures(args.queries, args.results, args.domains, args.delay)


if __name__ == "__main__":
    main()
