"""What ``wackycrawl status`` shows for a Redis crawl, and what workers publish for it.

Each worker writes its counters into the HASH ``worker:<id>`` (fields ``started``, ``updated``
and ``last_page`` (when its page count last grew) in seconds since the epoch, ``every``
(WACKY_STATS_PUBLISH_SECONDS), ``state``, ``pages``, ``kept``, ``leases``, ``drop/<reason>``
and ``waiting/<host>``: leased requests waiting in the politeness middleware for their host's
turn) every ``WACKY_STATS_PUBLISH_SECONDS``; the hash expires a week after the last update.
scrapy-redis's RedisStatsCollector is not used (it breaks Scrapy's LogStats, notes/stack.md
section 4).
"""

from __future__ import annotations

import time

from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.leasequeue import leases_per_worker, start_urls_size

WORKER_TTL = 7 * 86400


def publish(server, keys: CrawlKeys, worker: str, fields: dict) -> None:
    """Write a worker's counters (``fields``, str/number values) and refresh its expiry."""
    key = keys.worker(worker)
    with server.pipeline() as pipe:
        pipe.sadd(keys.workers, worker)
        pipe.hset(key, mapping={**fields, "updated": time.time()})
        pipe.expire(key, WORKER_TTL)
        pipe.execute()


def collect(server, keys: CrawlKeys) -> dict:
    """The status of a crawl as a dict: ``queued`` (ready to lease), ``parked`` (and
    ``parked_hosts``), ``dead_letters``, ``seeds_waiting``, ``seen`` (canonical URLs ever
    scheduled), ``written``, ``in_flight`` (leases: popped, not yet acknowledged),
    ``leases`` (per worker), ``waiting`` (host -> leased requests waiting for the host's
    turn, live workers), ``workers`` (id -> counters), ``kept``,
    ``pages``, ``drops`` (reason -> count), ``pages_per_min`` (all workers, over the span
    from the first start to the last page any worker fetched: a finished crawl keeps its
    rate, idle waits before a close do not dilute it)."""
    workers = {}
    for wid in sorted(w.decode() for w in server.smembers(keys.workers)):
        h = {k.decode(): v.decode() for k, v in server.hgetall(keys.worker(wid)).items()}
        if h:
            workers[wid] = h
    drops: dict[str, int] = {}
    waiting: dict[str, int] = {}
    for h in workers.values():
        for k, v in h.items():
            if k.startswith("drop/"):
                drops[k[5:]] = drops.get(k[5:], 0) + int(v)
            elif k.startswith("waiting/") and not h.get("state", "").startswith("closed"):
                waiting[k[8:]] = waiting.get(k[8:], 0) + int(v)
    pages = sum(int(h.get("pages", 0)) for h in workers.values())
    span = (max((float(h.get("last_page", h["updated"])) for h in workers.values()), default=0)
            - min((float(h.get("started", h["updated"])) for h in workers.values()), default=0))
    seen = server.scard(keys.seen) or int(server.get(keys.bloom_count) or 0)
    parked_hosts = {v.rsplit(b"|", 1)[0] for v in server.hvals(keys.parked_hosts)}
    return {
        "crawl": keys.crawl, "queued": server.zcard(keys.queue),
        "parked": server.zcard(keys.parked), "parked_hosts": len(parked_hosts),
        "dead_letters": server.llen(keys.dead),
        "waiting": dict(sorted(waiting.items(), key=lambda kv: -kv[1])),
        "seeds_waiting": start_urls_size(server, keys.start_urls), "seen": seen,
        "written": server.scard(keys.written), "in_flight": server.zcard(keys.inflight),
        "leases": leases_per_worker(server, keys), "workers": workers,
        "kept": sum(int(h.get("kept", 0)) for h in workers.values()), "pages": pages,
        "drops": dict(sorted(drops.items())),
        "pages_per_min": round(pages / span * 60, 1) if span > 0 else 0.0,
    }
