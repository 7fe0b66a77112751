"""Redirect targets (3xx and meta refresh) start without the source's per-response meta."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, Response
from scrapy.utils.test import get_crawler

from wackycrawl import settings as project
from wackycrawl.middlewares.redirect import (
    PER_RESPONSE_META,
    MetaRefreshMiddleware,
    RedirectMiddleware,
)

LEAKY = {"wacky_store": False, "wacky_robots_deferrals": 2, "wacky_backoff_retries": 3,
         "retry_times": 2, "wacky_not_before": 1e10, "_wacky_politeness_keys": ("a.test",),
         "_wacky_politeness_sent": 5.0, "depth": 2, "wacky_seed_query": "q"}


def crawler():
    c = get_crawler(settings_dict={k: getattr(project, k) for k in dir(project) if k.isupper()})
    c.stats.open_spider()
    return c


def _redirect(kind: str, meta: dict) -> Request:
    req = Request("http://a.test/stub", meta=dict(meta))
    if kind == "3xx":
        mw = RedirectMiddleware.from_crawler(crawler())
        resp = Response(req.url, status=301, headers={"Location": "http://b.test/page"})
    else:
        mw = MetaRefreshMiddleware.from_crawler(crawler())
        resp = HtmlResponse(req.url, body=b'<html><head><meta http-equiv="refresh" content="0;'
                            b' url=http://b.test/page"></head></html>', request=req)
    out = mw.process_response(req, resp)
    assert isinstance(out, Request) and out.url == "http://b.test/page"
    return out


@pytest.mark.parametrize("kind", ["3xx", "meta refresh"])
def test_target_is_judged_afresh(kind):
    target = _redirect(kind, LEAKY)
    assert not set(target.meta) & {k for k, v in PER_RESPONSE_META.items() if v is None}
    assert target.meta["depth"] == 2 and target.meta["wacky_seed_query"] == "q"
    assert target.meta["redirect_urls"] == ["http://a.test/stub"]


def test_robots_txt_byte_count_starts_again():
    assert _redirect("3xx", {"wacky_robots_bytes": 4000}).meta["wacky_robots_bytes"] == 0


def test_robots_txt_fetch_is_shared_by_the_target_and_forgets_the_redirects_encoding():
    """The target holds the same RobotsFetch (the fetch reads a bomb's Content-Encoding on it),
    stays a robots.txt fetch whatever its path, and the gzip of the 301 itself is forgotten."""
    from wackycrawl.middlewares.robots import ROBOTS_FETCH_META, RobotsFetch, is_robots_fetch
    from wackycrawl.middlewares.scope import is_robots_txt
    from wackycrawl.middlewares.sizewindow import SizeWindowMiddleware

    fetch = RobotsFetch()
    fetch.encoded, fetch.url = "gzip", "http://a.test/stub"
    target = _redirect("3xx", {ROBOTS_FETCH_META: fetch, "dont_obey_robotstxt": True})
    assert target.meta[ROBOTS_FETCH_META] is fetch and fetch.encoded == fetch.url == ""
    assert is_robots_fetch(target) and is_robots_txt(target)
    assert not SizeWindowMiddleware.applies(target)
    page = Request("http://b.test/page", meta={"dont_obey_robotstxt": True})
    assert not is_robots_fetch(page) and not is_robots_txt(page)
    assert SizeWindowMiddleware.applies(page)


def test_too_many_redirects_is_a_drop():
    from scrapy.exceptions import IgnoreRequest

    mw = RedirectMiddleware.from_crawler(crawler())
    req = Request("http://a.test/r5", meta={"redirect_times": 5, "redirect_ttl": 1,
                                            "redirect_urls": ["http://a.test/r0"]})
    with pytest.raises(IgnoreRequest):
        mw.process_response(req, Response(req.url, status=302,
                                          headers={"Location": "http://a.test/r6"}))
    assert mw.crawler.stats.get_value("wacky/drop/too_many_redirects") == 1


SID = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("chain,target,kind", [
    (["http://a.test/x"], "http://a.test/y", "new"),
    (["http://a.test/x"], "http://a.test/x", "loop"),
    (["http://a.test/x"], f"http://a.test/x?PHPSESSID={SID}", "same_canonical"),
    (["http://a.test/x"], "http://a.test/x;jsessionid=ABCDEF0123456789", "same_canonical"),
    (["http://a.test/x"], "http://a.test/x?utm_source=rss", "same_canonical"),
    (["http://a.test/x", "http://a.test/login"], f"http://a.test/x?sid={SID}", "same_canonical"),
    (["http://a.test/x", f"http://a.test/x?sid={SID}"], "http://a.test/x", "loop"),
    (["http://a.test/x", f"http://a.test/x?sid={SID}"], f"http://a.test/x?sid={SID[::-1]}",
     "loop"),  # a fresh session id on every hop: entered again once already
])
def test_redirect_kind(chain, target, kind):
    from wackycrawl.middlewares.redirect import redirect_kind

    assert redirect_kind(chain, target) == kind


def test_a_redirect_adding_a_session_id_is_followed_once_past_the_dupefilter(caplog):
    """/article -> /article?PHPSESSID=<id> has one canonical URL: it was a redirect_loop drop,
    and the dupefilter would have refused the target too."""
    import logging

    mw = RedirectMiddleware.from_crawler(crawler())
    req = Request("http://a.test/article")
    target = f"http://a.test/article?PHPSESSID={SID}"
    with caplog.at_level(logging.INFO, logger="wackycrawl.middlewares.redirect"):
        out = mw.process_response(req, Response(req.url, status=302,
                                                headers={"Location": f"/article?PHPSESSID={SID}"}))
    assert isinstance(out, Request) and out.url == target and out.dont_filter
    assert mw.crawler.stats.get_value("wacky/redirect/same_canonical") == 1
    assert not mw.crawler.stats.get_value("wacky/drop/redirect_loop")
    assert f"302 from http://a.test/article to {target}" in caplog.text
    # a next hop to another page is filtered again (the chain's own dont_filter)
    nxt = mw.process_response(out, Response(out.url, status=301,
                                            headers={"Location": "http://a.test/other"}))
    assert nxt.url == "http://a.test/other" and not nxt.dont_filter
    # a seed pushed as dont_filter keeps it
    pushed = Request("http://a.test/article", dont_filter=True)
    out = mw.process_response(pushed, Response(pushed.url, status=302,
                                               headers={"Location": target}))
    nxt = mw.process_response(out, Response(out.url, status=301,
                                            headers={"Location": "http://a.test/other"}))
    assert nxt.dont_filter


def test_a_redirect_back_from_the_session_url_is_a_loop_naming_source_and_target():
    from scrapy.exceptions import IgnoreRequest

    mw = RedirectMiddleware.from_crawler(crawler())
    req = Request("http://a.test/article")
    out = mw.process_response(req, Response(req.url, status=302,
                                            headers={"Location": f"/article?sid={SID}"}))
    with pytest.raises(IgnoreRequest):
        mw.process_response(out, Response(out.url, status=302, headers={"Location": "/article"}))
    assert mw.crawler.stats.get_value("wacky/drop/redirect_loop") == 1
