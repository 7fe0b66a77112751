"""The ``seeds`` spider: crawl from a seed list, one item per fetched HTML page in the size window.

Usage: ``scrapy crawl seeds -a seeds=FILE``. FILE holds one absolute http(s) URL per line;
blank lines and ``#`` comments are skipped, other bad lines are logged and counted
(``wacky/seeds/bad_line``). Links of every HTML page are followed (unless
WACKY_FOLLOW_LINKS is False: then exactly the seed list is fetched) within DEPTH_LIMIT and the
domains of WACKY_ALLOWED_DOMAINS (Scrapy's OffsiteMiddleware); non-HTML extensions are never
requested (Scrapy's LinkExtractor ``IGNORED_EXTENSIONS``). Pages below the size window are not
stored but their links are followed (``response.meta["wacky_store"]`` is set by
``wackycrawl.middlewares.sizewindow``).
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

import scrapy
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor

from wackycrawl import __version__

logger = logging.getLogger(__name__)


def read_seeds(path: str | Path) -> tuple[list[str], list[tuple[int, str]]]:
    """Read a seed file: returns (urls, bad) where bad is a list of (line number, line).

    Raises FileNotFoundError (with the path) when the file does not exist. The file is
    read as UTF-8; undecodable bytes are replaced (the line then fails validation).
    """
    urls, bad = [], []
    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = urlsplit(line)
        if parts.scheme in ("http", "https") and parts.hostname and " " not in line \
                and "\ufffd" not in line:
            urls.append(line)
        else:
            bad.append((n, line))
    return urls, bad


class SeedsSpider(scrapy.Spider):
    name = "seeds"

    def __init__(self, seeds: str | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not seeds:
            raise ValueError("the seeds spider needs a seed list: scrapy crawl seeds -a seeds=FILE")
        self.seeds_path = seeds
        self.link_extractor = LinkExtractor(unique=True)

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        if not settings.get("USER_AGENT"):
            settings.set("USER_AGENT", f"{settings.get('WACKY_ROBOTS_TOKEN', 'wackycrawl')}/"
                         f"{__version__} (+{settings.get('WACKY_CONTACT')})", priority="spider")

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.allowed_domains = crawler.settings.getlist("WACKY_ALLOWED_DOMAINS")
        spider.follow_links = crawler.settings.getbool("WACKY_FOLLOW_LINKS", True)
        return spider

    async def start(self):
        urls, bad = read_seeds(self.seeds_path)
        stats = self.crawler.stats
        for n, line in bad:
            logger.warning("seed file %s line %d is not an http(s) URL, skipped: %r",
                           self.seeds_path, n, line[:200])
            stats.inc_value("wacky/seeds/bad_line")
        stats.set_value("wacky/seeds/urls", len(urls))
        if not urls:
            logger.error("seed file %s holds no usable URL", self.seeds_path)
        for url in urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response):
        if not isinstance(response, HtmlResponse):
            self.crawler.stats.inc_value("wacky/spider/not_html")
            return
        if self.follow_links:
            for link in self.link_extractor.extract_links(response):
                yield response.follow(link, callback=self.parse)
        if response.meta.get("wacky_store", True):
            yield page_item(response)


def page_item(response) -> dict:
    """The item of one fetched page; keys are documented in ``wackycrawl.items``."""
    headers = [(k.decode("latin-1"), v.decode("latin-1"))
               for k, vs in response.headers.items() for v in vs]
    ctype = response.headers.get(b"Content-Type", b"-").decode("latin-1")
    return {
        "url": response.url,
        "ip": str(response.ip_address) if response.ip_address else "-",
        "fetched": datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S"),
        "status": response.status,
        "protocol": response.protocol or "HTTP/1.1",
        "headers": headers,
        "content_type": ctype,
        "body": response.body,
        "meta": {"Raw-Bytes": str(len(response.body)),
                 "Depth": str(response.meta.get("depth", 0))},
    }
