"""Downloader middleware spacing the requests to each host (Crawl-delay, C04; 429/503, C06).

Interval of a host = max(DOWNLOAD_DELAY, Crawl-delay of the robots.txt group of
WACKY_ROBOTS_TOKEN), capped at WACKY_CRAWL_DELAY_MAX with a warning
(``wackycrawl.crawl.politeness``). The host is its name: robots.txt is per scheme+host+port,
so a name with several (other ports, http and https) gets the largest interval any of them
asks for. Crawl-delay comes from Scrapy's ``robots_parsed`` signal
(sent by ``wackycrawl.middlewares.robots``). ``process_request`` waits (asyncio sleep) until the
host's next start time and, for a positive interval, until the host's previous request is
answered (``process_response``/``process_exception``); robots.txt is a request like any other.
Requests waiting for one host go in priority order (``DEPTH_PRIORITY``: the smallest link depth
first), in no set order within one priority.

Overload (C06): a 429 or 503 answer holds its host - no request of that host is sent before the
answer's Retry-After (capped at WACKY_RETRY_AFTER_MAX) or, without one, the back-off wait - and
raises the host's interval (WACKY_BACKOFF_BASE, _FACTOR, _CAP, _JITTER); each 2xx answer shrinks
it again (WACKY_BACKOFF_DECAY). The wait is also written, as a wall-clock time, into the
request's meta (``wacky_not_before``), so the retry that ``wackycrawl.middlewares.backoff``
schedules keeps it through the scheduler and a JOBDIR pause. A request still waiting when the
crawl stops gracefully goes back to the scheduler instead of holding the stop up.

With a frontier (SQLite or Redis) a request that would wait here longer than
WACKY_PARK_AFTER_SECONDS for a held host goes back to the scheduler with its not-before time
and is parked in the frontier (a ``kill -9`` loses none, and it holds no concurrency slot);
with Scrapy's in-memory scheduler it is parked in memory (:mod:`wackycrawl.middlewares.parking`:
it holds no slot, a crawl with only parked requests left closes as ``idle`` after
WACKY_IDLE_CLOSE_SECONDS, and those still parked at close are the drop ``overloaded``);
``waiting`` counts the requests waiting here per host (``wackycrawl status``).

Per-request floor: ``meta["wacky_min_interval"]`` (seconds) raises the host's interval to at
least that value before the request claims it (a search engine's rate limit, WACKY_SERP_DELAYS).

Per-IP limit (optional): with WACKY_PER_IP_DELAY > 0 the host's address (Scrapy's DNS resolver,
so its DNS cache; through a proxy too, the target host is resolved) is a second key with that
interval, so many hostnames on one server share it. A name that does not resolve has no IP limit.

Placed last before the downloader (order 950), so a request that leaves this middleware is sent
at once. Scrapy's own slot delay still applies but is measured from the same send times, so the
gap is max(interval, slot delay), not a sum: DOWNLOAD_DELAY jitter or AutoThrottle can only make
it longer, and AutoThrottle lowering ``slot.delay`` or slot garbage collection cannot shorten it.

Distributed crawl (``REDIS_URL``): the host schedule lives in Redis
(:mod:`wackycrawl.distributed.politeness`), so intervals, holds and the one request in flight
per host hold across all workers; a dead worker's claims expire after WACKY_HOST_LEASE_SECONDS.

Stats: ``wacky/politeness/{crawl_delay_hosts,capped,overload/<status>,retry_after,parked,
dropped_held,ip_unresolved}``. Needs the asyncio reactor.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import random
import time
from collections import Counter

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.error import DNSLookupError

from wackycrawl.crawl.politeness import (
    OVERLOAD_CODES,
    Backoff,
    HostSchedule,
    effective_interval,
    retry_after_seconds,
)
from wackycrawl.crawl.robots import robots_key
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.politeness import HOST_LEASE_SECONDS, RedisHostSchedule
from wackycrawl.distributed.queue import NOT_BEFORE_META  # time.time() not to send before
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.middlewares.parking import MemoryParking
from wackycrawl.trec.writer import default_worker_id

logger = logging.getLogger(__name__)


def host_schedule(crawler, default_interval: float, backoff: Backoff):
    """The in-memory :class:`HostSchedule`; with ``REDIS_URL`` (a distributed crawl) the
    cluster-wide one of :mod:`wackycrawl.distributed.politeness`, its claims leased for
    ``WACKY_HOST_LEASE_SECONDS``."""
    s = crawler.settings
    if frontier_mode(s) != "redis":
        return HostSchedule(default_interval, backoff=backoff)
    lease = s.getfloat("WACKY_HOST_LEASE_SECONDS", HOST_LEASE_SECONDS)
    if lease <= s.getfloat("DOWNLOAD_TIMEOUT"):
        logger.warning("WACKY_HOST_LEASE_SECONDS %g <= DOWNLOAD_TIMEOUT: a slow answer may "
                       "overlap the next request to its host", lease)
    return RedisHostSchedule(connect(s), CrawlKeys(crawl_name(s, crawler.spidercls.name)),
                             s.get("WACKY_WORKER_ID") or default_worker_id(), default_interval,
                             backoff, lease)

MIN_INTERVAL_META = "wacky_min_interval"  # seconds: a floor on the host's interval
_KEYS_META = "_wacky_politeness_keys"
_SENT_META = "_wacky_politeness_sent"
_POLL = 1.0  # seconds between checks for a graceful stop while a request waits


def _outranked(ranks: Counter[int], priority: int) -> bool:
    """Whether a request of higher priority (smaller depth: DEPTH_PRIORITY) waits for the
    same host: the host's requests are sent in priority order."""
    return any(p > priority for p in ranks)


