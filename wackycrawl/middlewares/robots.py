"""Downloader middleware obeying robots.txt as RFC 9309 says; replaces Scrapy's RobotsTxtMiddleware.

One robots.txt fetch per scheme+host+port, shared by every request waiting for it (C29: nothing
is sent to a host before its robots.txt is known). 2xx: rules (``wackycrawl.crawl.robots``);
4xx: allow all; 5xx, 429 or no answer: complete disallow while it lasts - the host's requests
are parked and scheduled again after WACKY_ROBOTS_RETRY_SECONDS, when robots.txt is fetched
again, at most WACKY_ROBOTS_MAX_DEFERRALS times (C01). Parked requests live in the frontier
(SQLite with JOBDIR, or Redis) with their not-before time; without a frontier in memory
(:mod:`wackycrawl.middlewares.parking`: when only they are left the crawl closes after
WACKY_IDLE_CLOSE_SECONDS with reason ``idle``, and they are dropped and counted). Entries expire after
WACKY_ROBOTS_MAX_AGE (RFC 9309 2.4). Groups are matched with WACKY_ROBOTS_TOKEN, else the
request's User-Agent. Parsed files are announced with Scrapy's ``robots_parsed`` signal
(``robotparser`` has ``allowed(url, ua)`` and ``crawl_delay(ua)``).

A robots.txt download is stopped once WACKY_ROBOTS_MAX_BYTES arrived and that part parsed,
whatever its Content-Length (Scrapy's DOWNLOAD_MAXSIZE does not cancel it at the headers); a
compressed one is decoded to at most WACKY_ROBOTS_MAX_BYTES + 64 KiB, beyond which (a
decompression bomb) the host counts as unreachable. A body that is not what its
Content-Encoding says (a plain file labelled gzip or br) is read as sent: the answer arrived
(RFC 9309 2.3.1.1) and its parseable rules are used (2.3.1.5; ``bad_encoding``). Redirects
are followed (Scrapy's RedirectMiddleware, REDIRECT_MAX_TIMES) and their target is read as the robots.txt, whatever
its path (:func:`is_robots_fetch`: the size window, scope and trap rules leave it alone); a
decompression bomb behind a redirect is ``too_large_decoded`` as one without. A chain of
more than REDIRECT_MAX_TIMES (5) redirects, a loop, or a Location that is no usable URL
leaves the robots.txt unavailable (RFC 9309 2.3.1.2, then 2.3.1.3: allow all;
``unavailable_redirects``, no page drop). A network failure at a redirect target (its name
does not resolve, refused...) is one of the fetch: unreachable, complete disallow and retry
(RFC 9309 2.3.1.4); only the robots.txt's own host name not resolving drops the host's pages
at once (``dropped_dns``, drop ``robots_dns``), and so does a host that is no host name at all
(:func:`~wackycrawl.crawl.urls.bad_host_name`: a space or ``|`` in it), before any fetch.

Stats: ``wacky/robots/{ok,unavailable_4xx,unavailable_redirects,unreachable_5xx,
unreachable_network,forbidden,deferred,dropped_unreachable,dropped_dns,cut_off,
too_large_decoded,bad_encoding}``. Needs the asyncio reactor (waiters share an asyncio Task).
"""

from __future__ import annotations

import asyncio
import logging
import time

from scrapy import Request, signals
from scrapy.exceptions import (
    CannotResolveHostError,
    IgnoreRequest,
    NotConfigured,
    StopDownload,
)
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.error import DNSLookupError

from wackycrawl.crawl import drops
from wackycrawl.crawl.sizewindow import DecodedMeter
from wackycrawl.crawl.urls import bad_host_name
from wackycrawl.crawl.robots import (
    ALLOW,
    FORBID,
    OK,
    UNAVAILABLE,
    RobotsEntry,
    RobotsTable,
    outcome,
    parse_robots,
    retry_after_seconds,
    robots_key,
)
from wackycrawl.distributed.queue import NOT_BEFORE_META
from wackycrawl.middlewares.parking import MemoryParking

