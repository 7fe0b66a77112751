"""Per-host politeness: the interval between two requests to a host and who may send next.

Stages (no Scrapy import; the clock is injectable, seconds, monotonic; nothing here sleeps):

1. :func:`effective_interval` - ``max(DOWNLOAD_DELAY, Crawl-delay)`` capped at a project
   maximum. Crawl-delay is an "other record" of RFC 9309 (2.2.4) that crawlers MAY interpret;
   Bing documents it as seconds to wait between requests, fractions allowed (C04).
2. :func:`retry_after_seconds` - the wait a 429 (RFC 6585 4) or 503 (RFC 9110 15.6.4) asks
   for in its Retry-After header, delta-seconds or HTTP-date (RFC 9110 10.2.3).
3. :class:`Backoff` - truncated exponential back-off with jitter for a host that signals
   overload (C06): each overload answer multiplies the host's interval by ``factor`` (from at
   least ``base``, at most ``cap``), each success shrinks it by ``decay``.
4. :class:`HostSchedule` - per key (host, or an IP address) the interval, the start of the last
   request, a "not before" time and the request in flight, so the gap between two request
   starts to one key is never below its interval, nothing is sent while a key is held, and a
   key with a positive interval has at most one request in flight. It lives outside Scrapy's
   downloader slots, so it survives their garbage collection (idle slots are dropped after
   60 s and re-created with DOWNLOAD_DELAY) and AutoThrottle lowering a slot's delay.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime

#: Upper bound for a Crawl-delay, seconds (project policy, C04).
CRAWL_DELAY_MAX = 60.0
#: Answers that mean "too many requests, come back later": RFC 6585 4, RFC 9110 15.6.4.
OVERLOAD_CODES = (429, 503)


def effective_interval(download_delay: float, crawl_delay: float | None,
                       cap: float = CRAWL_DELAY_MAX) -> tuple[float, bool]:
    """``(interval, capped)``: seconds between two request starts to one host.

    ``crawl_delay`` None (absent or unparsable) leaves ``download_delay``. A Crawl-delay above
    ``cap`` is replaced by ``cap`` and ``capped`` is True. The result is never below
    ``download_delay``.
    """
    if crawl_delay is None:
        return download_delay, False
    capped = crawl_delay > cap
    return max(download_delay, min(crawl_delay, cap)), capped


def retry_after_seconds(value: str | bytes | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header value (RFC 9110 10.2.3), never negative.

    ``value`` is delta-seconds (``"120"``) or an HTTP-date (``"Wed, 21 Oct 2026 07:28:00 GMT"``,
    compared with ``now``, seconds since the epoch; a date in the past gives 0.0). Absent,
    empty or unparsable values give None; nothing is raised.
    """
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    value = (value or "").strip()
    if value.isascii() and value.isdigit():  # str.isdigit() also takes "\xb3" (latin-1 byte)
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):  # year 99999999999...
        return None
    if when.tzinfo is None:  # "-0000" or no zone: HTTP-dates are always GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True)
class Backoff:
    """Truncated exponential back-off with jitter for 429/503 answers (C06). All in seconds.

    Defaults: factor 2 and jitter as in "Exponential Backoff And Jitter" (AWS Architecture
    Blog, 2015) and Google Cloud's truncated exponential back-off; cap 300 s from C06.
    """

    base: float = 1.0  # smallest raised interval
    factor: float = 2.0  # each overload answer multiplies the interval by this
    cap: float = 300.0  # largest raised interval
    jitter: float = 0.5  # a wait grows by a random share in [0, jitter)
    retry_after_max: float = 3600.0  # longest Retry-After honoured
    decay: float = 0.9  # each success multiplies the raised interval by this

    def raised(self, interval: float) -> float:
        """The interval after one more overload answer: ``max(base, interval) * factor``, capped."""
        return min(self.cap, max(self.base, interval) * self.factor)

    def wait(self, interval: float, retry_after: float | None, u: float) -> float:
        """Seconds before the host's next request: the longer of ``interval`` and Retry-After
        (capped at ``retry_after_max``), made longer by ``jitter * u`` of itself (``u`` in [0, 1))."""
        wait = interval if retry_after is None else max(interval, min(retry_after,
                                                                      self.retry_after_max))
        return wait * (1.0 + self.jitter * u)


