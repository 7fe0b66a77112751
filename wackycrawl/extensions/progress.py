"""Progress of a crawl: a log line every WACKY_PROGRESS_INTERVAL seconds and a final report
with the per-host yield (``wackycrawl.crawl.progress``).

The periodic line gives pages/min, pages, docs kept, words kept, MB written, queue size, hosts
active (hosts that answered since the last line) and the top drop reasons, and an estimate of
the time left ((queue + requests in progress) / pages per minute) when the frontier is
finite: a fixed seed list (WACKY_FOLLOW_LINKS off) or work left that shrank since the last
line. At close: stats
``wacky/yield/<host>`` (kept words per fetched MB, integer) for the WACKY_YIELD_TOP best and
worst hosts only, so the stats stay small on a big crawl, ``wacky/yield/hosts``, one log line
with those hosts, and every host's row in WACKY_YIELD_FILE (TSV; a relative path is under
WACKY_OUTPUT_DIR; ``{worker}`` is replaced by the crawl process's worker id; "" = no file).
"""

from __future__ import annotations

import logging
import os

from scrapy import signals
from scrapy.utils.asyncio import create_looping_call

from wackycrawl.crawl.progress import YieldTable, progress_line, time_left
from wackycrawl.crawl.urls import host_key
from wackycrawl.crawl.worker import worker_file
from wackycrawl.extensions.summary import drops_by_reason

logger = logging.getLogger(__name__)


class Progress:
    def __init__(self, crawler):
        s = crawler.settings
        self.crawler = crawler
        self.stats = crawler.stats
        self.interval = s.getfloat("WACKY_PROGRESS_INTERVAL")
        self.top = s.getint("WACKY_YIELD_TOP")
        # one file per crawl process ({worker}): resumed runs and workers sharing the output
        # directory each keep theirs instead of overwriting one
        self.yield_file = worker_file(crawler, "WACKY_YIELD_FILE")
        self.table = YieldTable()
        self.active: set[str] = set()
        self.pages_before = 0
        self.pending_before: int | None = None  # queue + in progress at the last line
        self.fixed_frontier = not s.getbool("WACKY_FOLLOW_LINKS", True)
        self.task = None

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler)
        for handler, signal in ((ext.spider_opened, signals.spider_opened),
                                (ext.spider_closed, signals.spider_closed),
                                (ext.response_received, signals.response_received),
                                (ext.item_scraped, signals.item_scraped)):
            crawler.signals.connect(handler, signal=signal)
        return ext

    def spider_opened(self, spider=None):
        if self.interval > 0:
            self.task = create_looping_call(self.log_progress)
            self.task.start(self.interval, now=False)

    def response_received(self, response, request, spider=None):
        if request.meta.get("dont_obey_robotstxt"):
            return  # robots.txt
        host = host_key(request.url)  # upper.test:80 is upper.test, as for the trap rules
        self.active.add(host)
        self.table.fetched(host, len(response.body))

    def item_scraped(self, item, response=None, spider=None):
        if isinstance(item, dict) and item.get("url"):
            host = host_key(item["url"])
            words = item.get("words")  # the TREC writer's count, else counted here
            if not isinstance(words, int):
                words = sum(len(p.split()) for p in item.get("paragraphs", ()))
            self.table.kept(host, words)

    def log_progress(self):
        stats = self.stats.get_stats()
        pages = stats.get("response_received_count", 0)
        rate = (pages - self.pages_before) * 60.0 / self.interval
        self.pages_before = pages
        queue = self._queue()
        line = progress_line(stats, rate, len(self.active), drops_by_reason(stats), queue=queue)
        pending = None if queue is None else queue + self._in_flight()
        shrinking = self.fixed_frontier or (None not in (pending, self.pending_before)
                                            and pending < self.pending_before)
        if left := time_left(pending, rate, shrinking):
            line += f"; {left}"
        self.pending_before = pending
        logger.info(line)
        self.active.clear()

    def _queue(self) -> int | None:
        """Requests in the scheduler (Redis or SQLite frontier included), None if unknown."""
        scheduler = self.crawler.engine.scheduler
        try:
            return len(scheduler) if scheduler is not None else None
        except Exception:  # noqa: BLE001 - a frontier that cannot answer now: use the stats
            return None

    def _in_flight(self) -> int:
        """Requests taken from the scheduler and not yet done (waiting for their host's
        turn, downloading, in the pipelines)."""
        slot = getattr(self.crawler.engine, "_slot", None)
        return len(getattr(slot, "inprogress", ()))

    def spider_closed(self, spider=None, reason=""):
        if self.task is not None and self.task.running:
            self.task.stop()
        top, bottom = self.table.top_bottom(self.top)
        for host, row in top + bottom:
            self.stats.set_value(f"wacky/yield/{host}", round(row.words_per_mb))
        self.stats.set_value("wacky/yield/hosts", len(self.table.rows))
        fmt = ", ".join
        logger.info("wacky yield (kept words per fetched MB) over %d hosts; top: %s; bottom: %s",
                    len(self.table.rows),
                    fmt(f"{h} {r.words_per_mb:.0f}" for h, r in top) or "none",
                    fmt(f"{h} {r.words_per_mb:.0f}" for h, r in bottom) or "none")
        if self.yield_file:
            try:
                os.makedirs(os.path.dirname(os.path.abspath(self.yield_file)), exist_ok=True)
                n = self.table.write_tsv(self.yield_file)
                logger.info("Per-host yield of %d hosts written to %s", n, self.yield_file)
            except OSError as exc:
                self.stats.inc_value("wacky/yield/write_failed")
                logger.error("Per-host yield not written to %s: %s", self.yield_file, exc)

