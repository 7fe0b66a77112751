"""The crawl's stats collector: Scrapy's ``MemoryStatsCollector`` at plain attribute speed.

Scrapy 2.19's ``StatsCollector.__getattribute__`` wraps every stats method in a check for the
deprecated ``spider`` argument and looks each attribute up twice (a failed ``_cached_<name>``
lookup first, which raises and catches AttributeError, also for ``self._stats`` inside
``inc_value``): about 8 µs per ``inc_value`` here, against 0.4 µs without it. A crawl makes
dozens of stats calls per page (Scrapy's own counters, the wacky/ counters of every middleware,
the stage workers' counters replayed in the crawl process), so the shim alone cost the crawl
process several per cent of its CPU (``benchmarks/crawl.py``). This class keeps every method
and value of ``MemoryStatsCollector`` (``spider=`` is still accepted, without the
DeprecationWarning) and drops the shim; it is ``STATS_CLASS`` in wackycrawl.settings.
"""

from scrapy.statscollectors import MemoryStatsCollector


class StatsCollector(MemoryStatsCollector):
    """``MemoryStatsCollector`` with ordinary attribute lookup (module doc)."""

    __getattribute__ = object.__getattribute__
