"""robots.txt for a polite crawl (RFC 9309): decoding, parsing, fetch outcomes, per-host cache.

Stages, each a plain function or small class over ``bytes``/``str`` (no Scrapy import):

1. :func:`decode_robots` - bytes to text: at most ``max_bytes`` (RFC 9309 2.5: parse at least
   500 KiB), a UTF-8 BOM dropped, UTF-8 (RFC 9309 2.3) or, for an invalid UTF-8 file,
   windows-1252 (latin-1 if it holds a byte cp1252 leaves undefined), so "/b\\xfccher/" still blocks.
2. :func:`parse_robots` - text to :class:`RobotsRules` (Protego does the matching: longest
   match, Allow wins ties, ``*`` and ``$``). CR, LF and CRLF all end a line (RFC 9309 2.2).
   Groups are found by exact product token, case-insensitively (RFC 9309 2.2.1): Protego
   alone would take ``User-agent: wacky`` for ``wackycrawl`` (it matches a group's name at
   the start of the crawler's), so each User-agent line is rewritten to its product token
   (:func:`product_token`, as Google's parser reads it: ``WackyCrawl/2.0`` is ``wackycrawl``)
   in a form only that exact token matches.
   For a legacy-decoded file each non-ASCII Allow/Disallow path is also added percent-encoded
   in the legacy encoding, because such sites usually use those bytes in their URLs too.
3. :func:`outcome` - HTTP status (or a network failure) to OK / UNAVAILABLE / UNREACHABLE
   (RFC 9309 2.3.1.2-2.3.1.4; 429 is taken as a server error, as Google documents).
4. :class:`RobotsTable` - per scheme+host+port entry with an expiry: a parsed or unavailable
   robots.txt lives ``max_age`` seconds (RFC 9309 2.4: 24 h), an unreachable one
   ``retry_seconds`` (or longer if Retry-After asks), during which the host is fully disallowed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

#: RFC 9309 2.5: crawlers SHOULD parse at least 500 KiB; the rest is ignored.
MAX_BYTES = 500 * 1024
#: RFC 9309 2.4: a robots.txt SHOULD NOT be cached for more than 24 hours (seconds).
MAX_AGE = 24 * 3600.0
#: Back-off before an unreachable robots.txt is fetched again (seconds; RFC 9309 2.3.1.4 leaves
#: it open, C01 suggests 10 minutes).
RETRY_SECONDS = 600.0

UTF8_BOM = b"\xef\xbb\xbf"

OK, UNAVAILABLE, UNREACHABLE = "ok", "unavailable", "unreachable"
ALLOW, FORBID, DEFER = "allow", "forbid", "defer"

_RULE_FIELDS = ("allow", "disallow")
#: the User-agent field names Protego reads (it tolerates the misspelling "user agent")
_UA_FIELDS = ("user-agent", "useragent", "user agent")
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-")


def product_token(value: str) -> str:
    """The product token at the start of ``value``, lowercased: its letters, ``_`` and ``-``
    (RFC 9309 2.2.1) up to the first other character, so ``wackycrawl/0.1 (+https://...)``
    and ``WackyCrawl/2.0`` are ``wackycrawl`` (Google's robots.txt parser reads User-agent
    values the same way); ``""`` when it starts with none."""
    value = value.strip()
    end = 0
    while end < len(value) and value[end] in _TOKEN_CHARS:
        end += 1
    return value[:end].lower()


def _group_name(token: str) -> str:
    """The name a group of product token ``token`` gets for Protego, and the name a crawler
    of that token asks with: Protego takes a group for a crawler when the group's name occurs
    in the crawler's at a word start, so the name is fenced with ``~`` (no token character)
    and only the exact token matches. An empty token matches nothing."""
    return f"~{token}~"


def _user_agent_value(line: str) -> str | None:
    """The value of ``line`` if Protego reads it as a User-agent line, else None (the same
    reading as ``protego._protego._extract_directive``: ``field: value``, or, when the colon
    does not separate a known field, ``field value``)."""
    line = line.split("#", 1)[0].strip()
    if not line:
        return None
    if ":" in line:
        field, raw = line.split(":", 1)
        field = field.strip().lower()
        if field in _UA_FIELDS:
            return raw.strip()
        if not raw or raw[0].isspace():
            return None  # some other field
    words = line.split()
    for n in (1, 2):
        if " ".join(words[:n]).lower() in _UA_FIELDS:
            return " ".join(words[n:])
    return None


def _exact_groups(text: str) -> str:
    """``text`` with each User-agent line naming its group by :func:`_group_name` of its
    product token, ``*`` (alone or before whitespace) left as it is."""
    out = []
    for line in text.splitlines():
        value = _user_agent_value(line)
        if value is not None and value:
            star = value.startswith("*") and (len(value) == 1 or value[1].isspace())
            line = "User-agent: " + ("*" if star else _group_name(product_token(value)))
        out.append(line)
    return "\n".join(out)


def decode_robots(body: bytes, max_bytes: int = MAX_BYTES) -> tuple[str, str]:
    """Decode a robots.txt body; returns ``(text, encoding)``, never raises on bad bytes.

    ``max_bytes`` counts bytes of the raw body; a longer body is cut at its last line end
    before that limit. ``encoding`` is ``"utf-8"``, ``"cp1252"`` or ``"latin-1"``.
    """
    if len(body) > max_bytes:
        cut = max(body.rfind(b"\n", 0, max_bytes), body.rfind(b"\r", 0, max_bytes))
        body = body[:cut + 1] if cut >= 0 else b""
    body = body.removeprefix(UTF8_BOM)
    for encoding in ("utf-8", "cp1252"):
        try:
            return body.decode(encoding), encoding
        except UnicodeDecodeError:
            pass
    return body.decode("latin-1"), "latin-1"


def _percent_encode(value: str, encoding: str) -> str:
    """``value`` with each non-ASCII character percent-encoded in ``encoding``."""
    return "".join(c if c.isascii() else "".join(f"%{b:02X}" for b in c.encode(encoding))
                   for c in value)


def _add_legacy_rules(text: str, encoding: str) -> str:
    """Repeat each non-ASCII Allow/Disallow line with its path percent-encoded in ``encoding``."""
    out = []
    for line in text.splitlines():
        out.append(line)
        field, sep, value = line.partition(":")
        if sep and field.strip().lower() in _RULE_FIELDS and not value.isascii():
            path = value.split("#", 1)[0].strip()
            out.append(f"{field.strip()}: {_percent_encode(path, encoding)}")
    return "\n".join(out)


class RobotsRules:
    """A parsed robots.txt with the interface of Scrapy's ``RobotParser``.

    ``allowed(url, user_agent)`` and ``crawl_delay(user_agent)`` pick the group whose
    User-agent line is the product token of ``user_agent`` (:func:`product_token`), exactly
    and case-insensitively (RFC 9309 2.2.1; groups are exclusive, ``*`` only when no group
    matches; groups of the same token are combined). ``crawl_delay`` is in seconds (float) or
    None when the group has none or an unparsable one. ``encoding`` tells how the file was decoded.
    """

    def __init__(self, parser: Protego, encoding: str = "utf-8"):
        self._parser = parser
        self.encoding = encoding

    def allowed(self, url: str, user_agent: str) -> bool:
        return self._parser.can_fetch(url, self._asker(user_agent))

    def crawl_delay(self, user_agent: str) -> float | None:
        return self._parser.crawl_delay(self._asker(user_agent))

    @staticmethod
    def _asker(user_agent: str) -> str:
        token = product_token(user_agent or "")
        return _group_name(token) if token else ""


def parse_robots(body: bytes, max_bytes: int = MAX_BYTES) -> RobotsRules:
    """Parse a robots.txt body (see :func:`decode_robots`); an empty body allows everything."""
    text, encoding = decode_robots(body, max_bytes)
    text = _exact_groups(text)
    if encoding != "utf-8":
        text = _add_legacy_rules(text, encoding)
    return RobotsRules(Protego.parse(text), encoding)


def outcome(status: int | None) -> str:
    """OK, UNAVAILABLE or UNREACHABLE for the final HTTP status of /robots.txt.

    ``None`` means no HTTP answer (refused, timeout, DNS, reset): UNREACHABLE (RFC 9309
    2.3.1.4). 2xx: OK. 3xx left after redirects were followed: UNAVAILABLE (2.3.1.2).
    4xx: UNAVAILABLE (2.3.1.3), except 429: UNREACHABLE. 5xx and anything else: UNREACHABLE.
    """
    if status is None:
        return UNREACHABLE
    if 200 <= status < 300:
        return OK
    if 300 <= status < 500 and status != 429:
        return UNAVAILABLE
    return UNREACHABLE


def retry_after_seconds(value: str | bytes | None) -> float | None:
    """Seconds of a ``Retry-After: <delta-seconds>`` header value (RFC 9110 10.2.3), else None.

    HTTP-date values are not read (None).
    """
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    value = (value or "").strip()
    return float(value) if value.isascii() and value.isdigit() else None


def robots_key(url: str) -> str:
    """The scheme+host+port a robots.txt applies to (RFC 9309 2.3), e.g. ``http://a.test:80``.

    Raises ValueError for a URL without host or with a bad port.
    """
    parts = urlsplit(url)
    if not parts.hostname:
        raise ValueError(f"no host in {url!r}")
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}"


@dataclass(frozen=True)
class RobotsEntry:
    """What is known of one host's robots.txt until ``expires`` (table clock, seconds)."""

    outcome: str
    rules: RobotsRules | None
    expires: float

    def decide(self, url: str, token: str) -> str:
        """ALLOW, FORBID (rules say no) or DEFER (robots.txt unreachable: complete disallow)."""
        if self.outcome == UNREACHABLE:
            return DEFER
        if self.rules is None or self.rules.allowed(url, token):
            return ALLOW
        return FORBID


class RobotsTable:
    """Per-host robots.txt entries with expiry; ``clock`` returns seconds (monotonic)."""

    def __init__(self, max_age: float = MAX_AGE, retry_seconds: float = RETRY_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.max_age = max_age
        self.retry_seconds = retry_seconds
        self.clock = clock
        self._entries: dict[str, RobotsEntry] = {}

    def get(self, key: str) -> RobotsEntry | None:
        """The live entry for ``key``, or None when unknown or expired (fetch again)."""
        entry = self._entries.get(key)
        if entry is not None and entry.expires <= self.clock():
            del self._entries[key]
            return None
        return entry

    def store(self, key: str, result: str, rules: RobotsRules | None = None,
              retry_after: float | None = None) -> RobotsEntry:
        """Record a fetch outcome. UNREACHABLE lives ``max(retry_seconds, retry_after)``
        (but at most ``max_age``), the others ``max_age``."""
        ttl = self.max_age
        if result == UNREACHABLE:
            ttl = min(max(self.retry_seconds, retry_after or 0.0), self.max_age)
        entry = RobotsEntry(result, rules if result == OK else None, self.clock() + ttl)
        self._entries[key] = entry
        return entry