logger = logging.getLogger(__name__)

DEFERRALS_META = "wacky_robots_deferrals"
ROBOTS_BYTES_META = "wacky_robots_bytes"
#: meta key of a robots.txt fetch: its :class:`RobotsFetch`
ROBOTS_FETCH_META = "wacky_robots_fetch"
#: decoded bytes a compressed robots.txt may have beyond WACKY_ROBOTS_MAX_BYTES (the parser
#: reads the first WACKY_ROBOTS_MAX_BYTES of them)
DECODED_SLACK = 64 * 1024


class RobotsFetch:
    """One robots.txt fetch, shared by the requests of its redirect chain (a redirect target's
    meta is a shallow copy of its source's, so it holds this same object): what the answer
    being read said of its Content-Encoding, for the fetch to name a decompression bomb
    wherever in the chain it came; how many redirects were followed and where the last one
    led (a failure there is the fetch's, not a verdict on the original host's name); and why
    :mod:`wackycrawl.middlewares.redirect` refused to follow a redirect of the chain."""

    __slots__ = ("encoded", "url", "hops", "target", "refused", "refused_detail", "raw")

    def __init__(self) -> None:
        self.encoded = ""  # the answer's Content-Encoding ("": none or identity)
        self.url = ""  # the URL of that answer
        self.hops = 0  # redirects followed
        self.target = ""  # the URL the last of them led to
        self.refused = ""  # too_many_redirects, redirect_loop or bad_redirect ("": none)
        self.refused_detail = ""
        self.raw = None  # a Content-Encoding answer as it arrived, before it was decoded

    def redirected(self, target: str = "") -> None:
        """The answer read was a redirect: its Content-Encoding says nothing of the target's
        (called by :mod:`wackycrawl.middlewares.redirect` for each redirect target)."""
        self.encoded = self.url = ""
        self.raw = None
        self.hops += 1
        self.target = target

    def refuse(self, reason: str, detail: str) -> None:
        """A redirect of the chain is not followed, or its target is at an address the
        safety middleware refuses (``reason``: the drop a page would get); the fetch takes
        the robots.txt as unavailable (RFC 9309 2.3.1.2), and no page drop is recorded."""
        self.refused, self.refused_detail = reason, detail


def _not_its_coding(body: bytes, encoding: str, max_bytes: int) -> bool:
    """Whether ``body`` is not what its Content-Encoding ``encoding`` says (Scrapy's decoders
    fail on it)."""
    try:
        meter = DecodedMeter(encoding, max_bytes + DECODED_SLACK)
    except ValueError:  # a coding Scrapy does not decode, or too many
        return False
    meter.feed(body)
    return meter.broken


def is_robots_fetch(request: Request) -> bool:
    """Whether ``request`` fetches a robots.txt for :class:`RobotsMiddleware`: the fetch of
    ``/robots.txt`` or a redirect target of it, whatever the target's path."""
    return ROBOTS_FETCH_META in request.meta


