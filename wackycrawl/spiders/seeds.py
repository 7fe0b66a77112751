"""The ``seeds`` spider: crawl from a seed list, one item per fetched HTML page in the size window.

Usage: ``scrapy crawl seeds -a seeds=FILE``. FILE holds one absolute http(s) URL per line;
blank lines and ``#`` comments are skipped, other bad lines are logged and counted
(``wacky/seeds/bad_line``); a seed given twice (same canonical URL) is fetched once, counted
(``wacky/seeds/repeated``) and logged in one line. Links of every HTML page are followed
(unless WACKY_FOLLOW_LINKS is False: then exactly the seed list is fetched) within DEPTH_LIMIT
and the scope of WACKY_SCOPE_* (``wackycrawl.middlewares.scope``); non-HTML extensions are
never requested (Scrapy's LinkExtractor ``IGNORED_EXTENSIONS``). Pages below the size window
are not stored but their links are followed (``response.meta["wacky_store"]`` is set by
``wackycrawl.middlewares.sizewindow``). With ``REDIS_URL`` (or ``REDIS_HOST``) set the crawl is
distributed (``wackycrawl.distributed.scheduler``): the seed list goes into the shared Redis
queue, and the spider is a scrapy-redis ``RedisMixin``: more seeds are read from its
``redis_key`` (``REDIS_START_URLS_KEY``, default ``wacky:<crawl>:start_urls``; a LIST, or a SET
with ``REDIS_START_URLS_AS_SET``), pushed as JSON ``{"url": ..., "meta": {...}}`` or as a bare
URL (``redis-cli lpush wacky:seeds:start_urls URL``, ``wackycrawl seeds push``), in batches of
``redis_batch_size`` (``CONCURRENT_REQUESTS``) whenever the frontier's queue is empty, moved
into the frontier by one Redis script and turned into requests by
:meth:`make_request_from_data` under a lease (``wackycrawl.distributed.queue``: a worker killed
at any moment loses no seed); with REDIS_URL or REDIS_HOST (setting or environment) no seed
list is needed. ``redis_key``, ``redis_batch_size`` and ``max_idle_time`` may be given as
spider attributes or ``-a`` arguments, as with scrapy-redis. Pushed seeds are ``dont_filter``
(re-seeding a finished crawl fetches them again) but recorded as seen.

Search-query seeds (BootCaT/WaCky, ``wackycrawl.seeding``): a seed line that is a query URL of
a configured engine (``wackycrawl.seeding.engines.configured``) or of one a
``# wackycrawl-engine:`` line of the file names (``wackycrawl queries`` writes it), and every
line of
``-a queries=FILE``, is fetched as a result page (SERP) with the engine's headers (API key from
the environment), no redirect, outside the size window, at most WACKY_SERP_MAX_BYTES, and with
the engine's WACKY_SERP_DELAYS as ``meta["wacky_min_interval"]``. Its result URLs become seeds:
at most WACKY_SERP_MAX_RESULTS per query and WACKY_SERP_MAX_PER_DOMAIN per registered domain
across the seed set (plain seeds' domains count too). SERPs are never items; every page
crawled from a query's seeds carries the query as ``meta["Seed-Query"]`` (DOCHDR
``X-Wacky-Seed-Query``). Stats: ``wacky/serp/{pages,results,seeds,failed,bad_response,
no_key,skipped/<reason>,domains,max_per_domain}``, ``wacky/seeds/not_a_query``.

A page request that brings no response is a drop (``wackycrawl.crawl.drops``): a non-2xx
answer ``http_<code>``, a download error after Scrapy's retries ``download_error``.
WACKY_PROFILE (``wackycrawl.crawl.profiles``) is applied in :meth:`update_settings`.
"""

from __future__ import annotations

import json
import logging
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import redis
import scrapy
from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy_redis.spiders import RedisMixin

from wackycrawl import __version__
from wackycrawl.crawl import drops, profiles
from wackycrawl.crawl.urls import canonical_url
from wackycrawl.seeding import engines, serp
from wackycrawl.seeding.seedfile import bad_line_messages, is_seed_url, read_seed_file

