"""Closing summary of a crawl: one log line with what was kept and why the rest was dropped.

Reads only ``crawler.stats``: pages fetched (``response_received_count``), documents kept
(``wacky/kept``), words kept (``wacky/words_kept``, whitespace tokens), MB written
(``wacky/trec/bytes_written``, compressed bytes / 10^6) and every drop counter
(``wacky/drop/<reason>``, ``wackycrawl.crawl.drops``: items, size window, robots.txt, scope,
traps, safety, non-2xx answers as ``http_<code>``...). With WACKY_STATS_FILE set,
all stats are also written there as JSON (datetimes as ISO 8601 strings) at close, with
``wacky/cpu_seconds``: CPU time (user + system, seconds) of the crawl process from spider open
to close, its stage worker processes not included. When
WACKY_OUTPUT_DIR holds more than this run wrote (a resumed crawl, other workers), the line
also gives the corpus total (documents from the indexes, files, crawl processes, MB;
``wackycrawl stats`` reads everything).
"""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import datetime

from scrapy import signals

from wackycrawl.crawl.drops import drops_by_reason
from wackycrawl.crawl.totals import Totals, quick_totals
from wackycrawl.extensions import write_whole

logger = logging.getLogger(__name__)

__all__ = ["Summary", "drops_by_reason", "summary_line"]


def summary_line(stats: dict, corpus: Totals | None = None) -> str:
    """The summary of this run; with ``corpus`` (the output directory's totals, when they
    differ from this run's: a resumed crawl, other workers) also the corpus total."""
    drops = ", ".join(f"{r} {n}" for r, n in drops_by_reason(stats).items()) or "none"
    total = "" if corpus is None else (
        f" (this run); corpus total: docs {corpus.documents} in {corpus.files} files from "
        f"{len(corpus.writers)} crawl processes, MB {corpus.bytes / 1e6:.2f}")
    return (f"wacky summary: pages fetched {stats.get('response_received_count', 0)}, "
            f"docs kept {stats.get('wacky/kept', 0)}, words {stats.get('wacky/words_kept', 0)}, "
            f"MB written {stats.get('wacky/trec/bytes_written', 0) / 1e6:.2f}{total}; "
            f"drops: {drops}")


class Summary:
    def __init__(self, crawler):
        self.crawler = crawler
        self.stats_file = crawler.settings.get("WACKY_STATS_FILE") or ""
        self.outdir = crawler.settings.get("WACKY_OUTPUT_DIR") or ""
        self.cpu_start = time.process_time()

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider):
        self.cpu_start = time.process_time()

    def spider_closed(self, spider, reason):
        self.crawler.stats.set_value("wacky/cpu_seconds",
                                     round(time.process_time() - self.cpu_start, 3))
        stats = self.crawler.stats.get_stats()
        off = "" if self.outdir else "; no document written: WACKY_OUTPUT_DIR is empty"
        logger.info("%s%s (close reason: %s)", summary_line(stats, self._corpus(stats)), off,
                    reason)
        if self.stats_file:
            self._write_stats({**stats, "finish_reason": reason})

    def _write_stats(self, stats: dict) -> None:
        """WACKY_STATS_FILE, whole or not at all (written beside it, then renamed); a file
        that cannot be written (a full disk, a folder of that name) is one ERROR line."""
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.stats_file)), exist_ok=True)
            write_whole(self.stats_file, "w", lambda f: json.dump(
                stats, f, indent=1, sort_keys=True,
                default=lambda o: o.isoformat() if isinstance(o, datetime) else str(o)),
                encoding="utf-8")
        except OSError as exc:
            logger.error("stats not written to %s: %s", self.stats_file, exc)

    def _corpus(self, stats: dict) -> Totals | None:
        """The output directory's totals when they are more than this run's."""
        if not self.outdir or not os.path.isdir(self.outdir):
            return None
        try:
            corpus = quick_totals(self.outdir)
        except OSError:
            return None
        if corpus.documents == stats.get("wacky/kept", 0) and len(corpus.writers) <= 1:
            return None
        return corpus
