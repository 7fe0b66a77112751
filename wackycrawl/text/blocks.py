"""Block-level boilerplate removal on top of BTE: the ``blocks`` extractor.

BTE (Finn et al. 2001, :mod:`wackycrawl.text.bte`) keeps one contiguous span, so it loses
text on pages with several content blocks and cuts articles at tag-heavy lists (CleanEval,
Baroni et al. 2008; jusText issue #24). This extractor:

1. :func:`segment` the page into blocks (one per block-level element, like BTE's paragraphs),
   counting words and words inside ``<a>`` (link words) per block;
2. finds a BTE span (:func:`wackycrawl.text.bte.best_span`) over re-weighted pieces: inline
   and list tags (:data:`NEUTRAL_ELEMENTS`) cost nothing and link words score 0, so lists
   inside an article do not cut it while link lists (menus: two ``<a>`` tags per item) do;
3. :func:`classify` blocks: link-dense blocks are boilerplate; blocks inside the span are
   content; blocks outside it are content only if long (a second content area); a heading
   is content exactly when the block after it is (the context rule of jusText, Pomikálek
   2011), so "Popular posts" over a link list goes with the list.
"""

from dataclasses import dataclass

from wackycrawl.text import bte

#: Tags that do not count against the span (inline formatting and list structure; not ``<a>``).
NEUTRAL_ELEMENTS = frozenset(
    [
        "abbr", "b", "big", "br", "cite", "code", "dd", "dl", "dt", "em", "font", "i",
        "kbd", "li", "mark", "ol", "q", "s", "small", "span", "strong", "sub", "sup", "tt",
        "u", "ul", "var",
    ]
)
#: Score of a word inside ``<a>``: neither text (+1) nor tag (-1) evidence.
LINK_WORD_WEIGHT = 0
#: A block with more than this share of its words inside links is boilerplate (jusText: 0.2).
MAX_LINK_DENSITY = 0.2
#: Words a block outside the span needs to be kept as a second content area (no published
#: value: 30 words, the shortest WaCky document, scored best on the CleanEval dev set).
MIN_OUTSIDE_WORDS = 30
HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])


@dataclass
class Block:
    """One block-level element's text: ``words`` and ``link_words`` are counts of words."""

    text: str
    words: int
    link_words: int
    heading: bool
    start: int  # index of its first piece
    end: int  # index after its last piece


def segment(parts: list[str]) -> tuple[list[Block], list[int]]:
    """Blocks of the pieces (from :func:`wackycrawl.text.bte.pieces`), empty ones left out,
    and each piece's BTE score (one pass): words +1, link words :data:`LINK_WORD_WEIGHT`,
    :data:`NEUTRAL_ELEMENTS` tags 0, other tags -1."""
    blocks: list[Block] = []
    scores: list[int] = []
    chunks: list[str] = []
    words = link_words = 0
    in_link = heading = False
    first = 0
    for k, piece in enumerate(parts):
        if k % 2 == 0:
            n = len(piece.split())
            scores.append(n * (LINK_WORD_WEIGHT if in_link else bte.WORD_WEIGHT))
            if n:
                if not chunks:
                    first = k
                chunks.append(piece)
                words += n
                link_words += n if in_link else 0
            continue
        name = bte.tag_name(piece)
        scores.append(0 if name in NEUTRAL_ELEMENTS else bte.TAG_WEIGHT)
        if name == "a":
            in_link = piece[1] != "/"
        elif name in bte.BLOCK_ELEMENTS:
            if chunks:
                blocks.append(
                    Block(bte.normalise("".join(chunks)), words, link_words, heading, first, k)
                )
            chunks, words, link_words = [], 0, 0
            heading = name in HEADINGS and piece[1] != "/"
    if chunks:
        blocks.append(
            Block(bte.normalise("".join(chunks)), words, link_words, heading, first, len(parts))
        )
    return blocks, scores


def classify(
    blocks: list[Block],
    span: tuple[int, int],
    max_link_density: float = MAX_LINK_DENSITY,
    min_outside_words: int = MIN_OUTSIDE_WORDS,
) -> list[bool]:
    """Content (True) or boilerplate (False) for each block; ``span`` in piece indexes."""
    good = []
    for b in blocks:
        if b.link_words > max_link_density * b.words:
            good.append(False)
        elif b.end > span[0] and b.start < span[1]:
            good.append(True)
        else:
            good.append(b.words >= min_outside_words)
    for i in range(len(blocks) - 1, -1, -1):
        if blocks[i].heading:
            good[i] = i + 1 < len(blocks) and good[i + 1] and blocks[i].link_words == 0
    return good


def extract(
    markup: str,
    max_link_density: float = MAX_LINK_DENSITY,
    min_outside_words: int = MIN_OUTSIDE_WORDS,
) -> list[str]:
    """Main text of an HTML page (str, already decoded) as a list of paragraphs.

    ``max_link_density`` is a share of a block's words, ``min_outside_words`` a count of
    words. Never raises on malformed markup; returns ``[]`` when nothing is content.
    """
    blocks, scores = segment(bte.pieces(bte.strip_invisible(markup)))
    span = bte.best_span(scores)
    keep = classify(blocks, span, max_link_density, min_outside_words)
    return [b.text for b, ok in zip(blocks, keep) if ok]