logger = logging.getLogger(__name__)

#: meta key of a request made from the seed list
SEED_META = "wacky_seed_list"


def seed_request(raw: bytes | str, encoding: str = "utf-8") -> scrapy.Request | None:
    """A seed pushed as JSON ``{"url": ..., "meta": {...}, "priority": n}`` (scrapy-redis's
    format) or as a bare http(s) URL; None if it is neither."""
    text = raw.decode(encoding, errors="replace") if isinstance(raw, bytes) else raw
    text = text.strip()
    try:
        data = json.loads(text) if text.startswith("{") else {"url": text}
        url = data["url"]
        if not isinstance(url, str) or not is_seed_url(url):
            return None
        return scrapy.Request(url, meta=dict(data.get("meta") or {}), dont_filter=True,
                              priority=int(data.get("priority", 0)))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def missing_seed_file(seeds: str | None = None, queries: str | None = None) -> str | None:
    """The error message for a seed or query file ``-a`` names that is no file, or None."""
    for path in (seeds, queries):
        if path and not os.path.isfile(path):
            return f"seed list {path!r} does not exist or is no file"
    return None


def unusable_seed_files(settings, seeds: str | None = None,
                        queries: str | None = None) -> str | None:
    """The error message when the seed and query files ``-a`` names hold no http(s) URL at
    all (an empty file, a binary file given by mistake), or None; a distributed crawl
    (seeds pushed to Redis) may start from an empty seed file."""
    from wackycrawl.distributed.scheduler import frontier_mode

    paths = [path for path in (seeds, queries) if path]
    if not paths or frontier_mode(settings) == "redis":
        return None
    read = [read_seed_file(path) for path in paths]
    if any(found.urls for found in read):
        return None
    return read[0].refusal


def missing_seeds(settings, seeds: str | None = None, queries: str | None = None) -> str | None:
    """The error message when a crawl has no way to get seeds, or None: a seed or query file
    (``-a seeds=FILE``, ``-a queries=FILE``) is needed unless the crawl is distributed
    (``REDIS_URL`` or ``REDIS_HOST`` as a setting or in the environment: seeds are pushed)."""
    from wackycrawl.distributed.scheduler import frontier_mode

    if seeds or queries or frontier_mode(settings) == "redis":
        return None
    return ("the seeds spider needs a seed list: scrapy crawl seeds -a seeds=FILE (or a query-URL"
            " list: -a queries=FILE; in a distributed crawl, with REDIS_URL or REDIS_HOST set,"
            " seeds pushed by 'wackycrawl seeds push' suffice)")


