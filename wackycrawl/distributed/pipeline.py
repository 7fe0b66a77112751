"""Write each canonical URL at most once, across workers and across crashes (C20, item 2).

With the frontier on (``WACKY_FRONTIER``: Redis or local), a request can be handled twice:
its worker died after writing the document but before the request was acknowledged, or its
lease expired while the worker stalled. This stage, first in ITEM_PIPELINES, drops an item
whose canonical URL (:func:`wackycrawl.distributed.fingerprint.url_fingerprint`) was already
written (reason ``already_written``); a URL is recorded when its item has passed every
stage (Scrapy's ``item_scraped`` signal, i.e. after the TREC writer).

Redis: the written set is the crawl's ``written`` SET, shared by all workers; with the dedup
stage on (:func:`dedup_checks_written`) the URL is looked up there by the dedup script, in
the same round trip as the duplicate index (:mod:`wackycrawl.distributed.simhash`), so an
already written page is dropped at the dedup stage instead of here. A document is written
only while this process knows of no Redis outage (:class:`WriteGate`, asked by the TREC
writer), so that its URL can be recorded right after. The look-up records the intent to
write (the writer's ``pending`` SET) and the record after the write removes it, in the same
script calls (:mod:`wackycrawl.distributed.written`), so a worker that recovers the TREC file
of a writer that died (``kill -9``, left ``.open``) knows which of its documents another
worker wrote again (left out, ``wacky/frontier/superseded``) and records the others
(``wacky/frontier/reconciled``). Local: a set
in memory, and on a resume (the SQLite frontier existed) the TREC files modified since the
dedup state was last saved (``<JOBDIR>/wacky-dedup``) are read back
(:mod:`wackycrawl.distributed.replay`): their URLs fill the set and their texts go through
the dedup stage's detector again, so documents written after the last save are neither
written twice nor forgotten as near-duplicate targets. Stats: ``wacky/frontier/replayed``.
"""

from __future__ import annotations

import logging
import os

import redis
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from wackycrawl.crawl.worker import crawl_worker_id
from wackycrawl.distributed import connection, local, replay
from wackycrawl.distributed.fingerprint import url_fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.distributed.seen import RedisSeenSet
from wackycrawl.distributed.written import CLAIM, RECORD, STALE_MAX, writer_name
from wackycrawl.pipelines import PAGE_NOT_WRITTEN, drop
from wackycrawl.trec import writer as trec_writer

logger = logging.getLogger(__name__)

REPLAY_MARGIN = 60.0  # seconds before the dedup state's save time that files are re-read


class WriteGate:
    """Keep documents out of the TREC file while Redis is out (Redis crawls; the TREC writer
    asks :meth:`closed` before each write). A document written during an outage could not be
    recorded as written until Redis answers: a worker killed meanwhile (``kill -9``) would
    leave it in its TREC file unrecorded, and the worker taking over its lease would write it
    again. :meth:`closed` reads the process's own outage state
    (:class:`~wackycrawl.distributed.connection.Outage`, kept by every Redis command of the
    process): no round trip. When an outage is known, :meth:`wait` waits for Redis as every
    command does (one PING through the blocking client): the outage ends, and the document
    is written and recorded; or the outage passes ``WACKY_REDIS_OUTAGE_SECONDS``, a forced
    shutdown comes, or Redis lost the crawl's state, and the document is not written (drop
    ``redis_unreachable``; its request goes back to the queue if Redis answers before the
    worker closes, else its lease expires: fetched again, once). One WARNING per outage;
    stats ``wacky/redis/writes_held`` (documents that waited), ``wacky/redis/writes_refused``
    (not written)."""

    def __init__(self, crawler, server):
        self.crawler, self.stats, self.server = crawler, crawler.stats, server
        self._said = 0  # the Outage.count of the last outage logged

    @staticmethod
    def closed() -> bool:
        """True while this process knows Redis is out (or lost the crawl's state)."""
        return connection.Outage.since is not None or connection.CrawlState.lost

    def wait(self, item: dict) -> None:
        """Wait until Redis answers (then return) or the wait is over (then raise the drop
        ``redis_unreachable``; the page is not written)."""
        if self._said != connection.Outage.count and not connection.CrawlState.lost:
            self._said = connection.Outage.count
            logger.warning("Redis outage: documents are written once it answers again (so "
                           "that each is recorded as written right after)")
        self.stats.inc_value("wacky/redis/writes_held")
        try:
            self.server.ping()
        except redis.RedisError as exc:
            self.stats.inc_value("wacky/redis/writes_refused")
            if item.get("url"):
                self.crawler.signals.send_catch_log(PAGE_NOT_WRITTEN, url=item["url"])
            raise drop(self.stats, "redis_unreachable", item, f"not written: {exc}") from None


def crawl_writer(crawler) -> str:
    """This crawl process's TREC writer name (:func:`~.written.writer_name`)."""
    prefix = crawler.settings.get("WACKY_DOCNO_PREFIX", trec_writer.PREFIX)
    return writer_name(prefix, crawl_worker_id(crawler))


def dedup_checks_written(settings) -> bool:
    """True when the Redis dedup script looks up the written set (module doc): the Redis
    frontier, ``WACKY_OUTPUT_DIR`` set, and both :class:`WrittenOncePipeline` and the dedup
    stage (``DedupPipeline``, ``WACKY_DEDUP_ENABLED``) in ``ITEM_PIPELINES``."""
    from wackycrawl.pipelines.dedup import DedupPipeline

    if (frontier_mode(settings) != "redis" or not settings.get("WACKY_OUTPUT_DIR")
            or not settings.getbool("WACKY_DEDUP_ENABLED", True)):
        return False
    classes = [load_object(path) for path in
               build_component_list(settings.getwithbase("ITEM_PIPELINES"))]
    return all(any(isinstance(c, type) and issubclass(c, wanted) for c in classes)
               for wanted in (WrittenOncePipeline, DedupPipeline))