class HostSchedule:
    """key -> (interval, start of last request, not-before time, request in flight).

    A request is claimed under one or more keys (its host, and its server's IP address for a
    per-IP limit). :meth:`claim` answers ``0.0`` (go now; the request is recorded as started
    under every key and, under each key with a positive interval, as in flight), a positive
    number of seconds to wait before asking again, or None when another request holding one
    of the keys is in flight (ask again after :meth:`release`).
    """

    def __init__(self, default_interval: float, clock: Callable[[], float] = time.monotonic,
                 backoff: Backoff | None = None):
        self.default_interval = default_interval
        self.clock = clock
        self.backoff = backoff or Backoff()
        self._interval: dict[str, float] = {}
        self._sources: dict[str, dict[str, float]] = {}  # key -> source -> interval
        self._raised: dict[str, float] = {}  # back-off interval while a host is overloaded
        self._raised_at: dict[str, float] = {}
        self._hold: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._owner: dict[str, object] = {}

    def set_interval(self, key: str, seconds: float) -> None:
        """Use ``seconds`` for ``key`` from now on (also for the request after the last one)."""
        self._interval[key] = seconds

    def set_source_interval(self, key: str, source: str, seconds: float) -> float:
        """``source`` (a robots.txt: scheme+host+port) asks ``seconds`` for ``key`` (a host
        name, which several robots.txt share: other ports, http and https); the key's
        interval becomes the largest any of its sources asks, so the last robots.txt parsed
        cannot lower what another one set. Returns that interval."""
        sources = self._sources.setdefault(key, {})
        sources[source] = seconds
        self._interval[key] = max(sources.values())
        return self._interval[key]

    def interval(self, key: str) -> float:
        """The key's interval: its own (or the default), raised while it is backed off."""
        return max(self._interval.get(key, self.default_interval), self._raised.get(key, 0.0))

    def hold(self, key: str, until: float) -> None:
        """Send nothing under ``key`` before clock time ``until`` (a later hold wins)."""
        self._hold[key] = max(self._hold.get(key, until), until)

    def back_off(self, key: str, sent_at: float, retry_after: float | None,
                 u: float = 0.0) -> float:
        """A request started at ``sent_at`` was answered 429/503: hold ``key``; returns the wait.

        The interval is raised (:meth:`Backoff.raised`) once per burst: answers to requests
        sent before the previous back-off of ``key`` only extend the hold.
        """
        if sent_at >= self._raised_at.get(key, float("-inf")):
            self._raised[key] = self.backoff.raised(self.interval(key))
            self._raised_at[key] = self.clock()
        wait = self.backoff.wait(self.interval(key), retry_after, u)
        self.hold(key, self.clock() + wait)
        return wait

    def relax(self, key: str) -> None:
        """A success: the raised interval shrinks by ``decay``; it ends at the normal interval."""
        raised = self._raised.get(key)
        if raised is None:
            return
        raised *= self.backoff.decay
        if raised <= self._interval.get(key, self.default_interval):
            del self._raised[key], self._raised_at[key]
        else:
            self._raised[key] = raised

    def claim(self, keys: str | tuple[str, ...], owner: object) -> float | None:
        """0.0 when ``owner`` may send now, else seconds to wait, or None while one is in flight."""
        keys = (keys,) if isinstance(keys, str) else keys
        if any(k in self._owner for k in keys):
            return None
        now = self.clock()
        wait = max(self._next(k) for k in keys) - now
        if wait > 0:
            return wait
        for k in keys:
            self._last[k] = now
            if self.interval(k) > 0:
                self._owner[k] = owner
        return 0.0

    def _next(self, key: str) -> float:
        last = self._last.get(key)
        start = float("-inf") if last is None else last + self.interval(key)
        return max(start, self._hold.get(key, start))

    def release(self, keys: str | tuple[str, ...], owner: object, relax: str | None = None) -> bool:
        """End ``owner``'s request: the keys' intervals run from now. False if it held no claim.
        ``relax``: a key to :meth:`relax` first (the answer was a success)."""
        if relax is not None:
            self.relax(relax)
        keys = (keys,) if isinstance(keys, str) else keys
        held = [k for k in keys if self._owner.get(k) is owner]
        now = self.clock()
        for k in keys:
            # the interval runs from the end of the request, not from its claim: the send
            # can lag the claim (connection set-up), and the server must see the full gap
            self._last[k] = max(self._last.get(k, now), now)
        for k in held:
            del self._owner[k]
        return bool(held)
