"""Per-host politeness: the interval between two requests to a host and who may send next.

The interval of a host is ``max(DOWNLOAD_DELAY, Crawl-delay)`` capped at a project maximum
(:func:`effective_interval`). Crawl-delay is an "other record" of RFC 9309 (2.2.4) that crawlers
MAY interpret; Bing documents it as seconds to wait between requests, fractions allowed.

:class:`HostSchedule` keeps, per host, the interval, the start of the last request and the
request in flight, so the gap between two request starts to one host is never below its
interval and a host with a positive interval has at most one request in flight. It lives
outside Scrapy's downloader slots, so it survives their garbage collection (idle slots are
dropped after 60 s and re-created with DOWNLOAD_DELAY) and AutoThrottle lowering a slot's
delay. The clock is injectable (seconds, monotonic); nothing here sleeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Upper bound for a Crawl-delay, seconds (project policy, C04).
CRAWL_DELAY_MAX = 60.0


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


class HostSchedule:
    """host -> (interval, start of last request, request in flight).

    :meth:`claim` is called when a request wants to go out; it answers ``0.0`` (go now; the
    request is recorded as started and, for a positive interval, as in flight), a positive
    number of seconds to wait before asking again, or None when another request of the host
    is in flight (ask again after :meth:`release`).
    """

    def __init__(self, default_interval: float, clock: Callable[[], float] = time.monotonic):
        self.default_interval = default_interval
        self.clock = clock
        self._interval: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._owner: dict[str, object] = {}

    def set_interval(self, host: str, seconds: float) -> None:
        """Use ``seconds`` for ``host`` from now on (also for the request after the last one)."""
        self._interval[host] = seconds

    def interval(self, host: str) -> float:
        return self._interval.get(host, self.default_interval)

    def claim(self, host: str, owner: object) -> float | None:
        """0.0 when ``owner`` may send now, else seconds to wait, or None while one is in flight."""
        if host in self._owner:
            return None
        interval = self.interval(host)
        now = self.clock()
        last = self._last.get(host)
        if last is not None and now < last + interval:
            return last + interval - now
        self._last[host] = now
        if interval > 0:
            self._owner[host] = owner
        return 0.0

    def release(self, host: str, owner: object) -> bool:
        """End ``owner``'s request to ``host``; False (and nothing changes) if it held no claim."""
        if self._owner.get(host) is not owner:
            return False
        del self._owner[host]
        return True
