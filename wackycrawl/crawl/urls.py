"""URL canonicalisation for the dupefilter (case C22) and SURT forms for scope (Heritrix).

:func:`canonical_url` is w3lib's ``canonicalize_url`` (lower-case scheme and host, IDNA,
sorted query, fragment dropped, dot segments resolved) plus four project rules:

1. session identifiers go: the ``;jsessionid=`` path parameter (any value) and the query
   parameters of :data:`SESSION_PARAMS` whose value is an opaque token of at least
   :data:`SESSION_TOKEN_MIN` letters/digits (``session=not-an-id`` stays);
2. tracking parameters go: ``utm_*`` and :data:`TRACKING_PARAMS`, whatever their value;
3. the scheme's default port goes (``:80`` for http, ``:443`` for https; RFC 3986 6.2.3);
4. percent-encoded reserved characters in the path stay encoded (``%26`` is not ``&``;
   RFC 3986 2.2 and 6.2.2.2: only unreserved characters such as ``%7E`` may be decoded).

The result is idempotent. Why it matters: a site that appends a fresh session id to every
link is otherwise crawled without end (scrapy/scrapy#1560). The fetched URL is not changed;
only the dupefilter's key (:class:`CanonicalRequestFingerprinter`) is.

SURT (Sort-friendly URI Reordering Transform, Internet Archive / Heritrix): the host's labels
reversed and comma-joined inside ``(...)``, so ``http://www.uni-bonn.de/a`` is
``http://(de,uni-bonn,www,)/a`` and the prefix ``http://(de,`` covers all of ``.de``. Written
here because PyPI ``surt`` (0.3.1, 2019) applies its own Internet Archive canonicaliser and
drops ``www``, which would disagree with the dupefilter's form.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import re
from urllib.parse import quote, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, url_query_cleaner

#: query parameter names (compared lower-cased) that carry a session id (PHP, Java servlets,
#: osCommerce, ASP, ColdFusion and generic names; C22)
SESSION_PARAMS = frozenset({"jsessionid", "phpsessid", "oscsid", "sid", "sessionid",
                            "session_id", "aspsessionid", "cfid", "cftoken", "zenid"})
#: a session parameter is removed only when its value is a token this long (C22: >= 16)
SESSION_TOKEN_MIN = 16
#: tracking parameters removed whatever their value (besides every ``utm_*``): Google/Microsoft/
#: Meta/Yandex click ids, Mailchimp, HubSpot, Instagram share ids
TRACKING_PARAMS = frozenset({"fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid",
                             "yclid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "igshid"})
DEFAULT_PORTS = {"http": 80, "https": 443}

_JSESSIONID = re.compile(r";jsessionid=[^/?#;]*", re.IGNORECASE)
_TOKEN = re.compile(r"[0-9A-Za-z]+")
# percent-encoded gen-delims and sub-delims (RFC 3986 2.2) that w3lib would decode in a path
_RESERVED = re.compile(r"%(2[1346789ABCFabcf]|3[ABDFabdf]|40|5[BDbd])")
# each is carried through w3lib as a private-use character U+E0xx, then put back
_SENTINEL = {quote(chr(0xE000 + n)): f"%{n:02X}" for n in range(0x21, 0x5E)}
_SENTINEL_RE = re.compile("|".join(map(re.escape, _SENTINEL)))


def _drop_param(name: str, value: str) -> bool:
    low = name.lower()
    if low.startswith("utm_") or low in TRACKING_PARAMS:
        return True
    return (low in SESSION_PARAMS and len(value) >= SESSION_TOKEN_MIN
            and _TOKEN.fullmatch(value) is not None)


def strip_session_and_tracking(url: str) -> str:
    """``url`` without ``;jsessionid=`` and without session/tracking query parameters (C22)."""
    parts = urlsplit(_JSESSIONID.sub("", url))
    names = [kv.partition("=")[0] for kv in parts.query.split("&")
             if kv and _drop_param(*kv.partition("=")[::2])]
    if not names:
        return urlunsplit(parts)
    return url_query_cleaner(urlunsplit(parts), names, remove=True, unique=False,
                             keep_fragments=True)


def canonical_url(url: str) -> str:
    """The dedup key of an absolute http(s) URL (str -> str; C22 rules in the module doc).

    Raises ValueError only where ``urllib.parse.urlsplit`` does (e.g. a bad IPv6 literal).
    """
    parts = urlsplit(strip_session_and_tracking(url))
    protected = urlunsplit(parts._replace(
        path=_RESERVED.sub(lambda m: chr(0xE000 + int(m[1], 16)), parts.path)))
    out = urlsplit(canonicalize_url(protected))
    path = _SENTINEL_RE.sub(lambda m: _SENTINEL[m[0]], out.path)
    netloc = out.netloc
    if out.port is not None and DEFAULT_PORTS.get(out.scheme) == out.port:
        netloc = netloc.rpartition(":")[0]
    return urlunsplit(out._replace(netloc=netloc, path=path))


def host_key(url: str) -> str:
    """The host a per-host count (budget, trap pattern, yield table) is kept under: the host
    name lower-cased, without a trailing dot, with its port unless that is the scheme's default
    (``http://Upper.test:80/p`` -> ``upper.test``, ``http://a.test:8080/`` -> ``a.test:8080``,
    an IPv6 literal in brackets); ``""`` for a URL without a host."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if host and port is not None and DEFAULT_PORTS.get(parts.scheme.lower()) != port:
        return f"{host}:{port}"
    return host


