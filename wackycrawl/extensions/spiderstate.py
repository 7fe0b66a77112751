"""Scrapy's ``SpiderState`` (``spider.state`` kept in ``JOBDIR/spider.state``) made safe for a
full disk and ``kill -9``: Scrapy's truncates the file before it writes it and raises when it
cannot, so a crawl that closed on a full disk (or was killed while writing) left an empty file
whose every resume logged two tracebacks (the load fails, and the close then finds no state
and writes none). Here the file is written to ``spider.state.tmp`` and renamed, a failed write
is one ERROR line (the old file stays), and an unreadable file one WARNING: the spider starts
with an empty state."""

from __future__ import annotations

import logging
import os
import pickle

from scrapy.extensions.spiderstate import SpiderState as ScrapySpiderState

from wackycrawl.extensions import write_whole

logger = logging.getLogger(__name__)


class SpiderState(ScrapySpiderState):
    def spider_closed(self, spider) -> None:
        if not self.jobdir:
            return
        state = getattr(spider, "state", {})
        try:
            write_whole(self.statefn, "wb", lambda f: pickle.dump(state, f, protocol=4))
        except OSError as exc:
            logger.error("spider state not saved to %s: %s", self.statefn, exc)

    def spider_opened(self, spider) -> None:
        spider.state = {}
        if not self.jobdir or not os.path.exists(self.statefn):
            return
        try:
            with open(self.statefn, "rb") as f:
                spider.state = pickle.load(f)  # noqa: S301 - the crawl's own JOBDIR
        except Exception as exc:  # noqa: BLE001 - unpickling raises anything
            logger.warning("spider state %s unreadable (%s: %s): the spider starts with an "
                           "empty one", self.statefn, type(exc).__name__, exc)
