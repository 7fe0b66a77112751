"""robots.txt and Crawl-delay: Scrapy 2.19's RobotsTxtMiddleware vs wackycrawl's two middlewares.

One loopback web (``tests.localweb``), the same seeds, two ``scrapy crawl seeds`` runs that
differ only in DOWNLOADER_MIDDLEWARES:

- race.test: robots.txt "Disallow: /", N pages requested at once (C29);
- down.test: robots.txt answers 503 (C01);
- a.test: "User-agent: wackycrawl / Crawl-delay: D" (and 10 s for "*"), P pages (C04);
  DOWNLOAD_DELAY 1 s, AutoThrottle on, as in the project settings.

    python benchmarks/robots_politeness.py [--pages 12] [--delay 2]

Prints, per run: pages fetched despite "Disallow: /", pages fetched from the host whose robots.txt
is down, the smallest and largest gap between requests to a.test (robots.txt included), and the
crawl's wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb

PAGE = "<html><body><p>page</p></body></html>"
SCRAPY = {"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": 100,
          "wackycrawl.middlewares.robots.RobotsMiddleware": None,
          "wackycrawl.middlewares.politeness.PolitenessMiddleware": None}


def run(label: str, middlewares: dict | None, n: int, delay: float) -> list[str]:
    with LocalWeb() as web, tempfile.TemporaryDirectory() as tmp:
        web.add("http://race.test/robots.txt", "User-agent: *\nDisallow: /\n",
                content_type="text/plain")
        web.add("http://down.test/robots.txt", "<html>maintenance</html>", status=503)
        web.add("http://a.test/robots.txt", f"User-agent: *\nCrawl-delay: 10\n\n"
                f"User-agent: wackycrawl\nCrawl-delay: {delay}\n", content_type="text/plain")
        seeds = []
        for host, count in (("race.test", n), ("down.test", 3), ("a.test", 4)):
            for i in range(count):
                web.add(f"http://{host}/p{i}.html", PAGE)
                seeds.append(f"http://{host}/p{i}.html")
        settings = {"ITEM_PIPELINES": "{}", "WACKY_FOLLOW_LINKS": "False",
                    "CONCURRENT_REQUESTS": "32", "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
                    "DOWNLOAD_DELAY": "1", "AUTOTHROTTLE_ENABLED": "True",
                    "WACKY_ROBOTS_MAX_DEFERRALS": "0"}
        if middlewares is not None:
            settings["DOWNLOADER_MIDDLEWARES"] = json.dumps(middlewares)
        result = run_crawl(web, seeds, Path(tmp), settings, fast=True)
        pages = {h: sum(1 for x in web.hits_for(h) if x.path != "/robots.txt")
                 for h in ("race.test", "down.test")}
        times = sorted(x.time for x in web.hits_for("a.test"))
        gaps = [b - a for a, b in pairwise(times)]
    return [label, f"{pages['race.test']}/{n}", f"{pages['down.test']}/3",
            f"{min(gaps):.2f}", f"{max(gaps):.2f}",
            f"{result.stats.get('elapsed_time_seconds', 0):.1f}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=12, help="pages requested at once on race.test")
    ap.add_argument("--delay", type=float, default=2.0, help="Crawl-delay of a.test for us, s")
    args = ap.parse_args()
    head = ["middlewares", "leaked (Disallow: /)", "fetched (robots 503)",
            "a.test min gap s", "a.test max gap s", "wall s"]
    rows = [head, run("scrapy RobotsTxtMiddleware", SCRAPY, args.pages, args.delay),
            run("wackycrawl Robots+Politeness", None, args.pages, args.delay)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    main()
