"""Redis connections of a crawl: scrapy-redis's settings, and a pause instead of errors.

The client is built by scrapy-redis (``scrapy_redis.connection.get_redis_from_settings``), so
its settings mean what its documentation says: ``REDIS_URL`` (wins), else ``REDIS_HOST`` /
``REDIS_PORT`` / ``REDIS_DB``, plus ``REDIS_PARAMS`` (redis-py client arguments over
scrapy-redis's defaults, ``REDIS_ENCODING``). Replies stay bytes. scrapy-redis's 30 s socket
timeouts are replaced by :func:`command_timeout` (``WACKY_REDIS_TIMEOUT``, by default derived
from the lease settings) unless ``REDIS_PARAMS`` gives ``socket_timeout`` /
``socket_connect_timeout``: a server that hangs (frozen, overloaded, a network partition)
must be noticed as an outage well before any lease can expire.

A Redis outage (connection refused or reset, timeout, ``LOADING`` after a restart from the AOF)
is a pause, not an error: :class:`OutageRetry` repeats the command every ``RETRY_PAUSE``
seconds for up to ``WACKY_REDIS_OUTAGE_SECONDS``, logging one WARNING when the outage starts
and one when it ends (one pair per process, whatever the number of clients). A command whose
pooled socket went stale (the server restarted in between) is sent again at once on a new
connection; only when that fails too is it an outage. A command that timed out starts the
outage at once (a hung server), counted from when the command was sent, so the limit holds
for a hung server as for a dead one; past the limit a command is tried at most once a
second and fails at once otherwise, so a closing worker is not held up by one timeout per
command. Connecting (also the pool's reconnection of a connection closed in an outage) is
retried in the same way.

The crawl's identity (:class:`CrawlState`): every new connection (blocking or asyncio) reads
the crawl's identity key ``wacky:NAME:id`` before its first command, and the scheduler reads
it at every heartbeat. If it is gone or holds another id, the Redis lost the crawl's state (a
restart without its AOF/RDB, the keys removed): one ERROR, and from then on every command of
the process raises :class:`StateLost` (a ``RedisError``, not retried), so nothing more is
queued, recorded or written; the scheduler closes the worker with reason
``redis_state_lost``. Waiting blocks the crawl process: nothing
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
import os
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
PROBE_EVERY = 1.0  # past the outage limit: seconds between two attempts (others fail at once)
TIMEOUT_MAX = 5.0  # the derived command timeout at most (seconds; command_timeout)
TIMEOUT_MIN = 0.5  # and at least
STATE_LOST_REASON = "redis_state_lost"  # finish reason: Redis lost the crawl's state


def command_timeout(settings) -> float:
    """Seconds a Redis command (or a connection attempt) may wait for the server before it
    counts as the start of an outage: ``WACKY_REDIS_TIMEOUT`` if set (> 0), else derived
    from the leases, ``(WACKY_LEASE_SECONDS - 2 * WACKY_LEASE_RENEW_SECONDS) / 2`` within
    ``[TIMEOUT_MIN, TIMEOUT_MAX]`` (5 s with the defaults 60 / 10): a server stalled for less
    than the timeout plus two renewals cannot let a live worker's lease expire, and a longer
    stall is an outage every live worker sees."""
    given = settings.get("WACKY_REDIS_TIMEOUT")
    if given not in (None, "", "None") and float(given) > 0:
        return float(given)
    lease = settings.getfloat("WACKY_LEASE_SECONDS", 60.0)
    renew = settings.getfloat("WACKY_LEASE_RENEW_SECONDS", 10.0)
    return min(TIMEOUT_MAX, max(TIMEOUT_MIN, (lease - 2 * renew) / 2))


class StateLost(redis.RedisError):
    """The crawl's identity key is gone or changed: Redis lost the crawl's state."""


def _timed_out(error: Exception) -> bool:
    return isinstance(error, (redis.TimeoutError, socket.timeout))


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
    given_up = False  # the current outage passed its limit (commands fail fast)
    last_try = 0.0  # monotonic end of the last failed attempt

    @classmethod
    def stopping(cls) -> bool:
        """A forced shutdown (a second signal) arrived: no more waiting for Redis."""
        return cls.shutdowns > 1

    @classmethod
    def begin(cls, error: Exception, since: float | None = None) -> None:
        """The outage started at ``since`` (monotonic; default now): when the command
        that failed was sent."""
        if cls.since is None:
            cls.since = since if since is not None else time.monotonic()
            cls.count += 1
            stop_waiting_on_shutdown()  # Scrapy's handlers are in place by now
            logger.log(_level(), "Redis unreachable (%s): crawl paused until it answers",
                       str(error) or type(error).__name__)

    @classmethod
    def end(cls, resumed: bool = True) -> None:
        """Redis answers again (``resumed`` False: without the crawl's state, no line: the
        ERROR of :class:`CrawlState` says it)."""
        if cls.since is not None:
            took = time.monotonic() - cls.since
            cls.since, cls.seconds, cls.given_up = None, cls.seconds + took, False
            if resumed:
                logger.log(_level(), "Redis answers again after %.1f s: crawl resumed", took)


class CrawlState:
    """The crawl's identity in Redis (module doc): ``key`` and the ``expected`` id once the
    scheduler opened (:meth:`open`); ``lost`` once Redis was found without them."""

    key: str | None = None
    expected: str | None = None
    crawl = ""
    lost = False
    address: tuple | None = None  # the server's (host, port, unix path, db)

    @classmethod
    def open(cls, server, keys, recorded: str | None = None) -> str:
        """Read (or write) the identity of the crawl of ``keys`` (a
        :class:`~wackycrawl.distributed.keys.CrawlKeys`) at a worker's start and watch it
        from then on. The key exists: this crawl. Missing, and none of the crawl's state keys
        (queue, leases, seen set, written set, workers) exists: a new crawl, a new random id
        is written. Missing but state keys exist: a crawl made before identity keys (or one
        whose key was removed by hand) - adopted, a new id is written, INFO. Workers starting
        at once agree (``SET NX``). ``recorded``: the id the crawl's output folder recorded
        (:func:`wackycrawl.crawl.owner.read_crawl_id`); when Redis holds no id, or another
        one, Redis lost the crawl's state even though no worker saw it happen (all had
        stopped): one ERROR, and :attr:`lost` makes the next command fail (the scheduler
        closes the crawl, ``redis_state_lost``). Returns the id."""
        found = server.get(keys.id)
        value = found.decode() if isinstance(found, bytes) else found
        if recorded and value != recorded:
            cls.key, cls.crawl, cls.expected = keys.id, keys.crawl, recorded
            cls.lost = True
            logger.error(
                "Redis holds no state of crawl %s, whose documents its output folder holds "
                "(identity %s recorded there; in Redis, %s): the server restarted without "
                "its data (no AOF or RDB) or the crawl's keys were removed. A new crawl under "
                "this name would fetch and write every page again into that folder, so this "
                "worker writes nothing and closes (reason %s). Restore the Redis data from "
                "its AOF/RDB and start the workers again, or start a new crawl (another "
                "WACKY_CRAWL_NAME and output folder)", keys.crawl, recorded,
                "none" if value is None else f"another one, {value}", STATE_LOST_REASON)
            return recorded
        if found is None:
            older = server.exists(keys.queue, keys.requests, keys.inflight, keys.seen,
                                  keys.bloom_count, keys.written, keys.workers)
            if server.set(keys.id, os.urandom(8).hex(), nx=True):
                if older:
                    logger.info("crawl %s has state in Redis but no identity key %s (made by "
                                "an older version): adopted", keys.crawl, keys.id)
                else:
                    logger.info("crawl %s is new: identity key %s written", keys.crawl,
                                keys.id)
            found = server.get(keys.id)
        cls.key, cls.crawl, cls.lost = keys.id, keys.crawl, False
        pool = server.connection_pool
        cls.address = _address(pool.connection_class(**pool.connection_kwargs))  # unconnected
        cls.expected = found.decode() if isinstance(found, bytes) else found
        return cls.expected

    @classmethod
    def compare(cls, found) -> None:
        """Raise :class:`StateLost` (after one ERROR) unless ``found`` (the identity key's
        value) is the expected id."""
        if cls.key is None:
            return
        if cls.lost:
            raise StateLost(f"Redis lost the state of crawl {cls.crawl}")
        value = found.decode() if isinstance(found, bytes) else found
        if value == cls.expected:
            return
        cls.lost = True
        Outage.end(resumed=False)
        logger.error(
            "Redis lost the state of crawl %s: its identity key %s %s - the server restarted "
            "without its data (no AOF or RDB) or the crawl's keys were removed. Its queue, "
            "seen set, written set and duplicate index are gone, so this worker fetches and "
            "writes nothing more and closes (reason %s). Restore the Redis data from its "
            "AOF/RDB and start the workers again, or start a new crawl (another "
            "WACKY_CRAWL_NAME and output folder)", cls.crawl, cls.key,
            "is gone" if value is None else f"holds another crawl's id ({value}, was "
            f"{cls.expected})", STATE_LOST_REASON)
        raise StateLost(f"Redis lost the state of crawl {cls.crawl}")

    @classmethod
    def verify(cls, server) -> None:
        """Read the identity key through ``server`` (the heartbeat); :meth:`compare`."""
        if cls.key is not None:
            cls.compare(server.get(cls.key))

    @classmethod
    def watches(cls, conn) -> bool:
        """True if ``conn`` (a redis-py connection) goes to the watched crawl's server."""
        return cls.key is not None and _address(conn) == cls.address

    @classmethod
    def reset(cls) -> None:
        """Stop watching (the scheduler closed)."""
        cls.key = cls.expected = cls.address = None
        cls.crawl = ""


