"""Closing summary of a crawl: one log line with what was kept and why the rest was dropped.

Reads only ``crawler.stats``: pages fetched (``response_received_count``), documents kept
(``wacky/kept``), words kept (``wacky/words_kept``, whitespace tokens), MB written
(``wacky/trec/bytes_written``, compressed bytes / 10^6) and every drop counter
(``wacky/drop/<reason>`` and the size-window and robots refusals). With WACKY_STATS_FILE set,
all stats are also written there as JSON (datetimes as ISO 8601 strings) at close.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime

from scrapy import signals

logger = logging.getLogger(__name__)

#: stats keys that are drops besides ``wacky/drop/*`` (refusals before a page becomes an item)
REFUSAL_KEYS = ("wacky/size/too_small", "wacky/size/too_large_wire",
                "wacky/size/too_large_decoded", "wacky/size/truncated", "wacky/size/not_html",
                "wacky/robots/forbidden")


#: Scrapy's HttpErrorMiddleware count of non-2xx responses not passed to the spider
HTTP_ERROR_PREFIX = "httperror/response_ignored_status_count/"


def drops_by_reason(stats: dict) -> dict[str, int]:
    """``{reason: count}`` from a stats dict, largest first; non-2xx answers are ``http_<code>``."""
    out = {k.rsplit("/", 1)[1]: v for k, v in stats.items()
           if k.startswith("wacky/drop/") or k in REFUSAL_KEYS}
    out.update({f"http_{k[len(HTTP_ERROR_PREFIX):]}": v for k, v in stats.items()
                if k.startswith(HTTP_ERROR_PREFIX)})
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def summary_line(stats: dict) -> str:
    drops = ", ".join(f"{r} {n}" for r, n in drops_by_reason(stats).items()) or "none"
    return (f"wacky summary: pages fetched {stats.get('response_received_count', 0)}, "
            f"docs kept {stats.get('wacky/kept', 0)}, words {stats.get('wacky/words_kept', 0)}, "
            f"MB written {stats.get('wacky/trec/bytes_written', 0) / 1e6:.2f}; drops: {drops}")


class Summary:
    def __init__(self, crawler):
        self.crawler = crawler
        self.stats_file = crawler.settings.get("WACKY_STATS_FILE") or ""

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_closed(self, spider, reason):
        stats = self.crawler.stats.get_stats()
        logger.info("%s (close reason: %s)", summary_line(stats), reason)
        if self.stats_file:
            os.makedirs(os.path.dirname(os.path.abspath(self.stats_file)), exist_ok=True)
            tmp = self.stats_file + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({**stats, "finish_reason": reason}, f, indent=1, sort_keys=True,
                          default=lambda o: o.isoformat() if isinstance(o, datetime) else str(o))
            os.replace(tmp, self.stats_file)
