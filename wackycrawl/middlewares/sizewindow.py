"""Downloader middleware: the WaCky 5-200 KB size window on decoded bodies, HTML only.

Thin adapter over :mod:`wackycrawl.crawl.sizewindow`. It must sit below
HttpCompressionMiddleware (590) so that ``process_response`` sees the decoded body; the
project uses 585 (MetaRefreshMiddleware holds 580). Per 2xx response of a page request:

* Content-Type not HTML → the download is stopped at the headers (``not_html``); no type →
  the first body bytes are sniffed, text is taken for HTML;
* Content-Length above WACKY_MAX_DOC_BYTES → stopped at the headers (``too_large_wire``);
  no Content-Length → stopped once more bytes arrived (``too_large_wire``); any
  Content-Encoding Scrapy decodes (gzip, x-gzip, deflate, br, zstd, stacked as
  ``gzip, gzip``) → the decoded size is metered while streaming and the download stopped
  once it passes the bound (``too_large_decoded``), so a decompression bomb is never
  expanded and Scrapy's own DOWNLOAD_MAXSIZE backstop never fires first; a body that is
  not what its Content-Encoding says is stopped (``bad_encoding``) instead of failing in
  HttpCompressionMiddleware with a traceback;
* no type and a UTF-16/32 byte order mark → the decoded start is sniffed as Scrapy sniffs
  an untyped body (``<html>``...): HTML is passed on as an HtmlResponse (Scrapy took its NULs
  for binary and the spider dropped it as ``not_html``);
* 206 Partial Content to a request that sent no ``Range`` → ``partial_content`` (part of a
  page, never a document);
* body shorter than Content-Length (data loss) → ``truncated``;
* decoded body below WACKY_MIN_DOC_BYTES → ``too_small``: the response still reaches the
  spider (links are followed) with ``response.meta["wacky_store"] = False``.

Rejected responses never reach the spider (IgnoreRequest, which Scrapy does not log as an
error); each, and each too-small page, is a drop (``wackycrawl.crawl.drops``: one
``Dropped: <reason>: <url> (<detail>)`` line, ``wacky/drop/<reason>``, a drops-file row) and
a ``wacky/size/<reason>`` count; kept ones count ``wacky/size/in_window``. Non-2xx responses pass untouched (a stopped body is emptied) so
redirects and retries still work. ``robots.txt`` (RobotsMiddleware's fetches, the targets of
their redirects too), HEAD requests and requests with ``meta["wacky_size_window"] = False``
are exempt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured, ResponseDataLossError, StopDownload
from scrapy.http import HtmlResponse
from scrapy.responsetypes import responsetypes
from scrapy.utils.httpobj import urlparse_cached

from wackycrawl.crawl import drops
from wackycrawl.crawl import sizewindow as sw
from wackycrawl.middlewares.robots import is_robots_fetch

logger = logging.getLogger(__name__)

# Scrapy's own limits (download_maxsize meta: HTTP handler on the wire, HttpCompression on
# the decoded body) are set this far above ours, as a backstop that never fires first: one
# network read is at most 64 KiB, so our per-read check always comes before Scrapy's.
BACKSTOP_SLACK = 128 * 1024
#: meta key of a response's "not stored" verdict (too small); it describes that response only
STORE_META = "wacky_store"


def _wide_html(response):
    """An untyped body in UTF-16/32 with its BOM that Scrapy's sniffing (``<html>`` in the
    bytes, NULs = binary) did not read as HTML, as an HtmlResponse when its decoded start is
    what the same sniffing reads as HTML (its BOM then gives the encoding); else as it is."""
    head = sw.wide_bom_head(response.body)
    if head is None or responsetypes.from_body(head.encode("utf-8")) is not HtmlResponse:
        return response
    return response.replace(cls=HtmlResponse)


@dataclass
class _Transfer:
    """What is known about one download in flight."""

    encoded: bool = False
    meter: sw.DecodedMeter | None = None
    sniff: bool = False  # no Content-Type: sniff the first bytes
    wire: int = 0
    reason: str | None = None
    detail: str = ""


class SizeWindowMiddleware:
    """Downloader middleware enforcing the size window and the HTML-only rule (see module)."""

    def __init__(self, crawler, min_bytes: int, max_bytes: int, html_types: tuple[str, ...]):
        self.crawler, self.stats = crawler, crawler.stats
        self.min_bytes, self.max_bytes, self.html_types = min_bytes, max_bytes, html_types
        self._transfers: WeakKeyDictionary = WeakKeyDictionary()
        crawler.signals.connect(self.headers_received, signals.headers_received)
        crawler.signals.connect(self.bytes_received, signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        min_bytes = s.getint("WACKY_MIN_DOC_BYTES", sw.MIN_DOC_BYTES)
        max_bytes = s.getint("WACKY_MAX_DOC_BYTES", sw.MAX_DOC_BYTES)
        types = tuple(t.strip().lower() for t in s.getlist("WACKY_HTML_TYPES", sw.HTML_TYPES)
                      if t.strip())
        if not (min_bytes or max_bytes or types):
            raise NotConfigured()
        return cls(crawler, min_bytes, max_bytes, types)

    @staticmethod
    def applies(request) -> bool:
        """Whether ``request`` fetches a page (not robots.txt, not HEAD, not opted out)."""
        return (request.method != "HEAD" and request.meta.get("wacky_size_window", True)
                and urlparse_cached(request).path != "/robots.txt"
                and not is_robots_fetch(request))

    # -- before the download ---------------------------------------------------------------
    def process_request(self, request):
        if self.applies(request):
            if self.max_bytes:
                request.meta.setdefault("download_maxsize", self.max_bytes + BACKSTOP_SLACK)
            request.meta.setdefault("download_fail_on_dataloss", False)  # flag, don't raise
            request.headers.setdefault("Accept-Encoding", sw.ACCEPT_ENCODING)

    # -- while downloading (signals) ---------------------------------------------------------
    def headers_received(self, headers, body_length, request, spider=None):
        if not self.applies(request):
            return
        t = self._transfers[request] = _Transfer()
        codings = sw.content_codings(headers.getlist(b"Content-Encoding"))
        t.encoded = bool(codings) and codings != ["identity"]
        if len(codings) > sw.MAX_CODINGS:
            self._stop(t, "bad_encoding", f"{len(codings)} stacked content codings (at most "
                       f"{sw.MAX_CODINGS}), cut off at the headers")
        elif self.max_bytes and sw.decoded_codings(codings):
            t.meter = sw.DecodedMeter(codings, self.max_bytes)
        html = sw.is_html(headers.get(b"Content-Type"), self.html_types) if self.html_types \
            else True
        t.sniff = html is None
        if html is False:
            self._stop(t, "not_html", f"Content-Type {sw.media_type(headers.get(b'Content-Type'))}"
                       ", cut off at the headers")
        if self.max_bytes and isinstance(body_length, int) and body_length > self.max_bytes:
            self._stop(t, "too_large_wire", f"Content-Length {body_length} B > "
                       f"{self.max_bytes} B, body not downloaded")

    def bytes_received(self, data, request, spider=None):
        t = self._transfers.get(request)
        if t is None:
            return
        first, t.wire = t.wire == 0, t.wire + len(data)
        if first and t.sniff and not t.encoded and (kind := sw.sniff_binary(data)):
            self._stop(t, "not_html", f"no Content-Type, body starts as {kind}")
        if t.meter is not None and t.meter.feed(data) > self.max_bytes:
            self._stop(t, "too_large_decoded", f"{t.meter.size} B > {self.max_bytes} B decoded "
                       f"from the first {t.wire} B, download cancelled")
        if t.meter is not None and t.meter.broken:
            self._stop(t, "bad_encoding", f"body is not {t.meter.encoding} data (Content-"
                       f"Encoding lies), cut off after {t.wire} B")
        if self.max_bytes and t.wire > self.max_bytes:
            self._stop(t, "too_large_wire", f"{t.wire} B received > {self.max_bytes} B, "
                       "download cancelled")

    @staticmethod
    def _stop(t: _Transfer, reason: str, detail: str) -> None:
        t.reason, t.detail = reason, detail
        raise StopDownload(fail=True)

    # -- after the download -------------------------------------------------------------------
    def process_exception(self, request, exception):
        t = self._transfers.pop(request, None)
        if isinstance(exception, StopDownload) and t is not None and t.reason:
            response = exception.response
            if not 200 <= response.status < 300:
                return response.replace(body=b"")  # redirects and retries still work
            self._reject(request, t.reason, t.detail)
        if isinstance(exception, ResponseDataLossError) and self.applies(request):
            self._reject(request, "truncated", "body shorter than its Content-Length")
        return None

    def process_response(self, request, response):
        t = self._transfers.pop(request, None)
        if not (200 <= response.status < 300 and self.applies(request)):
            return response
        t = t or _Transfer(sniff=not response.headers.get(b"Content-Type"))
        if sw.unasked_partial(response.status, request.headers.get(b"Range")):
            crange = response.headers.get(b"Content-Range", b"-").decode("latin-1")[:100]
            self._reject(request, "partial_content", f"206 Partial Content (Content-Range "
                         f"{crange}) to a request without Range: part of a page")
        if "dataloss" in response.flags:
            self._reject(request, "truncated", f"{t.wire or len(response.body)} B received, "
                         f"Content-Length {response.headers.get(b'Content-Length', b'?').decode()}")
        meter = t.meter
        if meter is not None and t.wire and not (meter.over or meter.broken or meter.complete):
            self._reject(request, "truncated", f"the {meter.encoding} stream ends early: "
                         f"{t.wire} B received, {meter.size} B decoded")
        if t.sniff and self.html_types and (kind := sw.sniff_binary(response.body)):
            self._reject(request, "not_html", f"no Content-Type, body is {kind}")
        if t.sniff and self.html_types and not isinstance(response, HtmlResponse):
            response = _wide_html(response)
        size = len(response.body)
        reason = sw.window_reason(size, self.min_bytes, self.max_bytes, encoded=t.encoded)
        if reason == "too_small":
            self._count(request, reason, f"{size} B < {self.min_bytes} B, links still followed")
            request.meta[STORE_META] = False
        elif reason:
            self._reject(request, reason, f"{size} B > {self.max_bytes} B")
        else:
            self.stats.inc_value("wacky/size/in_window")
        return response

    def _count(self, request, reason: str, detail: str) -> None:
        self.stats.inc_value(f"wacky/size/{reason}")
        drops.record(self.crawler, reason, request.url, detail)

    def _reject(self, request, reason: str, detail: str):
        self._count(request, reason, detail)
        raise IgnoreRequest(f"size window: {reason} {request.url}")
