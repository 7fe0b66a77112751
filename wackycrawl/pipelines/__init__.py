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
    return dropped(reason, item, detail)


def dropped(reason: str, item: dict | None, detail: str = "",
            message: str | None = None) -> DropItem:
    """The DropItem of a drop (not counted: :func:`drop` counts). It carries ``reason``,
    ``detail`` and the item as it was when dropped, for the rejects stream
    (:func:`rejection`; ``item`` may be None when a worker process did not send it back).
    ``message`` replaces the default one (``reason: url (detail)``)."""
    url = item.get("url", "?") if item else "?"
    exc = DropItem(message or f"{reason}: {url}" + (f" ({detail})" if detail else ""))
    exc.wacky_drop = (reason, detail, item)
    return exc


def rejection(exc: BaseException) -> tuple[str, str, dict | None] | None:
    """``(reason, detail, item as dropped)`` of a DropItem made by :func:`drop`, else None."""
    return getattr(exc, "wacky_drop", None)


def crawl_worker_id(crawler) -> str:
    """This crawl process's worker id: ``WACKY_WORKER_ID`` or one derived once per crawler
    (``wackycrawl.trec.writer.default_worker_id``), so TREC file names, DOCNOs, frontier
    leases and ``wackycrawl status`` all name a worker the same way."""
    if not getattr(crawler, "_wacky_worker_id", None):
        from wackycrawl.trec.writer import default_worker_id

        crawler._wacky_worker_id = crawler.settings.get("WACKY_WORKER_ID") or default_worker_id()
    return crawler._wacky_worker_id
