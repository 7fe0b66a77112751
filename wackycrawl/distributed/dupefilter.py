"""The frontier's dupefilter: scrapy-redis's ``RFPDupeFilter`` with the project fingerprint.

``SCHEDULER_DUPEFILTER_CLASS`` (scrapy-redis reads ``DUPEFILTER_CLASS``; both work) of
:class:`~wackycrawl.distributed.scheduler.FrontierScheduler`. Built as scrapy-redis builds
its dupefilters (``from_spider``: key ``SCHEDULER_DUPEFILTER_KEY`` % the crawl name), over a
seen store: the Redis SET (default), a Bloom filter on Redis (``WACKY_DUPEFILTER = "bloom"``)
or the SQLite seen table of the local frontier. Unlike scrapy-redis's it uses
:func:`wackycrawl.distributed.fingerprint.fingerprint` (the project's URL canonicalisation:
session ids, tracking parameters, default ports; C18, notes/stack.md 4.5), 20 bytes.
A worker remembers the last ``WACKY_SEEN_CACHE`` fingerprints it recorded or found recorded
(the seen set only grows while the crawl runs), so a link it met before costs no Redis round
trip: on a page with 11 links most are such repeats. Stats: ``wacky/frontier/filtered``,
``wacky/frontier/seen_cached`` (decisions taken from that memory).
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from scrapy_redis.dupefilter import RFPDupeFilter

from wackycrawl.distributed import seen
from wackycrawl.distributed.fingerprint import fingerprint

logger = logging.getLogger(__name__)

DEFAULT_KEY = "wacky:%(spider)s:seen"
SEEN_STORES = ("set", "bloom")  # WACKY_DUPEFILTER: an exact Redis SET or a Bloom filter
SEEN_CACHE = 200_000  # fingerprints remembered per worker (~100 bytes each: ~20 MB)


def seen_store(settings) -> str:
    """``WACKY_DUPEFILTER`` (one of SEEN_STORES); ValueError naming it for any other value,
    in every frontier mode (``scrapy crawl`` checks it before the crawl starts)."""
    kind = settings.get("WACKY_DUPEFILTER", "set")
    if kind not in SEEN_STORES:
        raise ValueError(f"WACKY_DUPEFILTER must be one of {', '.join(SEEN_STORES)}, "
                         f"not {kind!r}")
    return kind


class FrontierDupeFilter(RFPDupeFilter):
    """``store`` has ``add(fp: bytes) -> bool`` (True if new), ``__len__`` and ``clear``."""

    def __init__(self, store, stats=None, debug: bool = False, cache: int = SEEN_CACHE):
        self.store, self.stats, self.debug = store, stats, debug
        self.server = getattr(store, "server", None)
        self.key = getattr(store, "key", None)
        self.logdupes = True
        self.cache_size = cache
        self._known: OrderedDict[bytes, None] = OrderedDict()

    @classmethod
    def from_spider(cls, spider, name: str | None = None):
        """scrapy-redis's constructor: the crawl's Redis seen store (``name``: the crawl
        name in the key, default the spider's)."""
        from wackycrawl.distributed.connection import from_settings

        s = spider.crawler.settings
        key = (s.get("SCHEDULER_DUPEFILTER_KEY") or DEFAULT_KEY) % {"spider": name or spider.name}
        kind = seen_store(s)
        server = from_settings(s)
        if kind == "bloom":
            store = seen.RedisBloom(server, key, s.getint("WACKY_BLOOM_CAPACITY", seen.CAPACITY),
                                    s.getfloat("WACKY_BLOOM_ERROR_RATE", seen.ERROR_RATE))
        else:
            store = seen.RedisSeenSet(server, key)
        return cls(store, spider.crawler.stats, s.getbool("DUPEFILTER_DEBUG"),
                   s.getint("WACKY_SEEN_CACHE", SEEN_CACHE))

    @staticmethod
    def fingerprint(request) -> bytes:
        """20 bytes; see :mod:`wackycrawl.distributed.fingerprint`."""
        return fingerprint(request.method, request.url, request.body)

    def request_fingerprint(self, request) -> bytes:
        return self.fingerprint(request)

    def request_seen(self, request) -> bool:
        """Record the request; True if it was seen before."""
        fp = self.fingerprint(request)
        if self._cached(fp):
            return True
        new = self.store.add(fp)
        self._keep(fp)
        return not new

    def known(self, request) -> bool:
        """Whether this worker's memory has the request as recorded; asks no store and
        records nothing (the frontier's queue script records and queues in one step)."""
        return self._cached(self.fingerprint(request))

    def remember(self, request) -> None:
        """Keep the fingerprint of a request the store has recorded in this worker's memory."""
        self._keep(self.fingerprint(request))

    def _cached(self, fp: bytes) -> bool:
        if fp not in self._known:
            return False
        self._known.move_to_end(fp)
        if self.stats is not None:
            self.stats.inc_value("wacky/frontier/seen_cached")
        return True

    def _keep(self, fp: bytes) -> None:
        if self.cache_size > 0:
            self._known[fp] = None
            if len(self._known) > self.cache_size:
                self._known.popitem(last=False)

    def clear(self) -> None:
        self.store.clear()
        self._known.clear()

    def close(self, reason: str = "") -> None:
        """Keep the seen set (scrapy-redis deletes it here; the scheduler flushes it when
        ``SCHEDULER_PERSIST`` is off)."""

    def log(self, request, spider=None) -> None:
        if self.stats is not None:
            self.stats.inc_value("wacky/frontier/filtered")
        if self.debug:
            logger.debug("Filtered duplicate request: %s", request)
