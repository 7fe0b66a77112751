"""Scope: SURT-prefix allow/deny lists, scope derived from seeds, and the middleware."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.test import get_crawler

from wackycrawl.crawl.scope import Scope, public_suffix, registered_domain
from wackycrawl.middlewares.scope import ScopeMiddleware


def test_registered_domain_and_suffix_from_the_bundled_public_suffix_list():
    assert registered_domain("www.uni-bonn.de") == "uni-bonn.de"
    assert registered_domain("a.b.co.uk") == "b.co.uk"
    assert registered_domain("shop.example.test") == "example.test"
    assert public_suffix("a.b.co.uk") == "co.uk"
    assert public_suffix("shop.example.test") == "test"


def test_allow_deny_and_https():
    scope = Scope(["de", "http://(at,"], ["spam.de"])
    assert scope.decide("http://www.uni-bonn.de/x") is None
    assert scope.decide("https://wien.gv.at/") is None  # https compared as http
    assert scope.decide("http://www.spam.de/a") == "deny"
    assert scope.decide("http://example.com/") == "out"
    assert scope.decide("http://de.example.com/") == "out"  # a label, not a suffix
    assert "http://x.de/" in scope and "http://x.dk/" not in scope


def test_label_boundary_and_path_prefix():
    scope = Scope(["uni-bonn.de", "http://www.x.com/docs/"])
    assert "http://uni-bonn.de/" in scope and "http://a.uni-bonn.de/" in scope
    assert "http://uni-bonn.dest/" not in scope and "http://xuni-bonn.de/" not in scope
    assert "http://www.x.com/docs/a.html" in scope and "http://www.x.com/blog/" not in scope


def test_empty_allow_list_allows_everything_but_deny():
    scope = Scope(deny=["http://(com,example,"])
    assert "http://a.test/" in scope and "http://www.example.com/" not in scope


def test_derive_from_seeds():
    scope = Scope()
    assert scope.add_seed("http://www.uni-bonn.de/x", "domain") == "http://(de,uni-bonn,"
    assert scope.add_seed("http://news.orf.at/", "suffix") == "http://(at,"
    assert scope.add_seed("http://a.test/", "") is None
    assert scope.prefixes == ["http://(at,", "http://(de,uni-bonn,"]
    with pytest.raises(ValueError):
        scope.add_seed("http://a.test/", "tld")


def crawler_with(**settings):
    return get_crawler(settings_dict=settings)


def test_middleware_off_without_lists():
    with pytest.raises(NotConfigured):
        ScopeMiddleware.from_crawler(crawler_with())
    with pytest.raises(ValueError):
        ScopeMiddleware.from_crawler(crawler_with(WACKY_SCOPE_FROM_SEEDS="tld"))


def test_middleware_cuts_and_counts():
    crawler = crawler_with(WACKY_SCOPE_ALLOW="de,at", WACKY_SCOPE_DENY="spam.de")
    crawler.stats.open_spider()
    mw = ScopeMiddleware.from_crawler(crawler)
    link = {"depth": 1}
    assert mw.process_request(Request("http://x.de/", meta=link)) is None
    for url in ("http://x.com/", "http://y.com/", "http://www.spam.de/"):
        with pytest.raises(IgnoreRequest):
            mw.process_request(Request(url, meta=link))
    assert crawler.stats.get_value("wacky/scope/out") == 3
    assert crawler.stats.get_value("wacky/scope/deny") == 1
    # seeds, marked seeds and robots.txt requests are never cut
    assert mw.process_request(Request("http://seed.com/")) is None
    assert mw.process_request(Request("http://serp.com/", meta={"depth": 1,
                                                                "wacky_seed": True})) is None
    assert mw.process_request(Request("http://x.com/robots.txt",
                                      meta={"dont_obey_robotstxt": True})) is None
    # a search engine's result page is fetched whatever the scope (its results are judged)
    assert mw.process_request(Request("http://searx.com/search?q=a", meta={
        "depth": -1, "wacky_serp": "searxng"})) is None
    redirected = {"depth": 0, "redirect_urls": ["http://seed.de/"]}
    with pytest.raises(IgnoreRequest):
        mw.process_request(Request("http://elsewhere.com/", meta=redirected))


@pytest.mark.parametrize("settings, line", [
    ({"WACKY_SCOPE_FROM_SEEDS": "domain"},
     "Scope: the seeds' domains only (no allow list), deny none"),
    ({"WACKY_SCOPE_ALLOW": "de", "WACKY_SCOPE_DENY": "spam.de"},
     "Scope: allow ['http://(de,'] only, deny ['spam.de']"),
    ({"WACKY_SCOPE_ALLOW": "de", "WACKY_SCOPE_FROM_SEEDS": "suffix"},
     "Scope: allow ['http://(de,'] and each seed's suffix, deny none"),
    ({"WACKY_SCOPE_DENY": "spam.de"}, "Scope: allow all, deny ['spam.de']"),
], ids=["seeds-only", "allow-list", "both", "deny-only"])
def test_the_scope_line_says_what_is_in_scope(settings, line, caplog):
    with caplog.at_level("INFO", logger="wackycrawl.middlewares.scope"):
        ScopeMiddleware.from_crawler(crawler_with(**settings))
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("Scope:")] \
        == [line]


def test_scope_from_an_ip_seed_is_that_address():
    scope = Scope()
    scope.add_seed("http://127.0.0.1:41093/de/a.html", "domain")
    assert scope.decide("http://127.0.0.1:41093/other.html") is None
    assert scope.decide("http://127.0.0.2/x") == "out"


def test_search_result_pages_pass_a_scope_derived_from_their_results():
    crawler = crawler_with(WACKY_SCOPE_FROM_SEEDS="domain")
    crawler.stats.open_spider()
    mw = ScopeMiddleware.from_crawler(crawler)
    serp = {"depth": -1, "wacky_serp": "searxng"}
    assert mw.process_request(Request("http://127.0.0.1:8888/search?q=a", meta=serp)) is None
    assert mw.process_request(Request("http://www.site.de/", meta={
        "depth": 0, "wacky_seed": True})) is None
    assert mw.process_request(Request("http://site.de/more", meta={"depth": 1})) is None
    with pytest.raises(IgnoreRequest):  # the engine's host was not made part of the scope
        mw.process_request(Request("http://127.0.0.1:8888/other", meta={"depth": 1}))