class PolitenessMiddleware:
    def __init__(self, crawler):
        if not is_asyncio_available():
            raise NotConfigured("PolitenessMiddleware needs the asyncio reactor")
        s = crawler.settings
        self.crawler = crawler
        self.stats = crawler.stats
        self.download_delay = s.getfloat("DOWNLOAD_DELAY")
        self.cap = s.getfloat("WACKY_CRAWL_DELAY_MAX")
        self.token = s.get("WACKY_ROBOTS_TOKEN") or s.get("USER_AGENT") or s.get("BOT_NAME")
        self.per_ip_delay = s.getfloat("WACKY_PER_IP_DELAY")
        backoff = Backoff(base=s.getfloat("WACKY_BACKOFF_BASE"),
                          factor=s.getfloat("WACKY_BACKOFF_FACTOR"),
                          cap=s.getfloat("WACKY_BACKOFF_CAP"),
                          jitter=s.getfloat("WACKY_BACKOFF_JITTER"),
                          retry_after_max=s.getfloat("WACKY_RETRY_AFTER_MAX"),
                          decay=s.getfloat("WACKY_BACKOFF_DECAY"))
        self.schedule = host_schedule(crawler, self.download_delay, backoff)
        self._released: dict[str, asyncio.Event] = {}
        self.park_after = s.getfloat("WACKY_PARK_AFTER_SECONDS", 10.0)
        # Scrapy's in-memory scheduler: long waits are parked in memory (a JOBDIR keeps them
        # waiting here, so a graceful stop hands them to its disk queue)
        self.parking = None if s.get("JOBDIR") else MemoryParking.of(crawler)
        self.waiting: Counter[str] = Counter()  # requests waiting here, per host (status)
        self._ranks: dict[str, Counter[int]] = {}  # host -> priorities of its waiting requests
        crawler.signals.connect(self._robots_parsed, signal=signals.robots_parsed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_request(self, request: Request) -> Request | None:
        host = urlparse_cached(request).hostname or ""
        keys = (host,)
        if (floor := request.meta.get(MIN_INTERVAL_META)) and self.schedule.interval(host) < floor:
            self.schedule.set_interval(host, floor)
        if self.per_ip_delay > 0 and (ip := await self._address(host)):
            keys = (host, f"ip:{ip}")
            self.schedule.set_interval(keys[1], self.per_ip_delay)
        if (not_before := request.meta.get(NOT_BEFORE_META)) is not None:
            self.schedule.hold(host, self.schedule.clock() + not_before - time.time())
        self.waiting[host] += 1
        ranks = self._ranks.setdefault(host, Counter())
        ranks[request.priority] += 1
        try:
            while (wait := None if _outranked(ranks, request.priority)
                   else self.schedule.claim(keys, request)) != 0.0:
                long_wait = wait is not None and wait > self.park_after
                if self._stopping() or (long_wait and self._can_park()):
                    if forget := getattr(self.schedule, "forget", None):
                        forget(request)
                    # keep the wait with the request: the frontier parks it until then
                    logger.debug("%s back to the scheduler for %.1f s", request, wait or 0.0)
                    self.stats.inc_value("wacky/politeness/parked")
                    not_before = time.time() + (wait or 0.0)
                    return request.replace(dont_filter=True,
                                           meta={**request.meta, NOT_BEFORE_META: not_before})
                if long_wait and self.parking is not None:  # no frontier: parked in memory
                    if forget := getattr(self.schedule, "forget", None):
                        forget(request)
                    logger.debug("%s parked in memory for %.1f s", request, wait)
                    self.stats.inc_value("wacky/politeness/parked")
                    self.parking.park(
                        host, request.replace(meta={**request.meta,
                                                    NOT_BEFORE_META: time.time() + wait}),
                        wait, "overloaded", "held for its host (429/503, Retry-After) when "
                        "the crawl closed", "wacky/politeness/dropped_held")
                    raise IgnoreRequest(f"{host} holds off: parked for {wait:.0f} s")
                if wait is None:
                    event = self._released.setdefault(keys[-1], asyncio.Event())
                    try:
                        await asyncio.wait_for(event.wait(), _POLL)
                    except TimeoutError:
                        pass
                else:
                    await asyncio.sleep(min(wait, _POLL))
        finally:
            self.waiting[host] -= 1
            ranks[request.priority] -= 1
            if ranks[request.priority] <= 0:
                del ranks[request.priority]
            if not ranks:
                self._ranks.pop(host, None)
        if self._lease_lost(request):
            self.schedule.release(keys, request)
            self.stats.inc_value("wacky/frontier/lease_lost_not_sent")
            logger.info("not sent: %s (its lease expired and the page was given to another "
                        "worker)", request)
            raise IgnoreRequest("lease lost: the page is another worker's")
        request.meta[_KEYS_META] = keys
        request.meta[_SENT_META] = self.schedule.clock()
        return None

    def _lease_lost(self, request: Request) -> bool:
        """True when the frontier leased ``request`` to this worker and the lease is lost
        (:meth:`.FrontierQueue.lease_lost`): sent now, the page would be fetched twice."""
        queue = getattr(self.crawler.engine.scheduler, "queue", None)
        lost = getattr(queue, "lease_lost", None)
        return lost is not None and lost(request)

    def process_response(self, request: Request, response: Response) -> Response:
        """First in the response chain: back off or relax the host, then let the next one go
        (so no request of a host that has just answered 429/503 is sent before its hold)."""
        host = urlparse_cached(request).hostname or ""
        if response.status in OVERLOAD_CODES:
            self._back_off(host, request, response)
        self._release(request, host if 200 <= response.status < 300 else None)
        return response

    def _back_off(self, host: str, request: Request, response: Response) -> None:
        now = time.time()
        retry_after = retry_after_seconds(response.headers.get(b"Retry-After"), now)
        sent = request.meta.get(_SENT_META, self.schedule.clock())
        wait = self.schedule.back_off(host, sent, retry_after, random.random())
        request.meta[NOT_BEFORE_META] = now + wait
        self.stats.inc_value(f"wacky/politeness/overload/{response.status}")
        if retry_after is not None:
            self.stats.inc_value("wacky/politeness/retry_after")
        logger.info("%s: %d (Retry-After %s): nothing sent for %.1f s, interval now %.1f s",
                    host, response.status, "none" if retry_after is None else f"{retry_after:g} s",
                    wait, self.schedule.interval(host))

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._release(request)  # failed download, or dropped between here and the downloader

    def _release(self, request: Request, relax: str | None = None) -> None:
        """Release the request's claim; ``relax``: the host to relax in the same step."""
        keys = request.meta.get(_KEYS_META)
        if not keys:
            if relax is not None:
                self.schedule.relax(relax)
            return
        if self.schedule.release(keys, request, relax):
            for key in keys:
                if (event := self._released.pop(key, None)) is not None:
                    event.set()

    def _can_park(self) -> bool:
        """True when the scheduler is a frontier that parks requests (SQLite or Redis)."""
        return hasattr(self.crawler.engine.scheduler, "queue")

    def _stopping(self) -> bool:
        """True once a graceful stop began (the engine no longer starts requests)."""
        engine = self.crawler.engine
        return not engine.running or getattr(engine._slot, "closing", None) is not None

    async def _address(self, host: str) -> str | None:
        """The host's IP address (a literal IP is its own), via Scrapy's resolver; None if unknown."""
        try:
            return str(ipaddress.ip_address(host.strip("[]")))
        except ValueError:
            pass
        from twisted.internet import reactor
        try:
            return await maybe_deferred_to_future(reactor.resolve(host))
        except (DNSLookupError, OSError) as exc:
            self.stats.inc_value("wacky/politeness/ip_unresolved")
            logger.debug("%s: no address for the per-IP limit (%s)", host, exc)
            return None

    def _robots_parsed(self, robotparser, request: Request) -> None:
        """A robots.txt (of ``request``'s scheme+host+port) was parsed: the host name's
        interval is the largest that any of its robots.txt asks for (other ports, http and
        https share the host name's schedule)."""
        host = urlparse_cached(request).hostname or ""
        crawl_delay = robotparser.crawl_delay(self.token)
        interval, capped = effective_interval(self.download_delay, crawl_delay, self.cap)
        try:
            source = robots_key(request.url)
        except ValueError:
            source = host
        interval = self.schedule.set_source_interval(host, source, interval)
        if crawl_delay is None:
            return
        self.stats.inc_value("wacky/politeness/crawl_delay_hosts")
        if capped:
            self.stats.inc_value("wacky/politeness/capped")
            logger.warning("%s: Crawl-delay %g s capped at WACKY_CRAWL_DELAY_MAX = %g s",
                           host, crawl_delay, self.cap)
        else:
            logger.info("%s: Crawl-delay %g s, interval %g s", host, crawl_delay, interval)
