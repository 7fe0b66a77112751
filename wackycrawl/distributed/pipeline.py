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
already written page is dropped at the dedup stage instead of here. Local: a set
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

from wackycrawl.distributed import connection, local, replay
from wackycrawl.distributed.fingerprint import url_fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.distributed.seen import RedisSeenSet
from wackycrawl.pipelines import drop

logger = logging.getLogger(__name__)

REPLAY_MARGIN = 60.0  # seconds before the dedup state's save time that files are re-read


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
    def __init__(self, crawler, written, output_dir: str, jobdir: str | None, aserver=None):
        self.crawler, self.stats, self.aserver = crawler, crawler.stats, aserver
        self.written, self.output_dir, self.jobdir = written, output_dir, jobdir
        self.resuming = bool(jobdir) and os.path.exists(os.path.join(jobdir, local.FILENAME))
        self.check = jobdir is not None or not dedup_checks_written(crawler.settings)

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
        else:
            written, jobdir, aserver = set(), s.get("JOBDIR"), None
        pipe = cls(crawler, written, s.get("WACKY_OUTPUT_DIR"), jobdir, aserver)
        crawler.signals.connect(pipe.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(pipe.spider_opened, signal=signals.spider_opened)
        return pipe

    def process_item(self, item: dict) -> dict:
        if self.check and url_fingerprint(item["url"]) in self.written:
            raise drop(self.stats, "already_written", item)
        return item

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
        try:
            try:
                await self.aserver.sadd(self.written.key, fp)
            except (redis.ConnectionError, redis.TimeoutError):
                self.written.add(fp)  # the blocking client waits out an outage
        except redis.RedisError as exc:  # past the outage limit, or a forced shutdown in one
            logger.warning("written as %s but not recorded as written (%s): %s may be "
                           "written again by the worker that fetches it next", item["docno"],
                           exc, item["url"])
            self.stats.inc_value("wacky/frontier/written_unrecorded")

    def close_spider(self):
        return self.aserver.aclose() if self.aserver is not None else None

    def spider_opened(self, spider) -> None:
        """On a local resume (after every pipeline opened: the TREC writer has recovered
        left-over files, the dedup stage loaded its state) read back recent documents."""
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
