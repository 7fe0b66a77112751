"""Smallest gap per host against its delay: Scrapy's own middlewares vs wackycrawl's (C04, C06).

One loopback web (``tests.localweb``), the same seeds, two ``scrapy crawl seeds`` runs with the
project's DOWNLOAD_DELAY 1 s, AutoThrottle on, CONCURRENT_REQUESTS_PER_DOMAIN 4:

- cd3.test: "Crawl-delay: 3" for us (C04); plain.test: no Crawl-delay (DOWNLOAD_DELAY applies);
- ra503.test: its first page answers 503 with "Retry-After: R" once (C06);
- storm.test: a rate rule, more than 2 requests within 3 s -> 429 for 3 s (C06, scaled down);
- ip1/ip2/ip3.test: three hostnames on one address, WACKY_PER_IP_DELAY = 1 s (wackycrawl run).

    python benchmarks/politeness_gaps.py [--pages 4] [--retry-after 4]

Prints per host and run: requests, smallest gap between two arrivals (robots.txt included),
the delay it is held against, and for the overloaded hosts the 429/503 answers and the wait
after the first one. The "scrapy" run swaps in RobotsTxtMiddleware and RetryMiddleware with
Scrapy's RETRY_HTTP_CODES (429/503 retried at once) and no Crawl-delay handling.
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
from tests.test_backoff_crawl import ScriptedRoutes, overloaded, scripted_web

PAGE = "<html><body><p>page</p></body></html>"
TXT = "text/plain"
SCRAPY = {"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": 100,
          "wackycrawl.middlewares.robots.RobotsMiddleware": None,
          "wackycrawl.middlewares.politeness.PolitenessMiddleware": None,
          "wackycrawl.middlewares.backoff.BackoffMiddleware": None}
SHARED_IP = ("ip1.test", "ip2.test", "ip3.test")


def build(routes: ScriptedRoutes, web, n: int, retry_after: int) -> list[str]:
    seeds = []
    robots = {"cd3.test": "User-agent: *\nCrawl-delay: 10\n\nUser-agent: wackycrawl\n"
                          "Crawl-delay: 3\n"}
    for host in ("cd3.test", "plain.test", "ra503.test", "storm.test", *SHARED_IP):
        web.add(f"http://{host}/robots.txt", robots.get(host, "User-agent: *\nAllow: /\n"),
                content_type=TXT)
        for i in range(n + 2 if host == "storm.test" else n):
            web.add(f"http://{host}/p{i}.html", PAGE)
            seeds.append(f"http://{host}/p{i}.html")
    routes.first("http://ra503.test/p0.html", overloaded(503, str(retry_after)))
    routes.rate_host, routes.limit, routes.window, routes.penalty = "storm.test", 2, 3.0, 3.0
    return seeds


def run(label: str, middlewares: dict | None, n: int, retry_after: int) -> dict:
    web, routes = scripted_web()
    with web, tempfile.TemporaryDirectory() as tmp:
        seeds = build(routes, web, n, retry_after)
        settings = {"ITEM_PIPELINES": "{}", "WACKY_FOLLOW_LINKS": "False",
                    "DOWNLOAD_DELAY": "1", "AUTOTHROTTLE_ENABLED": "True",
                    "CONCURRENT_REQUESTS_PER_DOMAIN": "4", "WACKY_PER_IP_DELAY": "1",
                    "TWISTED_DNS_RESOLVER": "tests.fixeddns.FixedResolver",
                    "FIXED_DNS": json.dumps({h: "192.0.2.7" for h in SHARED_IP})}
        if middlewares is not None:
            settings["DOWNLOADER_MIDDLEWARES"] = json.dumps(middlewares)
            settings["RETRY_HTTP_CODES"] = "500,502,503,504,522,524,408,429"
        result = run_crawl(web, seeds, Path(tmp), settings, fast=True, timeout=600)
        out = {"label": label, "wall": result.stats.get("elapsed_time_seconds", 0.0),
               "dropped": result.stats.get("retry/max_reached", 0)
               + result.stats.get("wacky/drop/overloaded", 0)}
        for key, hosts in (("cd3.test", ["cd3.test"]), ("plain.test", ["plain.test"]),
                           ("ra503.test", ["ra503.test"]), ("storm.test", ["storm.test"]),
                           ("ip1-3.test (one IP)", list(SHARED_IP))):
            hits = sorted((h.time, h.host, h.path) for x in hosts for h in web.hits_for(x))
            times = [t for t, _, _ in hits]
            gaps = [b - a for a, b in pairwise(times)]
            out[key] = {"n": len(times), "min": min(gaps) if gaps else float("nan")}
        first503 = next(t for t, _, p in sorted((h.time, h.host, h.path) for h in
                                                 web.hits_for("ra503.test")) if p == "/p0.html")
        after = [h.time for h in web.hits_for("ra503.test") if h.time > first503]
        out["ra503.test"]["wait"] = min(after) - first503 if after else float("nan")
        statuses = [s for _, _, s in routes.answers]
        out["storm.test"]["429"] = statuses.count(429)
        out["storm.test"]["ok"] = len({p for _, p, s in routes.answers if s == 200})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=4, help="pages per host")
    ap.add_argument("--retry-after", type=int, default=4, help="Retry-After of ra503.test, s")
    args = ap.parse_args()
    runs = [run("scrapy", SCRAPY, args.pages, args.retry_after),
            run("wackycrawl", None, args.pages, args.retry_after)]
    delays = {"cd3.test": "3 (Crawl-delay)", "plain.test": "1 (DOWNLOAD_DELAY)",
              "ra503.test": f"{args.retry_after} after the 503", "storm.test": "back-off",
              "ip1-3.test (one IP)": "1 (WACKY_PER_IP_DELAY)"}
    rows = [["host", "held against, s"] + [f"{r['label']}: requests / min gap s" for r in runs]]
    for host, delay in delays.items():
        rows.append([host, delay] + [f"{r[host]['n']} / {r[host]['min']:.2f}" for r in runs])
    rows.append(["ra503.test", "wait after 503, s"] + [f"{r['ra503.test']['wait']:.2f}"
                                                         for r in runs])
    rows.append(["storm.test", "429s / pages fetched"] + [
        f"{r['storm.test']['429']} / {r['storm.test']['ok']} of {args.pages + 2}" for r in runs])
    rows.append(["(all)", "dropped after retries"] + [str(r["dropped"]) for r in runs])
    rows.append(["(all)", "wall s"] + [f"{r['wall']:.1f}" for r in runs])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    main()
