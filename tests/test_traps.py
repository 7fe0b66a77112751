"""Spider traps: URL-shape rules, host budget, endless-links detector, and the middleware."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from wackycrawl.crawl.traps import (
    DomainHostBudget,
    EndlessLinksDetector,
    HostBudget,
    UrlLimits,
    trap_pattern,
    url_trap,
)
from wackycrawl.middlewares.traps import TrapsMiddleware


@pytest.mark.parametrize(("url", "rule"), [
    ("http://a.test/" + "x" * 2100, "url_length"),
    ("http://a.test/" + "/".join(f"d{i}" for i in range(21)), "path_depth"),
    ("http://a.test/a/b/a/b/a/c.html", "repeated_segment"),
    ("http://a.test/cal/2024/2024/2024/", "repeated_segment"),
    ("http://a.test/s?" + "&".join(f"f{i}=1" for i in range(11)), "query_params"),
    ("http://a.test/a/b/a/b.html?x=1&y=2", None),
    ("http://a.test/", None),
])
def test_url_trap_rules(url, rule):
    assert url_trap(url) == rule


def test_limits_can_be_turned_off():
    off = UrlLimits(0, 0, 0, 0)
    assert url_trap("http://a.test/a/a/a/a/?" + "&".join("x" * 11), off) is None


def test_trap_pattern():
    assert trap_pattern("http://Cal.test:8080/events/2024/01?x=1") == "cal.test:8080/events"
    # the scheme's default port is no other host (it was its own pattern and budget)
    assert trap_pattern("http://Upper.test:80/p3.html") == "upper.test/p3.html"
    assert trap_pattern("https://a.test:443/cal/1") == "a.test/cal"
    assert trap_pattern("http://cal.test/?month=3") == "cal.test/"
    assert trap_pattern("http://cal.test/index.php?d=1") == "cal.test/index.php"


def test_host_budget():
    budget = HostBudget(2)
    assert budget.take("a") and budget.take("a") and not budget.take("a")
    assert budget.take("b") and budget.exhausted == {"a"}
    assert all(HostBudget(0).take("a") for _ in range(10))


def test_detector_trips_on_a_calendar_not_on_a_finite_site():
    det = EndlessLinksDetector(window=10, new_ratio=0.5)
    # a finite site: its menu listed every page before the first fetch
    det.discovered("site/a", 30)
    for _ in range(30):
        assert not det.fetched("site/a")
    # a calendar: every page one new month
    tripped = []
    for _ in range(10):
        tripped.append(det.fetched("cal/events"))
        det.discovered("cal/events")
    assert tripped == [False] * 9 + [True] and det.tripped == {"cal/events"}
    assert not det.fetched("cal/events")  # once


def test_detector_spares_patterns_that_keep_documents():
    det = EndlessLinksDetector(window=5, new_ratio=0.5)
    for i in range(20):
        det.fetched("news/articles")
        det.discovered("news/articles", 3)
        if i % 5 == 0:
            det.kept("news/articles")
    assert not det.tripped


def test_detector_takes_back_duplicates():
    det = EndlessLinksDetector(window=4, new_ratio=0.5)
    det.fetched("a/")
    for _ in range(10):
        det.discovered("a/")
        det.discovered("a/", -1)  # the dupefilter refused it
    assert not any(det.fetched("a/") for _ in range(3))


def make_mw(**settings):
    crawler = get_crawler(settings_dict={"WACKY_TRAPS_ENABLED": True,
                                         "WACKY_TRAP_MAX_PATH_DEPTH": 20,
                                         "WACKY_TRAP_MAX_SEGMENT_REPEATS": 2,
                                         "WACKY_TRAP_MAX_URL_LENGTH": 2083,
                                         "WACKY_TRAP_MAX_QUERY_PARAMS": 10,
                                         "WACKY_HOST_BUDGET": 3, "WACKY_TRAP_WINDOW": 2,
                                         "WACKY_DOMAIN_HOST_BUDGET": 100,
                                         "WACKY_TRAP_NEW_RATIO": 0.5, **settings})
    crawler.stats.open_spider()
    return TrapsMiddleware.from_crawler(crawler), crawler.stats


def test_middleware_off():
    with pytest.raises(NotConfigured):
        make_mw(WACKY_TRAPS_ENABLED=False)


def test_middleware_budget_and_shape(caplog):
    mw, stats = make_mw()
    for i in range(3):
        assert mw.process_request(Request(f"http://a.test/{i}")) is None
    for i in range(2):
        with pytest.raises(IgnoreRequest):
            mw.process_request(Request(f"http://a.test/more{i}"))
    assert mw.process_request(Request("http://a.test/robots.txt",
                                      meta={"dont_obey_robotstxt": True})) is None
    with pytest.raises(IgnoreRequest):
        mw.process_request(Request("http://b.test/x/x/x/"))
    assert stats.get_value("wacky/trap/budget") == 2
    assert stats.get_value("wacky/trap/hosts_over_budget") == 1
    assert stats.get_value("wacky/trap/repeated_segment") == 1
    assert caplog.text.count("used its budget of 3 requests") == 1


def test_middleware_detector_by_signals():
    mw, stats = make_mw(WACKY_HOST_BUDGET=0)
    for n in range(2):
        req = Request(f"http://cal.test/events/{n}")
        mw._fetched(HtmlResponse(req.url, body=b"<html></html>", request=req), req)
        mw._scheduled(Request(f"http://cal.test/events/{n + 1}"))
    assert stats.get_value("wacky/trap/patterns_tripped") == 1
    with pytest.raises(IgnoreRequest):
        mw.process_request(Request("http://cal.test/events/9"))
    assert stats.get_value("wacky/trap/endless_links") == 1
    assert mw.process_request(Request("http://cal.test/about")) is None


def test_domain_host_budget_counts_hosts_without_a_kept_document():
    b = DomainHostBudget(3)
    assert all(b.take("wild.test", f"s{i}.wild.test") for i in range(3))
    assert b.take("wild.test", "s0.wild.test")  # a host taken always passes
    assert not b.take("wild.test", "s3.wild.test") and b.exhausted == {"wild.test"}
    assert b.take("other.test", "www.other.test")  # another domain has its own count
    assert b.take("wild.test", "seed.wild.test", force=True)  # a seed passes
    b.kept("wild.test", "s0.wild.test")
    b.kept("wild.test", "s1.wild.test")
    b.kept("wild.test", "s1.wild.test")  # counted once
    b.kept("wild.test", "unknown.wild.test")  # never taken: no effect
    assert b.unproven["wild.test"] == 2
    assert b.take("wild.test", "s4.wild.test")  # room again: its sites yield documents
    assert not b.take("wild.test", "s5.wild.test")
    assert all(DomainHostBudget(0).take("w.test", f"h{i}.w.test") for i in range(1000))


def test_middleware_domain_host_budget(caplog):
    """A link generator across host names: each page links to new hosts of one domain, so
    no host sees more than one page and the per-host rules never trip."""
    mw, stats = make_mw(WACKY_HOST_BUDGET=0, WACKY_DOMAIN_HOST_BUDGET=4)
    for i in range(4):
        assert mw.process_request(Request(f"http://s{i}.wild.test/")) is None
    assert mw.process_request(Request("http://s0.wild.test:80/again")) is None  # same host
    for i in range(4, 7):
        with pytest.raises(IgnoreRequest):
            mw.process_request(Request(f"http://s{i}.wild.test/"))
    # robots.txt and seeds pass; PSL private suffixes are domains of their own
    assert mw.process_request(Request("http://s9.wild.test/robots.txt",
                                      meta={"dont_obey_robotstxt": True})) is None
    assert mw.process_request(Request("http://seed.wild.test/",
                                      meta={"wacky_seed_list": True})) is None
    for i in range(6):
        assert mw.process_request(Request(f"http://blog{i}.blogspot.com/")) is None
    assert stats.get_value("wacky/trap/domain_hosts") == 3
    assert stats.get_value("wacky/trap/domains_over_budget") == 1
    assert stats.get_value("wacky/drop/trap_domain_hosts") == 3
    assert caplog.text.count("Trap: domain wild.test has 4 hosts without a kept document") == 1
    # a kept document of a host makes room for one more (the seed counts as a host too)
    mw._kept({"url": "http://s1.wild.test/page"})
    mw._kept({"url": "http://seed.wild.test/"})
    assert mw.process_request(Request("http://s7.wild.test/")) is None


def test_middleware_budget_keys_on_the_host_name_not_the_default_port():
    mw, stats = make_mw()  # 3 requests per host
    for url in ("http://upper.test/p1.html", "http://Upper.test:80/p2.html",
                "http://upper.test./p3.html"):
        assert mw.process_request(Request(url)) is None
    with pytest.raises(IgnoreRequest):
        mw.process_request(Request("http://upper.test:80/p4.html"))
    assert mw.process_request(Request("http://upper.test:8080/p5.html")) is None
    assert stats.get_value("wacky/trap/budget") == 1


def test_the_suffix_list_is_built_with_the_middleware_not_at_the_first_request(monkeypatch):
    """tldextract builds its trie (thousands of objects) at its first lookup: the middleware
    does that lookup when it is built, before gc.freeze at spider_opened, so the requests'
    lookups create no objects that every later full collection would scan again."""
    import gc

    import tldextract

    from wackycrawl.seeding import serp

    monkeypatch.setattr(serp, "_PSL", tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True))
    mw, _ = make_mw()
    gc.collect()
    before = len(gc.get_objects())
    assert serp.registered_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert len(gc.get_objects()) - before < 100
