"""Item pipelines: thin Scrapy adapters over the pure modules in ``wackycrawl.text``,
``wackycrawl.dedup`` and ``wackycrawl.trec``. Each stage counts its decisions in
``crawler.stats`` under ``wacky/`` and drops with :func:`drop`."""

import logging

from scrapy.exceptions import DropItem

logger = logging.getLogger(__name__)


def drop(stats, reason: str, item: dict, detail: str = "") -> DropItem:
    """Count a drop under ``wacky/drop/<reason>`` and return the DropItem to raise.

    The exception message starts with the reason, so Scrapy's "Dropped:" log line tells it.
    """
    stats.inc_value(f"wacky/drop/{reason}")
    msg = f"{reason}: {item.get('url', '?')}" + (f" ({detail})" if detail else "")
    return DropItem(msg)
