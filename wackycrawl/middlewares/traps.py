"""Downloader middleware cutting spider traps (``wackycrawl.crawl.traps``).

Before a request is sent (robots.txt requests excepted): URL-shape limits
(WACKY_TRAP_MAX_PATH_DEPTH, _MAX_SEGMENT_REPEATS, _MAX_URL_LENGTH, _MAX_QUERY_PARAMS), the
pattern's endless-links verdict, the per-domain host budget (WACKY_DOMAIN_HOST_BUDGET hosts
without a kept document per registered domain; a seed is never refused by it) and the
per-host budget (WACKY_HOST_BUDGET requests). Hosts are keyed by
:func:`~wackycrawl.crawl.urls.host_key` (``upper.test:80`` is ``upper.test``). Each cut
raises IgnoreRequest, counts ``wacky/trap/<rule>`` and is the drop ``trap_<rule>``
(``url_length``, ``path_depth``, ``repeated_segment``, ``query_params``, ``endless_links``,
``domain_hosts``, ``budget``); a host's budget running out, a domain refusing its first new
host and a pattern tripping the detector each log one WARNING line
(``wacky/trap/hosts_over_budget``, ``wacky/trap/domains_over_budget``,
``wacky/trap/patterns_tripped``).

The detector (WACKY_TRAP_WINDOW pages, WACKY_TRAP_NEW_RATIO) is fed by signals: a page fetched
(``response_received``), a new URL (``request_scheduled`` less ``request_dropped``, i.e. what
passed the dupefilter) and a kept document (``item_scraped``), each by its URL's pattern.
"""

from __future__ import annotations

import hashlib
import logging
from urllib.parse import urlsplit

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.spidermiddlewares.urllength import UrlLengthMiddleware as ScrapyUrlLengthMiddleware
from scrapy.utils.httpobj import urlparse_cached

from wackycrawl.crawl import drops
from wackycrawl.crawl.traps import (
    DomainHostBudget,
    EndlessLinksDetector,
    HostBudget,
    UrlLimits,
    trap_pattern,
    url_trap,
)
from wackycrawl.crawl.urls import host_key
from wackycrawl.middlewares.scope import is_robots_txt
from wackycrawl.seeding.serp import registered_domain

logger = logging.getLogger(__name__)

_TRAP_DETAIL = {"url_length": "URL longer than WACKY_TRAP_MAX_URL_LENGTH",
                "path_depth": "more path segments than WACKY_TRAP_MAX_PATH_DEPTH",
                "repeated_segment": "a path segment repeated more than "
                                    "WACKY_TRAP_MAX_SEGMENT_REPEATS times",
                "query_params": "more query parameters than WACKY_TRAP_MAX_QUERY_PARAMS",
                "endless_links": "URL pattern tripped the endless-links detector",
                "domain_hosts": "a new host of a domain with WACKY_DOMAIN_HOST_BUDGET hosts "
                                "that had no document kept",
                "budget": "host used its WACKY_HOST_BUDGET"}


