"""Boilerplate stage: decoded HTML to clean paragraphs (:mod:`wackycrawl.text.extractors`).

Reads ``item["html"]``; sets ``item["paragraphs"]`` (list[str]), ``item["meta"]["Extractor"]``
(the extractor's name) and ``item["meta"]["Clean-Chars"]`` (characters of clean text, the
paragraphs joined by newlines) and deletes ``item["html"]``. Drops ``no_text`` when no
paragraph is left. Settings: ``WACKY_EXTRACTOR``, ``WACKY_MAX_LINK_DENSITY``,
``WACKY_MIN_OUTSIDE_WORDS``. Stats: ``wacky/boilerplate/pages``,
``wacky/boilerplate/html_chars`` and ``wacky/boilerplate/clean_chars`` (characters).
"""

import logging

from wackycrawl.pipelines import drop
from wackycrawl.text.extractors import get_extractor

logger = logging.getLogger(__name__)


class BoilerplatePipeline:
    def __init__(self, stats, name: str, max_link_density: float, min_outside_words: int):
        self.stats = stats
        self.name = name
        self.extract = get_extractor(name, max_link_density, min_outside_words)

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        return cls(
            crawler.stats,
            settings.get("WACKY_EXTRACTOR"),
            settings.getfloat("WACKY_MAX_LINK_DENSITY"),
            settings.getint("WACKY_MIN_OUTSIDE_WORDS"),
        )

    def process_item(self, item):
        markup = item.pop("html", "")
        paragraphs = self.extract(markup)
        clean_chars = sum(map(len, paragraphs)) + max(len(paragraphs) - 1, 0)
        self.stats.inc_value("wacky/boilerplate/pages")
        self.stats.inc_value("wacky/boilerplate/html_chars", len(markup))
        if not paragraphs:
            logger.debug("no text left after boilerplate removal: %s", item.get("url"))
            raise drop(self.stats, "no_text", item, f"{len(markup)} characters of HTML")
        self.stats.inc_value("wacky/boilerplate/clean_chars", clean_chars)
        meta = item.setdefault("meta", {})
        meta["Extractor"] = self.name
        meta["Clean-Chars"] = str(clean_chars)
        item["paragraphs"] = paragraphs
        return item
