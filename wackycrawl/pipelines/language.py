"""Language stage: function-word language identification and the connected-prose filter.

A thin adapter over :mod:`wackycrawl.text.funcwords` (every label checked by the n-gram
model) and :mod:`wackycrawl.text.langmix`. Reads ``item["paragraphs"]`` (the boilerplate-free
main text, never title or menus: case C13), sets ``item["language"]`` and ``item["meta"]``
``Language``, ``Language-Score``, ``Language-Method``, ``Language-Top2`` (``de:0.981,nl:0.012``,
the model's two best, or a close group's two candidates; ``-`` when the model was not asked),
``Language-Mix`` (``de:0.900,en:0.100``, share of paragraphs per language, ``und`` included;
``-`` without paragraphs; not for ``wrong_language`` drops), ``Language-Foreign`` (``3,7``: 0-based indexes into the item's
paragraphs in another language; ``-`` if none), ``Funcword-Share`` (``0.412``),
``Funcword-Types``, ``Funcword-Tokens`` (of the label's list, or the best list). Drops with
``wrong_language`` (not one of ``WACKY_LANGUAGES``, or undetermined when that is set) and
``not_prose`` (too few function words: WaCky's connected-prose filter; also when a page
outside ``WACKY_LANGUAGES`` that the model labels a language with a list, or cannot label, has
too few function words, since it is then no prose in any listed language; a language without
a list, which the prose test cannot judge, is kept without ``WACKY_LANGUAGES`` and else
``wrong_language``). The prose figures are those of the text read: reading stops
early once the decision and the prose test are settled (:mod:`wackycrawl.text.funcwords`).
Counts ``wacky/language/<lang>``, ``wacky/language/method/<method>`` and
``wacky/language/foreign_paragraphs``.
"""

import logging

from scrapy.exceptions import NotConfigured

from wackycrawl.pipelines import drop
from wackycrawl.text import funcwords, langmix, langmodel

logger = logging.getLogger(__name__)


