"""Redis key layout of a distributed crawl: every key of crawl NAME starts with ``wacky:NAME:``.

One prefix per crawl, so several crawls share one Redis and ``redis-cli --scan --pattern
'wacky:NAME:*'`` lists (or ``UNLINK`` removes) all of one crawl. Keys, by type:

=========================  =======  ==========================================================
``id``                     STRING   the crawl's identity: a random id written by its first
                                    worker (or the first one started after an upgrade, on
                                    a crawl made before it); read by every worker at start,
                                    on every new connection and at every heartbeat - gone or
                                    changed means Redis lost the crawl's state
                                    (:class:`~wackycrawl.distributed.connection.CrawlState`)
``start_urls``             LIST     seeds pushed from outside, JSON ``{"url": ..., "meta": {...}}``
                                    (scrapy-redis's format) or a bare URL; moved into ``queue``
                                    as they are, id ``seed:<SHA-1 of the entry>``, until a
                                    worker makes their requests (:mod:`.leasequeue`)
``queue``                  ZSET     request id -> order (higher priority first, then FIFO);
                                    ``SCHEDULER_QUEUE_KEY``, the keys below ``queue:`` are its
``queue:requests``         HASH     request id -> payload (version byte + pickled request dict;
                                    queued, parked or in flight)
``queue:inflight``         ZSET     request id -> lease deadline (Redis server time, seconds)
``queue:leases``           HASH     request id -> ``<worker>#<run>.<n>|<queue score>`` (lease token)
``queue:seq``              STRING   counter giving FIFO order within a priority
``queue:parked``           ZSET     request id -> not-before time (Redis server time): requests
                                    waiting for a host's robots.txt or Retry-After
``queue:parked_hosts``     HASH     request id -> ``<host>|<priority>`` of a parked request
``queue:resumed``          STRING   Redis server time when some worker last came back from an
                                    outage (or saw the server's clock jump): no lease is
                                    reclaimed for one lease period after it
``queue:dead``             LIST     dead letters: ``<reason>\t<id>\t<payload>`` of entries no
                                    worker could decode (never dropped silently)
``seen``                   SET      20-byte request fingerprints (the dupefilter,
                                    ``SCHEDULER_DUPEFILTER_KEY``), or
``seen:<i>``               STRING   Bloom filter bitmap shards (``WACKY_DUPEFILTER = "bloom"``)
``seen:count``             STRING   fingerprints added to the Bloom filter
``written``                SET      20-byte fingerprints of canonical URLs written to TREC files
``pending:<writer>``       SET      fingerprints a writer (``<prefix>-<worker id>``) is about
                                    to write and has not recorded in ``written`` yet
                                    (:mod:`.written`)
``workers``                SET      ids of workers that ever joined
``scope``                  SET      SURT prefixes derived from the seeds
                                    (``WACKY_SCOPE_FROM_SEEDS``, :mod:`wackycrawl.middlewares.scope`)
``worker:<id>``            HASH     a worker's published counters (``wackycrawl status``)
``host:<key>``             HASH     politeness state of a host or ``ip:<address>``: interval,
                                    hold, last start, owner lease (:mod:`.politeness`)
``checksum:<hex>``         HASH     exact-duplicate checksums by leading bits (:mod:`.simhash`)
``near:<t>:<hex>``         STRING   near-duplicate table ``t``, bucket of a simhash block: the
                                    other 48 bits of each fingerprint, 6 bytes each
``near:rec:<hex>``         HASH     records (owner, checksum, shingle sketch) of the
                                    fingerprints of table 0's bucket (:mod:`.simhash`)
``near:version``           STRING   documents added to the near-duplicate tables (a counter)
=========================  =======  ==========================================================
"""

from __future__ import annotations

import os

PREFIX = "wacky"


def default_crawl(environ=os.environ) -> str:
    """The crawl name the CLI uses without ``--crawl``: ``$WACKY_CRAWL_NAME`` (the setting a
    worker is run with, ``-s WACKY_CRAWL_NAME=NAME`` or the environment), else ``seeds``
    (the spider's name, the workers' default)."""
    return environ.get("WACKY_CRAWL_NAME") or "seeds"


def known_crawls(server) -> list[str]:
    """Names of the crawls some worker ever joined on this Redis (``wacky:NAME:workers``)."""
    names = {k.decode()[len(PREFIX) + 1:-len(":workers")]
             for k in server.scan_iter(match=f"{PREFIX}:*:workers", count=1000)}
    return sorted(names)


class CrawlKeys:
    """The Redis key names of crawl ``crawl`` (see the module doc); attributes are str."""

    def __init__(self, crawl: str):
        if not crawl or any(c in crawl for c in ": *?[]"):
            raise ValueError(f"not a usable crawl name: {crawl!r}")
        self.crawl = crawl
        self.prefix = f"{PREFIX}:{crawl}:"
        for name in ("id", "start_urls", "seen", "written", "workers", "scope"):
            setattr(self, name, self.prefix + name)
        self.__dict__.update(queue_keys(self.prefix + "queue"))
        self.bloom_count = self.seen + ":count"
        self.pattern = self.prefix + "*"

    def worker(self, worker_id: str) -> str:
        return f"{self.prefix}worker:{worker_id}"

    def bloom_shard(self, i: int) -> str:
        return f"{self.seen}:{i}"

    def pending(self, writer: str) -> str:
        return f"{self.prefix}pending:{writer}"

    def host(self, key: str) -> str:
        return f"{self.prefix}host:{key}"

    def checksum_shard(self, prefix: str) -> str:
        return f"{self.prefix}checksum:{prefix}"

    @property
    def near_bucket_prefix(self) -> str:
        """``near:`` keys' prefix: bucket ``<prefix><t>:<hex>`` of near-duplicate table t."""
        return f"{self.prefix}near:"

    def near_record(self, block: str) -> str:
        return f"{self.prefix}near:rec:{block}"


QUEUE_PARTS = ("requests", "inflight", "leases", "seq", "parked", "parked_hosts", "dead",
               "resumed")


def queue_keys(queue: str) -> dict[str, str]:
    """The key names of the lease queue whose ZSET is ``queue``: ``{"queue": queue,
    "requests": queue + ":requests", ...}`` (see the module doc)."""
    return {"queue": queue, **{part: f"{queue}:{part}" for part in QUEUE_PARTS}}


class QueueKeys:
    """The lease queue's key names (attributes, as :class:`CrawlKeys`) for any queue key."""

    def __init__(self, queue: str):
        self.__dict__.update(queue_keys(queue))


def redis_url(settings) -> str | None:
    """The ``REDIS_URL`` setting, else the ``REDIS_URL`` environment variable, else None.

    ``settings`` is anything with ``.get(name)`` (Scrapy settings or a dict). This is THE
    switch of distributed mode."""
    return settings.get("REDIS_URL") or os.environ.get("REDIS_URL") or None
