"""Dupefilter of the frontier: one fingerprint (C18) over a seen store (Redis SET, Bloom
filter on Redis, or the SQLite seen table of the local frontier).

Unlike scrapy-redis's RFPDupeFilter it uses :func:`wackycrawl.distributed.fingerprint.
fingerprint` (the project's URL canonicalisation) and the scheduler uses the same value as
the request's lease id. Stats: ``wacky/frontier/filtered``.
"""

from __future__ import annotations

import logging

from scrapy.dupefilters import BaseDupeFilter

from wackycrawl.distributed.fingerprint import fingerprint

logger = logging.getLogger(__name__)


class FrontierDupeFilter(BaseDupeFilter):
    """``store`` has ``add(fp: bytes) -> bool`` (True if new) and ``__len__``."""

    def __init__(self, store, stats=None, debug: bool = False):
        self.store, self.stats, self.debug = store, stats, debug

    @staticmethod
    def fingerprint(request) -> bytes:
        """20 bytes; see :mod:`wackycrawl.distributed.fingerprint`."""
        return fingerprint(request.method, request.url, request.body)

    def request_seen(self, request) -> bool:
        return not self.store.add(self.fingerprint(request))

    def log(self, request, spider=None) -> None:
        if self.stats is not None:
            self.stats.inc_value("wacky/frontier/filtered")
        if self.debug:
            logger.debug("Filtered duplicate request: %s", request)
