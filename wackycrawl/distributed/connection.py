"""Redis connections of a crawl: scrapy-redis's settings, and a pause instead of errors.

The client is built by scrapy-redis (``scrapy_redis.connection.get_redis_from_settings``), so
its settings mean what its documentation says: ``REDIS_URL`` (wins), else ``REDIS_HOST`` /
``REDIS_PORT`` / ``REDIS_DB``, plus ``REDIS_PARAMS`` (redis-py client arguments over
scrapy-redis's defaults: 30 s socket timeouts, ``REDIS_ENCODING``). Replies stay bytes.

A Redis outage (connection refused or reset, timeout, ``LOADING`` after a restart from the AOF)
is a pause, not an error: :class:`OutageRetry` repeats the command every ``RETRY_PAUSE``
seconds for up to ``WACKY_REDIS_OUTAGE_SECONDS``, logging one WARNING when the outage starts
and one when it ends (one pair per process, whatever the number of clients). A command whose
pooled socket went stale (the server restarted in between) is sent again at once on a new
connection; only when that fails too is it an outage. Waiting blocks the crawl process: nothing
is scheduled, fetched or acknowledged meanwhile, so no component sees a half-done step and
nothing spins. Past the limit the error is raised (the caller logs it) and the worker is closed
with reason ``redis_outage`` by the scheduler. A graceful shutdown asked for during an outage
(Ctrl-C, SIGTERM, a Scrapyd cancel) waits for Redis as the crawl does, so that every document
written is recorded as written; a second one (Scrapy's forced shutdown) ends the wait at once
(:func:`stop_waiting_on_shutdown`): commands that cannot reach Redis raise from then on, and
the stop is like a ``kill -9`` - this worker's leases expire and go back to the queue, and a
document written just before the outage whose URL could not be recorded may be written again.
:func:`async_from_settings` gives a client of redis-py's asyncio API with the same settings
but no retry, for the item pipelines' commands: the reactor runs while they wait for an
answer; a command it cannot deliver (an outage, a restarted server) is sent again by the
blocking client above, so an outage is the same clean pause. Commands that Redis ran before it
died are in its AOF (``appendfsync always`` to lose none) and are not run twice: only a command
whose reply was lost is sent again, and every
frontier step is an idempotent Lua script.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import threading
import time

import redis
import redis.asyncio
import redis.asyncio.retry
from redis.retry import Retry
from scrapy_redis import connection

from wackycrawl.distributed.keys import redis_url

logger = logging.getLogger(__name__)

OUTAGE_SECONDS = 300.0  # WACKY_REDIS_OUTAGE_SECONDS
RETRY_PAUSE = 0.25  # seconds between two attempts during an outage


class _NoBackoff:
    def reset(self) -> None:
        pass

    def compute(self, failures: int) -> float:
        return 0.0


def _level() -> int:
    """WARNING in the crawl process; DEBUG in its stage worker processes (which use Redis
    too), so one outage is one pair of WARNING lines per worker."""
    return logging.WARNING if multiprocessing.parent_process() is None else logging.DEBUG


class Outage:
    """The process's view of Redis: ``since`` (monotonic seconds) while it is unreachable."""

    since: float | None = None
    count = 0  # outages so far (stats: wacky/redis/outages)
    seconds = 0.0  # total seconds paused
    shutdowns = 0  # shutdown signals received (SIGINT, SIGTERM); a second: stop waiting

    @classmethod
    def stopping(cls) -> bool:
        """A forced shutdown (a second signal) arrived: no more waiting for Redis."""
        return cls.shutdowns > 1

    @classmethod
    def begin(cls, error: Exception) -> None:
        if cls.since is None:
            cls.since = time.monotonic()
            cls.count += 1
            stop_waiting_on_shutdown()  # Scrapy's handlers are in place by now
            logger.log(_level(), "Redis unreachable (%s): crawl paused until it answers",
                       str(error) or type(error).__name__)

    @classmethod
    def end(cls) -> None:
        if cls.since is not None:
            took = time.monotonic() - cls.since
            cls.since, cls.seconds = None, cls.seconds + took
            logger.log(_level(), "Redis answers again after %.1f s: crawl resumed", took)


