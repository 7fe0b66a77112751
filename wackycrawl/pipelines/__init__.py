"""Item pipelines: thin Scrapy adapters over the pure modules in ``wackycrawl.text``,
``wackycrawl.dedup`` and ``wackycrawl.trec``. Each stage counts its decisions in
``crawler.stats`` under ``wacky/`` and drops with :func:`drop`."""

from scrapy.exceptions import DropItem
from scrapy.utils.defer import deferred_from_coro

from wackycrawl.crawl.drops import DROP_PREFIX
from wackycrawl.crawl.drops import message as drop_message
from wackycrawl.crawl.worker import crawl_worker_id

__all__ = ["PAGE_NOT_PROCESSED", "PAGE_NOT_WRITTEN", "close_on_write_error", "SPIDER_NAME", "crawl_worker_id", "drop", "dropped",
           "rejection"]

#: The crawl name of a stage that has no spider at hand, when ``WACKY_CRAWL_NAME`` is unset
#: (the stage runner sets it to the crawl's spider name for its stages).
SPIDER_NAME = "seeds"
#: Signal sent (``url=``) for a kept page whose document could not be written (a full disk):
#: the frontier gives its request back to the queue instead of acknowledging it.
PAGE_NOT_WRITTEN = object()
#: Signal sent (``url=``) for a page whose item was lost before any stateful stage saw it (a
#: stage worker process died with it in flight): the frontier gives its request back to the
#: queue, so it is fetched again; the dedup index, which never held it, is left as it is.
PAGE_NOT_PROCESSED = object()


def drop(stats, reason: str, item: dict, detail: str = "") -> DropItem:
    """Count a drop under ``wacky/drop/<reason>`` and return the DropItem to raise.

    Scrapy's "Dropped:" log line (``wackycrawl.logformatter``) tells the reason, and the
    drops file gets its row from ``wackycrawl.extensions.drops`` in the crawl process.
    """
    stats.inc_value(DROP_PREFIX + reason)
    return dropped(reason, item, detail)


def dropped(reason: str, item: dict | None, detail: str = "",
            message: str | None = None) -> DropItem:
    """The DropItem of a drop (not counted: :func:`drop` counts). It carries ``reason``,
    ``detail`` and the item as it was when dropped, for the rejects stream and the drops
    file (:func:`rejection`; ``item`` may be None when a worker process did not send it
    back). ``message`` replaces the default one (``reason: url (detail)``)."""
    url = item.get("url", "?") if item else "?"
    exc = DropItem(message or drop_message(reason, url, detail))
    exc.wacky_drop = (reason, detail, item)
    return exc


def rejection(exc: BaseException) -> tuple[str, str, dict | None] | None:
    """``(reason, detail, item as dropped)`` of a DropItem made by :func:`drop`, else None."""
    return getattr(exc, "wacky_drop", None)


def close_on_write_error(component, url: str, reason: str, log, message: str) -> None:
    """A page whose output ``component`` could not write (a full disk): the frontier keeps it
    (:data:`PAGE_NOT_WRITTEN`: fetched again on resume) and the crawl closes with ``reason``
    after one ERROR line on ``log``, ``closing the crawl: <message>``, once per component (its
    ``stopping`` flag is set). Where there is no engine (``wackycrawl process``) only the
    signal is sent."""
    component.crawler.signals.send_catch_log(PAGE_NOT_WRITTEN, url=url)
    engine = getattr(component.crawler, "engine", None)
    if component.stopping or engine is None:
        return
    component.stopping = True
    log.error("closing the crawl: %s", message)
    deferred_from_coro(engine.close_spider_async(reason=reason))
