"""Requests held back in memory when the crawl has no frontier to park them in.

With a frontier (SQLite in a JOBDIR, or Redis) a request that must wait long (robots.txt
unreachable, a host holding off with 429/503 and Retry-After) is parked in the frontier with
its not-before time. Scrapy's in-memory scheduler has no such place, so the downloader
middlewares hand such a request to the crawl's one :class:`MemoryParking` (:meth:`of`), which
schedules it again when its time comes (``dont_filter``, so the dupefilter lets it pass) and
frees its downloader slot meanwhile.

When only parked requests are left, the progress line says so (``wacky/frontier/parked_now``,
``_hosts``, ``_next``), the crawl is kept open ``WACKY_IDLE_CLOSE_SECONDS`` and then closed with
reason ``idle``; whatever is still parked at close is dropped and counted (each request's own
drop reason and stat, one WARNING per reason), never lost without a word.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.asyncio import call_later
from scrapy.utils.defer import deferred_from_coro

from wackycrawl.crawl import drops

logger = logging.getLogger(__name__)


@dataclass
class Parked:
    """One parked request and what its drop at close is: ``reason`` (drop reason), ``detail``
    (the drops file's detail), ``stat`` (a ``wacky/`` counter also raised)."""

    request: Request
    reason: str
    detail: str
    stat: str


class MemoryParking:
    """The crawl's requests parked in memory, per key (a robots.txt key or a host)."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.stats = crawler.stats
        self.idle_close = crawler.settings.getfloat("WACKY_IDLE_CLOSE_SECONDS", 30.0)
        self._parked: dict[str, list[Parked]] = {}
        self._timers: dict[str, object] = {}
        self._due: dict[str, float] = {}  # key -> time.monotonic() of its requests' retry
        self._idle_since: float | None = None
        self._closing = False
        crawler.signals.connect(self._spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def of(cls, crawler) -> MemoryParking:
        """The crawl's one parking (made on first use)."""
        parking = getattr(crawler, "_wacky_parking", None)
        if parking is None:
            parking = crawler._wacky_parking = cls(crawler)
        return parking

    def __len__(self) -> int:
        return sum(len(p) for p in self._parked.values())

    def park(self, key: str, request: Request, delay: float, reason: str, detail: str,
             stat: str) -> None:
        """Hold ``request`` (already carrying the meta it is to be sent again with) under
        ``key`` for ``delay`` seconds; a key's requests go back together, at the first
        parked one's time."""
        self._parked.setdefault(key, []).append(
            Parked(request.replace(dont_filter=True), reason, detail, stat))
        if key not in self._timers:
            delay = max(0.0, delay)
            self._timers[key] = call_later(delay, self._reschedule, key)
            self._due[key] = time.monotonic() + delay
        self._idle_since = None
        self._publish()

    def _publish(self) -> None:
        """The parked requests' figures for the progress line (as the frontiers set them)."""
        self.stats.set_value("wacky/frontier/parked_now", len(self))
        self.stats.set_value("wacky/frontier/parked_hosts", len(self._parked))
        due = [self._due[k] for k in self._parked if k in self._due]
        if due:
            self.stats.set_value("wacky/frontier/parked_next",
                                 max(0.0, min(due) - time.monotonic()))

    def _reschedule(self, key: str) -> None:
        self._timers.pop(key, None)
        self._due.pop(key, None)
        parked = self._parked.pop(key, [])
        self._publish()
        logger.info("%s: %d parked requests scheduled again", key, len(parked))
        for p in parked:
            self.crawler.engine.crawl(p.request)

    def _spider_idle(self) -> None:
        """Only parked requests left: keep the crawl open WACKY_IDLE_CLOSE_SECONDS, then
        close it with reason ``idle`` (they are dropped and counted at close)."""
        if not self._parked:
            self._idle_since = None
            return
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
            logger.info("only %d parked requests left: closing as idle in %.0f s unless one "
                        "becomes due before", len(self), self.idle_close)
        if now - self._idle_since < self.idle_close:
            raise DontCloseSpider
        if not self._closing:
            self._closing = True
            self._drop_all()  # counted before the close writes the stats
            deferred_from_coro(self.crawler.engine.close_spider_async(reason="idle"))
        raise DontCloseSpider

    def _spider_closed(self) -> None:
        self._drop_all()

    def _drop_all(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._due.clear()
        lost: dict[str, int] = {}
        for p in (p for parked in self._parked.values() for p in parked):
            drops.record(self.crawler, p.reason, p.request.url, p.detail)
            self.stats.inc_value(p.stat)
            lost[p.reason] = lost.get(p.reason, 0) + 1
        self._parked.clear()
        self._publish()
        for reason, n in lost.items():
            logger.warning("%d parked requests dropped at close (%s)", n, reason)
