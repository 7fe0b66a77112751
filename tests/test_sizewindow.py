"""Size window and HTML-only rule: the pure decisions and the middleware on real Scrapy objects.

The real crawls over loopback (C08 rows, gzip bomb, streaming cancel) are in
test_sizewindow_crawl.py.
"""

from __future__ import annotations

import functools
import gzip
import zlib

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured, StopDownload
from scrapy.http import Headers, HtmlResponse, Response
from scrapy.settings import Settings
from scrapy.utils.conf import build_component_list
from scrapy.utils.test import get_crawler

from wackycrawl import settings as project_settings
from wackycrawl.crawl import sizewindow as sw
from wackycrawl.middlewares.sizewindow import SizeWindowMiddleware

MAX = 204800


# -- pure module ------------------------------------------------------------------------------
@pytest.mark.parametrize("ctype, expected", [
    ("text/html; charset=utf-8", True), (b"TEXT/HTML", True), ("application/xhtml+xml", True),
    ("application/pdf", False), ("text/plain", False), ("", None), (None, None),
])
def test_is_html(ctype, expected):
    assert sw.is_html(ctype) is expected


@pytest.mark.parametrize("size, encoded, reason", [
    (5119, False, "too_small"), (5120, False, None), (MAX, True, None),
    (MAX + 1, True, "too_large_decoded"), (MAX + 1, False, "too_large_wire"),
])
def test_window_bounds_are_inclusive(size, encoded, reason):
    assert sw.window_reason(size, 5120, MAX, encoded=encoded) == reason


def test_window_bound_zero_is_off():
    assert sw.window_reason(10, 0, 0) is None


