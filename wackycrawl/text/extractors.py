"""Boilerplate removal by name: ``"bte"`` (:mod:`wackycrawl.text.bte`, Finn et al. 2001),
``"blocks"`` (:mod:`wackycrawl.text.blocks`, BTE plus a block-level pass; the default: all
running text a corpus wants, readers' comments included, CleanEval's definition) or
``"article"`` (the same pass in article mode: the article only, without comments, captions,
the title heading or second content areas, as the gold of article-extraction benchmarks).

An extractor maps decoded HTML (str) to the clean text as a list of paragraphs (str); an
analyser maps it to a :class:`wackycrawl.text.blocks.Extraction` (paragraphs, the page's text
characters, blocks removed as host template), optionally with a host-template lookup.
"""

from collections.abc import Callable
from functools import partial

from wackycrawl.text import blocks, bte
from wackycrawl.text.blocks import Extraction

EXTRACTORS = ("blocks", "article", "bte")
DEFAULT = "blocks"


def get_extractor(
    name: str = DEFAULT,
    max_link_density: float = blocks.MAX_LINK_DENSITY,
    min_outside_words: int = blocks.MIN_OUTSIDE_WORDS,
) -> Callable[[str], list[str]]:
    """The extractor called ``name``; the thresholds apply to ``"blocks"`` and ``"article"``.

    Raises ValueError for an unknown name.
    """
    if name == "bte":
        return bte.extract
    _check(name)
    return partial(blocks.extract, max_link_density=max_link_density,
                   min_outside_words=min_outside_words, article=name == "article")


def _bte_analyse(markup: str, templates=None) -> Extraction:
    parts = bte.pieces(bte.strip_invisible(markup))
    everything = bte.paragraphs(parts)
    text_chars = sum(map(len, everything)) + max(len(everything) - 1, 0)
    return Extraction(bte.paragraphs(parts, *bte.best_span(bte.weights(parts))), text_chars)


def get_analyser(
    name: str = DEFAULT,
    max_link_density: float = blocks.MAX_LINK_DENSITY,
    min_outside_words: int = blocks.MIN_OUTSIDE_WORDS,
) -> Callable[..., Extraction]:
    """``analyse(markup, templates=None) -> Extraction`` of the extractor called ``name``
    (``templates`` as in :func:`wackycrawl.text.blocks.analyse`; ``"bte"`` ignores it).

    Raises ValueError for an unknown name.
    """
    if name == "bte":
        return _bte_analyse
    _check(name)
    return partial(blocks.analyse, max_link_density=max_link_density,
                   min_outside_words=min_outside_words, article=name == "article")


def _check(name: str) -> None:
    if name not in EXTRACTORS:
        raise ValueError(f"unknown extractor {name!r}; choose one of {', '.join(EXTRACTORS)}")
