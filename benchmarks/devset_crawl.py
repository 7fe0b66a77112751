"""Replay the devset's real pages under their own URLs on loopback and crawl them.

Every page of ``SHARED/devset/boilerplate/<set>/`` is served at its original URL (http and
https) by the local proxy of ``tests.localweb``, with its bytes as crawled and its declared
charset in the Content-Type header. The main job then runs exactly as the README says
(``scrapy crawl seeds -a seeds=FILE``, default settings: politeness, robots.txt, size window,
every stage), with ``WACKY_FOLLOW_LINKS=False`` so that only the replayed pages are fetched.

    python benchmarks/devset_crawl.py [SHARED_DIR] [--set cleaneval-dev ...]

Prints pages fetched, docs kept, drops by reason, and for the kept pages the CleanEval
word-level precision, recall and F1 (micro and macro) of the crawl's TREC text against the
gold text.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.boilerplate_eval import prf, word_scores
from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from wackycrawl.crawl.urls import canonical_url
from wackycrawl.extensions.summary import drops_by_reason
from wackycrawl.trec.reader import iter_docs


def load_set(set_dir: Path) -> list[dict]:
    rows = []
    with open(set_dir / "manifest.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            html, gold = set_dir / f"{row['id']}.html", set_dir / f"{row['id']}.txt"
            if html.exists() and gold.exists():
                rows.append({**row, "html": html, "gold": gold})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("shared", nargs="?", default=str(ROOT.parent / "shared"))
    ap.add_argument("--set", action="append", dest="sets",
                    help="devset folder(s) under devset/boilerplate (default cleaneval-dev)")
    ap.add_argument("-s", action="append", default=[], metavar="NAME=VALUE",
                    help="extra Scrapy setting for the crawl")
    a = ap.parse_args()
    sets = a.sets or ["cleaneval-dev"]
    pages: dict[str, dict] = {}
    for name in sets:
        for row in load_set(Path(a.shared) / "devset" / "boilerplate" / name):
            pages.setdefault(row["url"], row)
    extra = dict(kv.split("=", 1) for kv in a.s)
    with LocalWeb() as web, tempfile.TemporaryDirectory() as d:
        for url, row in pages.items():
            ctype = "text/html" + (f"; charset={row['declared_charset']}"
                                   if row.get("declared_charset") else "")
            web.add(url, row["html"].read_bytes(), content_type=ctype)
        r = run_crawl(web, list(pages), Path(d), {"WACKY_FOLLOW_LINKS": "False", **extra},
                      timeout=3600, fast=False)
        docs = {doc.url: doc for f in sorted(r.outdir.glob("*.trec.gz"))
                for _, doc in iter_docs(str(f))}
    s = r.stats
    print(f"sets: {', '.join(sets)}; pages served: {len(pages)}; exit code {r.returncode}")
    print(f"pages fetched: {s.get('response_received_count', 0)}; docs kept: {s.get('wacky/kept', 0)}"
          f"; words kept: {s.get('wacky/words_kept', 0)}")
    print("drops by reason: " + (", ".join(f"{k} {v}" for k, v in drops_by_reason(s).items())
                                 or "none"))
    by_canonical = {canonical_url(u): row for u, row in pages.items()}
    totals, per_page = [0, 0, 0], []
    for url, doc in docs.items():
        row = pages.get(url) or by_canonical.get(canonical_url(url))
        if row is None:
            print(f"kept page not in the devset (redirected?): {url}")
            continue
        gold = row["gold"].read_text(encoding="utf-8")
        counts = word_scores(gold, doc.text)
        totals = [x + y for x, y in zip(totals, counts)]
        per_page.append(prf(*counts))
    if per_page:
        micro = prf(*totals)
        macro = [sum(p[i] for p in per_page) / len(per_page) for i in range(3)]
        print(f"kept pages vs gold (CleanEval word level, {len(per_page)} pages):")
        print("          P      R      F")
        print("micro " + "".join(f"{v * 100:7.1f}" for v in micro))
        print("macro " + "".join(f"{v * 100:7.1f}" for v in macro))


if __name__ == "__main__":
    main()