class LanguagePipeline:
    """Settings: ``WACKY_LANGUAGES`` ("de", "en,de"; empty keeps every language),
    ``WACKY_LID_MIN_CHARS``, ``WACKY_LID_MIN_MARGIN``, ``WACKY_LANGID_MAX_CHARS``,
    ``WACKY_LID_CHECK_CHARS``,
    ``WACKY_LID_CHUNK_CHARS``, ``WACKY_LID_STOP_MARGIN``, ``WACKY_LID_AGREE_MIN_PROB``,
    ``WACKY_LID_MODEL_MIN_PROB``, ``WACKY_LID_CLOSE_MIN_SHARE``, ``WACKY_LID_CLOSE_GROUP_SHARES``,
    ``WACKY_LID_CLOSE_MIN_MARKERS``,
    ``WACKY_LID_CLOSE_PURIST``, ``WACKY_LID_CLOSE_MIXED_RATIO``,
    ``WACKY_LID_CLOSE_ONE_MARKER_SHARES``,
    ``WACKY_LID_MIX_MIN_TOKENS``, ``WACKY_LID_MIX_LANGID_MIN_CHARS``,
    ``WACKY_MIN_FUNCWORD_TYPES``, ``WACKY_MIN_FUNCWORD_TOKENS``,
    ``WACKY_MIN_FUNCWORD_RATIO``; ``WACKY_LANGUAGE_ENABLED=False`` turns the stage off.
    A code in ``WACKY_LANGUAGES`` that no list and no langid.py class knows, or a name in
    ``WACKY_LID_CLOSE_GROUP_SHARES``, ``WACKY_LID_CLOSE_MIXED_RATIO`` or
    ``WACKY_LID_CLOSE_ONE_MARKER_SHARES`` that is no
    close-language group, raises ``ValueError`` when the crawler starts."""

    def __init__(self, stats, targets, identifier, prose, mix=None):
        self.stats = stats
        self.targets = targets
        self.identifier = identifier
        self.prose = prose
        self.mix = mix or {}

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        if not s.getbool("WACKY_LANGUAGE_ENABLED", True):
            raise NotConfigured()
        try:
            targets = funcwords.parse_languages(s.get("WACKY_LANGUAGES", ""))
        except ValueError as exc:
            raise ValueError(f"WACKY_LANGUAGES: {exc}") from None
        for lang in targets:
            if not funcwords.has_list(lang):
                logger.warning("no function-word list for %r: langid.py alone decides it "
                               "and the connected-prose filter cannot judge it", lang)
        prose = {
            "min_types": s.getint("WACKY_MIN_FUNCWORD_TYPES", funcwords.MIN_FUNCWORD_TYPES),
            "min_tokens": s.getint("WACKY_MIN_FUNCWORD_TOKENS", funcwords.MIN_FUNCWORD_TOKENS),
            "min_ratio": s.getfloat("WACKY_MIN_FUNCWORD_RATIO", funcwords.MIN_FUNCWORD_RATIO),
        }
        group_shares = s.getdict("WACKY_LID_CLOSE_GROUP_SHARES", funcwords.CLOSE_GROUP_SHARES)
        try:
            funcwords.group_shares(group_shares)
        except ValueError as exc:
            raise ValueError(f"WACKY_LID_CLOSE_GROUP_SHARES: {exc}") from None
        mixed_ratio = s.getdict("WACKY_LID_CLOSE_MIXED_RATIO", funcwords.CLOSE_MIXED_RATIO)
        try:
            funcwords.group_ratios(mixed_ratio)
        except ValueError as exc:
            raise ValueError(f"WACKY_LID_CLOSE_MIXED_RATIO: {exc}") from None
        one_marker = s.getdict("WACKY_LID_CLOSE_ONE_MARKER_SHARES",
                               funcwords.CLOSE_ONE_MARKER_SHARES)
        try:
            funcwords.group_shares(one_marker)
        except ValueError as exc:
            raise ValueError(f"WACKY_LID_CLOSE_ONE_MARKER_SHARES: {exc}") from None
        identifier = funcwords.Identifier(
            min_chars=s.getint("WACKY_LID_MIN_CHARS", funcwords.MIN_CHARS),
            min_margin=s.getfloat("WACKY_LID_MIN_MARGIN", funcwords.MIN_MARGIN),
            langid_max_chars=s.getint("WACKY_LANGID_MAX_CHARS", funcwords.LANGID_MAX_CHARS),
            check_chars=s.getint("WACKY_LID_CHECK_CHARS", funcwords.CHECK_CHARS),
            chunk_chars=s.getint("WACKY_LID_CHUNK_CHARS", funcwords.CHUNK_CHARS),
            stop_margin=s.getfloat("WACKY_LID_STOP_MARGIN", funcwords.STOP_RATIO_MARGIN),
            agree_min_prob=s.getfloat("WACKY_LID_AGREE_MIN_PROB", funcwords.AGREE_MIN_PROB),
            model_min_prob=s.getfloat("WACKY_LID_MODEL_MIN_PROB", funcwords.MODEL_MIN_PROB),
            close_min_share=s.getfloat("WACKY_LID_CLOSE_MIN_SHARE", funcwords.CLOSE_MIN_SHARE),
            close_group_shares=group_shares,
            close_min_markers=s.getint("WACKY_LID_CLOSE_MIN_MARKERS",
                                       funcwords.CLOSE_MIN_MARKERS),
            close_purist=tuple(s.getlist("WACKY_LID_CLOSE_PURIST", funcwords.CLOSE_PURIST)),
            close_mixed_ratio=mixed_ratio,
            close_one_marker_shares=one_marker,
            **prose,
        )
        mix = {
            "min_tokens": s.getint("WACKY_LID_MIX_MIN_TOKENS", langmix.MIX_MIN_TOKENS),
            "langid_min_chars": s.getint("WACKY_LID_MIX_LANGID_MIN_CHARS",
                                         langmix.MIX_LANGID_MIN_CHARS),
        }
        return cls(crawler.stats, targets, identifier, prose, mix)

    def warm_up(self) -> None:
        """Load the n-gram model now (about 0.5 s of CPU, 100 MB), not on the first page:
        the stage runner calls this where the stage runs, before the crawl starts."""
        langmodel.rank("warm up")

    def process_item(self, item):
        paragraphs = item.get("paragraphs") or []
        index = [i for i, p in enumerate(paragraphs) if isinstance(p, str)]
        if len(index) < len(paragraphs):
            logger.warning("paragraphs are not all str in %s; non-str skipped", item.get("url"))
        texts = [paragraphs[i] for i in index]
        result = self.identifier.identify("\n".join(texts))
        self.stats.inc_value(f"wacky/language/{result.lang}")
        self.stats.inc_value(f"wacky/language/method/{result.method}")
        item["language"] = result.lang
        meta = item.setdefault("meta", {})
        meta["Language"] = result.lang
        meta["Language-Score"] = f"{result.score:.3f}"
        meta["Language-Method"] = result.method
        meta["Language-Top2"] = _pairs(result.top2)
        meta["Funcword-Share"] = f"{result.fw_ratio:.3f}"
        meta["Funcword-Types"] = str(result.fw_types)
        meta["Funcword-Tokens"] = str(result.fw_tokens)
        found = funcwords.rejection(result, self.targets, **self.prose)
        if not found or found[0] != "wrong_language":
            # The paragraphs' mix only for documents in a wanted language (it reads them all).
            mix = langmix.mix(texts, result.lang, self.identifier, **self.mix)
            if mix.foreign:
                self.stats.inc_value("wacky/language/foreign_paragraphs", len(mix.foreign))
            meta["Language-Mix"] = _pairs(mix.shares)
            meta["Language-Foreign"] = ",".join(str(index[i]) for i in mix.foreign) or "-"
        if found:
            raise drop(self.stats, found[0], item, found[1])
        return item


def _pairs(pairs) -> str:
    """``(("de", 0.981), ("nl", 0.012))`` -> ``"de:0.981,nl:0.012"``; empty -> ``"-"``."""
    return ",".join(f"{lang}:{share:.3f}" for lang, share in pairs) or "-"
