"""Downloader middleware and signal handlers writing the crawl's raw archive (WARC/1.1).

Thin adapter over :mod:`wackycrawl.archive.writer`; on when ``WACKY_WARC_DIR`` is set. At order
945 (after politeness at 950, before back-off, redirects and HttpCompressionMiddleware at 590)
``process_response`` sees each response as the HTTP handler built it: headers as received,
body with chunked transfer coding removed but Content-Encoding still applied, i.e. the bytes
that came over the wire. Which responses are written:

* ``WACKY_WARC_ALL=False`` (default): the responses of the size window, i.e. the 2xx page
  responses that reach the spider to become items (kept on ``response_received``, after the
  size window let them through; pages under the lower bound, robots.txt and non-2xx are not
  written);
* ``WACKY_WARC_ALL=True``: every response as it arrives, redirects, errors, robots.txt and
  downloads the size window cut short (``WARC-Truncated: length``, body as far as received)
  and bodies shorter than their Content-Length (``WARC-Truncated: disconnect``), from which
  ``wackycrawl process`` gives the crawl's drop reasons
  (:func:`wackycrawl.crawl.sizewindow.archived_reason`).

The pipeline's decision goes into a ``metadata`` record referring to the response once the
item leaves the pipelines (``item_scraped``: ``Verdict: kept`` and ``DOCNO``) or is dropped
(``item_dropped``: ``Verdict: dropped``, ``Rejected`` reason and ``Rejected-Detail``), with
the item's ``X-Wacky-*`` fields (an item dropped in a stage worker carries the stages' fields
when its reason goes to the rejects stream, else the spider's fields and the drop's detail).

Settings: ``WACKY_WARC_DIR``, ``WACKY_WARC_ALL``, ``WACKY_WARC_ROTATE_BYTES``,
``WACKY_WARC_FSYNC``; file names use ``WACKY_DOCNO_PREFIX`` and the crawl's worker id. Stats:
``wacky/warc/{responses,metadata,files,bytes,recovered_files,recovered_records,write_errors}``.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import NotConfigured, StopDownload

from wackycrawl import __version__
from wackycrawl.archive import writer
from wackycrawl.middlewares.sizewindow import SizeWindowMiddleware
from wackycrawl.pipelines import close_on_write_error, crawl_worker_id, rejection
from wackycrawl.pipelines.offline import split_drop
from wackycrawl.pipelines.trec import status_line

logger = logging.getLogger(__name__)

WRITE_ERROR_REASON = "warc_write_error"  # the crawl's finish reason when the archive fails


def _pairs(headers) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, vs in headers.items() for v in vs]


def exchange(request, response, truncated: str = "") -> writer.Exchange:
    """The :class:`~wackycrawl.archive.writer.Exchange` of a Scrapy request and response.
    The request headers are those Scrapy set (``Host`` first, from the URL); the HTTP client
    adds only connection-level ones (``Connection``, ``Content-Length``)."""
    parts = urlsplit(request.url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return writer.Exchange(
        url=response.url, status_line=status_line(response.protocol or "HTTP/1.1",
                                                  response.status),
        response_headers=_pairs(response.headers), body=response.body,
        method=request.method, target=target,
        request_headers=[("Host", parts.netloc), *_pairs(request.headers)],
        ip=str(response.ip_address) if response.ip_address else "",
        date=datetime.now(UTC), truncated=truncated,
    )


def decision_fields(item: dict, exception: Exception | None = None) -> list[tuple[str, str]]:
    """The ``metadata`` record's fields: verdict, DOCNO or reason and detail, X-Wacky-*."""
    if exception is None:
        fields = [("Verdict", "kept"), ("DOCNO", str(item.get("docno", "-")))]
    else:
        reason, detail, state = rejection(exception) or (None, None, None)
        if reason is None:  # a DropItem not made by wackycrawl.pipelines.drop
            found = split_drop(str(exception), str(item.get("url", "?")))
            reason, detail = found.reason, found.detail
        item = state or item  # as dropped, with the stages' scores, when sent back
        fields = [("Verdict", "dropped"), ("Rejected", reason), ("Rejected-Detail", detail)]
    return fields + [(f"X-Wacky-{k}", str(v)) for k, v in item.get("meta", {}).items()]


