"""A real crawl against a local web of hostile servers: every bad answer gets a log line and a
counter, never a traceback; the good pages around them are stored.
"""

from __future__ import annotations

import zlib

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.trec.reader import check, iter_docs

pytestmark = pytest.mark.crawl


def test_hostile_servers_are_logged_and_counted_and_good_pages_kept(tmp_path):
    with LocalWeb() as web:
        good = page("Good", prose(1))
        web.add("http://ok.test/", good)
        # Content-Encoding lies: plain HTML labelled gzip / deflate, zlib data labelled gzip
        web.add("http://fakegz.test/", page("Gz", prose(2)), headers={"Content-Encoding": "gzip"})
        web.add("http://fakedeflate.test/", page("Df", prose(3)),
                headers={"Content-Encoding": "deflate"})
        web.add("http://zlibgz.test/", zlib.compress(page("Zl", prose(4)).encode()),
                headers={"Content-Encoding": "gzip"})
        # Retry-After "\xb3" (latin-1 superscript three) on a 503, for a page and a robots.txt
        web.add("http://busy.test/", "busy", status=503, headers={"Retry-After": "\u00b3"})
        web.add("http://busyrobots.test/robots.txt", "busy", status=503,
                headers={"Retry-After": "\u00b2"})
        # an English page whose <meta> says UTF-16 (WHATWG: that means UTF-8)
        utf16 = page("Meta", prose(5)).replace("<head>", '<head><meta charset="utf-16">', 1)
        web.add("http://utf16meta.test/", utf16.encode(), content_type="text/html")
        # redirects to a Location that is no URL (bad port, bad IPv6 literal), and a loop
        web.add("http://badport.test/", status=301, headers={"Location": "http://a.test:99999/"})
        web.add("http://badip6.test/", status=302, headers={"Location": "http://[::1/x"})
        web.add("http://loop.test/", status=301, headers={"Location": "http://loop.test/a"})
        web.add("http://loop.test/a", status=302, headers={"Location": "http://loop.test/"})
        seeds = ["http://ok.test/", "http://fakegz.test/", "http://fakedeflate.test/",
                 "http://zlibgz.test/", "http://busy.test/", "http://busyrobots.test/",
                 "http://utf16meta.test/", "http://badport.test/", "http://badip6.test/",
                 "http://loop.test/"]
        result = run_crawl(web, seeds, tmp_path, {
            "WACKY_LANGUAGES": "en", "RETRY_TIMES": "1", "WACKY_FOLLOW_LINKS": "False",
            "WACKY_BACKOFF_MAX_RETRIES": "1", "WACKY_BACKOFF_JITTER": "0",
            "WACKY_ROBOTS_RETRY_SECONDS": "1", "WACKY_ROBOTS_MAX_DEFERRALS": "1"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[result.log.find("Traceback") - 300:][:3000]
    assert result.stat("log_count/ERROR") == 0
    assert result.stat("wacky/size/bad_encoding") == 3
    assert "Content-Encoding lies" in result.log
    assert result.stat("wacky/redirect/bad_location") == 2
    assert result.stat("wacky/politeness/overload/503") >= 1
    assert result.stat("wacky/robots/unreachable_5xx") >= 1
    files = sorted(result.outdir.glob("*.trec.gz"))
    assert all(check(str(f)).ok for f in files)
    docs = {doc.url: doc for f in files for _, doc in iter_docs(str(f))}
    assert set(docs) == {"http://ok.test/", "http://utf16meta.test/"}
    assert docs["http://utf16meta.test/"].meta["Language"] == "en"


def test_endless_robots_txt_is_cut_off_and_its_start_obeyed(tmp_path):
    """A robots.txt that never ends used to be read up to DOWNLOAD_MAXSIZE (1 GiB in memory)
    or DOWNLOAD_TIMEOUT (then the host counted as unreachable, all disallowed)."""
    with LocalWeb() as web:
        rules = b"User-agent: *\nDisallow: /private/\n" + b"# padding line\n" * 4_000_000
        robots_route = web.add("http://endless.test/robots.txt", rules, content_type="text/plain",
                               chunked=True, chunk_size=64 * 1024)
        web.add("http://endless.test/", page("Endless", prose(6), links=["/private/x.html"]))
        web.add("http://endless.test/private/x.html", page("Private", prose(7)))
        result = run_crawl(web, ["http://endless.test/"], tmp_path, {"WACKY_LANGUAGES": "en"})
        paths = [h.path for h in web.hits_for("endless.test")]
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("wacky/robots/cut_off") == 1
    assert result.stat("wacky/robots/ok") == 1 and result.stat("wacky/robots/forbidden") == 1
    assert "/private/x.html" not in paths and "/" in paths
    assert robots_route.cut_off_at is not None and robots_route.cut_off_at < 8 << 20


def assert_robots_bomb_stopped(result, named: str) -> None:
    """The crawl ran through, the robots.txt bomb ``named`` was stopped by our decoded-size
    limit (counted, logged), not by Scrapy's own warning size."""
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log
    assert result.stat("wacky/robots/too_large_decoded") >= 1
    assert f"robots.txt {named} decodes to more than 512000 bytes" in result.log
    assert "larger than the download warning size" not in result.log


def test_compressed_robots_txt_bomb_is_not_expanded(tmp_path):
    """A few KB of gzip that decode to 32 MiB used to be decoded whole (Scrapy's DOWNLOAD_MAXSIZE
    is 1 GiB), with only Scrapy's size WARNING; a small gzip robots.txt is still read."""
    import gzip

    with LocalWeb() as web:
        bomb = gzip.compress(b"User-agent: *\nDisallow: /\n" + b"#" * (32 << 20))
        web.add("http://bomb.test/robots.txt", bomb, content_type="text/plain",
                headers={"Content-Encoding": "gzip"})
        web.add("http://bomb.test/", page("Bomb", prose(6)))
        web.add("http://small.test/robots.txt", gzip.compress(b"User-agent: *\nDisallow: /p/\n"),
                content_type="text/plain", headers={"Content-Encoding": "gzip"})
        web.add("http://small.test/", page("Small", prose(7), links=["/p/x.html"]))
        web.add("http://small.test/p/x.html", page("Private", prose(8)))
        result = run_crawl(web, ["http://bomb.test/", "http://small.test/"], tmp_path, {
            "WACKY_LANGUAGES": "en", "WACKY_ROBOTS_RETRY_SECONDS": "1",
            "WACKY_ROBOTS_MAX_DEFERRALS": "1"})
        bomb_paths = [h.path for h in web.hits_for("bomb.test")]
    assert_robots_bomb_stopped(result, "http://bomb.test/robots.txt")
    assert bomb_paths and set(bomb_paths) == {"/robots.txt"}  # disallowed while unreachable
    assert result.stat("wacky/robots/ok") == 1 and result.stat("wacky/robots/forbidden") == 1


def test_redirect_loops_are_drops_and_a_page_refreshing_to_itself_is_kept(tmp_path):
    """A 3xx chain back to itself was dropped by the dupefilter without a word, and so was a
    prose page whose meta refresh names itself (a news page reloading every minute) or a page
    that refreshes to it."""
    with LocalWeb() as web:
        web.add("http://self.test/", status=301, headers={"Location": "http://self.test/"})
        web.add("http://pair.test/", status=302, headers={"Location": "http://pair.test/b"})
        web.add("http://pair.test/b", status=302, headers={"Location": "http://pair.test/"})
        reload = '<head><meta http-equiv="refresh" content="60; url=http://news.test/">'
        web.add("http://news.test/", page("News", prose(9)).replace("<head>", reload, 1))
        to_b = '<head><meta http-equiv="refresh" content="0; url=/b">'
        to_a = '<head><meta http-equiv="refresh" content="0; url=/">'
        web.add("http://meta.test/", page("A", prose(10)).replace("<head>", to_b, 1))
        web.add("http://meta.test/b", page("B", prose(11)).replace("<head>", to_a, 1))
        result = run_crawl(web, ["http://self.test/", "http://pair.test/", "http://news.test/",
                                 "http://meta.test/"], tmp_path,
                           {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log
    assert result.stat("wacky/drop/redirect_loop") == 2
    assert ("Dropped: redirect_loop: http://pair.test/ (302 from http://pair.test/b to "
            "http://pair.test/, back into its own chain http://pair.test/ -> http://pair.test/b)"
            in result.log)
    docs = {doc.url for f in sorted(result.outdir.glob("*.trec.gz")) for _, doc in iter_docs(str(f))}
    assert docs == {"http://news.test/", "http://meta.test/b"}
    assert result.stat("wacky/redirect/refresh_loop") == 2


def test_a_redirect_that_only_adds_a_session_id_or_tracking_parameter_keeps_the_document(
        tmp_path):
    """With cookies off a site puts the session in the URL: /article -> /article?PHPSESSID=<id>,
    /news -> /news;jsessionid=..., /feed-item -> ?utm_source=rss. Source and target have one
    canonical URL, so each was a redirect_loop drop (and the dupefilter would have refused the
    target): the document was lost. A session URL that redirects back is still a loop."""
    sid = "0123456789abcdef0123456789abcdef"
    h = "http://shop.test"
    with LocalWeb() as web:
        web.add(f"{h}/article", status=302, headers={"Location": f"/article?PHPSESSID={sid}"},
                content_type=None)
        web.add(f"{h}/article?PHPSESSID={sid}", page("Article", prose(702), nav_links=0))
        web.add(f"{h}/news", status=301, headers={"Location": "/news;jsessionid=ABCDEF0123456789"},
                content_type=None)
        web.add(f"{h}/news;jsessionid=ABCDEF0123456789", page("News", prose(704), nav_links=0))
        web.add(f"{h}/feed-item", status=301, headers={"Location": "/feed-item?utm_source=rss"},
                content_type=None)
        web.add(f"{h}/feed-item?utm_source=rss", page("Feed", prose(703), nav_links=0))
        web.add(f"{h}/cookie", status=302, headers={"Location": f"/cookie?sid={sid}"},
                content_type=None)
        web.add(f"{h}/cookie?sid={sid}", status=302, headers={"Location": "/cookie"},
                content_type=None)
        result = run_crawl(web, [f"{h}/article", f"{h}/news", f"{h}/feed-item", f"{h}/cookie"],
                           tmp_path, {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False",
                                      "COOKIES_ENABLED": "False"})
        paths = [hit.path for hit in web.hits_for("shop.test")]
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log
    docs = {doc.url for f in sorted(result.outdir.glob("*.trec.gz")) for _, doc in iter_docs(str(f))}
    assert docs == {f"{h}/article?PHPSESSID={sid}", f"{h}/news;jsessionid=ABCDEF0123456789",
                    f"{h}/feed-item?utm_source=rss"}
    assert result.stat("wacky/redirect/same_canonical") == 4
    assert result.stat("wacky/drop/redirect_loop") == 1
    assert (f"Dropped: redirect_loop: {h}/cookie (302 from {h}/cookie?sid={sid} to {h}/cookie, "
            "back into its own chain") in result.log
    assert f"302 from {h}/article to {h}/article?PHPSESSID={sid}" in result.log
    assert sorted(paths).count("/cookie") == 1 and paths.count(f"/cookie?sid={sid}") == 1


def test_a_bad_base_href_or_refresh_target_leaves_the_page_judged_as_it_is(tmp_path):
    """A ``<base href>`` or meta-refresh URL that is no usable URL (an IPv6 literal left open,
    a bad port, ``javascript:``) lost the whole page as download_error or a spider error."""
    heads = {"base": '<head><base href="http://[bad">',
             "port": '<head><base href="http://port.test:99999/">',
             "refresh": '<head><meta http-equiv=refresh content="0;url=http://[::1">',
             "js": '<head><meta http-equiv=refresh content="0;url=javascript:alert(1)">'}
    with LocalWeb() as web:
        for n, (name, head) in enumerate(heads.items()):
            body = page(name, prose(30 + n), links=[f"/{name}/next.html"])
            web.add(f"http://{name}.test/", body.replace("<head>", head, 1))
            web.add(f"http://{name}.test/{name}/next.html", page("Next", prose(40 + n)))
        result = run_crawl(web, [f"http://{name}.test/" for name in heads], tmp_path,
                           {"WACKY_LANGUAGES": "en", "DEPTH_LIMIT": "1",
                            "WACKY_SCOPE_FROM_SEEDS": "domain"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and "download_error" not in result.log
    docs = {doc.url for f in sorted(result.outdir.glob("*.trec.gz")) for _, doc in iter_docs(str(f))}
    assert {f"http://{name}.test/" for name in heads} <= docs
    assert {"http://base.test/base/next.html", "http://port.test/port/next.html"} <= docs
    assert result.stat("wacky/spider/bad_base") == 2
    assert result.stat("wacky/redirect/bad_refresh") == 4  # the bad bases' pages too


def test_compressed_robots_txt_bomb_behind_a_redirect_is_too_large_decoded(tmp_path):
    """robots.txt -> 301 -> a gzip bomb: the Content-Encoding was noted on the redirect target's
    copy of the request meta, not on the request the fetch awaited, so the bomb was counted as
    a network failure (``unreachable_network``)."""
    import gzip

    with LocalWeb() as web:
        web.add("http://moved.test/robots.txt", status=301,
                headers={"Location": "http://moved.test/other/robots.txt"})
        bomb = gzip.compress(b"User-agent: *\nDisallow: /\n" + b"#" * (32 << 20))
        web.add("http://moved.test/other/robots.txt", bomb, content_type="text/plain",
                headers={"Content-Encoding": "gzip"})
        web.add("http://moved.test/", page("Moved", prose(6)))
        result = run_crawl(web, ["http://moved.test/"], tmp_path, {
            "WACKY_LANGUAGES": "en", "WACKY_ROBOTS_RETRY_SECONDS": "1",
            "WACKY_ROBOTS_MAX_DEFERRALS": "1"})
        moved_paths = [h.path for h in web.hits_for("moved.test")]
    assert_robots_bomb_stopped(result, "http://moved.test/robots.txt (redirected to "
                                       "http://moved.test/other/robots.txt)")
    assert result.stat("wacky/robots/unreachable_network") == 0
    assert set(moved_paths) == {"/robots.txt", "/other/robots.txt"}  # "/" disallowed


def test_stacked_codings_past_the_limit_are_bad_encoding_and_an_unknown_one_one_drop(tmp_path):
    import gzip

    body = page("Layers", prose(50)).encode()
    for _ in range(1200):
        body = gzip.compress(body, 1)
    with LocalWeb() as web:
        web.add("http://layers.test/", body, headers={"Content-Encoding": ", ".join(["gzip"] * 1200)})
        web.add("http://two.test/", gzip.compress(gzip.compress(page("Two", prose(51)).encode())),
                headers={"Content-Encoding": "gzip, gzip"})
        web.add("http://compress.test/", gzip.compress(page("C", prose(52)).encode()),
                headers={"Content-Encoding": "compress"})  # a coding nobody decodes here
        result = run_crawl(web, ["http://layers.test/", "http://two.test/",
                                 "http://compress.test/"], tmp_path,
                           {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and "RecursionError" not in result.log
    assert "Dropped: bad_encoding: http://layers.test/ (1200 stacked content codings" in result.log
    assert result.stat("wacky/drop/bad_encoding") == 1
    dropped = [line for line in result.log.splitlines() if "Dropped: " in line]
    assert len([line for line in dropped if "http://compress.test/" in line]) == 1, dropped
    docs = {doc.url for f in sorted(result.outdir.glob("*.trec.gz")) for _, doc in iter_docs(str(f))}
    assert docs == {"http://two.test/"}


def test_a_body_cut_inside_its_compressed_stream_is_truncated_not_a_shorter_page(tmp_path):
    import gzip

    import brotli

    from wackycrawl.crawl.sizewindow import zstd

    full = page("Cut", prose(70, min_chars=40000)).encode()
    coded = {"gzip": gzip.compress(full), "deflate": zlib.compress(full),
             "br": brotli.compress(full), "zstd": zstd.compress(full)}
    with LocalWeb() as web:
        for coding, data in coded.items():
            web.add(f"http://half-{coding}.test/", data[: len(data) // 2],
                    headers={"Content-Encoding": coding})
        web.add("http://whole.test/", coded["br"], headers={"Content-Encoding": "br"})
        result = run_crawl(web, [f"http://half-{c}.test/" for c in coded] + ["http://whole.test/"],
                           tmp_path, {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False"})
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("wacky/drop/truncated") == 4
    for coding in coded:
        assert f"Dropped: truncated: http://half-{coding}.test/ (the {coding} stream ends early" \
            in result.log
    docs = {doc.url for f in sorted(result.outdir.glob("*.trec.gz")) for _, doc in iter_docs(str(f))}
    assert docs == {"http://whole.test/"}


def test_a_redirect_to_another_scheme_is_bad_redirect_for_pages_and_unavailable_for_robots(
        tmp_path):
    """A 3xx to ``file:``, ``data:`` or ``ftp:`` was handed on by Scrapy as the 3xx itself:
    the page dropped as ``http_302`` ("HTTP 302"), the robots.txt counted as a 4xx; a meta
    refresh there was ignored without a word."""
    targets = {"file": "file:///etc/passwd", "data": "data:text/html,<p>x</p>",
               "ftp": "ftp://ftp.elsewhere.test/pub/"}
    with LocalWeb() as web:
        for n, (name, location) in enumerate(targets.items()):
            web.add(f"http://{name}.test/", status=302, headers={"Location": location})
            web.add(f"http://robots{name}.test/robots.txt", status=301,
                    headers={"Location": location})
            web.add(f"http://robots{name}.test/", page(name, prose(50 + n)))
        refresh = '<head><meta http-equiv=refresh content="0;url=file:///etc/passwd">'
        web.add("http://refresh.test/", page("Refresh", prose(60)).replace("<head>", refresh, 1))
        seeds = [f"http://{p}{name}.test/" for name in targets for p in ("", "robots")]
        result = run_crawl(web, [*seeds, "http://refresh.test/"], tmp_path,
                           {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log
    assert result.stat("wacky/drop/bad_redirect") == 3
    assert result.stat("wacky/redirect/bad_location") == 3
    assert result.stat("wacky/drop/http_302") == 0 and result.stat("wacky/drop/http_301") == 0
    assert result.stat("wacky/robots/unavailable_redirects") == 3
    assert result.stat("wacky/robots/unavailable_4xx") == 4  # the hosts without a robots.txt
    assert result.stat("wacky/redirect/bad_refresh") == 1
    assert "302 to an unusable Location 'file:///etc/passwd': not an http(s) URL" in result.log
    files = sorted(result.outdir.glob("*.trec.gz"))
    assert all(check(str(f)).ok for f in files)
    docs = {doc.url for f in files for _, doc in iter_docs(str(f))}
    assert docs == {*(f"http://robots{name}.test/" for name in targets), "http://refresh.test/"}
