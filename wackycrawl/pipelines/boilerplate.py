"""Boilerplate stage: decoded HTML to clean paragraphs (:mod:`wackycrawl.text.extractors`).

Reads ``item["html"]``; sets ``item["paragraphs"]`` (list[str]) and in ``item["meta"]``:
``Extractor`` (the extractor's name), ``Clean-Chars`` (characters of clean text, the
paragraphs joined by newlines), ``Boilerplate-Share`` (share of the page's text characters
removed, 3 decimals) and, with host templates on, ``Template-Blocks`` (blocks removed as
template of the page's host); deletes ``item["html"]``. Drops ``no_text`` when no paragraph
is left.

Host templates (``WACKY_HOST_TEMPLATES``, :mod:`wackycrawl.text.templates`) are learnt as the
crawl goes: in this process (in a stage worker: that worker's pages) or, with ``REDIS_URL``,
in Redis for all workers of the crawl (:mod:`wackycrawl.distributed.templates`). A Redis
error leaves the page without template removal (logged, ``wacky/boilerplate/template_errors``).

Settings: ``WACKY_EXTRACTOR``, ``WACKY_MAX_LINK_DENSITY``, ``WACKY_MIN_OUTSIDE_WORDS``,
``WACKY_HOST_TEMPLATES``, ``WACKY_TEMPLATE_MIN_PAGES``, ``WACKY_TEMPLATE_MAX_BLOCKS``,
``WACKY_TEMPLATE_MAX_HOSTS``. Stats: ``wacky/boilerplate/pages``,
``wacky/boilerplate/html_chars`` and ``wacky/boilerplate/clean_chars`` (characters),
``wacky/boilerplate/template_blocks`` (blocks removed as host template).
"""

import logging
from urllib.parse import urlsplit

import redis

from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.distributed.templates import RedisTemplateStore
from wackycrawl.pipelines import drop
from wackycrawl.text.extractors import get_analyser
from wackycrawl.text.templates import TemplateStore

logger = logging.getLogger(__name__)
#: Spider name for the Redis key prefix when WACKY_CRAWL_NAME is unset (a stage sees the
#: settings only; the project's one spider is "seeds").
SPIDER_NAME = "seeds"


class BoilerplatePipeline:
    def __init__(self, stats, name: str, max_link_density: float, min_outside_words: int,
                 templates=None):
        self.stats = stats
        self.name = name
        self.analyse = get_analyser(name, max_link_density, min_outside_words)
        self.templates = templates if name != "bte" else None

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        templates = None
        if settings.getbool("WACKY_HOST_TEMPLATES", True):
            min_pages = settings.getint("WACKY_TEMPLATE_MIN_PAGES")
            max_blocks = settings.getint("WACKY_TEMPLATE_MAX_BLOCKS")
            if frontier_mode(settings) == "redis":
                keys = CrawlKeys(crawl_name(settings, SPIDER_NAME))
                templates = RedisTemplateStore(connect(settings), keys.prefix, min_pages,
                                               max_blocks)
            else:
                templates = TemplateStore(min_pages, max_blocks,
                                          settings.getint("WACKY_TEMPLATE_MAX_HOSTS"))
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
            except redis.RedisError as exc:
                logger.warning("host templates unavailable for %s: %s", url, exc)
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
