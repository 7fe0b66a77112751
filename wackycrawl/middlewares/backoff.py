"""Downloader middleware retrying 429 and 503 answers later instead of dropping them (C06).

Scrapy's RetryMiddleware sends a 429/503 request again at once (RETRY_HTTP_CODES); wackycrawl
takes both codes out of RETRY_HTTP_CODES and retries them here: the request goes back to the
scheduler (``dont_filter``, so the dupefilter lets it through; a JOBDIR queue keeps it over a
pause) and carries the wall-clock time before which it must not be sent
(``wacky_not_before``, set by ``wackycrawl.middlewares.politeness`` from Retry-After or the
host's back-off). The PolitenessMiddleware holds the whole host until then, so the wait
happens there and not in a sleep here. After WACKY_BACKOFF_MAX_RETRIES retries the request is
dropped with a warning and ``wacky/drop/overloaded``. Requests with ``dont_retry`` in their
meta (robots.txt) pass through.

Order 940: above HttpCompressionMiddleware (590) and SizeWindowMiddleware (585), so an error
page is never counted as a size-window reject, and below PolitenessMiddleware (950).
Stats: ``wacky/backoff/retried``, ``wacky/drop/overloaded``.
"""

from __future__ import annotations

import logging

from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response

from wackycrawl.crawl import drops
from wackycrawl.crawl.politeness import OVERLOAD_CODES

logger = logging.getLogger(__name__)

RETRIES_META = "wacky_backoff_retries"


class BackoffMiddleware:
    def __init__(self, crawler):
        s = crawler.settings
        self.max_retries = s.getint("WACKY_BACKOFF_MAX_RETRIES")
        if self.max_retries < 0:
            raise NotConfigured()
        self.crawler, self.stats = crawler, crawler.stats
        both = set(OVERLOAD_CODES) & {int(c) for c in s.getlist("RETRY_HTTP_CODES")}
        if both and s.getbool("RETRY_ENABLED"):
            logger.warning("RETRY_HTTP_CODES holds %s: RetryMiddleware would retry them at once "
                           "when BackoffMiddleware passes them on (dont_retry)", sorted(both))

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Request | Response:
        if response.status not in OVERLOAD_CODES or request.meta.get("dont_retry"):
            return response
        retries = request.meta.get(RETRIES_META, 0)
        if retries >= self.max_retries:
            drops.record(self.crawler, "overloaded", request.url,
                         f"{response.status} after {retries} retries, host still overloaded")
            raise IgnoreRequest(f"{response.status} after {retries} retries")
        self.stats.inc_value("wacky/backoff/retried")
        logger.debug("Retry %d of %s later (%d)", retries + 1, request.url, response.status)
        return request.replace(dont_filter=True,
                               meta={**request.meta, RETRIES_META: retries + 1})
