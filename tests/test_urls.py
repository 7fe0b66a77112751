"""URL canonicalisation (case C22), the dupefilter fingerprint and SURT forms."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.utils.test import get_crawler
from w3lib.url import canonicalize_url

from wackycrawl.crawl.urls import (
    CanonicalRequestFingerprinter,
    canonical_url,
    request_fingerprint,
    strip_session_and_tracking,
    surt,
    surt_host,
    surt_prefix,
)

S = "http://shop.example.test"
# (url, canonical form): the C22 table, 16 URLs that collapse to 9 keys
C22 = [
    (f"{S}/cat/;jsessionid=0A1B2C3D4E5F6A7B?item=7", f"{S}/cat/?item=7"),
    (f"{S}/cat/;jsessionid=99FFEE00AA11BB22?item=7", f"{S}/cat/?item=7"),
    (f"{S}/index.php?item=7&osCsid=9f8e7d6c5b4a3928", f"{S}/index.php?item=7"),
    (f"{S}/index.php?osCsid=1a2b3c4d5e6f7a8b&item=7", f"{S}/index.php?item=7"),
    (f"{S}/index.php?item=7&PHPSESSID=abc123def4567890", f"{S}/index.php?item=7"),
    (f"{S}/index.php?sid=5f4dcc3b5aa765d61d8327deb882cf99&item=7", f"{S}/index.php?item=7"),
    ("http://shop.example.test:80/index.php?item=7", f"{S}/index.php?item=7"),
    ("HTTP://Shop.Example.TEST/index.php?item=7#reviews", f"{S}/index.php?item=7"),
    ("https://shop.example.test:443/index.php?item=7", "https://shop.example.test/index.php?item=7"),
    (f"{S}/index.php?item=7&utm_source=newsletter&utm_medium=email", f"{S}/index.php?item=7"),
    (f"{S}/p/Sale-100%25", f"{S}/p/Sale-100%25"),
    (f"{S}/p/Tom%26Jerry", f"{S}/p/Tom%26Jerry"),
    (f"{S}/p/a%2Fb", f"{S}/p/a%2Fb"),
    (f"{S}/docs/%7Euser/", f"{S}/docs/~user/"),
    (f"{S}/search?q=a+b", f"{S}/search?q=a+b"),
    (f"{S}/index.php?item=7&session=not-an-id-keep-me",
     f"{S}/index.php?item=7&session=not-an-id-keep-me"),
]


@pytest.mark.parametrize(("url", "expected"), C22)
def test_c22_canonical_form(url, expected):
    assert canonical_url(url) == expected
    assert canonical_url(expected) == expected  # idempotent


def test_c22_collapses_to_nine_keys_and_differs_from_w3lib():
    assert len({canonical_url(u) for u, _ in C22}) == 9
    assert sum(canonicalize_url(u) != e for u, e in C22) == 10


def test_session_values_that_are_no_token_are_kept():
    assert canonical_url(f"{S}/a?sid=en") == f"{S}/a?sid=en"
    assert canonical_url(f"{S}/a?sid=short123") == f"{S}/a?sid=short123"
    assert canonical_url(f"{S}/a?SID=0123456789abcdef0123") == f"{S}/a"


def test_tracking_parameters_and_order():
    url = f"{S}/a?b=2&fbclid=IwAR0x&gclid=Cj0K&a=1&utm_campaign=z&mc_eid=9"
    assert canonical_url(url) == f"{S}/a?a=1&b=2"
    assert strip_session_and_tracking(f"{S}/a?utm_x=1#frag") == f"{S}/a#frag"


def test_other_reserved_characters_stay_encoded_and_unicode_is_encoded():
    assert canonical_url(f"{S}/a%3Db%40c%2Bd") == f"{S}/a%3Db%40c%2Bd"
    assert canonical_url(f"{S}/a%3db") == f"{S}/a%3Db"
    assert canonical_url(f"{S}/caf\u00e9/./x/../y") == f"{S}/caf%C3%A9/y"
    assert canonical_url("http://example.test:8080/") == "http://example.test:8080/"


def test_fingerprint_uses_canonical_url():
    a = request_fingerprint("GET", f"{S}/cat/;jsessionid=0A1B2C3D4E5F6A7B?item=7")
    b = request_fingerprint("get", f"{S}/cat/?item=7")
    assert a == b and len(a) == 20
    assert request_fingerprint("GET", f"{S}/p/Tom%26Jerry") != \
        request_fingerprint("GET", f"{S}/p/Tom&Jerry")
    assert request_fingerprint("POST", f"{S}/a", b"x") != request_fingerprint("POST", f"{S}/a")


def test_fingerprinter_is_scrapys_request_fingerprinter():
    crawler = get_crawler(settings_dict={
        "REQUEST_FINGERPRINTER_CLASS": "wackycrawl.crawl.urls.CanonicalRequestFingerprinter"})
    crawler._apply_settings()
    fp = crawler.request_fingerprinter
    assert isinstance(fp, CanonicalRequestFingerprinter)
    assert fp.fingerprint(Request(f"{S}/x?PHPSESSID=abc123def4567890abcd")) == \
        fp.fingerprint(Request(f"{S}/x"))


def test_surt_forms():
    assert surt_host("www.Uni-Bonn.de.") == "de,uni-bonn,www"
    assert surt("http://www.uni-bonn.de/a?b=1") == "http://(de,uni-bonn,www,)/a?b=1"
    assert surt("https://x.at:443/") == "http://(at,x,)/"
    assert surt("http://x.at:8080") == "http://(at,x,:8080)/"
    assert surt("http://127.0.0.1/") == "http://(127.0.0.1,)/"
    assert surt("http://[::1]/") == "http://([::1],)/"


@pytest.mark.parametrize(("spec", "prefix"), [
    ("de", "http://(de,"), (".at", "http://(at,"), ("uni-bonn.de", "http://(de,uni-bonn,"),
    ("http://(de,", "http://(de,"), ("https://(at,", "http://(at,"),
    ("http://www.x.de/", "http://(de,x,www,)"), ("http://www.x.de/sub/", "http://(de,x,www,)/sub/"),
])
def test_surt_prefix(spec, prefix):
    assert surt_prefix(spec) == prefix