class TrapsMiddleware:
    def __init__(self, crawler):
        s = crawler.settings
        if not s.getbool("WACKY_TRAPS_ENABLED"):
            raise NotConfigured()
        self.limits = UrlLimits(s.getint("WACKY_TRAP_MAX_PATH_DEPTH"),
                                s.getint("WACKY_TRAP_MAX_SEGMENT_REPEATS"),
                                s.getint("WACKY_TRAP_MAX_URL_LENGTH"),
                                s.getint("WACKY_TRAP_MAX_QUERY_PARAMS"))
        self.budget = HostBudget(s.getint("WACKY_HOST_BUDGET"))
        self.domains = DomainHostBudget(s.getint("WACKY_DOMAIN_HOST_BUDGET"))
        self.detector = EndlessLinksDetector(s.getint("WACKY_TRAP_WINDOW"),
                                             s.getfloat("WACKY_TRAP_NEW_RATIO"))
        self.crawler, self.stats = crawler, crawler.stats
        # tldextract builds its suffix trie (some 18,000 objects) at the first lookup: now,
        # before gc.freeze at spider_opened, not later, where every full collection scans it
        registered_domain("www.example.com")
        for handler, signal in ((self._scheduled, signals.request_scheduled),
                                (self._dropped, signals.request_dropped),
                                (self._fetched, signals.response_received),
                                (self._kept, signals.item_scraped)):
            crawler.signals.connect(handler, signal=signal)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if is_robots_txt(request):
            return
        rule = url_trap(request.url, self.limits)
        if rule is None and trap_pattern(request.url) in self.detector.tripped:
            rule = "endless_links"
        if rule is None:
            host = host_key(request.url)
            rule = self._domain_hosts(request, host)
        if rule is None:
            first = host not in self.budget.exhausted
            if self.budget.take(host):
                return
            rule = "budget"
            if first:
                self.stats.inc_value("wacky/trap/hosts_over_budget")
                logger.warning("Trap: host %s used its budget of %d requests; no more requests "
                               "to it (WACKY_HOST_BUDGET)", host, self.budget.limit)
        self.stats.inc_value(f"wacky/trap/{rule}")
        drops.record(self.crawler, f"trap_{rule}", request.url, _TRAP_DETAIL[rule])
        raise IgnoreRequest(f"spider trap ({rule})")

    def _domain_hosts(self, request: Request, host: str) -> str | None:
        """``"domain_hosts"`` if ``host`` is a new host its domain may not take, else None."""
        domain = registered_domain(urlparse_cached(request).hostname or host)
        first = domain not in self.domains.exhausted
        seed = bool(request.meta.get("wacky_seed_list") or request.meta.get("wacky_seed"))
        if self.domains.take(domain, host, force=seed):
            return None
        if first:
            self.stats.inc_value("wacky/trap/domains_over_budget")
            logger.warning("Trap: domain %s has %d hosts without a kept document (e.g. %s); no "
                           "request to a new host of it until one of them has a document kept "
                           "(WACKY_DOMAIN_HOST_BUDGET; a link generator across host names, "
                           "wildcard DNS)", domain, self.domains.limit, host)
        return "domain_hosts"

    def _scheduled(self, request: Request, spider=None) -> None:
        self.detector.discovered(trap_pattern(request.url))

    def _dropped(self, request: Request, spider=None) -> None:
        self.detector.discovered(trap_pattern(request.url), -1)

    def _fetched(self, response, request: Request, spider=None) -> None:
        if is_robots_txt(request):
            return
        pattern = trap_pattern(response.url)
        if self.detector.fetched(pattern):
            self._tripped(pattern)

    def _tripped(self, pattern: str) -> None:
        self.stats.inc_value("wacky/trap/patterns_tripped")
        logger.warning("Trap: %s looks endless (>= %g new links per fetched page over %d "
                       "pages, no document kept); its URLs are no longer fetched", pattern,
                       self.detector.new_ratio, self.detector.window)

    def _kept(self, item, response=None, spider=None) -> None:
        url = item.get("url") if isinstance(item, dict) else None
        if url:
            self.detector.kept(trap_pattern(url))
            host = host_key(url)
            self.domains.kept(registered_domain(urlsplit(url).hostname or host), host)


class UrlLengthMiddleware(ScrapyUrlLengthMiddleware):
    """Scrapy's URLLENGTH_LIMIT check of the links a page yields, in its place: its limit is
    WACKY_TRAP_MAX_URL_LENGTH (0 = off), and a link over it is the drop ``trap_url_length``
    (``wacky/trap/url_length``), once per URL, as the downloader's trap rule would have made
    it (Scrapy's own, at the same 2083 characters, ignored it before that rule saw it: one
    INFO line with the whole URL and ``urllength/request_ignored_count``, no drop). Such a
    link is cut here so it never fills the frontier."""

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        maxlength = s.getint("WACKY_TRAP_MAX_URL_LENGTH")
        if not s.getbool("WACKY_TRAPS_ENABLED") or not maxlength:
            raise NotConfigured
        o = cls(maxlength)
        o.crawler = crawler
        o._seen = set()
        return o

    def get_processed_request(self, request, response):
        if len(request.url) <= self.maxlength:
            return request
        key = hashlib.blake2b(request.url.encode("utf-8", "surrogatepass"),
                              digest_size=8).digest()
        if key not in self._seen:
            self._seen.add(key)
            self.crawler.stats.inc_value("wacky/trap/url_length")
            drops.record(self.crawler, "trap_url_length", request.url,
                         f"{_TRAP_DETAIL['url_length']} ({len(request.url)} > {self.maxlength}"
                         " characters), a link not requested")
        return None
