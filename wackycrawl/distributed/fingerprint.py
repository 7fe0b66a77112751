"""The one request fingerprint of the project (case C18): dupefilter, lease ids, written-URL set.

``SHA-1(JSON {"body": hex, "method": ..., "url": canonical(url)})``, 20 bytes: the formula of
``wackycrawl.crawl.urls.request_fingerprint`` (the project's canonicalisation: session ids,
tracking parameters and default ports removed, C22), which is used when present. Until that
module is installed the same formula runs over w3lib's ``canonicalize_url``. Scrapy's own
fingerprint and scrapy-redis's ignore that canonicalisation (C18); since a change of this
function makes a persisted seen set useless, its values are pinned by a golden test.
"""

from __future__ import annotations

import hashlib
import json

try:
    from wackycrawl.crawl.urls import canonical_url as canonical
    from wackycrawl.crawl.urls import request_fingerprint as fingerprint
except ImportError:  # the project's canonicalisation has not landed yet
    from w3lib.url import canonicalize_url as canonical

    def fingerprint(method: str, url: str, body: bytes = b"") -> bytes:
        """20-byte SHA-1 of method, canonical URL and body (bytes)."""
        data = {"method": method.upper(), "url": canonical(url), "body": (body or b"").hex()}
        return hashlib.sha1(json.dumps(data, sort_keys=True).encode()).digest()

__all__ = ["canonical", "fingerprint", "url_fingerprint"]


def url_fingerprint(url: str) -> bytes:
    """Fingerprint of a GET of ``url``: the key of the written-URL set."""
    return fingerprint("GET", url)
