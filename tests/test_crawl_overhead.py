"""What the crawl process saves per call: the stats collector, gc.freeze, fingerprint cache."""

import gc
import warnings

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.project import get_project_settings
from scrapy.utils.test import get_crawler

from wackycrawl.crawl import urls
from wackycrawl.extensions.gcfreeze import GcFreeze
from wackycrawl.statscollectors import StatsCollector


def project_crawler(**extra):
    """A crawler with the project's stats class and GC setting (no reactor needed)."""
    settings = get_project_settings()
    keys = ("STATS_CLASS", "WACKY_GC_FREEZE")
    return get_crawler(settings_dict={**{k: settings[k] for k in keys}, **extra})


def test_the_crawl_counts_with_the_project_collector():
    crawler = project_crawler()
    assert type(crawler.stats) is StatsCollector


def test_collector_methods_are_plain_bound_methods_without_the_spider_shim():
    stats = StatsCollector(get_crawler())
    # Scrapy 2.19's __getattribute__ hands out a wrapper (sync_inner) instead
    assert stats.inc_value.__func__ is MemoryStatsCollector.inc_value


def test_collector_gives_memorystatscollectors_values():
    ours, theirs = StatsCollector(get_crawler()), MemoryStatsCollector(get_crawler())
    for stats in (ours, theirs):
        stats.open_spider()
        stats.inc_value("a")
        stats.inc_value("a", 4)
        stats.inc_value("b", start=10)
        stats.max_value("m", 3)
        stats.max_value("m", 1)
        stats.min_value("n", 3)
        stats.min_value("n", 1)
        stats.set_value("s", "x")
    assert ours.get_stats() == theirs.get_stats() == {"a": 5, "b": 11, "m": 3, "n": 1, "s": "x"}
    assert ours.get_value("missing", 7) == 7


def test_a_spider_argument_is_still_accepted():
    stats = StatsCollector(get_crawler())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats.inc_value("a", spider=None)
    assert stats.get_value("a") == 1


def test_gc_freeze_at_spider_open_and_off_by_setting():
    crawler = project_crawler()
    ext = GcFreeze.from_crawler(crawler)
    try:
        ext.spider_opened(None)
        assert gc.get_freeze_count() > 1000
        assert crawler.stats.get_value("wacky/gc/frozen_objects") == gc.get_freeze_count()
    finally:
        gc.unfreeze()
    with pytest.raises(NotConfigured):
        GcFreeze.from_crawler(project_crawler(WACKY_GC_FREEZE=False))


@pytest.mark.parametrize("setting, young", [(None, 50_000), (2_000, 2_000), (0, None)])
def test_the_youngest_generations_threshold_is_raised_after_the_freeze(setting, young):
    saved = gc.get_threshold()
    gc.set_threshold(700, *saved[1:])
    crawler = project_crawler() if setting is None else project_crawler(WACKY_GC_THRESHOLD=setting)
    try:
        GcFreeze.from_crawler(crawler).spider_opened(None)
        assert gc.get_threshold() == ((young or 700), *saved[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*saved)


def test_a_negative_gc_threshold_is_refused_at_start():
    with pytest.raises(ValueError, match="WACKY_GC_THRESHOLD"):
        GcFreeze.from_crawler(project_crawler(WACKY_GC_THRESHOLD=-1))


def test_gc_freeze_is_one_of_the_crawls_extensions():
    assert "wackycrawl.extensions.gcfreeze.GcFreeze" in get_project_settings().getdict("EXTENSIONS")


def test_request_fingerprints_are_cached_and_unchanged_by_the_cache():
    url = "http://Example.com:80/a?utm_source=x&b=2&a=1"
    urls.request_fingerprint.cache_clear()
    first = urls.request_fingerprint("GET", url, b"")
    again = urls.request_fingerprint("GET", url, b"")
    info = urls.request_fingerprint.cache_info()
    assert first == again == urls.request_fingerprint.__wrapped__("GET", url, b"")
    assert (info.hits, info.misses, info.maxsize) == (1, 1, urls.FINGERPRINT_CACHE)
    assert urls.request_fingerprint("POST", url, b"") != first


def test_the_written_url_key_reuses_the_fingerprint_of_the_fetched_request():
    """The written-URL set's key of a page is the fingerprint its request got when it was
    scheduled (method, URL, body), found in the cache, not computed a second time."""
    from scrapy import Request

    from wackycrawl.distributed.fingerprint import url_fingerprint

    url = "http://example.com/story?id=4&utm_medium=x"
    request = Request(url)
    urls.request_fingerprint.cache_clear()
    scheduled = urls.request_fingerprint(request.method, request.url, request.body)
    assert url_fingerprint(url) == scheduled
    info = urls.request_fingerprint.cache_info()
    assert (info.hits, info.misses) == (1, 1)
