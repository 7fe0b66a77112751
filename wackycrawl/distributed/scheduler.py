"""The frontier scheduler: scrapy-redis's ``Scheduler``, subclassed for the lease rule.

Mode (``WACKY_FRONTIER``, default ``"auto"``): ``"redis"`` when ``REDIS_URL`` or
``REDIS_HOST`` is set (setting, or ``REDIS_URL`` in the environment; queue, seen set and
seeds in Redis, shared by every worker of the crawl ``WACKY_CRAWL_NAME``), else ``"local"``
when ``JOBDIR`` is set (an SQLite frontier in JOBDIR that survives ``kill -9``), else
Scrapy's own in-memory scheduler (``"scrapy"``).

scrapy-redis's settings keep their documented meaning: ``SCHEDULER_QUEUE_CLASS`` (default
:class:`~wackycrawl.distributed.queue.FrontierQueue`), ``SCHEDULER_QUEUE_KEY``,
``SCHEDULER_DUPEFILTER_CLASS`` / ``DUPEFILTER_CLASS`` and ``SCHEDULER_DUPEFILTER_KEY``
(``%(spider)s`` is the crawl name), ``SCHEDULER_SERIALIZER``, ``SCHEDULER_PERSIST`` (False:
this worker flushes the crawl's queue and seen set when it closes) and
``SCHEDULER_FLUSH_ON_START`` (flush them when it opens), ``MAX_IDLE_TIME_BEFORE_CLOSE`` and
``SCHEDULER_IDLE_BEFORE_CLOSE`` (:func:`close_wait`; the latter never blocks: scrapy-redis's
BRPOP stalls the reactor, notes/stack.md 4.4).

What this subclass adds (C20): a popped request is leased to this worker and acknowledged
only once Scrapy's engine has finished with it (:mod:`.queue`). A heartbeat every
``WACKY_LEASE_RENEW_SECONDS`` acknowledges, renews, reclaims dead workers' leases,
publishes this worker's counters for ``wackycrawl status``, puts the parked requests' figures
into the stats (``wacky/frontier/parked_now``, ``_hosts``, ``_next``, for the progress line)
and wakes the engine. On a graceful stop leases still held are given back. Every request is
recorded in the seen set, ``dont_filter`` ones too (so a link to a seed does not fetch it
again, notes/stack.md 4.6). Seeds are pulled through the spider's scrapy-redis ``RedisMixin``
(``redis_key``, ``REDIS_START_URLS_KEY``, ``REDIS_START_URLS_AS_SET`` / ``_AS_ZSET``) whenever
the queue is empty, ``redis_batch_size`` at a time: one script moves them into the queue and
each is made into its requests under a lease (:mod:`.queue`), so a killed worker loses none;
a seed that makes no request is a dead letter. Every other request (the seed file's, links)
is recorded in the seen SET and queued by one script (:meth:`_atomic_seen_key`); a repeated
link is answered from the worker's memory, else by that script (one round trip for a new link
and for one another worker recorded: a lookup first would cost a new link two).

Closing: with nothing queued, no seed waiting and no lease held by any worker, a Redis
worker waits :func:`close_wait` seconds (``WACKY_IDLE_CLOSE_SECONDS``, or scrapy-redis's
``MAX_IDLE_TIME_BEFORE_CLOSE`` / ``SCHEDULER_IDLE_BEFORE_CLOSE`` with their meaning; other
workers may still yield requests, seeds may be pushed) and closes with reason ``finished``
(a local frontier at once). If parked requests are all that is left, the crawl waits the
same time and closes with reason ``idle``; they stay in the frontier for a resume. A Redis outage longer than ``WACKY_REDIS_OUTAGE_SECONDS`` closes the
worker with reason ``redis_outage``; a Redis that lost the crawl's state (its identity key,
:class:`~wackycrawl.distributed.connection.CrawlState`, read at the start, on each new
connection and at every heartbeat, is gone or changed: a restart without AOF/RDB) closes it
with reason ``redis_state_lost`` after one ERROR (``wacky/redis/state_lost``). Stats: ``wacky/frontier/{enqueued,dequeued,acked,
requeued,filtered,repeated,reclaimed,lease_lost,lease_lost_not_sent,parked,seeds,dead_letter}``.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from weakref import WeakValueDictionary

import redis
from scrapy import Request, signals
from scrapy.core.scheduler import Scheduler
from scrapy.exceptions import CloseSpider
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object
from scrapy_redis import scheduler as scrapy_redis_scheduler
from twisted.internet import task

from wackycrawl.crawl import owner
from wackycrawl.distributed import connection
from wackycrawl.distributed.dupefilter import FrontierDupeFilter
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.leasequeue import StartKeyTypeError, start_urls_size
from wackycrawl.distributed.local import FrontierLockedError
from wackycrawl.distributed.queue import FrontierQueue
from wackycrawl.distributed.seen import RedisSeenSet
from wackycrawl.distributed.status import publish
from wackycrawl.extensions.summary import drops_by_reason
from wackycrawl.pipelines import PAGE_NOT_PROCESSED, PAGE_NOT_WRITTEN, crawl_worker_id

logger = logging.getLogger(__name__)

QUEUE_KEY = "wacky:%(spider)s:queue"


LOCKED_REASON = "frontier_locked"  # finish reason of a crawl whose JOBDIR is in use
#: finish reason of a crawl whose SQLite frontier (JOBDIR) cannot be opened or written: a full
#: disk, a damaged or unwritable file
FRONTIER_ERROR_REASON = "frontier_error"


def frontier_mode(settings) -> str:
    """``"redis"``, ``"local"`` or ``"scrapy"`` (see the module doc); ValueError if unknown."""
    mode = settings.get("WACKY_FRONTIER", "auto")
    if mode not in ("auto", "redis", "local", "scrapy"):
        raise ValueError(f"WACKY_FRONTIER must be auto, redis, local or scrapy, not {mode!r}")
    if mode == "auto":
        return ("redis" if connection.redis_configured(settings)
                else "local" if settings.get("JOBDIR") else "scrapy")
    return mode


connect = connection.from_settings


def crawl_name(settings, spider_name: str) -> str:
    return settings.get("WACKY_CRAWL_NAME") or spider_name


def close_wait(settings, max_idle_time=None) -> float | None:
    """Seconds a worker with nothing to do anywhere in the crawl waits before it closes;
    None = never. scrapy-redis's meaning: ``max_idle_time`` (the spider attribute, else
    ``MAX_IDLE_TIME_BEFORE_CLOSE`` when set) > 0 is that many seconds, 0 never closes (a
    standing worker waiting for seeds), < 0 closes at once; unset, ``WACKY_IDLE_CLOSE_SECONDS``.
    ``SCHEDULER_IDLE_BEFORE_CLOSE`` > 0 (scrapy-redis: how long a pop waits for a request
    before the spider may close) is a lower bound, waited without a blocking pop."""
    if max_idle_time is None and settings.getpriority("MAX_IDLE_TIME_BEFORE_CLOSE") is not None:
        max_idle_time = settings.get("MAX_IDLE_TIME_BEFORE_CLOSE")
    if max_idle_time is None:
        wait = settings.getfloat("WACKY_IDLE_CLOSE_SECONDS", 30)
    elif (wait := float(max_idle_time)) == 0:
        return None
    return max(wait, 0.0, settings.getfloat("SCHEDULER_IDLE_BEFORE_CLOSE"))


class FrontierScheduler(scrapy_redis_scheduler.Scheduler):
    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        mode = frontier_mode(s)
        if mode == "scrapy":
            return DepthScheduler.from_crawler(crawler)
        if mode == "local" and not s.get("JOBDIR"):
            raise ValueError("WACKY_FRONTIER is 'local' but JOBDIR is not set")
        server = connect(s) if mode == "redis" else None
        if server is not None:
            server.ping()
        df_cls = s.get("SCHEDULER_DUPEFILTER_CLASS")
        if not df_cls and hasattr(load_object(s.get("DUPEFILTER_CLASS")), "from_spider"):
            df_cls = s.get("DUPEFILTER_CLASS")
        self = cls(server=server, persist=s.getbool("SCHEDULER_PERSIST"),
                   flush_on_start=s.getbool("SCHEDULER_FLUSH_ON_START"),
                   queue_key=s.get("SCHEDULER_QUEUE_KEY") or QUEUE_KEY,
                   queue_cls=s.get("SCHEDULER_QUEUE_CLASS") or FrontierQueue,
                   dupefilter_key=s.get("SCHEDULER_DUPEFILTER_KEY"),
                   dupefilter_cls=df_cls or FrontierDupeFilter,
                   serializer=s.get("SCHEDULER_SERIALIZER"))
        self.crawler, self.stats, self.worker = crawler, crawler.stats, crawl_worker_id(crawler)
        self.name = crawl_name(s, crawler.spidercls.name)
        self.keys = CrawlKeys(self.name) if server is not None else None
        self.renew_every = s.getfloat("WACKY_LEASE_RENEW_SECONDS", 10)
        self.publish_every = s.getfloat("WACKY_STATS_PUBLISH_SECONDS", 10)
        self.idle_close: float | None = None  # set in open(): close_wait()
        self.start_urls_kind = start_urls_kind(s)
        self._bad_start_key = False
        self._idle_since: float | None = None
        self.queue = None
        self._closing = False
        self._frontier_broken = False  # the SQLite frontier failed: nothing more goes to it
        self._published = 0.0
        self._started = time.time()
        self._pages, self._last_page = 0, self._started
        self._heartbeat = task.LoopingCall(self._beat)
        crawler.signals.connect(self._page_not_written, signal=PAGE_NOT_WRITTEN)
        crawler.signals.connect(self._page_not_written, signal=PAGE_NOT_PROCESSED)
        return self

    def _page_not_written(self, url: str) -> None:
        """Its document could not be written, or its item was lost in a stage worker that
        died: the page's request goes back to the queue."""
        if self.queue is not None and hasattr(self.queue, "not_written"):
            self.queue.not_written(url)

    # -- Scrapy's scheduler interface --------------------------------------------------------
    def open(self, spider) -> None:
        self.spider = spider
        self.idle_close = close_wait(self.crawler.settings, getattr(spider, "max_idle_time", None))
        if isinstance(self.serializer, str):
            self.serializer = load_object(self.serializer)
        queue_cls = load_object(self.queue_cls) if isinstance(self.queue_cls, str) else \
            self.queue_cls
        key = self.queue_key % {"spider": self.name} if self.server is not None else \
            self.crawler.settings.get("JOBDIR")
        try:
            self.queue = queue_cls(server=self.server, spider=spider, key=key,
                                   serializer=self.serializer)
        except FrontierLockedError as exc:  # a second crawl started on a JOBDIR in use
            logger.error("%s: another crawl runs on JOBDIR %s; wait for it or stop it (Ctrl-C "
                         "once) before resuming", exc, key)
            raise CloseSpider(LOCKED_REASON) from None
        except (sqlite3.Error, OSError) as exc:  # a full disk, a damaged or unwritable file
            if self.server is not None:
                raise
            self._frontier_broken = True
            logger.error("cannot start the crawl: the frontier of JOBDIR %s cannot be opened "
                         "(%s)", key, exc)
            # closed once every component has opened (they all close cleanly then); the
            # scheduler answers as an empty one until then
            self.crawler.signals.connect(self._not_opened, signal=signals.spider_opened)
            return
        if self.server is not None and not self._open_identity():
            # Redis lost the crawl's state (ERROR logged): nothing goes to or comes from the
            # frontier; closed once every component has opened, as for a broken frontier
            self._frontier_broken = True
            self.stats.set_value("wacky/redis/state_lost", 1)
            self.crawler.signals.connect(self._state_lost, signal=signals.spider_opened)
            return
        if self.server is None:
            s = self.crawler.settings
            self.df = FrontierDupeFilter(self.queue.backend, self.stats,
                                         s.getbool("DUPEFILTER_DEBUG"), s.getint("WACKY_SEEN_CACHE"))
        else:
            df_cls = load_object(self.dupefilter_cls) if isinstance(self.dupefilter_cls, str) \
                else self.dupefilter_cls
            self.df = (df_cls.from_spider(spider, self.name) if df_cls is FrontierDupeFilter
                       or issubclass(df_cls, FrontierDupeFilter) else df_cls.from_spider(spider))
            logger.info("Redis frontier %s as worker %s: %d queued, %d in flight", key,
                        self.worker, len(self.queue), self.queue.backend.in_flight())
        if self.flush_on_start:
            logger.info("SCHEDULER_FLUSH_ON_START: queue %s and seen set flushed", key)
            self.flush()
        if self.server is not None:
            connection.stop_waiting_on_shutdown()  # Scrapy's shutdown handlers are installed
            self.queue.seed_requests = self._seed_requests
            self._publish("running")
        self._heartbeat.start(self.renew_every, now=False)

    @staticmethod
    def _not_opened(spider) -> None:
        raise CloseSpider(FRONTIER_ERROR_REASON)

    @staticmethod
    def _state_lost(spider) -> None:
        raise CloseSpider(connection.STATE_LOST_REASON)

    def close(self, reason: str) -> None:
        if self.queue is None:  # never opened (JOBDIR in use)
            return
        if self._heartbeat.running:
            self._heartbeat.stop()
        if self._frontier_broken:  # no acknowledgement after a failed write (a link not
            # queued must not lose the page it came from): leases go back at the next open
            self.queue.close()
            return
        try:
            self.queue.ack_finished(self._slot().inprogress)
            self.stats.inc_value("wacky/frontier/requeued", self.queue.give_back())
            if not self.persist:
                logger.info("SCHEDULER_PERSIST is off: queue and seen set flushed at close")
                self.flush()
            if self.server is not None:
                self._publish(f"closed: {reason}")
        except redis.RedisError as exc:  # an outage past WACKY_REDIS_OUTAGE_SECONDS
            if not connection.CrawlState.lost:  # else the state is gone: nothing to update
                logger.log(logging.WARNING if connection.Outage.stopping() else logging.ERROR,
                           "Redis frontier not updated at close (%s): leases expire and go "
                           "back", exc)
        except sqlite3.Error as exc:
            self.stats.inc_value("wacky/frontier/errors")
            logger.error("frontier %s not updated at close (%s): its leases go back to the "
                         "queue when the crawl is resumed", self.queue.backend.path, exc)
        self.queue.close()
        if self.server is not None:
            connection.CrawlState.reset()

    def __len__(self) -> int:
        return self._redis_safe(lambda: len(self.queue), 0)

    def has_pending_requests(self) -> bool:
        """True while work is queued or leased anywhere (see the module doc for closing)."""
        return self._redis_safe(self._pending, True)

    def _pending(self) -> bool:
        q = self.queue.backend
        waiting = self.spider_seeds_waiting()
        if len(self.queue) or waiting or q.in_flight() > len(self.queue.held):
            self._idle_since = None
            return True
        parked = self._parked_stats()
        if not parked and self.server is None:
            return False
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
            self._log_idle(parked)
        if self.idle_close is None or now - self._idle_since < self.idle_close:
            return True
        if not parked:
            return False
        self._close("idle")
        return True

    def _log_idle(self, parked: int) -> None:
        if self.idle_close is None:
            logger.info("crawl %s: nothing to do now (%d parked); MAX_IDLE_TIME_BEFORE_CLOSE=0: "
                        "not closing, waiting for seeds in %s", self.name, parked,
                        getattr(self.spider, "redis_key", None))
        elif parked:
            logger.info("only %d parked requests left: closing as idle in %.0f s unless "
                        "one becomes due", parked, self.idle_close)
        else:
            logger.info("crawl %s: nothing queued, leased or parked: closing in %.0f s unless "
                        "work arrives", self.name, self.idle_close)

    def enqueue_request(self, request) -> bool:
        return self._redis_safe(lambda: self._enqueue_in_one_step(request), False)

    def _enqueue_in_one_step(self, request) -> bool:
        """:meth:`_enqueue`; with the SQLite frontier in one transaction, so the seen set
        never holds a request the queue lacks (:meth:`.LocalFrontier.transaction`)."""
        transaction = getattr(self.queue.backend, "transaction", None)
        if self.server is not None or transaction is None:
            return self._enqueue(request)
        with transaction():
            return self._enqueue(request)

    def _enqueue(self, request) -> bool:
        if (key := self._atomic_seen_key()) is not None:
            if not request.dont_filter and self.df.known(request):
                self.df.log(request, self.spider)  # a repeated link: no Redis round trip
                return False
            done = self.queue.push_seen(request, key)
            self.df.remember(request)
            if done < 0:
                self.df.log(request, self.spider)
                return False
        elif self.df.request_seen(request) and not request.dont_filter:
            self.df.log(request, self.spider)
            if self.queue.promote(request):
                self.stats.inc_value("wacky/frontier/depth_promoted")
            return False
        else:
            done = self.queue.push(request)
        if not done:
            self.stats.inc_value("wacky/frontier/repeated")
            logger.debug("already queued or in flight, not queued again: %s", request)
            return False
        self.stats.inc_value("wacky/frontier/enqueued")
        return True

    def _atomic_seen_key(self) -> str | None:
        """The seen SET's key when the seen set is a Redis SET: then a request (seed or link)
        is recorded as seen and queued in one step, so a worker killed between the two loses
        none (a link seen but never queued would be skipped when its page is fetched again).
        None with a Bloom filter (two steps) or without Redis."""
        store = getattr(self.df, "store", None)
        if self.server is None or not isinstance(store, RedisSeenSet):
            return None
        return store.key

    def next_request(self):
        return self._redis_safe(self._next, None)

    def _next(self):
        if self._closing:
            return None
        key = getattr(self.spider, "redis_key", None) if self.server is not None else None
        request = self.queue.ack_and_pop(self._slot().inprogress, key)
        # an empty queue asks for seeds only when the start-URL key exists (the pop said)
        if request is None and getattr(self.queue.backend, "seeds_waiting", True) \
                and self._pull_seeds():
            request = self.queue.pop()
        if request is not None:
            self._idle_since = None
            self.stats.inc_value("wacky/frontier/dequeued")
        return request

    # -- helpers ------------------------------------------------------------------------------
    def _slot(self):
        """The engine's slot: its ``inprogress`` set holds the requests scheduled out and not
        yet fully handled, ``nextcall`` asks the engine to pull requests. Private parts of
        Scrapy's engine; tests pin them (tests/test_frontier_local.py)."""
        return self.crawler.engine._slot

    def _close(self, reason: str) -> None:
        if not self._closing:
            self._closing = True
            deferred_from_coro(self.crawler.engine.close_spider_async(reason=reason))

    def _redis_safe(self, call, default):
        """``call()``; past WACKY_REDIS_OUTAGE_SECONDS of outage: ERROR, close, ``default``."""
        if self._frontier_broken:
            return default
        try:
            return call()
        except redis.RedisError as exc:
            self._redis_failed(exc)
            return default
        except sqlite3.Error as exc:
            self._frontier_failed(exc)
            return default

    def _frontier_failed(self, exc: Exception) -> None:
        """The SQLite frontier cannot be written (a full disk) or read: one ERROR, and the
        crawl closes (:data:`FRONTIER_ERROR_REASON`) without touching it again; its file
        keeps what was committed, the leases go back at the next open, and the TREC files
        say which pages were written, so the resume fetches and writes the rest once."""
        self._frontier_broken = True
        self.stats.inc_value("wacky/frontier/errors")
        if not self._closing:
            logger.error("frontier %s unusable (%s): closing the crawl; resume it with the "
                         "same command once that is fixed (e.g. space freed)",
                         getattr(self.queue.backend, "path", self.crawler.settings.get("JOBDIR")),
                         exc)
        self._close(FRONTIER_ERROR_REASON)

    def _open_identity(self) -> bool:
        """The crawl's identity in Redis, checked against the one its output folder recorded
        (:data:`~wackycrawl.crawl.owner.CRAWL_ID_RECORD`), and recorded there; False when
        Redis lost the crawl's state."""
        output = self.crawler.settings.get("WACKY_OUTPUT_DIR")
        recorded = owner.read_crawl_id(output) if output else None
        crawl_id = connection.CrawlState.open(self.server, self.keys, recorded)
        if connection.CrawlState.lost:
            return False
        if output and crawl_id != recorded:
            try:
                owner.record_crawl_id(output, crawl_id)
            except OSError as exc:  # the TREC writer will say more about the folder
                logger.warning("crawl identity not recorded in %s: %s", output, exc)
        return True

    def _redis_failed(self, exc: Exception) -> None:
        if connection.CrawlState.lost:  # Redis lost the crawl's state: ERROR logged once
            if not self.stats.get_value("wacky/redis/state_lost"):
                self.stats.set_value("wacky/redis/state_lost", 1)
            self._close(connection.STATE_LOST_REASON)
            return
        self.stats.inc_value("wacky/frontier/redis_error")
        if connection.Outage.stopping():  # a shutdown during an outage: Scrapy closes the crawl
            return
        if not self._closing:
            logger.error("Redis frontier unusable (%s): closing this worker; its leases "
                         "expire and go back to the queue", exc)
        self._close("redis_outage")

    def _beat(self) -> None:
        if self._frontier_broken:
            return
        try:
            if self.server is not None:
                connection.CrawlState.verify(self.server)  # keys removed, no reconnection
            self.queue.beat(self._slot().inprogress)
            self._parked_stats()
            if self.server is not None and time.time() - self._published >= self.publish_every:
                self._publish("running")
            self._slot().nextcall.schedule()  # pushed seeds, reclaimed requests, idle close
        except redis.RedisError as exc:
            self._redis_failed(exc)
        except sqlite3.Error as exc:
            self._frontier_failed(exc)
        except Exception:  # noqa: BLE001 - the heartbeat must outlive any one failure
            logger.exception("frontier heartbeat failed; retried at the next beat")

    def _parked_stats(self) -> int:
        """Put the parked requests' figures into the stats (progress line); returns their number."""
        n, hosts, wait = self.queue.backend.parked()
        self.stats.set_value("wacky/frontier/parked_now", n)
        self.stats.set_value("wacky/frontier/parked_hosts", hosts)
        if wait is not None:
            self.stats.set_value("wacky/frontier/parked_next", wait)
        return n

    def _publish(self, state: str) -> None:
        stats = self.stats.get_stats()
        pages = stats.get("response_received_count", 0)
        if pages != self._pages:
            self._pages, self._last_page = pages, time.time()
        fields = {"started": self._started, "state": state, "leases": len(self.queue.held),
                  "every": self.publish_every, "pages": pages, "last_page": self._last_page,
                  "kept": stats.get("wacky/kept", 0)}
        fields.update({f"drop/{reason}": n for reason, n in drops_by_reason(stats).items()})
        fields.update({f"waiting/{host}": n for host, n in self._waiting().items()})
        publish(self.server, self.keys, self.worker, fields)
        self._published = time.time()

    def _waiting(self) -> dict[str, int]:
        """Leased requests waiting for their host's turn, per host (politeness middleware)."""
        engine = self.crawler.engine
        for mw in getattr(getattr(engine.downloader, "middleware", None), "middlewares", ()):
            if isinstance(getattr(mw, "waiting", None), dict):
                return {h: n for h, n in mw.waiting.items() if n}
        return {}

    # -- seeds (scrapy-redis RedisMixin conventions) --------------------------------------------
    def spider_seeds_waiting(self) -> int:
        key = getattr(self.spider, "redis_key", None)
        if self.server is None or not key:
            return 0
        return start_urls_size(self.server, key, self.start_urls_kind)

    def _pull_seeds(self) -> int:
        """Move up to ``redis_batch_size`` seeds of the spider's ``redis_key`` into the queue."""
        key = getattr(self.spider, "redis_key", None)
        if self.server is None or not key:
            return 0
        try:
            return self.queue.pull_seeds(key, self.start_urls_kind, self.spider.redis_batch_size)
        except StartKeyTypeError as exc:
            if not self._bad_start_key:
                logger.error("seeds not read: %s (REDIS_START_URLS_AS_SET, "
                             "REDIS_START_URLS_AS_ZSET)", exc)
                self._bad_start_key = True
            return 0

    def _seed_requests(self, raw: bytes) -> list | None:
        """The requests of one raw seed (the spider's ``make_request_from_data``: one
        request, an iterable of them, or None), recorded in the seen set; None if it makes
        none. Seeds are ``dont_filter``; one that is not and was seen is left out."""
        made = self.spider.make_request_from_data(raw)
        made = [made] if isinstance(made, Request) else list(made or [])
        if not made:
            return None
        requests = []
        for request in made:
            if self.df.request_seen(request) and not request.dont_filter:
                self.df.log(request, self.spider)
            else:
                requests.append(request)
        return requests