class WarcMiddleware:
    """See the module docstring."""

    def __init__(self, crawler, all_responses: bool, options: dict):
        self.crawler, self.stats = crawler, crawler.stats
        self.all = all_responses
        self.options = options
        self.writer: writer.WarcWriter | None = None
        self.stopping = False
        self._waiting: WeakKeyDictionary = WeakKeyDictionary()  # request -> Exchange
        self._records: WeakKeyDictionary = WeakKeyDictionary()  # request -> response record id
        for handler, signal in ((self.opened, signals.spider_opened),
                                (self.closed, signals.spider_closed),
                                (self.response_received, signals.response_received),
                                (self.item_scraped, signals.item_scraped),
                                (self.item_dropped, signals.item_dropped)):
            crawler.signals.connect(handler, signal)

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        directory = s.get("WACKY_WARC_DIR", "")
        if not directory:
            raise NotConfigured()
        options = {
            "directory": directory, "prefix": s.get("WACKY_DOCNO_PREFIX", writer.PREFIX),
            "worker": crawl_worker_id(crawler),
            "rotate_bytes": s.getint("WACKY_WARC_ROTATE_BYTES", writer.ROTATE_BYTES),
            "fsync": s.getbool("WACKY_WARC_FSYNC", writer.FSYNC),
            "info": {"software": f"wackycrawl/{__version__} (Scrapy)",
                     "operator": s.get("WACKY_CONTACT", ""),
                     "http-header-user-agent": s.get("USER_AGENT", "")},
        }
        return cls(crawler, s.getbool("WACKY_WARC_ALL", False), options)

    def opened(self, spider=None) -> None:
        self.writer = writer.WarcWriter(**self.options)
        for rec in self.writer.recovered:
            self.stats.inc_value("wacky/warc/recovered_files")
            self.stats.inc_value("wacky/warc/recovered_records", rec.records)
        logger.info("writing WARC files %s*.warc.gz in %s (%s)", self.writer.stem,
                    self.writer.directory, "every response" if self.all else "size window")

    def closed(self, spider=None) -> None:
        if self.writer:
            self.writer.close()
            self.stats.set_value("wacky/warc/files", self.writer.files_opened)

    # -- downloader middleware -----------------------------------------------------------------
    def process_response(self, request, response):
        # a body shorter than its Content-Length (the size window drops it as truncated)
        ex = exchange(request, response, "disconnect" if "dataloss" in response.flags else "")
        if self.all:
            self._write(request, ex)
        else:
            self._waiting[request] = ex
        return response

    def process_exception(self, request, exception):
        if self.all and isinstance(exception, StopDownload) and exception.response is not None:
            self._write(request, exchange(request, exception.response, truncated="length"))

    # -- signals -----------------------------------------------------------------------------------
    def response_received(self, response, request, spider=None) -> None:
        ex = self._waiting.pop(request, None)
        if ex is not None and 200 <= response.status < 300 \
                and SizeWindowMiddleware.applies(request) \
                and request.meta.get("wacky_store", True):
            self._write(request, ex)

    def item_scraped(self, item, response, spider=None) -> None:
        self._decision(item, response, None)

    def item_dropped(self, item, response, exception, spider=None) -> None:
        self._decision(item, response, exception)

    # -- writing ----------------------------------------------------------------------------------
    def _write(self, request, ex: writer.Exchange) -> None:
        if self.writer is None:
            return
        before = self.writer.bytes_written
        try:
            self._records[request] = self.writer.write_exchange(ex)
        except OSError as exc:
            logger.error("cannot write %s to WARC %s: %s", ex.url, self.writer.path, exc)
            self.stats.inc_value("wacky/warc/write_errors")
            self._stop(request.url, exc)
            return
        self.stats.inc_value("wacky/warc/responses")
        self.stats.inc_value("wacky/warc/bytes", self.writer.bytes_written - before)

    def _stop(self, url: str, exc: OSError) -> None:
        """A response that cannot be archived (a full disk): the frontier keeps its page
        (:data:`~wackycrawl.pipelines.PAGE_NOT_WRITTEN`: fetched again on resume, then
        archived, its document dropped as ``already_written`` if it was written) and the
        crawl closes with reason ``warc_write_error``, as for the TREC writer, instead of
        going on with pages missing from the archive."""
        close_on_write_error(self, url, WRITE_ERROR_REASON, logger,
                             f"responses cannot be archived in {self.writer.directory} ({exc}); "
                             "fix that and resume the crawl (its JOBDIR or Redis frontier keeps "
                             "the pages not archived)")

    def _decision(self, item, response, exception) -> None:
        request = getattr(response, "request", None)
        record_id = self._records.pop(request, None) if request is not None else None
        if record_id is None or self.writer is None or not isinstance(item, dict):
            return
        try:
            self.writer.write_metadata(item.get("url", response.url), record_id,
                                       decision_fields(item, exception))
        except OSError as exc:
            logger.error("cannot write metadata of %s to WARC: %s", response.url, exc)
            self.stats.inc_value("wacky/warc/write_errors")
            return
        self.stats.inc_value("wacky/warc/metadata")
