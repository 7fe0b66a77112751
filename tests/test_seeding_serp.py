"""Result-page parsers, registered domains and seed selection (wackycrawl.seeding.serp)."""

import json

import pytest

from wackycrawl.seeding import serp

BASE = "https://se.example/search?q=a"


def test_json_parsers_per_engine():
    searx = {"results": [{"url": "https://a.example/1"}, {"title": "no url"}, {"url": 5}]}
    bing = {"webPages": {"value": [{"url": "https://b.example/"}]}}
    brave = {"web": {"results": [{"url": "https://c.example/"}]}}
    assert serp.result_urls("searxng", json.dumps(searx).encode(), BASE) == ["https://a.example/1"]
    assert serp.result_urls("bing", json.dumps(bing).encode(), BASE) == ["https://b.example/"]
    assert serp.result_urls("brave", json.dumps(brave).encode(), BASE) == ["https://c.example/"]
    # no results at all is an answer, not an error
    assert serp.result_urls("bing", b'{"_type": "SearchResponse"}', BASE) == []
    assert serp.result_urls("brave", '{"web": {"results": []}}'.encode("utf-16"), BASE) == []


@pytest.mark.parametrize("body", [b"", b"<html>Too many requests</html>", b"[1, 2]",
                                  b'{"results": {"url": "x"}}', b"\xff\xfe\x00garbage{"])
def test_unreadable_json_raises_serp_error(body):
    with pytest.raises(serp.SerpError):
        serp.result_urls("searxng", body, BASE)


def test_result_filter_keeps_http_off_engine_once_in_order():
    urls = ["https://a.example/", "ftp://b.example/", "javascript:alert(1)", "/relative",
            "https://se.example/next", "https://a.example/", "http://c.example:99999/",
            "http://d.example/x y", "http://e.example/"]
    body = json.dumps({"results": [{"url": u} for u in urls]}).encode()
    assert serp.result_urls("searxng", body, BASE) == ["https://a.example/", "http://e.example/"]


def test_html_parser_unwraps_click_tracking_and_drops_engine_links():
    body = (b'<html><body><a href="/settings">s</a><a href="/l/?uddg=https%3A%2F%2Fx.org%2Fa'
            b'&amp;rut=1">x</a><a href="https://y.org/">y</a><a href=\'//z.org/p\'>z</a>'
            b'<a name="n">no href</a><a href="?q=a&page=2">next</a><div><a href="https://y.org/">'
            b'<p>unclosed')
    assert serp.result_urls("html", body, BASE) == ["https://x.org/a", "https://y.org/",
                                                    "https://z.org/p"]


@pytest.mark.parametrize("host,domain", [
    ("news.bbc.co.uk", "bbc.co.uk"), ("WWW.Example.COM.", "example.com"),
    ("a.blogspot.com", "a.blogspot.com"), ("x.y.blogspot.com", "y.blogspot.com"),
    ("www.alpha.test", "alpha.test"), ("localhost", "localhost"), ("10.0.0.1", "10.0.0.1"),
    ("[::1]", "[::1]"), ("co.uk", "co.uk"), ("xn--mnchen-3ya.de", "xn--mnchen-3ya.de"),
])
def test_registered_domain(host, domain):
    assert serp.registered_domain(host) == domain


def test_select_one_per_domain_across_queries_and_max_per_query():
    quota = serp.DomainQuota(1)
    assert quota.take("http://plain.example/", force=True)
    kept, skipped = serp.select(["http://www.a.co.uk/", "http://blog.a.co.uk/",
                                 "http://plain.example/x", "http://b.test/", "http://c.test/"],
                                quota, max_results=2)
    assert kept == ["http://www.a.co.uk/", "http://b.test/"]
    assert skipped == {"domain_taken": 2, "over_max": 1}
    kept, skipped = serp.select(["http://b.test/other", "http://c.test/"], quota, 2)
    assert kept == ["http://c.test/"] and skipped == {"domain_taken": 1}
    assert max(quota.taken.values()) == 1


def test_quota_of_two():
    quota = serp.DomainQuota(2)
    kept, _ = serp.select([f"http://h{i}.a.test/" for i in range(4)], quota, 10)
    assert kept == ["http://h0.a.test/", "http://h1.a.test/"]
