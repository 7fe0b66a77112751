"""The one request fingerprint of the project (case C18): dupefilter, lease ids, written-URL set.

``SHA-1(JSON {"body": hex, "method": ..., "url": canonical(url)})``, 20 bytes:
``wackycrawl.crawl.urls.request_fingerprint`` (the project's canonicalisation: session ids,
tracking parameters and default ports removed, C22). Scrapy's own
fingerprint and scrapy-redis's ignore that canonicalisation (C18); since a change of this
function makes a persisted seen set useless, its values are pinned by a golden test.
"""

from __future__ import annotations

from wackycrawl.crawl.urls import canonical_url as canonical
from wackycrawl.crawl.urls import request_fingerprint as fingerprint

__all__ = ["canonical", "fingerprint", "url_fingerprint"]


def url_fingerprint(url: str) -> bytes:
    """Fingerprint of a GET of ``url``: the key of the written-URL set. Called with the
    arguments the scheduler's calls give a fetched request, so the cached value is found."""
    return fingerprint("GET", url, b"")