@pytest.mark.parametrize("body, kind", [
    (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF document"),
    (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "PNG image"),
    (b"<html><body>hello</body></html>", None),
    (b"just text without tags", None),  # lenient: text is taken for HTML
    ("\ufeff<html>x</html>".encode("utf-16-le"), None),  # NULs of UTF-16 with a BOM
    (b"", None),
])
def test_sniff_binary(body, kind):
    assert sw.sniff_binary(body) == kind


def test_meter_measures_gzip_fed_in_pieces():
    body = b"<p>some words of a page</p>" * 800
    gz = gzip.compress(body)
    meter = sw.DecodedMeter("gzip", MAX)
    for i in range(0, len(gz), 97):
        meter.feed(gz[i:i + 97])
    assert meter.size == len(body) and not meter.over and not meter.broken


@pytest.mark.parametrize("wbits", [15, -15])  # zlib-wrapped (RFC 9110) and raw deflate
def test_meter_measures_deflate(wbits):
    body = b"deflated text " * 1000
    z = zlib.compressobj(wbits=wbits)
    data = z.compress(body) + z.flush()
    meter = sw.DecodedMeter("deflate", MAX)
    assert meter.feed(data[:5]) + meter.feed(data[5:]) >= 0
    assert meter.size == len(body)


def test_meter_stops_a_bomb_at_the_limit_plus_one():
    bomb = gzip.compress(b"\0" * 10_000_000)  # ~10 KB on the wire
    assert len(bomb) < 20_000
    meter = sw.DecodedMeter("gzip", MAX)
    assert meter.feed(bomb) == MAX + 1 and meter.over
    assert meter.feed(bomb) == MAX + 1  # no further decoding once over


ZEROS = b"<html><body>" + b"\0" * 10_000_000


@functools.cache
def _bombs() -> dict[str, bytes]:
    import brotli
    from backports import zstd

    return {"br": brotli.compress(ZEROS), "zstd": zstd.compress(ZEROS),
            "gzip, gzip": gzip.compress(gzip.compress(ZEROS)),
            "x-gzip": gzip.compress(ZEROS), "deflate": zlib.compress(ZEROS),
            "br, gzip": gzip.compress(brotli.compress(ZEROS)),
            # a harmless first gzip member, then the bomb as the second (RFC 1952 2.2)
            "gzip": gzip.compress(b"<p>hi</p>") + gzip.compress(ZEROS)}


@pytest.mark.parametrize("coding", list(_bombs()))
def test_meter_stops_a_bomb_in_every_coding_scrapy_decodes(coding):
    data = _bombs()[coding]
    assert len(data) < 50_000
    meter = sw.DecodedMeter(coding, MAX)
    for i in range(0, len(data), 4096):
        meter.feed(data[i:i + 4096])
    assert meter.over and not meter.broken and meter.size <= MAX + 64 * 1024


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip, gzip", "gzip, br", "zstd, deflate"])
def test_meter_measures_stacked_and_new_codings_exactly(coding):
    import brotli
    from backports import zstd

    body = b"<p>some words of a page</p>" * 2000
    enc = {"gzip": gzip.compress, "br": brotli.compress, "zstd": zstd.compress,
           "deflate": zlib.compress}
    data = body
    for c in sw.content_codings([coding]):
        data = enc[c](data)
    meter = sw.DecodedMeter(coding, MAX)
    for i in range(0, len(data), 50):
        meter.feed(data[i:i + 50])
    assert meter.size == len(body) and not meter.over and not meter.broken


def test_meter_follows_only_what_scrapy_decodes():
    assert sw.decoded_codings(["compress", "gzip"]) == ["gzip"]
    assert sw.decoded_codings(["gzip", "identity"]) == []
    with pytest.raises(ValueError):
        sw.DecodedMeter("gzip, identity", MAX)


@pytest.mark.parametrize("coding", ["br", "zstd"])
def test_meter_calls_garbage_in_br_and_zstd_broken(coding):
    meter = sw.DecodedMeter(coding, MAX)
    meter.feed(b"\xff" * 100)
    assert meter.broken


def test_meter_on_a_broken_stream_gives_up():
    meter = sw.DecodedMeter("gzip", MAX)
    meter.feed(b"\x1f\x8b\x08\0\0\0\0\0\0\x03" + b"\xff" * 50)
    assert meter.broken


def test_meter_refuses_an_unknown_encoding():
    with pytest.raises(ValueError, match="compress"):
        sw.DecodedMeter("compress", MAX)


# -- settings ---------------------------------------------------------------------------------
def test_runs_after_http_compression_in_process_response():
    """C08 rule 4: process_response runs from high to low numbers, so ours must be < 590."""
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    order = build_component_list(
        settings.get_component_priority_dict_with_base("DOWNLOADER_MIDDLEWARES"))
    names = [str(c).rsplit(".", 1)[-1] for c in order]
    ours = names.index(SizeWindowMiddleware.__name__)
    assert ours < names.index("HttpCompressionMiddleware")
    assert ours > names.index("RetryMiddleware")  # truncated is rejected, not retried


def test_not_configured_when_everything_is_off():
    crawler = get_crawler(settings_dict={"WACKY_MIN_DOC_BYTES": 0, "WACKY_MAX_DOC_BYTES": 0,
                                         "WACKY_HTML_TYPES": []})
    with pytest.raises(NotConfigured):
        SizeWindowMiddleware.from_crawler(crawler)


# -- middleware on real Request/Response objects ----------------------------------------------
@pytest.fixture
def mw():
    crawler = get_crawler(settings_dict={"WACKY_MIN_DOC_BYTES": 5120, "WACKY_MAX_DOC_BYTES": MAX})
    crawler.stats.open_spider()
    return SizeWindowMiddleware.from_crawler(crawler)


def html(url, size, status=200, **kw):
    return HtmlResponse(url, status=status, body=b"<p>" + b"w" * (size - 3), **kw)


def stats(mw):
    return {k: v for k, v in mw.stats.get_stats().items() if k.startswith("wacky/size/")}


def test_process_request_sets_the_backstop_and_asks_for_metered_encodings(mw):
    req = Request("http://a.test/")
    mw.process_request(req)
    assert req.meta["download_maxsize"] > MAX
    assert req.meta["download_fail_on_dataloss"] is False
    assert req.headers[b"Accept-Encoding"] == b"gzip, deflate, br, zstd"


def test_undersize_page_goes_on_but_is_not_stored(mw):
    req = Request("http://a.test/")
    resp = mw.process_response(req, html(req.url, 3929, request=req))
    assert resp.meta["wacky_store"] is False
    assert stats(mw) == {"wacky/size/too_small": 1}


def test_page_in_window_is_counted(mw):
    req = Request("http://a.test/")
    mw.process_response(req, html(req.url, 20820, request=req))
    assert "wacky_store" not in req.meta and stats(mw) == {"wacky/size/in_window": 1}


def test_data_loss_is_truncated_not_too_small(mw, caplog):
    req = Request("http://a.test/")
    resp = html(req.url, 3929, flags=["dataloss"], headers={"Content-Length": "100000"})
    with caplog.at_level("INFO"), pytest.raises(IgnoreRequest):
        mw.process_response(req, resp)
    assert stats(mw) == {"wacky/size/truncated": 1}
    assert [r.getMessage() for r in caplog.records] == [
        "Dropped: truncated: http://a.test/ (3929 B received, Content-Length 100000)"]


def test_non_2xx_and_robots_txt_pass_untouched(mw):
    req = Request("http://a.test/gone")
    assert mw.process_response(req, html(req.url, 10, status=404)).status == 404
    robots = Request("http://a.test/robots.txt")
    mw.headers_received(Headers({"Content-Type": "text/plain"}), 30, robots)  # no StopDownload
    body = Response(robots.url, body=b"User-agent: *\n", headers={"Content-Type": "text/plain"})
    assert mw.process_response(robots, body) is body
    assert stats(mw) == {}


def test_non_html_type_is_cut_off_at_the_headers(mw):
    req = Request("http://a.test/doc")
    with pytest.raises(StopDownload) as exc:
        mw.headers_received(Headers({"Content-Type": "application/pdf"}), 300_000, req)
    assert exc.value.fail
    stopped = StopDownload(fail=True)
    stopped.response = Response(req.url, headers={"Content-Type": "application/pdf"})
    with pytest.raises(IgnoreRequest):
        mw.process_exception(req, stopped)
    assert stats(mw) == {"wacky/size/not_html": 1}


def test_stopped_redirect_is_handed_on_with_an_empty_body(mw):
    req = Request("http://a.test/old")
    with pytest.raises(StopDownload):
        mw.headers_received(Headers({"Content-Type": "text/plain"}), 20, req)
    stopped = StopDownload(fail=True)
    stopped.response = Response(req.url, status=301, body=b"moved",
                                headers={"Location": "http://a.test/new"})
    resp = mw.process_exception(req, stopped)
    assert resp.status == 301 and resp.body == b"" and stats(mw) == {}


def test_content_length_over_the_limit_is_refused_before_the_body(mw):
    with pytest.raises(StopDownload):
        mw.headers_received(Headers({"Content-Type": "text/html"}), MAX + 1, Request("http://a/"))


def test_stream_without_length_is_cut_once_past_the_limit(mw):
    req = Request("http://a.test/")
    mw.headers_received(Headers({"Content-Type": "text/html"}), None, req)
    for _ in range(MAX // 4096):
        mw.bytes_received(b"x" * 4096, req)
    with pytest.raises(StopDownload):
        mw.bytes_received(b"x" * 4096, req)


def test_gzip_bomb_is_cut_while_streaming(mw):
    req = Request("http://a.test/")
    mw.headers_received(Headers({"Content-Type": "text/html", "Content-Encoding": "gzip"}),
                        None, req)
    with pytest.raises(StopDownload):
        mw.bytes_received(gzip.compress(b"\0" * 10_000_000), req)


def test_untyped_binary_is_sniffed_on_the_first_bytes(mw):
    req = Request("http://a.test/file")
    mw.headers_received(Headers({}), None, req)
    with pytest.raises(StopDownload):
        mw.bytes_received(b"PK\x03\x04\x14\0\0\0", req)


@pytest.mark.parametrize(("size", "over", "encoded", "length", "truncated", "reason"), [
    (0, False, False, 569967, "length", "too_large_wire"),  # stopped at the headers
    (MAX + 1, True, False, None, "length", "too_large_wire"),  # stopped while streaming
    (MAX + 1, True, True, None, "length", "too_large_decoded"),  # a decompression bomb
    (4000, False, False, 90000, "disconnect", "truncated"),  # shorter than Content-Length
    (4000, False, False, None, "", "too_small"),  # complete: the window as usual
    (9000, False, True, 3000, "", None),
])
def test_archived_reason_gives_a_cut_download_the_crawls_reason(size, over, encoded, length,
                                                                 truncated, reason):
    found = sw.archived_reason(size, over, encoded=encoded, content_length=length,
                               truncated=truncated, min_bytes=5120, max_bytes=MAX)
    assert (found[0] if found else None) == reason


def test_wide_bom_head():
    body = "\ufeff<!DOCTYPE html><html><p>x</p>".encode("utf-16-le")
    assert sw.wide_bom_head(body).startswith("<!DOCTYPE html><html>")
    assert sw.wide_bom_head("\ufeff<html>".encode("utf-32-be")) == "<html>"
    assert sw.wide_bom_head(b"\xef\xbb\xbf<html>") is None  # UTF-8: Scrapy reads its bytes
    assert sw.wide_bom_head(b"<html>") is None


def test_an_untyped_utf16_html_body_with_its_bom_is_passed_on_as_html(mw):
    """Scrapy takes the NULs of UTF-16 for binary (a plain Response): the spider dropped the
    page as not_html after the size window had counted it in_window."""
    req = Request("http://a.test/")
    text = "<!DOCTYPE html><html><body><p>" + "Words of a page. " * 400 + "</p></body></html>"
    resp = mw.process_response(req, Response(req.url, body=b"\xff\xfe" + text.encode("utf-16-le"),
                                             request=req))
    assert isinstance(resp, HtmlResponse) and resp.encoding == "utf-16-le"
    assert "Words of a page." in resp.text
    assert stats(mw) == {"wacky/size/in_window": 1}
    # a UTF-16 body that is no HTML stays what Scrapy made of it
    other = Response(req.url, body=b"\xff\xfe" + ("plain text " * 600).encode("utf-16-le"),
                     request=req)
    assert type(mw.process_response(req, other)) is Response


def test_an_unasked_206_is_partial_content(mw):
    req = Request("http://a.test/")
    with pytest.raises(IgnoreRequest):
        mw.process_response(req, html(req.url, 6000, status=206, request=req,
                                       headers={"Content-Range": "bytes 0-5999/20000"}))
    assert stats(mw) == {"wacky/size/partial_content": 1}
    assert mw.stats.get_value("wacky/drop/partial_content") == 1
    asked = Request("http://a.test/", headers={"Range": "bytes=0-5999"})
    assert mw.process_response(asked, html(asked.url, 6000, status=206, request=asked))
