"""Boilerplate removal by name: ``"bte"`` (:mod:`wackycrawl.text.bte`, Finn et al. 2001) or
``"blocks"`` (:mod:`wackycrawl.text.blocks`, BTE plus a block-level pass; the default).

An extractor maps decoded HTML (str) to the clean text as a list of paragraphs (str).
"""

from collections.abc import Callable
from functools import partial

from wackycrawl.text import blocks, bte

EXTRACTORS = ("blocks", "bte")
DEFAULT = "blocks"


def get_extractor(
    name: str = DEFAULT,
    max_link_density: float = blocks.MAX_LINK_DENSITY,
    min_outside_words: int = blocks.MIN_OUTSIDE_WORDS,
) -> Callable[[str], list[str]]:
    """The extractor called ``name``; the thresholds apply to ``"blocks"`` only.

    Raises ValueError for an unknown name.
    """
    if name == "bte":
        return bte.extract
    if name == "blocks":
        return partial(
            blocks.extract, max_link_density=max_link_density, min_outside_words=min_outside_words
        )
    raise ValueError(f"unknown extractor {name!r}; choose one of {', '.join(EXTRACTORS)}")
