"""``wackycrawl status --redis URL [--crawl NAME] [--json]``: progress of a Redis crawl.

Prints the queue length, seeds waiting, seen URLs, URLs written, in-flight leases per
worker, documents kept, drops by reason and pages per minute, from the counters workers
publish (:mod:`wackycrawl.distributed.status`). Exit status 2 if Redis cannot be reached.
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
    print(f"crawl {s['crawl']}: {s['queued']} queued, {s['seeds_waiting']} seeds waiting, "
          f"{s['seen']} seen URLs, {s['written']} URLs written")
    print(f"in flight: {s['in_flight']} leases")
    now = time.time()
    for wid, h in s["workers"].items():
        age = now - float(h["updated"])
        print(f"  worker {wid}: {s['leases'].get(wid, 0)} leases, {h.get('pages', 0)} pages, "
              f"{h.get('kept', 0)} kept, {h.get('state', '?')}, updated {age:.0f} s ago")
    print(f"documents kept: {s['kept']}; pages: {s['pages']} ({s['pages_per_min']} pages/min)")
    print("drops: " + (", ".join(f"{k} {v}" for k, v in s["drops"].items()) or "none"))
    return 0
