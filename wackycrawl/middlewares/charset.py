"""Downloader middleware: a response whose declared charset names no encoding of the WHATWG
Encoding Standard is read as browsers read it, with the label ignored.

w3lib, and so Scrapy's ``TextResponse``, looks a label up in Python's codec registry when
the WHATWG table does not have it: ``charset=undefined``, ``idna`` or ``punycode`` then raise
in ``response.text`` (MetaRefreshMiddleware, the link extractor, ``response.follow``), and
``unicode_escape`` or ``palmos`` garble the text. Such a response is replaced by one with the
codec :func:`wackycrawl.text.encoding.unknown_declared` gives (the one the text stage will
use). Sits at 583: after HttpCompressionMiddleware (590) and the size window (585) in
``process_response``, before MetaRefreshMiddleware (580). Stat
``wacky/charset/unknown_label`` (responses), logged at DEBUG.
"""

import logging

from scrapy.http import TextResponse

from wackycrawl.text.encoding import unknown_declared

logger = logging.getLogger(__name__)


class CharsetMiddleware:
    def __init__(self, stats):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats)

    def process_response(self, request, response, spider=None):
        if not isinstance(response, TextResponse) or not response.body:
            return response
        content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1")
        codec = unknown_declared(response.body, content_type)
        if codec is None:
            return response
        logger.debug("charset label unknown to the WHATWG Encoding Standard ignored, read as "
                     "%s: %s", codec, response.url)
        self.stats.inc_value("wacky/charset/unknown_label")
        return response.replace(encoding=codec)
