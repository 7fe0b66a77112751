"""Downloader middleware keeping the crawl in scope (``wackycrawl.crawl.scope``).

Allow list: WACKY_SCOPE_SURTS (SURT prefixes, ``http://(de,``) and WACKY_SCOPE_ALLOW (domains
or TLDs, ``de,at``); deny list WACKY_SCOPE_DENY (wins). WACKY_SCOPE_FROM_SEEDS = "domain" or
"suffix" adds each seed's registered domain or public suffix to the allow list: those of the
spider's seed list when the spider opens (its ``seed_lists()``; before any request is judged,
so the links a resumed JOBDIR crawl dequeues first are judged by the whole seed list), when a
seed is scheduled (``request_scheduled``), when the dupefilter drops it as already seen
(``request_dropped``: a resumed JOBDIR crawl re-reads its seed list) and when it reaches the
downloader (a seed pushed to a Redis crawl's start-URL key reaches the frontier without passing
through any worker's engine). With a JOBDIR the derived prefixes are also kept in
``JOBDIR/wacky-scope.txt`` (one a line, appended before the seed is fetched, read back when
the crawl resumes; emptied with SCHEDULER_FLUSH_ON_START), so links of a search result, whose
result page a resumed crawl fetches again only after the queued links, keep their scope. A
seed is a start request (no ``depth`` in its meta) or a request
with ``meta["wacky_seed"] = True`` (e.g. a search result); seeds, robots.txt requests and
search-engine result pages (``meta["wacky_serp"]``, never stored, no scope derived from them)
are always in scope. In a distributed crawl (the Redis frontier) the derived prefixes are
shared in the set ``wacky:NAME:scope``: a worker adds each new one before the seed is fetched,
and looks a URL's own prefix up there (one SISMEMBER) before it calls the URL out of scope, so
links found on another worker's seed are judged by the same scope. Every request, redirects
included, is checked before anything is sent: out of scope -> IgnoreRequest, counted in
``wacky/scope/out`` (and ``wacky/scope/deny`` for the deny list) and the drop ``out_of_scope``
(``wackycrawl.crawl.drops``). Off (NotConfigured) when all three lists are empty and nothing is
derived.
"""

from __future__ import annotations

import logging
import os

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.httpobj import urlparse_cached

from wackycrawl.crawl import drops
from wackycrawl.crawl.scope import DERIVE_MODES, Scope, seed_prefix
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.middlewares.robots import is_robots_fetch

logger = logging.getLogger(__name__)

SEED_META = "wacky_seed"
SCOPE_FILE = "wacky-scope.txt"  # in JOBDIR: the prefixes derived so far, one a line


def is_seed(request: Request) -> bool:
    return bool(request.meta.get(SEED_META)) or (
        "depth" not in request.meta and "redirect_urls" not in request.meta)


def is_robots_txt(request: Request) -> bool:
    """A robots.txt fetch: RobotsMiddleware's (a redirect target of it too, whatever its path)
    or another request of ``/robots.txt`` that does not obey robots.txt."""
    return is_robots_fetch(request) or (bool(request.meta.get("dont_obey_robotstxt")) and
                                        urlparse_cached(request).path == "/robots.txt")


def describe(allow: list[str], deny: list[str], derive: str) -> str:
    """The scope in words, for the log: what is allowed (the allow list's SURT prefixes
    ``allow``, the seeds' domains or public suffixes with ``derive``, or everything when
    neither: :meth:`Scope.decide` allows all on an empty allow list, and the middleware allows
    no link while a derived scope knows no seed), then the deny list (which wins)."""
    whose = {"domain": "domains", "suffix": "public suffixes"}.get(derive, "")
    if allow and derive:
        allowed = f"allow {allow} and each seed's {derive}"
    elif allow:
        allowed = f"allow {allow} only"
    elif derive:
        allowed = f"the seeds' {whose} only (no allow list)"
    else:
        allowed = "allow all"
    return f"{allowed}, deny {deny or 'none'}"


