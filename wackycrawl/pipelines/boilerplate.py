"""Boilerplate stage: decoded HTML to clean paragraphs (:mod:`wackycrawl.text.extractors`).

Reads ``item["html"]``; sets ``item["paragraphs"]`` (list[str]) and in ``item["meta"]``:
``Extractor`` (the extractor's name), ``Clean-Chars`` (characters of clean text, the
paragraphs joined by newlines), ``Boilerplate-Share`` (share of the page's text characters
removed, 3 decimals) and, with host templates on, ``Template-Blocks`` (blocks removed as
template of the page's host); deletes ``item["html"]``. Drops ``no_text`` when no paragraph
is left.

Host templates (``WACKY_HOST_TEMPLATES``, :mod:`wackycrawl.text.templates`) are learnt as the
crawl goes: with ``REDIS_URL`` in Redis for all workers of the crawl
(:mod:`wackycrawl.distributed.templates`); with ``JOBDIR`` (the local frontier) in
``JOBDIR/wacky-templates.sqlite`` for all stage workers of the crawl and its resumed runs
(:mod:`wackycrawl.distributed.localtemplates`); else in this process (in a stage worker: that
worker's pages). A Redis or SQLite error (an outage; a locked, damaged or unwritable file)
leaves the page without template removal (``wacky/boilerplate/template_errors``; logged at
WARNING when the error differs from the last one logged, else at DEBUG).

Settings: ``WACKY_EXTRACTOR``, ``WACKY_MAX_LINK_DENSITY``, ``WACKY_MIN_OUTSIDE_WORDS``,
``WACKY_HOST_TEMPLATES``, ``WACKY_TEMPLATE_MIN_PAGES``, ``WACKY_TEMPLATE_MAX_BLOCKS``,
``WACKY_TEMPLATE_MAX_HOSTS``, ``WACKY_TEMPLATE_BUSY_SECONDS``. Stats:
``wacky/boilerplate/pages``, ``wacky/boilerplate/html_chars`` and
``wacky/boilerplate/clean_chars`` (characters),
``wacky/boilerplate/template_blocks`` (blocks removed as host template),
``wacky/boilerplate/template_errors`` (pages left without templates by a store error).
"""

import logging
import sqlite3
from urllib.parse import urlsplit

import redis

from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.localtemplates import LocalTemplateStore
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.distributed.templates import RedisTemplateStore
from wackycrawl.pipelines import SPIDER_NAME, drop
from wackycrawl.text.extractors import get_analyser
from wackycrawl.text.templates import TemplateStore

logger = logging.getLogger(__name__)


class BoilerplatePipeline:
    def __init__(self, stats, name: str, max_link_density: float, min_outside_words: int,
                 templates=None):
        self.stats = stats
        self.name = name
        self.analyse = get_analyser(name, max_link_density, min_outside_words)
        self.templates = templates if name != "bte" else None
        self._last_error = ""

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        templates = None
        if settings.getbool("WACKY_HOST_TEMPLATES", True):
            min_pages = settings.getint("WACKY_TEMPLATE_MIN_PAGES")
            max_blocks = settings.getint("WACKY_TEMPLATE_MAX_BLOCKS")
            max_hosts = settings.getint("WACKY_TEMPLATE_MAX_HOSTS")
            mode = frontier_mode(settings)
            if mode == "redis":
                keys = CrawlKeys(crawl_name(settings, SPIDER_NAME))
                templates = RedisTemplateStore(connect(settings), keys.prefix, min_pages,
                                               max_blocks)
            elif mode == "local" and settings.get("JOBDIR"):
                templates = LocalTemplateStore.in_jobdir(
                    settings.get("JOBDIR"), min_pages, max_blocks, max_hosts,
                    settings.getfloat("WACKY_TEMPLATE_BUSY_SECONDS"))
            else:
                templates = TemplateStore(min_pages, max_blocks, max_hosts)
        return cls(
            crawler.stats,
            settings.get("WACKY_EXTRACTOR"),
            settings.getfloat("WACKY_MAX_LINK_DENSITY"),
            settings.getint("WACKY_MIN_OUTSIDE_WORDS"),
            templates,
        )

    def _lookup(self, url: str):
        """The page's template lookup for :func:`wackycrawl.text.blocks.analyse`, or None."""
        host = urlsplit(url).hostname if self.templates is not None and url else None
        if not host:
            return None

        def lookup(hashes: list[int]) -> set[int]:
            try:
                return self.templates.learn(host, hashes)
            except (redis.RedisError, sqlite3.Error) as exc:
                message = f"{type(exc).__name__}: {exc}"
                level = logging.WARNING if message != self._last_error else logging.DEBUG
                logger.log(level, "host templates unavailable for %s (the page keeps its "
                           "template blocks): %s", url, message)
                self._last_error = message
                self.stats.inc_value("wacky/boilerplate/template_errors")
                return set()

        return lookup

    def process_item(self, item):
        markup = item.pop("html", "")
        result = self.analyse(markup, self._lookup(item.get("url", "")))
        paragraphs = result.paragraphs
        self.stats.inc_value("wacky/boilerplate/pages")
        self.stats.inc_value("wacky/boilerplate/html_chars", len(markup))
        if not paragraphs:
            logger.debug("no text left after boilerplate removal: %s", item.get("url"))
            raise drop(self.stats, "no_text", item, f"{len(markup)} characters of HTML")
        clean_chars = result.clean_chars
        self.stats.inc_value("wacky/boilerplate/clean_chars", clean_chars)
        meta = item.setdefault("meta", {})
        meta["Extractor"] = self.name
        meta["Clean-Chars"] = str(clean_chars)
        meta["Boilerplate-Share"] = f"{result.boilerplate_share:.3f}"
        if self.templates is not None:
            meta["Template-Blocks"] = str(result.template_blocks)
            self.stats.inc_value("wacky/boilerplate/template_blocks", result.template_blocks)
        item["paragraphs"] = paragraphs
        return item