class WrittenOncePipeline:
    def __init__(self, crawler, written, output_dir: str, jobdir: str | None, aserver=None,
                 pending: str | None = None):
        self.crawler, self.stats, self.aserver = crawler, crawler.stats, aserver
        self.written, self.output_dir, self.jobdir = written, output_dir, jobdir
        self.resuming = bool(jobdir) and os.path.exists(os.path.join(jobdir, local.FILENAME))
        self.check = jobdir is not None or not dedup_checks_written(crawler.settings)
        self.pending = pending  # Redis: this writer's SET of write intents
        self.stale: list[bytes] = []  # intents of dropped items, removed with the next record
        if pending is not None:
            self._claim = written.server.register_script(CLAIM)
            self._arecord = aserver.register_script(RECORD)
            self._record_blocking = written.server.register_script(RECORD)

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        mode = frontier_mode(s)
        if mode == "scrapy" or not s.get("WACKY_OUTPUT_DIR"):
            raise NotConfigured()
        if mode == "redis":
            keys = CrawlKeys(crawl_name(s, crawler.spidercls.name))
            written, jobdir = RedisSeenSet(connect(s), keys.written), None
            aserver = connection.async_from_settings(s)
            pending = keys.pending(crawl_writer(crawler))
        else:
            written, jobdir, aserver, pending = set(), s.get("JOBDIR"), None, None
        pipe = cls(crawler, written, s.get("WACKY_OUTPUT_DIR"), jobdir, aserver, pending)
        crawler.signals.connect(pipe.item_scraped, signal=signals.item_scraped)
        if pending is not None:
            crawler.signals.connect(pipe.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(pipe.spider_opened, signal=signals.spider_opened)
        return pipe

    def process_item(self, item: dict) -> dict:
        if not self.check:
            return item
        fp = url_fingerprint(item["url"])
        if self.pending is not None:  # the look-up and the intent, one script
            seen = self._claim(keys=[self.written.key, self.pending], args=[fp])
        else:
            seen = fp in self.written
        if seen:
            raise drop(self.stats, "already_written", item)
        return item

    def item_dropped(self, item, response, exception, spider=None):
        """A dropped item not written (no DOCNO): its write intent, if any, goes with the
        next record (an item dropped as already written made none)."""
        if (len(self.stale) < STALE_MAX and isinstance(item, dict) and item.get("url")
                and not item.get("docno")):
            self.stale.append(url_fingerprint(item["url"]))

    def item_scraped(self, item, response, spider):
        """Record a written item's URL; with Redis a coroutine through the asyncio client
        (Scrapy awaits it before the request is done, so before its lease is acknowledged)."""
        if not item.get("docno"):
            return None
        if self.aserver is not None:
            return self._record(url_fingerprint(item["url"]), item)
        self.written.add(url_fingerprint(item["url"]))
        return None

    async def _record(self, fp: bytes, item: dict) -> None:
        stale, self.stale = self.stale, []
        keys, args = [self.written.key, self.pending], [fp, *stale]
        try:
            try:
                added = await self._arecord(keys=keys, args=args)
            except (redis.ConnectionError, redis.TimeoutError):
                added = None  # the reply may be lost after the record was made
                self._record_blocking(keys=keys, args=args)  # it waits out an outage
        except redis.RedisError as exc:  # past the outage limit, or a forced shutdown in one
            logger.warning("written as %s but not recorded as written (%s): %s may be "
                           "written again by the worker that fetches it next", item["docno"],
                           exc, item["url"])
            self.stats.inc_value("wacky/frontier/written_unrecorded")
            return
        if added == 0:  # e.g. a dead writer's copy reconciled while this one was written
            logger.warning("written as %s, but %s was recorded as written already: "
                           "`wackycrawl trec check` names the other copy (REPEATED URL)",
                           item["docno"], item["url"])
            self.stats.inc_value("wacky/frontier/written_twice")

    async def close_spider(self):
        """With Redis: delete this writer's write intents (its TREC file is closed and
        named now, never reconciled), unless Redis is out (they stay, unused), and close
        the asyncio client."""
        if self.aserver is None:
            return
        if not WriteGate.closed():
            try:
                await self.aserver.delete(self.pending)
            except redis.RedisError as exc:
                logger.info("write intents %s not deleted: %s", self.pending, exc)
        await self.aserver.aclose()

    def spider_opened(self, spider) -> None:
        """After every pipeline opened (the dedup stage loaded its state): on a local resume
        read back recent documents."""
        if not self.resuming:
            return
        state = os.path.join(self.jobdir, "wacky-dedup", "checksums.npy")
        since = os.path.getmtime(state) - REPLAY_MARGIN if os.path.exists(state) else 0.0
        detector = next((p.detector for p in self.crawler.engine.scraper.itemproc.middlewares
                         if hasattr(p, "detector")), None)
        n = 0
        for doc in replay.recent_docs(self.output_dir, since):
            self.written.add(url_fingerprint(doc.url))
            if detector is not None:
                detector.add(detector.check(doc.text))
            n += 1
        self.stats.set_value("wacky/frontier/replayed", n)
        logger.info("resume: %d documents written since %s read back from %s", n,
                    "the start" if not since else "the last dedup save", self.output_dir)
