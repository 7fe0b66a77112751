"""Item-pipeline throughput per stage and for the whole chain, on real pages, one core.

Builds the crawl's own pipeline objects (``ITEM_PIPELINES`` of wackycrawl.settings, through a
real Crawler) and feeds them page items made from the devset's HTML files, stage by stage:
each stage gets the items the previous one kept. Prints docs/s and MB/s of raw HTML per stage
and for the chain (target: chain >= 5 MB/s), and the language stage's docs/s next to
langid.py's on the same clean texts (target: >= 50x).

    python benchmarks/pipeline.py [SHARED_DIR] [--set cleaneval-dev ...] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import langid  # noqa: E402
from scrapy.exceptions import DropItem  # noqa: E402
from scrapy.utils.misc import load_object  # noqa: E402
from scrapy.utils.project import get_project_settings  # noqa: E402
from scrapy.utils.reactor import install_reactor  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from wackycrawl.spiders.seeds import SeedsSpider  # noqa: E402

SETS = ["cleaneval-dev", "article-extraction-benchmark", "readability-testpages",
        "trafilatura-eval"]


def items_from(shared: Path, sets: list[str]) -> list[dict]:
    items = []
    for name in sets:
        for html in sorted((shared / "devset" / "boilerplate" / name).glob("*.html")):
            body = html.read_bytes()
            items.append({"url": f"http://{name}.test/{html.name}", "ip": "127.0.0.1",
                          "fetched": "20261130000000", "status": 200, "protocol": "HTTP/1.1",
                          "headers": [("Content-Type", "text/html")], "content_type": "text/html",
                          "body": body, "meta": {"Raw-Bytes": str(len(body)), "Depth": "0"}})
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("shared", nargs="?", default=str(ROOT.parent / "shared"))
    ap.add_argument("--set", action="append", dest="sets", help=f"devset folders (default: all of {SETS})")
    ap.add_argument("--repeat", type=int, default=3, help="runs per stage; the fastest counts")
    a = ap.parse_args()
    items = items_from(Path(a.shared), a.sets or SETS)
    raw_mb = sum(len(i["body"]) for i in items) / 1e6
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    with tempfile.TemporaryDirectory() as out:
        settings = get_project_settings().copy_to_dict()
        settings.update({"WACKY_OUTPUT_DIR": out, "LOG_LEVEL": "WARNING"})
        crawler = get_crawler(SeedsSpider, settings)
        stages = sorted(crawler.settings.getdict("ITEM_PIPELINES").items(), key=lambda kv: kv[1])
        print(f"{len(items)} pages, {raw_mb:.1f} MB of raw HTML\n")
        print(f"{'stage':<22}{'in':>6}{'kept':>6}{'secs':>8}{'docs/s':>9}{'MB/s':>8}")
        total = 0.0
        current = items
        texts = []
        for path, _ in stages:
            cls = load_object(path)
            best, kept = float("inf"), []
            for _ in range(a.repeat):
                pipe = cls.from_crawler(crawler)
                if hasattr(pipe, "open_spider"):
                    pipe.open_spider()
                batch = [copy.deepcopy(i) for i in current]
                t0 = time.perf_counter()
                out_items = []
                for item in batch:
                    try:
                        out_items.append(pipe.process_item(item))
                    except DropItem:
                        pass
                best = min(best, time.perf_counter() - t0)
                if hasattr(pipe, "close_spider"):
                    pipe.close_spider()
                kept = out_items
            total += best
            name = path.rsplit(".", 1)[1]
            print(f"{name:<22}{len(current):>6}{len(kept):>6}{best:>8.2f}"
                  f"{len(current) / best:>9.0f}{raw_mb / best:>8.1f}")
            if name == "LanguagePipeline":
                texts = ["\n".join(i["paragraphs"]) for i in current]
                lang_secs = best
            current = kept
        print(f"{'whole chain':<22}{len(items):>6}{len(current):>6}{total:>8.2f}"
              f"{len(items) / total:>9.0f}{raw_mb / total:>8.1f}   (target >= 5 MB/s)")
    if texts:
        langid.classify("warm up the model")
        t0 = time.perf_counter()
        for t in texts:
            langid.classify(t)
        lid = time.perf_counter() - t0
        ours, theirs = len(texts) / lang_secs, len(texts) / lid
        print(f"\nlanguage stage {ours:.0f} docs/s vs langid.py {theirs:.0f} docs/s on the same "
              f"{len(texts)} clean texts: {ours / theirs:.0f}x (target >= 50x)")


if __name__ == "__main__":
    main()