class RobotsMiddleware:
    DOWNLOAD_PRIORITY = 1000

    def __init__(self, crawler):
        s = crawler.settings
        if not s.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured()
        if not is_asyncio_available():
            raise NotConfigured("RobotsMiddleware needs the asyncio reactor")
        self.crawler = crawler
        self.stats = crawler.stats
        self.token = s.get("WACKY_ROBOTS_TOKEN") or ""
        self.default_ua = s.get("USER_AGENT") or s.get("BOT_NAME")
        self.max_bytes = s.getint("WACKY_ROBOTS_MAX_BYTES")
        self.max_deferrals = s.getint("WACKY_ROBOTS_MAX_DEFERRALS")
        self.table = RobotsTable(s.getfloat("WACKY_ROBOTS_MAX_AGE"),
                                 s.getfloat("WACKY_ROBOTS_RETRY_SECONDS"))
        self._fetching: dict[str, asyncio.Task] = {}
        self._no_such_host: set[str] = set()  # robots keys whose last fetch failed in DNS
        self.parking = MemoryParking.of(crawler)  # without a frontier
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)
        crawler.signals.connect(self._headers_received, signal=signals.headers_received)
        crawler.signals.connect(self._response_downloaded, signal=signals.response_downloaded)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        if request.meta.get("dont_obey_robotstxt"):
            return
        url = urlparse_cached(request)
        if url.scheme not in ("http", "https"):
            return
        if (why := bad_host_name(url.hostname or "")) is not None:
            # Twisted refuses such a URL ("Invalid URI"): its robots.txt would count as
            # unreachable and be retried WACKY_ROBOTS_MAX_DEFERRALS times, the page parked
            self.stats.inc_value("wacky/robots/dropped_dns")
            drops.record(self.crawler, "robots_dns", request.url, f"{why}: it cannot resolve")
            raise IgnoreRequest("host name cannot resolve")
        key = robots_key(request.url)
        entry = await self._entry(key, f"{url.scheme}://{url.netloc}/robots.txt", request)
        decision = entry.decide(request.url, self._token(request))
        if decision == ALLOW:
            return
        if decision == FORBID:
            self.stats.inc_value("wacky/robots/forbidden")
            drops.record(self.crawler, "robots_forbidden", request.url, "disallowed by robots.txt")
            raise IgnoreRequest("Forbidden by robots.txt")
        if key in self._no_such_host:  # parking would only hold the crawl open
            self.stats.inc_value("wacky/robots/dropped_dns")
            drops.record(self.crawler, "robots_dns", request.url, "host name does not resolve")
            raise IgnoreRequest("host name does not resolve")
        self._defer(key, request, entry)

    def _token(self, request: Request) -> str:
        ua = request.headers.get(b"User-Agent")
        return self.token or (ua.decode("latin-1") if ua else self.default_ua)

    async def _entry(self, key: str, robots_url: str, request: Request) -> RobotsEntry:
        """The live entry of ``key``; the first asker starts the fetch, all await the same Task."""
        entry = self.table.get(key)
        if entry is not None:
            return entry
        task = self._fetching.get(key)
        if task is None:
            task = asyncio.ensure_future(self._fetch(key, robots_url, request))
            self._fetching[key] = task
            task.add_done_callback(lambda _t: self._fetching.pop(key, None))
        return await asyncio.shield(task)

    async def _fetch(self, key: str, robots_url: str, request: Request) -> RobotsEntry:
        self._no_such_host.discard(key)
        fetch = RobotsFetch()
        robots_req = Request(robots_url, priority=self.DOWNLOAD_PRIORITY, callback=NO_CALLBACK,
                             dont_filter=True,
                             meta={"dont_obey_robotstxt": True, "dont_retry": True,
                                   ROBOTS_BYTES_META: 0, ROBOTS_FETCH_META: fetch})
        try:
            response = await self.crawler.engine.download_async(robots_req)
        except Exception as exc:  # noqa: BLE001 - refused, timeout, DNS, reset, dropped: all unreachable
            if (not fetch.refused and fetch.raw is not None
                    and not isinstance(exc, IgnoreRequest)
                    and _not_its_coding(fetch.raw.body, fetch.encoded, self.max_bytes)):
                # HttpCompressionMiddleware failed on a body that is not what its
                # Content-Encoding says (a plain file labelled gzip or br): the answer
                # arrived (RFC 9309 2.3.1.1), so its bytes are read as sent and what parses
                # is used (2.3.1.5); a broken compressed stream parses to no rules
                self.stats.inc_value("wacky/robots/bad_encoding")
                logger.warning("robots.txt %s: body is not %s (%s: %s): read as sent",
                               fetch.url or robots_url, fetch.encoded, type(exc).__name__, exc)
                return await self._answer(key, robots_url, request, fetch.raw)
            if fetch.refused:
                # RFC 9309 2.3.1.2: after five redirects (REDIRECT_MAX_TIMES) or a loop the
                # robots.txt MAY be taken as unavailable: 2.3.1.3, allow all
                self.stats.inc_value("wacky/robots/unavailable_redirects")
                logger.warning("robots.txt %s not reached through its redirects (%s: %s): "
                               "unavailable, host allowed (RFC 9309 2.3.1.2)", robots_url,
                               fetch.refused, fetch.refused_detail)
                return await self._unavailable(key, request)
            if fetch.encoded and isinstance(exc, IgnoreRequest):
                # HttpCompressionMiddleware stopped decoding at the bound set in _headers_received
                # (on the robots.txt or on the target of its redirects)
                self.stats.inc_value("wacky/robots/too_large_decoded")
                entry = self.table.store(key, outcome(None))
                via = f" (redirected to {fetch.url})" if fetch.url != robots_url else ""
                logger.warning("robots.txt %s%s decodes to more than %d bytes (%s): host "
                               "disallowed, retry in %.0f s", robots_url, via, self.max_bytes,
                               fetch.encoded, self.table.retry_seconds)
                return entry
            self.stats.inc_value("wacky/robots/unreachable_network")
            # a name that does not resolve: its pages cannot load either (dropped, not parked);
            # a redirect target's name that does not resolve is a network failure of this
            # fetch (RFC 9309 2.3.1.4: unreachable, complete disallow, retried), not of the host
            via = f" at its redirect target {fetch.target}" if fetch.hops else ""
            if isinstance(exc, (DNSLookupError, CannotResolveHostError)) and not fetch.hops:
                self._no_such_host.add(key)
            entry = self.table.store(key, outcome(None))
            logger.warning("robots.txt %s unreachable%s (%s: %s): host disallowed, retry in "
                           "%.0f s", robots_url, via, type(exc).__name__, exc,
                           self.table.retry_seconds)
            return entry
        return await self._answer(key, robots_url, request, response)

    async def _answer(self, key: str, robots_url: str, request: Request,
                      response) -> RobotsEntry:
        """Store the outcome of the final answer to the robots.txt fetch of ``key``."""
        result = outcome(response.status)
        if result in (OK, UNAVAILABLE):
            rules = parse_robots(response.body if result == OK else b"", self.max_bytes)
            # announce the rules (Crawl-delay!) before any request can see the entry
            await self.crawler.signals.send_catch_log_async(
                signal=signals.robots_parsed, robotparser=rules, request=request)
        if result == OK:
            entry = self.table.store(key, OK, rules)
            self.stats.inc_value("wacky/robots/ok")
            logger.info("robots.txt %s: %d, rules parsed (%s, %d bytes)", robots_url,
                        response.status, rules.encoding, len(response.body))
        elif result == UNAVAILABLE:
            entry = self.table.store(key, UNAVAILABLE)
            self.stats.inc_value("wacky/robots/unavailable_4xx")
            logger.info("robots.txt %s: %d, unavailable: host allowed", robots_url,
                        response.status)
        else:
            retry_after = retry_after_seconds(response.headers.get(b"Retry-After"))
            entry = self.table.store(key, result, retry_after=retry_after)
            self.stats.inc_value("wacky/robots/unreachable_5xx")
            logger.warning("robots.txt %s: %d, unreachable: host disallowed, retry in %.0f s",
                           robots_url, response.status, entry.expires - self.table.clock())
        return entry

    async def _unavailable(self, key: str, request: Request) -> RobotsEntry:
        """Store ``key`` as UNAVAILABLE (allow all), its empty rules announced first."""
        await self.crawler.signals.send_catch_log_async(
            signal=signals.robots_parsed, robotparser=parse_robots(b""), request=request)
        return self.table.store(key, UNAVAILABLE)

    def _headers_received(self, headers, body_length, request: Request, spider=None) -> None:
        """A robots.txt is read on the wire up to WACKY_ROBOTS_MAX_BYTES (:meth:`_bytes_received`
        stops it there), whatever its Content-Length: Scrapy's own wire bound
        (``download_maxsize``, checked against the Content-Length right after this signal) is
        lifted for it, so a large file is cut and parsed (RFC 9309 2.5), never cancelled. The
        Content-Encoding is noted in the fetch's :class:`RobotsFetch`, which the request the
        fetch awaits shares with the targets of its redirects; the decoded bound is set once
        the body arrived (:meth:`_response_downloaded`)."""
        fetch = request.meta.get(ROBOTS_FETCH_META)
        if fetch is None or not self.max_bytes:
            return
        request.meta["download_maxsize"] = request.meta["download_warnsize"] = 0
        coding = headers.get(b"Content-Encoding")
        fetch.encoded, fetch.url = "", request.url
        if coding and coding.strip().lower() not in (b"identity", b""):
            fetch.encoded = coding.decode("latin-1")

    def _response_downloaded(self, response, request: Request, spider=None) -> None:
        """A compressed robots.txt arrived: HttpCompressionMiddleware may decode it to
        WACKY_ROBOTS_MAX_BYTES (+ slack) and no more (``download_maxsize``, which it reads
        from the request), so a decompression bomb is never expanded; past that the host
        counts as unreachable (``too_large_decoded``). The answer as it arrived is kept in the
        fetch, to be read as sent if it is not what its Content-Encoding says."""
        fetch = request.meta.get(ROBOTS_FETCH_META)
        if fetch is None or not self.max_bytes or not fetch.encoded:
            return
        fetch.raw = response
        request.meta["download_maxsize"] = request.meta["download_warnsize"] = (
            self.max_bytes + DECODED_SLACK)

    def _bytes_received(self, data: bytes, request: Request, spider=None) -> None:
        """Stop a robots.txt download once WACKY_ROBOTS_MAX_BYTES arrived: the part received
        is parsed (RFC 9309 2.5), so an endless or huge file neither fills memory nor,
        cancelled by a timeout, disallows the host."""
        received = request.meta.get(ROBOTS_BYTES_META)
        if received is None or not self.max_bytes:
            return
        request.meta[ROBOTS_BYTES_META] = received = received + len(data)
        if received > self.max_bytes:
            self.stats.inc_value("wacky/robots/cut_off")
            logger.warning("robots.txt %s longer than %d bytes: download stopped, the first "
                           "%d bytes are parsed", request.url, self.max_bytes, self.max_bytes)
            raise StopDownload(fail=False)

    def _defer(self, key: str, request: Request, entry: RobotsEntry) -> None:
        """Park ``request`` until the entry expires, or drop it after max deferrals; raises.
        With a frontier (SQLite or Redis) it is parked there with its not-before time, so a
        ``kill -9`` loses none; else in memory here."""
        n = request.meta.get(DEFERRALS_META, 0)
        if n >= self.max_deferrals:
            self.stats.inc_value("wacky/robots/dropped_unreachable")
            drops.record(self.crawler, "robots_unreachable", request.url,
                         f"robots.txt unreachable after {n} deferrals")
            raise IgnoreRequest("robots.txt unreachable")
        delay = max(0.0, entry.expires - self.table.clock())
        meta = {**request.meta, DEFERRALS_META: n + 1}
        self.stats.inc_value("wacky/robots/deferred")
        if hasattr(self.crawler.engine.scheduler, "queue"):  # the frontier keeps it
            meta[NOT_BEFORE_META] = time.time() + delay
            self.crawler.engine.crawl(request.replace(dont_filter=True, meta=meta))
            raise IgnoreRequest("robots.txt unreachable: parked in the frontier")
        self.parking.park(key, request.replace(meta=meta), delay, "robots_unreachable",
                          "parked for an unreachable robots.txt when the crawl closed",
                          "wacky/robots/dropped_unreachable")
        raise IgnoreRequest("robots.txt unreachable: deferred")
