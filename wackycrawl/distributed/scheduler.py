"""The frontier scheduler: Scrapy's scheduler interface over a lease/acknowledge queue.

Mode (``WACKY_FRONTIER``, default ``"auto"``): ``"redis"`` when ``REDIS_URL`` is set
(setting or environment; queue, seen set and seeds in Redis, shared by every worker of the
crawl ``WACKY_CRAWL_NAME``), else ``"local"`` when ``JOBDIR`` is set (an SQLite frontier in
JOBDIR that survives ``kill -9``), else Scrapy's own in-memory scheduler (``"scrapy"``: the
single-machine crawl is unchanged).

The acknowledge rule (C20): a request popped from the frontier is leased to this worker and
forgotten only once Scrapy's engine has finished with it, i.e. it left the engine's set of
requests in progress, which happens after its response went through the spider callback,
every item it yielded through the item pipelines, and every request it yielded into this
scheduler (or after its download failed for good, or a downloader middleware replaced it).
A heartbeat every ``WACKY_LEASE_RENEW_SECONDS`` acknowledges finished requests, renews the
leases still held (``WACKY_LEASE_SECONDS``), puts requests of dead workers back into the
queue, publishes this worker's counters for ``wackycrawl status`` and wakes the engine (so
pushed seeds and reclaimed requests are pulled, and the idle close comes, within one beat
instead of Scrapy's 5 s engine heartbeat). On a graceful stop,
leases still held are given back.

Seeds pushed to ``wacky:<crawl>:start_urls`` (JSON ``{"url": ..., "meta": {...}}``, as
scrapy-redis documents, or a bare URL) are pulled, ``CONCURRENT_REQUESTS`` at a time, when
the queue is empty; they are ``dont_filter`` (re-seeding a finished crawl works, C20) but
still recorded as seen, so a link to a seed does not fetch it again (notes/stack.md 4.6).

A Redis worker closes once nothing is queued, no seed waits and no worker holds a lease, for
``WACKY_IDLE_CLOSE_SECONDS``. Stats: ``wacky/frontier/{enqueued,dequeued,acked,requeued,
filtered,reclaimed,lease_lost,seeds,bad_seed,bad_payload,redis_error}``.
"""

from __future__ import annotations

import json
import logging
import pickle
import time

import redis
from scrapy import Request
from scrapy.core.scheduler import Scheduler
from scrapy.utils.request import request_from_dict
from twisted.internet import task

from wackycrawl.distributed import local, seen
from wackycrawl.distributed.dupefilter import FrontierDupeFilter
from wackycrawl.distributed.keys import CrawlKeys, redis_url
from wackycrawl.distributed.leasequeue import LeaseQueue
from wackycrawl.distributed.status import publish
from wackycrawl.extensions.summary import drops_by_reason
from wackycrawl.pipelines import crawl_worker_id

logger = logging.getLogger(__name__)


def frontier_mode(settings) -> str:
    """``"redis"``, ``"local"`` or ``"scrapy"`` (see the module doc); ValueError if unknown."""
    mode = settings.get("WACKY_FRONTIER", "auto")
    if mode not in ("auto", "redis", "local", "scrapy"):
        raise ValueError(f"WACKY_FRONTIER must be auto, redis, local or scrapy, not {mode!r}")
    if mode == "auto":
        return "redis" if redis_url(settings) else "local" if settings.get("JOBDIR") else "scrapy"
    return mode


def connect(settings) -> redis.Redis:
    """A client for ``REDIS_URL``; raises ValueError if it is unset."""
    url = redis_url(settings)
    if not url:
        raise ValueError("WACKY_FRONTIER is 'redis' but REDIS_URL is not set")
    return redis.Redis.from_url(url)


def crawl_name(settings, spider_name: str) -> str:
    return settings.get("WACKY_CRAWL_NAME") or spider_name