class ScopeMiddleware:
    def __init__(self, crawler):
        s = crawler.settings
        self.derive = (s.get("WACKY_SCOPE_FROM_SEEDS") or "").strip().lower()
        if self.derive not in DERIVE_MODES:
            raise ValueError(f"WACKY_SCOPE_FROM_SEEDS must be one of {DERIVE_MODES}, "
                             f"not {self.derive!r}")
        allow = s.getlist("WACKY_SCOPE_SURTS") + s.getlist("WACKY_SCOPE_ALLOW")
        deny = s.getlist("WACKY_SCOPE_DENY")
        if not (allow or deny or self.derive):
            raise NotConfigured()
        self.scope = Scope(allow, deny)
        self.fixed = bool(allow)
        self.crawler, self.stats = crawler, crawler.stats
        self.derived: set[str] = set()
        self.server = self.key = None
        if self.derive:
            seed_prefix("http://www.example.com/", self.derive)  # the suffix trie, before gc.freeze
            crawler.signals.connect(self._seed_list, signal=signals.spider_opened)
            crawler.signals.connect(self._seen_seed, signal=signals.request_scheduled)
            crawler.signals.connect(self._seen_seed, signal=signals.request_dropped)
            if frontier_mode(s) == "redis":
                self.server = connect(s)
                self.key = CrawlKeys(crawl_name(s, crawler.spidercls.name)).scope
        self.saved = None  # JOBDIR/SCOPE_FILE, open for appending
        logger.info("Scope: %s", describe(self.scope.prefixes, deny, self.derive))
        if self.derive and s.get("JOBDIR"):
            self._load(os.path.join(s.get("JOBDIR"), SCOPE_FILE),
                       s.getbool("SCHEDULER_FLUSH_ON_START"))
            crawler.signals.connect(self._close, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _load(self, path: str, flush: bool) -> None:
        """Put the prefixes an earlier run of this JOBDIR derived into the scope (a torn
        last line, from a killed run, is left out) and open ``path`` for appending."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not flush and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n") and (prefix := line[:-1]):
                        self.scope.add(prefix)
                        self.derived.add(prefix)
        self.saved = open(path, "w" if flush else "a", encoding="utf-8")  # noqa: SIM115

    def _close(self, spider=None) -> None:
        if self.saved is not None:
            self.saved.close()
            self.saved = None

    def _seed_list(self, spider) -> None:
        if seed_lists := getattr(spider, "seed_lists", None):
            for url in seed_lists()[0]:
                self._derive(url)

    def _seen_seed(self, request: Request, spider=None) -> None:
        if is_seed(request) and not is_robots_txt(request):
            self._derive(request.url)

    def _derive(self, url: str) -> None:
        prefix = self.scope.add_seed(url, self.derive)
        if prefix in self.derived:
            return
        self.derived.add(prefix)
        self.stats.inc_value("wacky/scope/derived")
        if self.server is not None:
            self.server.sadd(self.key, prefix)
        if self.saved is not None:
            self.saved.write(prefix + "\n")
            self.saved.flush()
        logger.debug("Scope: %s added from seed %s", prefix, url)

    def _shared(self, url: str) -> bool:
        """Whether another worker derived ``url``'s own prefix from one of its seeds."""
        if self.server is None:
            return False
        prefix = seed_prefix(url, self.derive)
        if not self.server.sismember(self.key, prefix):
            return False
        self.scope.add(prefix)
        self.derived.add(prefix)
        return True

    def process_request(self, request: Request) -> None:
        if is_robots_txt(request) or request.meta.get("wacky_serp"):
            return
        if is_seed(request):
            if self.derive:
                self._derive(request.url)
            return
        verdict = self.scope.decide(request.url)
        if verdict is None and self.derive and not self.derived and not self.fixed:
            verdict = "out"  # derived scope, no seed's prefix known yet: not "allow all"
        if verdict is None or (verdict == "out" and self._shared(request.url)):
            return
        self.stats.inc_value("wacky/scope/out")
        if verdict == "deny":
            self.stats.inc_value("wacky/scope/deny")
        drops.record(self.crawler, "out_of_scope", request.url,
                     "on the deny list" if verdict == "deny" else "not on the allow list")
        raise IgnoreRequest(f"out of scope ({verdict})")
