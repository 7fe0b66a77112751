"""Redis key layout of a distributed crawl: every key of crawl NAME starts with ``wacky:NAME:``.

One prefix per crawl, so several crawls share one Redis and ``redis-cli --scan --pattern
'wacky:NAME:*'`` lists (or ``UNLINK`` removes) all of one crawl. Keys, by type:

=========================  =======  ==========================================================
``start_urls``             LIST     seeds pushed from outside, JSON ``{"url": ..., "meta": {...}}``
                                    (scrapy-redis's format) or a bare URL
``queue``                  ZSET     request id -> order (higher priority first, then FIFO)
``requests``               HASH     request id -> pickled request dict (queued or in flight)
``inflight``               ZSET     request id -> lease deadline (Redis server time, seconds)
``leases``                 HASH     request id -> ``<worker>#<run>.<n>|<queue score>`` (lease token)
``seq``                    STRING   counter giving FIFO order within a priority
``seen``                   SET      20-byte request fingerprints (the dupefilter), or
``bloom:<i>``              STRING   Bloom filter bitmap shards (``WACKY_DUPEFILTER = "bloom"``)
``bloom:count``            STRING   fingerprints added to the Bloom filter
``written``                SET      20-byte fingerprints of canonical URLs written to TREC files
``workers``                SET      ids of workers that ever joined
``worker:<id>``            HASH     a worker's published counters (``wackycrawl status``)
``host:<key>``             HASH     politeness state of a host or ``ip:<address>``: interval,
                                    hold, last start, owner lease (:mod:`.politeness`)
``checksum:<hex>``         HASH     exact-duplicate checksums by leading bits (:mod:`.simhash`)
``simhash:<t>:<hex>``      HASH/SET near-duplicate table ``t``, bucket of a simhash block
=========================  =======  ==========================================================
"""

from __future__ import annotations

import os

PREFIX = "wacky"


class CrawlKeys:
    """The Redis key names of crawl ``crawl`` (see the module doc); attributes are str."""

    def __init__(self, crawl: str):
        if not crawl or any(c in crawl for c in ": *?[]"):
            raise ValueError(f"not a usable crawl name: {crawl!r}")
        self.crawl = crawl
        self.prefix = f"{PREFIX}:{crawl}:"
        for name in ("start_urls", "queue", "requests", "inflight", "leases", "seq", "seen",
                     "written", "workers"):
            setattr(self, name, self.prefix + name)
        self.bloom_count = self.prefix + "bloom:count"
        self.pattern = self.prefix + "*"

    def worker(self, worker_id: str) -> str:
        return f"{self.prefix}worker:{worker_id}"

    def bloom_shard(self, i: int) -> str:
        return f"{self.prefix}bloom:{i}"

    def host(self, key: str) -> str:
        return f"{self.prefix}host:{key}"

    def checksum_shard(self, prefix: str) -> str:
        return f"{self.prefix}checksum:{prefix}"

    def simhash_bucket(self, table: int, block: str) -> str:
        return f"{self.prefix}simhash:{table}:{block}"


def redis_url(settings) -> str | None:
    """The ``REDIS_URL`` setting, else the ``REDIS_URL`` environment variable, else None.

    ``settings`` is anything with ``.get(name)`` (Scrapy settings or a dict). This is THE
    switch of distributed mode."""
    return settings.get("REDIS_URL") or os.environ.get("REDIS_URL") or None
