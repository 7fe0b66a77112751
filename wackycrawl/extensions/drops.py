"""The drops file: one TSV row per drop of this crawl process (``wackycrawl.crawl.drops``).

WACKY_DROPS_FILE (default ``drops-{worker}.tsv``; relative = under WACKY_OUTPUT_DIR;
``{worker}`` = the process's worker id; "" = no file, drops are still logged and counted).
Middlewares record their drops through ``wackycrawl.crawl.drops.record``, which writes the
row; item drops (``wackycrawl.pipelines.drop``, also those replayed from stage worker
processes; read with ``wackycrawl.pipelines.rejection``) are written here from Scrapy's
``item_dropped`` signal. A DropItem that is not ours gets the reason ``dropped``.
"""

from __future__ import annotations

import logging

from scrapy import signals

from wackycrawl.crawl.drops import DropRecorder, DropsFile
from wackycrawl.crawl.worker import worker_file
from wackycrawl.pipelines import rejection

logger = logging.getLogger(__name__)


class DropsLog:
    def __init__(self, crawler):
        path = worker_file(crawler, "WACKY_DROPS_FILE")
        self.recorder = crawler.wacky_drops = DropRecorder(crawler.stats,
                                                           DropsFile(path) if path else None)
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler)
        crawler.signals.connect(ext.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def item_dropped(self, item, exception, response=None, spider=None):
        reason, detail, _ = rejection(exception) or ("dropped", str(exception), None)
        if reason == "dropped":  # someone else's DropItem: counted here, logged by Scrapy
            self.stats.inc_value(f"wacky/drop/{reason}")
        url = item.get("url", "?") if isinstance(item, dict) else "?"
        self.recorder.write(reason, url, detail)

    def spider_closed(self, spider=None, reason=""):
        file = self.recorder.file
        self.recorder.close()
        if file is not None and file.rows:
            logger.info("%d drops written to %s", file.rows, file.path)
