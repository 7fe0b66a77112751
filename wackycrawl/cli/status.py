"""``wackycrawl status --redis URL [--crawl NAME] [--json]``: progress of a Redis crawl.

Prints, each with what it counts: requests queued (ready to lease), parked (waiting for a
not-before time), leases (popped and not yet acknowledged, including those waiting for their
host's turn), seeds waiting, seen (canonical URLs ever scheduled), URLs written, dead letters,
all read live from Redis; then per worker its live leases and the counters it published last
(pages, kept, state; workers publish every WACKY_STATS_PUBLISH_SECONDS and at start and close,
:mod:`wackycrawl.distributed.status`), so these, the requests waiting per host, documents kept,
drops and pages per minute trail the live figures by up to that interval: the output says how
old they are; a worker still ``running`` that missed 3 publications is called silent (killed
with ``kill -9``, its machine lost, or stalled). The crawl name is ``--crawl``, else
``$WACKY_CRAWL_NAME``, else ``seeds``; a crawl no worker ever joined is named as such with the
crawls that exist. Exit status 2 if Redis cannot be reached or the URL is no Redis URL.
"""

import json
import time

import redis

from wackycrawl.cli import error, redis_client
from wackycrawl.distributed.keys import CrawlKeys, default_crawl, known_crawls, redis_url
from wackycrawl.distributed.status import collect


def register(subparsers) -> None:
    p = subparsers.add_parser("status", help="progress of a distributed (Redis) crawl")
    p.add_argument("--redis", default=None, help="Redis URL (default: $REDIS_URL)")
    p.add_argument("--crawl", default=default_crawl(),
                   help="crawl name, the workers' WACKY_CRAWL_NAME (default: $WACKY_CRAWL_NAME "
                        "or seeds; now %(default)s)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    url = redis_url({"REDIS_URL": args.redis})
    if not url:
        error("status", "no Redis URL (--redis or REDIS_URL)")
        return 2
    if (server := redis_client("status", url)) is None:
        return 2
    try:
        s = collect(server, CrawlKeys(args.crawl))
        others = [] if s["workers"] else known_crawls(server)
    except redis.RedisError as exc:
        error("status", f"Redis {url}: {exc}")
        return 2
    if args.json:
        print(json.dumps(s, sort_keys=True))
        return 0
    keys = CrawlKeys(args.crawl)
    print(f"crawl {s['crawl']}:")
    print(f"  queued   {s['queued']:>9}  requests ready to be leased by a worker")
    print(f"  parked   {s['parked']:>9}  requests waiting in Redis for a not-before time (robots.txt "
          f"unreachable, Retry-After), on {s['parked_hosts']} hosts")
    print(f"  leases   {s['in_flight']:>9}  requests popped and not yet acknowledged (downloading, "
          "in the pipelines, or waiting for their host's turn)")
    print(f"  seeds    {s['seeds_waiting']:>9}  seeds pushed and not yet read ({keys.start_urls})")
    print(f"  seen     {s['seen']:>9}  canonical URLs ever scheduled (the dupefilter; "
          "fetched, queued or filtered later)")
    print(f"  written  {s['written']:>9}  URLs whose document is in a TREC file")
    print(f"  dead     {s['dead_letters']:>9}  entries no worker could read ({keys.dead})")
    if not s["workers"]:
        print(f"no worker ever joined crawl {s['crawl']!r} on this Redis; crawls here: "
              + (", ".join(others) or "none")
              + " (--crawl NAME or $WACKY_CRAWL_NAME: the workers' -s WACKY_CRAWL_NAME)")
    now = time.time()
    ages = [now - float(h["updated"]) for h in s["workers"].values()]
    for (wid, h), age in zip(s["workers"].items(), ages):
        print(f"  worker {wid}: {s['leases'].get(wid, 0)} leases now; published "
              f"{age:.0f} s ago: {h.get('pages', 0)} pages, {h.get('kept', 0)} kept, "
              f"{worker_state(h, age)}")
    if ages:
        every = max(float(h.get("every", 0)) for h in s["workers"].values())
        print(f"as the workers published them (every {every:g} s, the latest "
              f"{min(ages):.0f} s ago; the figures above the worker lines are live):")
    top = list(s["waiting"].items())[:10]
    print("waiting for their host's turn (leased, held by the politeness middleware): "
          + (", ".join(f"{host} {n}" for host, n in top) or "none")
          + (f" (+{len(s['waiting']) - 10} hosts)" if len(s["waiting"]) > 10 else ""))
    print(f"documents kept: {s['kept']}; pages: {s['pages']} ({s['pages_per_min']} pages/min)")
    print("drops: " + (", ".join(f"{k} {v}" for k, v in s["drops"].items()) or "none"))
    return 0


SILENT_PUBLISHES = 3


def worker_state(fields: dict, age: float) -> str:
    """A worker's published state; a ``running`` worker that missed SILENT_PUBLISHES
    publications is said to be silent (killed, machine lost, or stalled): its leases go back
    when they expire."""
    state = fields.get("state", "?")
    every = float(fields.get("every", 0) or 0)
    if state == "running" and every > 0 and age > SILENT_PUBLISHES * every:
        return (f"running when last heard of, silent for {age:.0f} s (publishes every "
                f"{every:g} s): killed or stalled?")
    return state