class FrontierScheduler:
    def __init__(self, crawler, backend, store, worker: str, server=None, keys=None):
        s = crawler.settings
        self.crawler, self.stats = crawler, crawler.stats
        self.queue, self.worker, self.server, self.keys = backend, worker, server, keys
        self.df = FrontierDupeFilter(store, crawler.stats, s.getbool("DUPEFILTER_DEBUG"))
        self.renew_every = s.getfloat("WACKY_LEASE_RENEW_SECONDS", 10)
        self.publish_every = s.getfloat("WACKY_STATS_PUBLISH_SECONDS", 10)
        self.idle_close = s.getfloat("WACKY_IDLE_CLOSE_SECONDS", 30) if server else 0.0
        self.seed_batch = s.getint("CONCURRENT_REQUESTS", 16)
        self.spider = None
        self._held: dict[Request, tuple[str, str]] = {}
        self._idle_since: float | None = None
        self._published = 0.0
        self._started = time.time()
        self._heartbeat = task.LoopingCall(self._beat)

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        mode = frontier_mode(s)
        if mode == "scrapy":
            return Scheduler.from_crawler(crawler)
        worker = crawl_worker_id(crawler)
        if mode == "local":
            jobdir = s.get("JOBDIR")
            if not jobdir:
                raise ValueError("WACKY_FRONTIER is 'local' but JOBDIR is not set")
            frontier = local.LocalFrontier(jobdir, worker)
            return cls(crawler, frontier, frontier, worker)
        server = connect(s)
        keys = CrawlKeys(crawl_name(s, crawler.spidercls.name))
        queue = LeaseQueue(server, keys, worker, s.getfloat("WACKY_LEASE_SECONDS", 60))
        if s.get("WACKY_DUPEFILTER", "set") == "bloom":
            store = seen.RedisBloom(server, keys, s.getint("WACKY_BLOOM_CAPACITY", seen.CAPACITY),
                                    s.getfloat("WACKY_BLOOM_ERROR_RATE", seen.ERROR_RATE))
        else:
            store = seen.RedisSeenSet(server, keys.seen)
        return cls(crawler, queue, store, worker, server, keys)

    # -- Scrapy's scheduler interface --------------------------------------------------------
    def open(self, spider) -> None:
        self.spider = spider
        if self.server is None:
            back = self.queue.open()
            logger.info("local frontier %s: %d queued, %d in flight in the last run put back",
                        self.queue.path, self.queue.queued(), back)
            self.stats.inc_value("wacky/frontier/reclaimed", back)
        else:
            self.server.ping()
            logger.info("Redis frontier %s* as worker %s: %d queued, %d in flight",
                        self.keys.prefix, self.worker, self.queue.queued(), self.queue.in_flight())
            self._publish("running")
        self._heartbeat.start(self.renew_every, now=False)

    def close(self, reason: str) -> None:
        if self._heartbeat.running:
            self._heartbeat.stop()
        self._ack_finished()
        for request, (rid, token) in list(self._held.items()):
            self.queue.ack(rid, token, requeue=True)
            self.stats.inc_value("wacky/frontier/requeued")
        self._held.clear()
        if self.server is not None:
            self._publish(f"closed: {reason}")
        else:
            self.queue.close()

    def __len__(self) -> int:
        return self.queue.queued()

    def has_pending_requests(self) -> bool:
        """True while work is queued or leased anywhere; a Redis worker also stays up to
        ``WACKY_IDLE_CLOSE_SECONDS`` after the whole crawl went idle."""
        waiting = self.server.llen(self.keys.start_urls) if self.server is not None else 0
        if self.queue.queued() or waiting or self.queue.in_flight() > len(self._held):
            self._idle_since = None
            return True
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        return now - self._idle_since < self.idle_close

    def enqueue_request(self, request: Request) -> bool:
        fp = self.df.fingerprint(request)
        if not self.df.store.add(fp) and not request.dont_filter:
            self.df.log(request, self.spider)
            return False
        if not self.queue.push(fp.hex(), request.priority, encode(request, self.spider)):
            return False
        self.stats.inc_value("wacky/frontier/enqueued")
        return True

    def next_request(self) -> Request | None:
        self._ack_finished()
        leased = self.queue.pop()
        if leased is None and self._pull_seeds():
            leased = self.queue.pop()
        if leased is None:
            return None
        self._idle_since = None
        try:
            request = request_from_dict(pickle.loads(leased.payload), spider=self.spider)
        except Exception as exc:  # noqa: BLE001 - unpickling raises anything; log, count, forget
            logger.error("unreadable request %s in the frontier, dropped: %r", leased.id, exc)
            self.stats.inc_value("wacky/frontier/bad_payload")
            self.queue.ack(leased.id, leased.token)
            return None
        self._held[request] = (leased.id, leased.token)
        self.stats.inc_value("wacky/frontier/dequeued")
        return request

    # -- leases ------------------------------------------------------------------------------
    def _slot(self):
        """The engine's slot: its ``inprogress`` set holds the requests scheduled out and not
        yet fully handled, ``nextcall`` asks the engine to pull requests. Private parts of
        Scrapy's engine; tests pin them (tests/test_frontier_local.py)."""
        return self.crawler.engine._slot

    def _ack_finished(self) -> None:
        if not self._held:
            return
        in_progress = self._slot().inprogress
        for request in [r for r in self._held if r not in in_progress]:
            rid, token = self._held.pop(request)
            if self.queue.ack(rid, token):
                self.stats.inc_value("wacky/frontier/acked")
            else:
                logger.warning("lease of %s was lost before it was acknowledged", request)
                self.stats.inc_value("wacky/frontier/lease_lost")

    def _beat(self) -> None:
        try:
            self._ack_finished()
            held = list(self._held.values())
            lost = len(held) - self.queue.renew(held)
            if lost:
                logger.warning("%d leases of this worker expired and were given to others", lost)
                self.stats.inc_value("wacky/frontier/lease_lost", lost)
            back = self.queue.reclaim()
            if back:
                logger.warning("%d requests of a dead worker put back into the queue", back)
                self.stats.inc_value("wacky/frontier/reclaimed", back)
            if self.server is not None and time.time() - self._published >= self.publish_every:
                self._publish("running")
            self._slot().nextcall.schedule()  # pushed seeds, reclaimed requests, idle close
        except redis.RedisError as exc:
            logger.error("Redis frontier heartbeat failed: %s", exc)
            self.stats.inc_value("wacky/frontier/redis_error")

    def _publish(self, state: str) -> None:
        stats = self.stats.get_stats()
        fields = {"started": self._started, "state": state, "leases": len(self._held),
                  "pages": stats.get("response_received_count", 0),
                  "kept": stats.get("wacky/kept", 0)}
        fields.update({f"drop/{reason}": n for reason, n in drops_by_reason(stats).items()})
        publish(self.server, self.keys, self.worker, fields)
        self._published = time.time()

    # -- seeds -------------------------------------------------------------------------------
    def _pull_seeds(self) -> int:
        """Move up to ``CONCURRENT_REQUESTS`` pushed seeds into the queue; returns how many."""
        if self.server is None:
            return 0
        n = 0
        for raw in self.server.rpop(self.keys.start_urls, self.seed_batch) or []:
            request = seed_request(raw)
            if request is None:
                logger.warning("bad seed in %s, skipped: %r", self.keys.start_urls, raw[:200])
                self.stats.inc_value("wacky/frontier/bad_seed")
            elif self.enqueue_request(request):
                n += 1
            else:  # the same seed pushed again while it is queued: fetched once
                if not self.stats.get_value("wacky/seeds/repeated"):
                    logger.info("Seed %s pushed again while queued: fetched once (further "
                                "repeats counted in wacky/seeds/repeated)", request.url[:200])
                self.stats.inc_value("wacky/seeds/repeated")
        self.stats.inc_value("wacky/frontier/seeds", n)
        return n


_DEFAULTS = Request("http://x.test/").to_dict()


def encode(request: Request, spider=None) -> bytes:
    """The queue payload: ``Request.to_dict`` pickled without the fields at their default
    (under half the bytes of a typical payload; ``request_from_dict`` restores them)."""
    d = request.to_dict(spider=spider)
    return pickle.dumps({k: v for k, v in d.items()
                         if k == "url" or k not in _DEFAULTS or v != _DEFAULTS[k]}, protocol=4)


def seed_request(raw: bytes) -> Request | None:
    """A seed pushed as JSON ``{"url": ..., "meta": {...}}`` or as a bare http(s) URL;
    None if it is neither."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text) if text.startswith("{") else {"url": text}
        url = data["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return None
        return Request(url, meta=dict(data.get("meta") or {}), dont_filter=True)
    except (ValueError, KeyError, TypeError):
        return None