class SeedsSpider(RedisMixin, scrapy.Spider):
    name = "seeds"

    def __init__(self, seeds: str | None = None, queries: str | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if missing := missing_seed_file(seeds, queries):
            raise FileNotFoundError(missing)
        self.seeds_path, self.queries_path = seeds, queries
        self.keyless: set[str] = set()  # engines whose API key is missing (logged once)
        self.link_extractor = LinkExtractor(unique=True)
        self._seed_lists = None

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        chosen = profiles.profile(settings.get("WACKY_PROFILE", ""))
        for name, value in chosen.items():  # over the project's defaults, under -s
            settings.set(name, value, priority="spider")
        if chosen:
            logger.info("WACKY_PROFILE=%s: %s", settings.get("WACKY_PROFILE"),
                        ", ".join(f"{k}={settings.get(k)}" for k in chosen))
        if not settings.get("USER_AGENT"):
            settings.set("USER_AGENT", f"{settings.get('WACKY_ROBOTS_TOKEN', 'wackycrawl')}/"
                         f"{__version__} (+{settings.get('WACKY_CONTACT')})", priority="spider")

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        if missing := missing_seeds(crawler.settings, kwargs.get("seeds"), kwargs.get("queries")):
            raise ValueError(missing)
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.follow_links = crawler.settings.getbool("WACKY_FOLLOW_LINKS", True)
        s = crawler.settings
        spider.engines = engines.configured(s.get("WACKY_SERP_SEARXNG_URL", ""),
                                            s.get("WACKY_SERP_TEMPLATE", ""))
        spider.serp_max = s.getint("WACKY_SERP_MAX_RESULTS", 10)
        spider.serp_delays = s.getdict("WACKY_SERP_DELAYS")
        spider.serp_max_bytes = s.getint("WACKY_SERP_MAX_BYTES", 2 * 1024 * 1024)
        spider.quota = serp.DomainQuota(s.getint("WACKY_SERP_MAX_PER_DOMAIN", 1))
        from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode

        if frontier_mode(s) == "redis":
            given = spider.max_idle_time  # a subclass's attribute or -a max_idle_time=N
            key = spider.redis_key or s.get("REDIS_START_URLS_KEY") or "%(name)s:start_urls"
            spider.redis_key = key % {"name": crawl_name(s, cls.name)}
            spider.setup_redis(crawler)
            if given is None and s.getpriority("MAX_IDLE_TIME_BEFORE_CLOSE") is None:
                spider.max_idle_time = None  # not given: WACKY_IDLE_CLOSE_SECONDS decides
            spider.server = connect(s)  # the frontier's client: it waits through outages
        return spider

    def _declared_engines(self, path: str) -> None:
        """Add the engines a seed or query file names (``wackycrawl queries`` writes the line)."""
        text = Path(path).read_bytes().decode("utf-8-sig", errors="replace").splitlines()
        found, errors = engines.declared(text)
        for message in errors:
            logger.warning("seed file %s: engine line ignored: %s", path, message)
        for engine in found:
            if engine not in self.engines:
                logger.info("seed file %s: search engine %s (%s)", path, engine.name,
                            engine.template)
                self.engines.append(engine)

    def spider_idle(self):
        """RedisMixin's idle handler: nothing to do, the frontier scheduler pulls seeds
        whenever its queue is empty and decides when the crawl is done."""

    def make_request_from_data(self, data: bytes) -> scrapy.Request | None:
        """RedisMixin's seed reader: JSON or a bare URL (:func:`seed_request`), no
        deprecation warning for bare URLs; None (a dead letter) for anything else."""
        return seed_request(data, self.redis_encoding or "utf-8")

    def seed_lists(self) -> tuple[list[str], list[tuple[str, engines.Engine, str]]]:
        """``(seed URLs, (query URL, engine, query) of each search query)`` of the seed and
        query files, each once, in file order; read (and bad lines logged) at the first call.
        The scope middleware derives its scope from the seed URLs when the spider opens,
        before any request is judged (a resumed JOBDIR crawl dequeues links first)."""
        if self._seed_lists is None:
            self._seed_lists = self._read_seed_lists()
        return self._seed_lists

    def _read_seed_lists(self):
        stats = self.crawler.stats
        urls, queries = [], []
        for path, is_query_file in ((self.seeds_path, False), (self.queries_path, True)):
            if not path:
                continue
            self._declared_engines(path)
            found = read_seed_file(path)
            lines, bad = found.urls, found.bad
            for message in bad_line_messages(found):
                logger.warning("%s", message)
            if bad:
                stats.inc_value("wacky/seeds/bad_line", len(bad))
            for url in lines:
                if hit := engines.find(self.engines, url):
                    queries.append((url, *hit))
                elif is_query_file:
                    logger.warning("query file %s: %s is no query URL of a known engine "
                                   "(a '# wackycrawl-engine:' line, WACKY_SERP_SEARXNG_URL, "
                                   "WACKY_SERP_TEMPLATE), skipped", path, url[:200])
                    stats.inc_value("wacky/seeds/not_a_query")
                else:
                    urls.append(url)
        urls, repeated = _once(urls, canonical_url)
        queries, repeated_queries = _once(queries, lambda q: q[0])
        if repeated := repeated + [q[0] for q in repeated_queries]:
            stats.inc_value("wacky/seeds/repeated", len(repeated))
            logger.info("%d repeated seeds are fetched once (wacky/seeds/repeated; first: %s)",
                        len(repeated), repeated[0][:200])
        stats.set_value("wacky/seeds/urls", len(urls))
        stats.set_value("wacky/seeds/queries", len(queries))
        if not urls and not queries and (self.seeds_path or self.queries_path):
            logger.error("seed file %s holds no usable URL", self.seeds_path or self.queries_path)
        return urls, queries

    async def start(self):
        urls, queries = self.seed_lists()
        for url in urls:  # the user's seeds claim their domains before any search result
            self.quota.take(url, force=True)
        self.crawler.signals.connect(self._seed_dropped, signal=signals.request_dropped)
        for url in urls:
            yield scrapy.Request(url, callback=self.parse, errback=self.page_failed,
                                 meta={SEED_META: True})
        for url, engine, query in queries:
            if (request := self.serp_request(url, engine, query)) is not None:
                yield request

    def _seed_dropped(self, request, spider=None) -> None:
        """A seed of the seed list the frontier already saw (a resumed or finished crawl):
        counted in ``wacky/seeds/already_seen``, the first one logged."""
        if not request.meta.get(SEED_META) or request.meta.get("redirect_urls"):
            return
        stats = self.crawler.stats
        if not stats.get_value("wacky/seeds/already_seen"):
            logger.info("seed %s was seen before in this crawl and is not fetched again (a "
                        "resumed or finished crawl fetches only what is new; a new crawl needs "
                        "a new JOBDIR, WACKY_CRAWL_NAME or SCHEDULER_FLUSH_ON_START=True; "
                        "counted in wacky/seeds/already_seen)", request.url[:200])
        stats.inc_value("wacky/seeds/already_seen")

    def serp_request(self, url: str, engine: engines.Engine, query: str):
        """The request of one result page, or None (logged, counted) without its API key."""
        try:
            headers = engine.headers(os.environ)
        except engines.MissingKeyError as exc:
            if engine.name not in self.keyless:  # once per engine, not once per query
                self.keyless.add(engine.name)
                logger.error("%s queries skipped: environment variable %s (API key) is not set "
                             "(counted in wacky/serp/no_key)", engine.name, exc.args[0])
            self.crawler.stats.inc_value("wacky/serp/no_key")
            return None
        # depth -1: the result URLs are seeds of depth 0 (DepthMiddleware adds 1)
        meta = {"wacky_serp": engine.name, "wacky_serp_template": engine.template,
                "wacky_seed_query": query, "depth": -1,
                "wacky_size_window": False,
                "dont_redirect": True, "download_maxsize": self.serp_max_bytes,
                "wacky_min_interval": float(self.serp_delays.get(engine.name, 0.0))}
        return scrapy.Request(url, callback=self.parse_serp, errback=self.serp_failed,
                              headers=headers, meta=meta, dont_filter=True)

    def parse_serp(self, response):
        """Result URLs of one SERP -> seed requests (never an item)."""
        engine = next(e for e in self.engines
                      if e.template == response.meta["wacky_serp_template"])
        query = response.meta["wacky_seed_query"]
        stats = self.crawler.stats
        stats.inc_value("wacky/serp/pages")
        try:
            found = serp.result_urls(engine.parser, response.body, response.url)
        except serp.SerpError as exc:
            logger.warning("%s result page for %r unreadable, no seeds: %s", engine.name, query,
                           exc)
            stats.inc_value("wacky/serp/bad_response")
            return
        kept, skipped = serp.select(found, self.quota, self.serp_max)
        stats.inc_value("wacky/serp/results", len(found))
        stats.inc_value("wacky/serp/seeds", len(kept))
        for reason, n in skipped.items():
            stats.inc_value(f"wacky/serp/skipped/{reason}", n)
        stats.set_value("wacky/serp/domains", len(self.quota.taken))
        stats.set_value("wacky/serp/max_per_domain", max(self.quota.taken.values(), default=0))
        logger.info("%s %r: %d results, %d seeds", engine.name, query, len(found), len(kept))
        for url in kept:
            yield scrapy.Request(url, callback=self.parse, errback=self.page_failed,
                                 meta={"wacky_seed_query": query, "wacky_seed": True})

    def serp_failed(self, failure):
        """A result page that did not arrive (HTTP error, redirect, network, robots.txt)."""
        request = failure.request
        logger.warning("%s result page for %r failed, no seeds: %s",
                       request.meta["wacky_serp"], request.meta["wacky_seed_query"],
                       failure.getErrorMessage()[:300])
        self.crawler.stats.inc_value("wacky/serp/failed")

    def page_failed(self, failure):
        """A page request that brought no response to ``parse``: a non-2xx answer is the
        drop ``http_<code>``, a download error after Scrapy's retries (DNS, refused,
        timeout, reset) ``download_error``, Redis unreachable in a distributed crawl (past
        the outage limit, or a forced shutdown in one) ``redis_unreachable``; a middleware's
        refusal (IgnoreRequest) was recorded by that middleware."""
        request = failure.request
        if failure.check(HttpError):
            response = failure.value.response
            drops.record(self.crawler, f"http_{response.status}", response.url,
                         f"HTTP {response.status}")
        elif failure.check(redis.RedisError):  # the distributed politeness after an outage
            drops.record(self.crawler, "redis_unreachable", request.url,
                         f"{failure.getErrorMessage()[:300]}; leased: fetched again once the "
                         "lease expires")
        elif not failure.check(IgnoreRequest):
            drops.record(self.crawler, "download_error", request.url,
                         f"{failure.type.__name__}: {failure.getErrorMessage()[:300]}")

    def parse(self, response):
        if not isinstance(response, HtmlResponse):  # e.g. an untyped body Scrapy reads as text
            self.crawler.stats.inc_value("wacky/spider/not_html")
            request = response.request  # None for a response built outside a crawl
            if request is None or request.meta.get("wacky_store", True):  # else dropped
                drops.record(self.crawler, "not_html", response.url,
                             f"Scrapy read it as {type(response).__name__}, not HtmlResponse")
            return
        if self.follow_links:
            query = response.meta.get("wacky_seed_query")
            meta = {"wacky_seed_query": query} if query else None
            for link in self._links(response):
                try:  # link.url is absolute: the page's <base href> is not read again
                    request = scrapy.Request(link.url, callback=self.parse,
                                             errback=self.page_failed, meta=meta)
                except ValueError:  # a link no Request takes: not followed
                    self.crawler.stats.inc_value("wacky/spider/bad_link")
                    continue
                yield request
        if response.meta.get("wacky_store", True):
            yield page_item(response)


    def _links(self, response) -> list:
        """The page's links; a ``<base href>`` that is no usable URL (a bad port or IPv6
        literal) is ignored, as browsers ignore it (``wacky/spider/bad_base``)."""
        try:
            return self.link_extractor.extract_links(response)
        except ValueError:
            self.crawler.stats.inc_value("wacky/spider/bad_base")
            try:
                return self.link_extractor.extract_links(
                    response.replace(body=_BASE_RE.sub(b"", response.body)))
            except ValueError:
                return []


_BASE_RE = re.compile(rb"<base\b[^>]*>", re.IGNORECASE)


def _once(seeds: list, key) -> tuple[list, list]:
    """(first occurrences, repeats) of ``seeds`` by ``key`` (a canonical URL), in order."""
    seen, once, repeated = set(), [], []
    for seed in seeds:
        k = key(seed)
        (repeated if k in seen else once).append(seed)
        seen.add(k)
    return once, repeated


def page_item(response) -> dict:
    """The item of one fetched page; keys are documented in ``wackycrawl.items``."""
    headers = [(k.decode("latin-1"), v.decode("latin-1"))
               for k, vs in response.headers.items() for v in vs]
    ctype = response.headers.get(b"Content-Type", b"-").decode("latin-1")
    return {
        "url": response.url,
        "ip": str(response.ip_address) if response.ip_address else "-",
        "fetched": datetime.now(UTC).strftime("%Y%m%d%H%M%S"),
        "status": response.status,
        "protocol": response.protocol or "HTTP/1.1",
        "headers": headers,
        "content_type": ctype,
        "body": response.body,
        "meta": {"Raw-Bytes": str(len(response.body)),
                 "Depth": str(response.meta.get("depth", 0)),
                 **({"Seed-Query": q} if (q := response.meta.get("wacky_seed_query")) else {})},
    }