#: request fingerprints remembered (least recently used first out): a page's links repeat on
#: its host's other pages (menus, footers), so most links the dupefilter sees were fingerprinted
#: before; about 300 bytes each (the URL, its 20 bytes, the cache's entry)
FINGERPRINT_CACHE = 16384


@functools.lru_cache(maxsize=FINGERPRINT_CACHE)
def request_fingerprint(method: str, url: str, body: bytes = b"") -> bytes:
    """SHA-1 (20 bytes) of method, :func:`canonical_url` and body, as Scrapy's default
    fingerprinter computes it but over the project's canonical URL. The last
    :data:`FINGERPRINT_CACHE` answers are cached (a pure function of its arguments)."""
    data = {"method": method.upper(), "url": canonical_url(url), "body": body.hex()}
    return hashlib.sha1(json.dumps(data, sort_keys=True).encode()).digest()


class CanonicalRequestFingerprinter:
    """REQUEST_FINGERPRINTER_CLASS: the dupefilter sees :func:`canonical_url` (C22)."""

    @classmethod
    def from_crawler(cls, crawler):
        return cls()

    def fingerprint(self, request) -> bytes:
        return request_fingerprint(request.method, request.url, request.body)


def surt_host(host: str) -> str:
    """``www.Example.de`` -> ``de,example,www`` (an IP address is kept as it is)."""
    host = host.lower().rstrip(".")
    if _is_ip(host):
        return f"[{host}]" if ":" in host else host
    return ",".join(reversed(host.split(".")))


def surt(url: str) -> str:
    """Heritrix SURT of an absolute URL: ``http://(de,example,www,:8080)/path?query``.

    https is written as http, as Heritrix compares SURT prefixes (``SurtPrefixSet``), so one
    prefix covers both schemes. Default ports are dropped (see :func:`canonical_url`).
    """
    parts = urlsplit(canonical_url(url))
    port = f":{parts.port}" if parts.port is not None else ""
    path = parts.path or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"http://({surt_host(parts.hostname or '')},{port}){path}{query}"


def surt_prefix(spec: str) -> str:
    """A scope entry as a SURT prefix: a SURT prefix as given (``http://(de,``), a domain or
    TLD (``de``, ``.at``, ``uni-bonn.de``) as ``http://(de,uni-bonn,`` (the domain and its
    subdomains), a URL as the SURT of its host and path."""
    spec = spec.strip()
    if spec.startswith(("http://(", "https://(")):
        return "http://(" + spec.split("(", 1)[1]
    if "://" in spec:
        return surt(spec).rstrip("/") if urlsplit(spec).path in ("", "/") else surt(spec)
    return f"http://({surt_host(spec.strip('.'))},"


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


#: characters no host name holds (WHATWG URL "forbidden domain code point", less ``%``,
#: which w3lib's IDNA step leaves alone): a name with one of them never resolves
_FORBIDDEN_IN_HOST = frozenset("\x00\t\n\r #/<>?@[\\]^|\x7f") | frozenset(map(chr, range(32)))


def bad_host_name(host: str) -> str | None:
    """Why ``host`` (a URL's host, without port or brackets) can be no host name, or None:
    empty, or holding a space, control or other character a name never has (an IPv6 literal,
    with its colons, is left to the address checks)."""
    if not host:
        return "no host name"
    if ":" in host:
        return None
    for ch in host:
        if ch in _FORBIDDEN_IN_HOST:
            return f"host name {host[:100]!r} holds {ch!r}, which no host name has"
    return None
