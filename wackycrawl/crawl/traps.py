"""Spider traps: URL-shape limits, per-host and per-domain budgets and a never-ending-links
detector.

Four stages, each a pure function or small class over URL strings:

1. :func:`url_trap` - shape limits in the manner of Heritrix's decide rules:
   ``TooManyPathSegmentsDecideRule`` (path depth, default 20 segments),
   ``PathologicalPathDecideRule`` (a segment repeated, default more than 2 times: ``/a/b/a/b/a/``),
   the URL length of ``UURI.MAX_URL_LENGTH`` (2083 characters, Internet Explorer's limit) and a
   query-parameter count (10; no published default: faceted search adds one per facet).
2. :class:`HostBudget` - at most N requests per host (Heritrix ``QuotaEnforcer``-style budget).
   Hosts are keyed by :func:`~wackycrawl.crawl.urls.host_key` (``Upper.test:80`` is
   ``upper.test``).
3. :class:`DomainHostBudget` - link generators across host names (wildcard DNS: every page
   links to fresh ``s1234.example.com`` hosts) escape the per-host rules, each host seeing one
   page. Per registered domain (eTLD+1 by the Public Suffix List, private section included, so
   each ``*.blogspot.com`` or ``*.github.io`` site is a domain of its own) at most N hosts that
   have not had a document kept are requested; a host with a kept document stops counting, so
   a hosting domain whose sites yield text (``wordpress.com``) goes on, while one of empty or
   refused pages stops. Heritrix's ``QuotaEnforcer`` keeps quotas per server, host and
   frontier group (a queue, which a queue-assignment policy may key on the domain), counted
   in fetches and bytes, all unlimited by default; a count of distinct hosts, and N, are the
   project's.
4. :class:`EndlessLinksDetector` - calendars and faceted search: pages whose every fetch yields
   about one URL never seen before and no kept document. Counted per *pattern* (host plus first
   path segment, :func:`trap_pattern`), so a calendar under ``/events/`` stops without the
   rest of its site; over each window of W fetched pages of a pattern, if the new URLs found
   reach ``new_ratio`` per page while no document of it was kept, it trips for good.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

from wackycrawl.crawl.urls import host_key

MAX_PATH_DEPTH = 20
MAX_SEGMENT_REPEATS = 2
MAX_URL_LENGTH = 2083
MAX_QUERY_PARAMS = 10
HOST_BUDGET = 5000
DOMAIN_HOST_BUDGET = 100
DETECTOR_WINDOW = 50
DETECTOR_NEW_RATIO = 0.5


@dataclass(frozen=True)
class UrlLimits:
    """Shape limits; 0 turns one off. Lengths are in characters of the URL string."""

    max_path_depth: int = MAX_PATH_DEPTH
    max_segment_repeats: int = MAX_SEGMENT_REPEATS
    max_url_length: int = MAX_URL_LENGTH
    max_query_params: int = MAX_QUERY_PARAMS


def url_trap(url: str, limits: UrlLimits = UrlLimits()) -> str | None:
    """The first shape rule ``url`` breaks ("url_length", "path_depth", "repeated_segment",
    "query_params"), or None."""
    if limits.max_url_length and len(url) > limits.max_url_length:
        return "url_length"
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if limits.max_path_depth and len(segments) > limits.max_path_depth:
        return "path_depth"
    if limits.max_segment_repeats and segments and \
            max(Counter(segments).values()) > limits.max_segment_repeats:
        return "repeated_segment"
    if limits.max_query_params and parts.query and \
            parts.query.count("&") + 1 > limits.max_query_params:
        return "query_params"
    return None


def trap_pattern(url: str) -> str:
    """``http://cal.test/events/2024/01?x`` -> ``cal.test/events`` (:func:`host_key`: host
    with a port other than the default; first path segment; ``cal.test/`` for the root)."""
    parts = urlsplit(url)
    first = parts.path.lstrip("/").split("/", 1)[0]
    return f"{host_key(url)}/{first}"


class HostBudget:
    """Counts requests per host; :meth:`take` is False once a host has had ``limit`` (0: no
    limit). ``exhausted`` holds the hosts that hit the limit."""

    def __init__(self, limit: int = HOST_BUDGET):
        self.limit = limit
        self.used: Counter[str] = Counter()
        self.exhausted: set[str] = set()

    def take(self, host: str) -> bool:
        if not self.limit:
            return True
        if self.used[host] >= self.limit:
            self.exhausted.add(host)
            return False
        self.used[host] += 1
        return True


class DomainHostBudget:
    """Per registered domain, the hosts taken that have had no document kept ("unproven");
    :meth:`take` refuses a new host of a domain with ``limit`` unproven hosts (0: no limit),
    hosts already taken always pass, ``force`` (a seed) takes one whatever the count. A host
    with a kept document (:meth:`kept`) stops counting, so the domain may take another.
    ``exhausted`` holds the domains that refused a host."""

    def __init__(self, limit: int = DOMAIN_HOST_BUDGET):
        self.limit = limit
        self.hosts: dict[str, set[str]] = {}  # domain -> hosts taken
        self.unproven: Counter[str] = Counter()
        self.proven: set[str] = set()
        self.exhausted: set[str] = set()

    def take(self, domain: str, host: str, force: bool = False) -> bool:
        if not self.limit:
            return True
        known = self.hosts.setdefault(domain, set())
        if host in known:
            return True
        if self.unproven[domain] >= self.limit and not force:
            self.exhausted.add(domain)
            return False
        known.add(host)
        self.unproven[domain] += 1
        return True

    def kept(self, domain: str, host: str) -> None:
        """A document of ``host`` was kept: it no longer counts against ``domain``."""
        if host not in self.proven and host in self.hosts.get(domain, ()):
            self.proven.add(host)
            self.unproven[domain] -= 1


class EndlessLinksDetector:
    """Per pattern, over tumbling windows of ``window`` fetched pages: new URLs discovered
    while the window was open and documents kept. At the window's end the pattern trips (for
    good) if no document was kept and ``new >= new_ratio * window``; else a new window starts.

    Counting starts with the pattern's first fetched page, so the links that led to a finite
    site (its menu, a sitemap) do not count against it. A calendar gives about one new URL per
    page for ever, faceted search more; a finite site's later windows near none. The links of a
    page arrive after its fetch (the spider parses it), so a ratio under 1 leaves room for the
    pages still in flight at a window's end."""

    def __init__(self, window: int = DETECTOR_WINDOW, new_ratio: float = DETECTOR_NEW_RATIO):
        self.window = window
        self.new_ratio = new_ratio
        self.tripped: set[str] = set()
        self._counts: dict[str, list[int]] = {}  # pattern -> [fetched, new, kept]

    def discovered(self, pattern: str, n: int = 1) -> None:
        """Count n new URLs of ``pattern`` (negative: take back URLs the dupefilter refused)."""
        if (row := self._counts.get(pattern)) is not None:
            row[1] += n

    def kept(self, pattern: str) -> None:
        if (row := self._counts.get(pattern)) is not None:
            row[2] += 1

    def fetched(self, pattern: str) -> bool:
        """Count a fetched page; True if ``pattern`` trips now (once)."""
        if not self.window or pattern in self.tripped:
            return False
        row = self._counts.setdefault(pattern, [0, 0, 0])
        row[0] += 1
        if row[0] < self.window:
            return False
        fetched, new, kept = row
        row[:] = [0, 0, 0]
        if kept == 0 and new >= self.new_ratio * fetched:
            self.tripped.add(pattern)
            del self._counts[pattern]
            return True
        return False
