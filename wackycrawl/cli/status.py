"""``wackycrawl status --redis URL [--crawl NAME] [--json]``: progress of a Redis crawl.

Prints, each with what it counts: requests queued (ready to lease), parked (waiting for a
not-before time), leases (popped and not yet acknowledged, including those waiting for their
host's turn), seeds waiting, seen (canonical URLs ever scheduled), URLs written, dead letters,
then per worker its leases and pages, per host the leased requests waiting for its turn,
documents kept, drops by reason and pages per minute, from the counters workers publish
(:mod:`wackycrawl.distributed.status`). Exit status 2 if Redis cannot be reached.
"""

import json
import sys
import time

import redis

from wackycrawl.distributed.keys import CrawlKeys, redis_url
from wackycrawl.distributed.status import collect


def register(subparsers) -> None:
    p = subparsers.add_parser("status", help="progress of a distributed (Redis) crawl")
    p.add_argument("--redis", default=None, help="Redis URL (default: $REDIS_URL)")
    p.add_argument("--crawl", default="seeds", help="crawl name (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    url = redis_url({"REDIS_URL": args.redis})
    if not url:
        print("wackycrawl status: no Redis URL (--redis or REDIS_URL)", file=sys.stderr)
        return 2
    try:
        s = collect(redis.Redis.from_url(url), CrawlKeys(args.crawl))
    except redis.RedisError as exc:
        print(f"wackycrawl status: Redis {url}: {exc}", file=sys.stderr)
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
    now = time.time()
    for wid, h in s["workers"].items():
        age = now - float(h["updated"])
        print(f"  worker {wid}: {s['leases'].get(wid, 0)} leases, {h.get('pages', 0)} pages, "
              f"{h.get('kept', 0)} kept, {h.get('state', '?')}, updated {age:.0f} s ago")
    top = list(s["waiting"].items())[:10]
    print("waiting for their host's turn (leased, one request per host at a time): "
          + (", ".join(f"{host} {n}" for host, n in top) or "none")
          + (f" (+{len(s['waiting']) - 10} hosts)" if len(s["waiting"]) > 10 else ""))
    print(f"documents kept: {s['kept']}; pages: {s['pages']} ({s['pages_per_min']} pages/min)")
    print("drops: " + (", ".join(f"{k} {v}" for k, v in s["drops"].items()) or "none"))
    return 0