class OutageRetry(Retry):
    """redis-py's ``Retry`` that retries for ``seconds`` of wall time instead of N times."""

    def __init__(self, seconds: float = OUTAGE_SECONDS, pause: float = RETRY_PAUSE):
        super().__init__(_NoBackoff(), -1, (redis.ConnectionError, redis.TimeoutError,
                                            socket.timeout))
        self.seconds, self.pause = seconds, pause

    def call_with_retry(self, do, fail, is_retryable=None, with_failure_count=False):
        failures = 0
        while True:
            try:
                result = do()
            except self._supported_errors as error:
                if is_retryable and not is_retryable(error):
                    raise
                failures += 1
                fail(error, failures) if with_failure_count else fail(error)
                if Outage.stopping():  # a forced shutdown: no waiting, no more outage lines
                    raise
                if failures == 1 and Outage.since is None:
                    continue  # a pooled socket to a restarted server: reconnect once first
                Outage.begin(error)
                if time.monotonic() - Outage.since > self.seconds:
                    raise
                time.sleep(self.pause)
            else:
                if not Outage.stopping():
                    Outage.end()
                return result


def stop_waiting_on_shutdown() -> None:
    """Chain a handler before the current SIGINT and SIGTERM handlers (Scrapy's shutdown)
    that counts them: after the second :meth:`Outage.stopping` is true, so that a forced
    shutdown during an outage is not held up by :class:`OutageRetry` (which sleeps on the reactor
    thread, where Scrapy's own handler only queues the stop); the first, during an outage,
    says what a second one does. Called when the crawl opens and when an outage starts
    (Scrapy installs its handlers once the reactor runs, and replaces them at the first
    signal: the handler chains itself again); only from the main thread (elsewhere a
    no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(signum)
        if getattr(previous, "stops_outage_wait", False) or previous == signal.SIG_IGN:
            continue  # chained already; or ignored (stage workers, after a forced shutdown)

        def handler(number, frame, previous=previous):
            Outage.shutdowns += 1
            if Outage.since is not None and Outage.stopping():
                logger.warning("forced shutdown during the Redis outage: not waiting for "
                               "Redis; this worker's leases expire and go back to the queue")
            elif Outage.since is not None:
                logger.warning("shutdown during the Redis outage: the crawl stops once Redis "
                               "answers; send again to stop now (as kill -9 would)")
            if callable(previous):
                previous(number, frame)  # Scrapy's installs its next handler: chained again
                stop_waiting_on_shutdown()
            elif previous == signal.SIG_DFL:
                signal.signal(number, signal.SIG_DFL)
                signal.raise_signal(number)

        handler.stops_outage_wait = True
        signal.signal(signum, handler)


def redis_configured(settings) -> bool:
    """True when the settings (or ``REDIS_URL`` in the environment) name a Redis server."""
    return bool(redis_url(settings) or settings.get("REDIS_HOST"))


def from_settings(settings) -> redis.Redis:
    """A client for the crawl's Redis (module doc) from Scrapy ``settings``; ValueError if
    none is configured."""
    return _client(settings)


def async_from_settings(settings) -> redis.asyncio.Redis:
    """:func:`from_settings` for redis-py's asyncio API, without retries (module doc): a
    ``ConnectionError`` or ``TimeoutError`` is for the caller to hand to the blocking client.
    ``redis_cls`` and ``retry`` of ``REDIS_PARAMS`` are replaced; connections open on first
    use, in the running event loop."""
    return _client(settings, {"redis_cls": redis.asyncio.Redis, "retry_on_error": [],
                              "retry": redis.asyncio.retry.Retry(_NoBackoff(), 0)})


def _client(settings, replace: dict | None = None):
    if not redis_configured(settings):
        raise ValueError("WACKY_FRONTIER is 'redis' but neither REDIS_URL nor REDIS_HOST is set")
    s = settings.copy()
    s.frozen = False  # a copy of the crawler's frozen settings
    if url := redis_url(settings):
        s.set("REDIS_URL", url, priority="cmdline")
    params = s.getdict("REDIS_PARAMS")
    params.setdefault("retry", OutageRetry(s.getfloat("WACKY_REDIS_OUTAGE_SECONDS",
                                                      OUTAGE_SECONDS)))
    params.setdefault("retry_on_error", [redis.ConnectionError, redis.TimeoutError])
    params.update(replace or {})
    s.set("REDIS_PARAMS", params, priority="cmdline")
    return connection.get_redis_from_settings(s)
