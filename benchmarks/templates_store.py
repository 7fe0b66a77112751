"""Host-template store cost: the boilerplate stage's CPU per page with the in-process
TemplateStore vs the SQLite store of a JOBDIR (LocalTemplateStore, one transaction per page).

Pages: the devset's HTML files (host = the devset folder: pages of different sites, few
shared blocks) and/or pages generated as benchmarks/crawl.py builds them (prose pages over
``--hosts`` hosts sharing a menu and footer template). Each page goes through the text stage
once (decoding, not timed), then through a boilerplate stage per store, in the same order;
the stage's CPU (``time.process_time``, SQLite's work included: it runs in this process) and
wall time per page are the best of ``--repeat`` runs, each with a fresh store (a new JOBDIR).
``store`` is the CPU of the store's ``learn`` calls alone (the pages' block hashes replayed),
a figure the stage's own work does not blur.

    python benchmarks/templates_store.py [SHARED_DIR] [--generated 300] [--hosts 20]
                                         [--devset] [--repeat 3]
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

from scrapy.exceptions import DropItem
from scrapy.utils.project import get_project_settings
from scrapy.utils.reactor import install_reactor
from scrapy.utils.test import get_crawler

from benchmarks.pipeline import SETS, items_from
from tests.webpages import page, prose
from wackycrawl.pipelines.boilerplate import BoilerplatePipeline
from wackycrawl.pipelines.text import TextPipeline
from wackycrawl.spiders.seeds import SeedsSpider


def generated(pages: int, hosts: int) -> list[dict]:
    """Items of benchmarks/crawl.py's loopback web."""
    urls = [f"http://h{n % hosts}.bench.test/p{n}.html" for n in range(pages)]
    items = []
    for n, url in enumerate(urls):
        links = [urls[(n * 7 + k) % pages] for k in range(1, 12)]
        body = page(f"Page {n}", prose(n, min_chars=6000 + (n % 5) * 3000),
                    links=links).encode()
        items.append({"url": url, "ip": "127.0.0.1", "fetched": "20261130000000",
                      "status": 200, "protocol": "HTTP/1.1",
                      "headers": [("Content-Type", "text/html")], "content_type": "text/html",
                      "body": body, "meta": {"Raw-Bytes": str(len(body)), "Depth": "0"}})
    return items


def decoded(items: list[dict], settings: dict) -> list[dict]:
    stage = TextPipeline.from_crawler(get_crawler(SeedsSpider, settings))
    out = []
    for item in items:
        try:
            out.append(stage.process_item(item))
        except DropItem:
            pass
    return out


class Recorder:
    """A store's stand-in that records the ``learn`` calls it passes on."""

    def __init__(self, store):
        self.store, self.calls = store, []

    def learn(self, host, hashes):
        hashes = list(hashes)
        self.calls.append((host, hashes))
        return self.store.learn(host, hashes)


def measure(items: list[dict], settings: dict, jobdir: str | None) -> tuple:
    """(CPU ms per page, wall ms per page, the store's CPU ms per page, template blocks
    removed, store class) of a boilerplate stage over ``items``, with ``jobdir`` in a JOBDIR
    (two subfolders: the stage's and the replay's)."""
    def stage(name: str) -> BoilerplatePipeline:
        extra = {"JOBDIR": str(Path(jobdir) / name)} if jobdir else {}
        return BoilerplatePipeline.from_crawler(get_crawler(SeedsSpider, {**settings, **extra}))

    timed = stage("stage")
    recorder = timed.templates = Recorder(timed.templates)
    batch = [copy.deepcopy(i) for i in items]
    t0, c0 = time.perf_counter(), time.process_time()
    for item in batch:
        try:
            timed.process_item(item)
        except DropItem:
            pass
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    replay = stage("replay").templates
    c0 = time.process_time()
    for host, hashes in recorder.calls:
        replay.learn(host, hashes)
    learn = time.process_time() - c0
    removed = timed.stats.get_value("wacky/boilerplate/template_blocks", 0)
    return (*(1000 * t / len(items) for t in (cpu, wall, learn)), removed,
            type(replay).__name__)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("shared", nargs="?", default=str(ROOT.parent / "shared"))
    ap.add_argument("--generated", type=int, default=300, help="generated pages (0: none)")
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--devset", action="store_true", help="also the devset's HTML files")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    settings = {**get_project_settings().copy_to_dict(), "LOG_LEVEL": "WARNING"}
    sets = {"generated": generated(a.generated, a.hosts)} if a.generated else {}
    if a.devset:
        sets["devset"] = items_from(Path(a.shared), SETS)
    print(f"{'pages':<10}{'n':>5}  {'store':<20}{'CPU ms/page':>12}{'wall ms/page':>13}"
          f"{'store CPU':>10}{'removed':>9}")
    for name, raw in sets.items():
        items = decoded(raw, settings)
        if not items:
            sys.exit(f"no {name} pages (is {a.shared} the shared folder?)")
        for jobdir in (False, True):
            runs = []
            for _ in range(a.repeat):
                with tempfile.TemporaryDirectory() as tmp:
                    runs.append(measure(items, settings, tmp if jobdir else None))
            cpu, wall, learn = (min(r[k] for r in runs) for k in range(3))
            removed, store = runs[0][3:]
            print(f"{name:<10}{len(items):>5}  {store:<20}{cpu:>12.3f}{wall:>13.3f}"
                  f"{learn:>10.3f}{removed:>9}")


if __name__ == "__main__":
    main()
