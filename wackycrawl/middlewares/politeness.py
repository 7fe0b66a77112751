"""Downloader middleware spacing the requests to each host by its interval (Crawl-delay, C04).

Interval of a host = max(DOWNLOAD_DELAY, Crawl-delay of the robots.txt group of
WACKY_ROBOTS_TOKEN), capped at WACKY_CRAWL_DELAY_MAX with a warning
(``wackycrawl.crawl.politeness``). Crawl-delay comes from Scrapy's ``robots_parsed`` signal
(sent by ``wackycrawl.middlewares.robots``). ``process_request`` waits (asyncio sleep) until the
host's next start time and, for a positive interval, until the host's previous request has left
the downloader; the robots.txt request is a request like any other.

Placed last before the downloader (order 950), so a request that leaves this middleware is sent
at once. Scrapy's own slot delay still applies but is measured from the same send times, so the
gap is max(interval, slot delay), not a sum: DOWNLOAD_DELAY jitter or AutoThrottle can only make
it longer, and AutoThrottle lowering ``slot.delay`` or slot garbage collection cannot shorten it.

Stats: ``wacky/politeness/crawl_delay_hosts`` (robots.txt files with a Crawl-delay for us),
``wacky/politeness/capped``. Needs the asyncio reactor.
"""

from __future__ import annotations

import asyncio
import logging

from scrapy import Request, signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.httpobj import urlparse_cached

from wackycrawl.crawl.politeness import HostSchedule, effective_interval

logger = logging.getLogger(__name__)


class PolitenessMiddleware:
    def __init__(self, crawler):
        if not is_asyncio_available():
            raise NotConfigured("PolitenessMiddleware needs the asyncio reactor")
        s = crawler.settings
        self.stats = crawler.stats
        self.download_delay = s.getfloat("DOWNLOAD_DELAY")
        self.cap = s.getfloat("WACKY_CRAWL_DELAY_MAX")
        self.token = s.get("WACKY_ROBOTS_TOKEN") or s.get("USER_AGENT") or s.get("BOT_NAME")
        self.schedule = HostSchedule(self.download_delay)
        self._released: dict[str, asyncio.Event] = {}
        crawler.signals.connect(self._robots_parsed, signal=signals.robots_parsed)
        crawler.signals.connect(self._left_downloader, signal=signals.request_left_downloader)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        host = urlparse_cached(request).hostname or ""
        while (wait := self.schedule.claim(host, request)) != 0.0:
            if wait is None:
                await self._released.setdefault(host, asyncio.Event()).wait()
            else:
                await asyncio.sleep(wait)

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._release(request)  # dropped between here and the downloader

    def _left_downloader(self, request: Request) -> None:
        self._release(request)

    def _release(self, request: Request) -> None:
        host = urlparse_cached(request).hostname or ""
        if self.schedule.release(host, request):
            event = self._released.pop(host, None)
            if event is not None:
                event.set()

    def _robots_parsed(self, robotparser, request: Request) -> None:
        host = urlparse_cached(request).hostname or ""
        crawl_delay = robotparser.crawl_delay(self.token)
        interval, capped = effective_interval(self.download_delay, crawl_delay, self.cap)
        self.schedule.set_interval(host, interval)
        if crawl_delay is None:
            return
        self.stats.inc_value("wacky/politeness/crawl_delay_hosts")
        if capped:
            self.stats.inc_value("wacky/politeness/capped")
            logger.warning("%s: Crawl-delay %g s capped at WACKY_CRAWL_DELAY_MAX = %g s",
                           host, crawl_delay, self.cap)
        else:
            logger.info("%s: Crawl-delay %g s, interval %g s", host, crawl_delay, interval)