def _address(conn) -> tuple:
    return tuple(getattr(conn, k, None) for k in ("host", "port", "path", "db"))


def _connected(conn) -> None:
    """redis-py's ``redis_connect_func`` of the blocking clients: the usual handshake, then
    the identity key (:class:`CrawlState`) before the connection's first command."""
    conn.on_connect()
    if CrawlState.watches(conn):
        conn.send_command("GET", CrawlState.key, check_health=False)
        CrawlState.compare(conn.read_response())


async def _aconnected(conn) -> None:
    """:func:`_connected` for the asyncio clients."""
    await conn.on_connect()
    if CrawlState.watches(conn):
        await conn.send_command("GET", CrawlState.key, check_health=False)
        CrawlState.compare(await conn.read_response())


class OutageRetry(Retry):
    """redis-py's ``Retry`` that retries for ``seconds`` of wall time instead of N times."""

    def __init__(self, seconds: float = OUTAGE_SECONDS, pause: float = RETRY_PAUSE):
        super().__init__(_NoBackoff(), -1, (redis.ConnectionError, redis.TimeoutError,
                                            socket.timeout))
        self.seconds, self.pause = seconds, pause

    def call_with_retry(self, do, fail, is_retryable=None, with_failure_count=False,
                        ends_outage=True):
        """``do()`` until it succeeds (module doc); ``ends_outage`` False: its success says
        nothing of the server (a pooled connection handed out without a round trip)."""
        if CrawlState.lost and CrawlState.key is not None:
            CrawlState.compare(None)
        if getattr(do, "__name__", "") == "_connect":  # redis-py's socket connect: a hung
            ends_outage = False  # server accepts connections (its listen backlog) all the same
        failures, first = 0, time.monotonic()
        while True:
            if Outage.given_up and time.monotonic() - Outage.last_try < PROBE_EVERY:
                raise redis.ConnectionError("Redis unreachable for longer than "
                                            "WACKY_REDIS_OUTAGE_SECONDS")
            try:
                result = do()
            except self._supported_errors as error:
                if is_retryable and not is_retryable(error):
                    raise
                failures += 1
                Outage.last_try = time.monotonic()
                fail(error, failures) if with_failure_count else fail(error)
                if Outage.stopping():  # a forced shutdown: no waiting, no more outage lines
                    raise
                if failures == 1 and Outage.since is None and not _timed_out(error):
                    continue  # a pooled socket to a restarted server: reconnect once first
                Outage.begin(error, since=first)
                if Outage.given_up or time.monotonic() - Outage.since > self.seconds:
                    Outage.given_up = True
                    raise
                time.sleep(self.pause)
            else:
                if ends_outage and not Outage.stopping():
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
    timeout = command_timeout(s)
    params.setdefault("socket_timeout", timeout)
    params.setdefault("socket_connect_timeout", timeout)
    asyncio_client = (replace or {}).get("redis_cls") is redis.asyncio.Redis
    params.setdefault("redis_connect_func", _aconnected if asyncio_client else _connected)
    params.update(replace or {})
    s.set("REDIS_PARAMS", params, priority="cmdline")
    client = connection.get_redis_from_settings(s)
    if isinstance(retry := params.get("retry"), OutageRetry):
        _retry_connecting(client.connection_pool, retry)
    return client


def _retry_connecting(pool, retry: OutageRetry) -> None:
    """The pool's ``get_connection`` (which connects a new or closed connection: socket,
    handshake, identity key) under ``retry``, as commands are: a server that hangs while a
    connection is made is an outage too, not an error."""
    get_connection = pool.get_connection

    def connected(*args, **kwargs):
        return retry.call_with_retry(lambda: get_connection(*args, **kwargs), lambda error: None,
                                     ends_outage=False)

    pool.get_connection = connected
