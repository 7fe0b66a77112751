"""Filters stage: length and porn/spam-word filters on the clean paragraphs.

Reads ``item["paragraphs"]`` (set by the boilerplate stage) and drops ``too_short`` or
``badwords`` (see :mod:`wackycrawl.text.filters`); kept items are counted under
``wacky/filters/kept``. Off (NotConfigured) when every threshold is 0.
"""

import logging

from scrapy.exceptions import NotConfigured

from wackycrawl.pipelines import drop
from wackycrawl.text.filters import TextFilter, load_badwords

logger = logging.getLogger(__name__)


class FiltersPipeline:
    def __init__(self, stats, text_filter: TextFilter):
        self.stats = stats
        self.filter = text_filter

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        min_words = settings.getint("WACKY_MIN_CLEAN_WORDS")
        min_types = settings.getint("WACKY_BADWORDS_MIN_TYPES")
        min_tokens = settings.getint("WACKY_BADWORDS_MIN_TOKENS")
        if not (min_words or min_types or min_tokens):
            raise NotConfigured()
        badwords = load_badwords(settings.get("WACKY_BADWORDS_FILE", "")) if (
            min_types or min_tokens) else frozenset()
        logger.info("filters: min %d words, %d bad words (drop at %d types or %d tokens)",
                    min_words, len(badwords), min_types, min_tokens)
        return cls(crawler.stats, TextFilter(min_words, badwords, min_types, min_tokens))

    def process_item(self, item):
        rejection = self.filter.check(item.get("paragraphs", []))
        if rejection:
            logger.debug("filtered %s: %s (%s)", item.get("url"), *rejection)
            raise drop(self.stats, rejection.reason, item, rejection.detail)
        self.stats.inc_value("wacky/filters/kept")
        return item