class DepthScheduler(Scheduler):
    """Scrapy's scheduler (``WACKY_FRONTIER = "scrapy"``) that gives a request still in
    memory - queued in the memory queue, waiting for its host, downloading, or fetched and not
    yet parsed - the smaller depth of a later link to the same URL (the dupefilter drops the
    link; DepthMiddleware gives the page's links that depth + 1). Requests in a disk queue
    are not changed. Stats: ``wacky/frontier/depth_promoted``."""

    def open(self, spider):
        self._alive: WeakValueDictionary = WeakValueDictionary()  # fingerprint -> request
        return super().open(spider)

    def enqueue_request(self, request: Request) -> bool:
        fp = self.crawler.request_fingerprinter.fingerprint(request)
        if super().enqueue_request(request):
            self._alive[fp] = request
            return True
        old = self._alive.get(fp)
        depth = request.meta.get("depth", 0)
        if old is not None and not request.dont_filter and depth < old.meta.get("depth", 0):
            old.meta["depth"] = depth
            self.stats.inc_value("wacky/frontier/depth_promoted")
        return False


def start_urls_kind(settings) -> str:
    """The Redis type of the start-URL key: ``set`` with ``REDIS_START_URLS_AS_SET``,
    ``zset`` with ``REDIS_START_URLS_AS_ZSET``, else ``list`` (scrapy-redis's order)."""
    if settings.getbool("REDIS_START_URLS_AS_SET"):
        return "set"
    return "zset" if settings.getbool("REDIS_START_URLS_AS_ZSET") else "list"
