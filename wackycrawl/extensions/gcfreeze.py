"""Keep the start-up's objects out of the garbage collector's full passes.

By the time the spider opens, the crawl process holds some 140,000 GC-tracked objects
(Scrapy, Twisted, lxml, the language and dedup tables, numba in the crawl process) that live
until it exits; every full (generation 2) collection walks all of them again. ``gc.freeze()``
at ``spider_opened`` moves them to the permanent generation (CPython's advice for long-lived
processes: the ``gc.freeze`` documentation), so later collections scan only what the crawl
itself allocates. Measured on ``benchmarks/crawl.py`` (600 pages, full pipeline): the
generation-2 passes' CPU 0.42 -> 0.17 s. Nothing else changes: frozen objects are still freed
by reference counting, only cycles among them are never collected. Off with
``WACKY_GC_FREEZE = False`` (``NotConfigured``).

Then the youngest generation's threshold (``gc.set_threshold``; CPython's default is 700
allocations of container objects) is raised to ``WACKY_GC_THRESHOLD`` (50,000; 0 keeps
Python's): a crawl allocates requests, responses, items and coroutines by the thousand per
second, nearly all freed by reference counting, and at 700 the collector ran some 1,300
times in a 2,300-page crawl of ``benchmarks/crawl.py`` (full pipeline), each pass scanning
the requests and items in flight: 1.1 s of CPU, 0.3 s at 50,000 (10 passes). What a
collection frees (cycles only) waits longer: at most that many young objects, a few MB.
"""

from __future__ import annotations

import gc
import logging

from scrapy import signals
from scrapy.exceptions import NotConfigured

logger = logging.getLogger(__name__)


#: WACKY_GC_THRESHOLD: the youngest generation's collection threshold after the freeze
THRESHOLD = 50_000


class GcFreeze:
    """Calls ``gc.freeze()`` at ``spider_opened`` and raises the youngest generation's
    threshold to ``threshold`` (module doc; 0 = Python's own); stat
    ``wacky/gc/frozen_objects`` (objects in the permanent generation)."""

    def __init__(self, crawler, threshold: int = THRESHOLD):
        self.stats = crawler.stats
        self.threshold = threshold

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("WACKY_GC_FREEZE", True):
            raise NotConfigured("WACKY_GC_FREEZE is off")
        threshold = crawler.settings.getint("WACKY_GC_THRESHOLD", THRESHOLD)
        if threshold < 0:
            raise ValueError(f"WACKY_GC_THRESHOLD must be 0 (Python's own) or more, "
                             f"not {threshold}")
        ext = cls(crawler, threshold)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        return ext

    def spider_opened(self, spider) -> None:
        gc.collect()  # the start-up's garbage goes first, not into the permanent generation
        gc.freeze()
        if self.threshold:
            gc.set_threshold(self.threshold, *gc.get_threshold()[1:])
        self.stats.set_value("wacky/gc/frozen_objects", gc.get_freeze_count())
        logger.debug("gc.freeze: %d start-up objects left out of later collections",
                     gc.get_freeze_count())
