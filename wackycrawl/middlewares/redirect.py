"""Scrapy's RedirectMiddleware, with a Location that is no usable URL logged and counted.

Scrapy builds the redirect target with w3lib's ``safe_url_string``, which raises ValueError
for a bad port or IPv6 literal (``Location: http://a.test:99999/``, ``http://[::1/``); the
response then ends as a download error with a traceback. Here such a redirect is refused with
one INFO line and the stat ``wacky/redirect/bad_location`` (IgnoreRequest: not an error).
Everything else is Scrapy's (REDIRECT_ENABLED, REDIRECT_MAX_TIMES, ``dont_redirect``).
"""

import logging

from scrapy.downloadermiddlewares.redirect import RedirectMiddleware as ScrapyRedirectMiddleware
from scrapy.exceptions import IgnoreRequest

logger = logging.getLogger(__name__)


class RedirectMiddleware(ScrapyRedirectMiddleware):
    def process_response(self, request, response, spider=None):
        try:
            return super().process_response(request, response)
        except ValueError as exc:
            location = response.headers.get(b"Location", b"").decode("latin-1")
            self.crawler.stats.inc_value("wacky/redirect/bad_location")
            logger.info("redirect %d of %s to an unusable Location %r refused: %s",
                        response.status, request.url, location[:200], exc)
            raise IgnoreRequest(f"bad redirect Location {location[:200]!r}") from None
