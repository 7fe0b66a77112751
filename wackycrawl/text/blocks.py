"""Block-level boilerplate removal on top of BTE: the ``blocks`` extractor.

BTE (Finn et al. 2001, :mod:`wackycrawl.text.bte`) keeps one contiguous span, so it loses
text on pages with several content blocks and cuts articles at tag-heavy lists (CleanEval,
Baroni et al. 2008; jusText issue #24). This extractor:

1. :func:`segment` the page into blocks (one per block-level element, like BTE's paragraphs),
   counting words and words inside ``<a>`` (link words) per block, and marking blocks inside
   an element whose ``class``/``id`` names boilerplate (:mod:`wackycrawl.text.cues`);
2. finds a BTE span (:func:`wackycrawl.text.bte.best_span`) over re-weighted pieces: inline
   and list tags (:data:`NEUTRAL_ELEMENTS`) cost nothing and link words score 0, so lists
   inside an article do not cut it while link lists (menus: two ``<a>`` tags per item) do;
   words of host-template blocks (:mod:`wackycrawl.text.templates`) score as tags, unless
   they hold :data:`TEMPLATE_MAX_PROSE_SHARE` of the page's prose (a copy of another page of
   the host: its template is ignored, so the duplicate check sees the whole text);
3. :func:`classify` blocks: link-dense blocks (not a sentence inside the span with a link or
   two, a reference: :data:`SENTENCE_LINKS`), runs of links (a link every
   :data:`LINK_LIST_WORDS` words or fewer: a list of names, a pager; not a sentence around
   them, :data:`LINK_SENTENCE_WORDS`), host-template blocks and cue blocks (consent
   banners, newsletter boxes, legal footers, advertisement labels, "related articles"
   sections; also inside the span) are boilerplate; other blocks inside the span are
   content (and so are a data table's cells inside it that are one link between kept cells,
   :data:`CELL_LINKS`); blocks outside it are content only if long (a second content area; not the
   excerpts of a stream of other stories under their linked titles, :data:`MIN_EXCERPTS`) or
   a sentence next to content (:data:`NEAR_PROSE_WORDS`); a heading
   is content exactly when the block after it is (advertisement labels skipped) and at most
   half of its words are links ("History [edit]" is a heading, a linked teaser's title is
   not; the context rule of jusText, Pomikálek 2011; a hatnote between a heading inside the
   span and its text, "Main article: Firefox", is skipped: :data:`HEADING_NOTE_WORDS`). When comment sections hold more than
   :data:`COMMENT_SPAN_SHARE` of the span's words (a long thread outweighed a short article),
   the span found with them set aside counts as inside too. Copies of a caption (a block
   of :data:`REPEAT_WORDS` words or more in a ``<figcaption>``, caption or gallery that repeats an
   earlier one word for word: a carousel's slides) go, the first copy stays. When the span
   holds words but the rules would keep nothing of it, its blocks are kept, and when there
   is no span (all text in links) the blocks of ``PROSE_WORDS`` words or more outside cues
   are, and those of a link that wraps several blocks (prose wrapped in a link is kept, a
   menu of short links is not);
   a boilerplate-named element that wraps the article (:func:`unname_wrappers`) loses its
   name when the names would leave the page without prose, and so do named elements that
   hold nearly all of the page's words (:func:`unwrap_page`); the named elements nested in
   a wrapper (a comment section, a banner) keep theirs.

The default keeps all running text a corpus wants, readers' comments included (CleanEval's
definition, Baroni et al. 2008). ``article=True`` keeps the article only, the definition of
article-extraction benchmarks (trafilatura's, scrapinghub's): comment sections are
boilerplate, and so are bylines and captions named by class/id
(:data:`wackycrawl.text.cues.ARTICLE_WORDS`, :data:`~wackycrawl.text.cues.COMMENT_PHRASES`),
:data:`FIGURES` (captions, credits), a heading that repeats the page's ``<title>``
(readability's rule) and the blocks outside the span, except long ones
(``min_outside_words``) inside the innermost container element that holds the whole span
(:func:`span_container`: a Wikipedia lead paragraph before the infobox and contents).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from hashlib import blake2b
from itertools import chain, count, repeat

from wackycrawl.text import bte, cues

#: Tags that do not count against the span (inline formatting and list structure; not ``<a>``).
NEUTRAL_ELEMENTS = frozenset(
    [
        "abbr", "b", "big", "br", "cite", "code", "dd", "dl", "dt", "em", "font", "i",
        "kbd", "li", "mark", "ol", "q", "s", "small", "span", "strong", "sub", "sup", "tt",
        "u", "ul", "var",
    ]
) | frozenset(  # MathML presentation markup: a formula in a sentence is a run of its text
    [
        "math", "menclose", "mfenced", "mfrac", "mi", "mmultiscripts", "mn", "mo", "mover",
        "mpadded", "mphantom", "mroot", "mrow", "ms", "mspace", "msqrt", "mstyle", "msub",
        "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover",
        "semantics",
    ]
) | frozenset(  # MathJax 3's rendering of a formula, <mjx-container>, <mjx-mi>... (the names
    ["mjx"]     # up to the first hyphen, as bte.tag_names reads them): as its MathML
)
#: Score of a word inside ``<a>``: neither text (+1) nor tag (-1) evidence.
LINK_WORD_WEIGHT = 0
#: A block with more than this share of its words inside links is boilerplate (jusText: 0.2).
MAX_LINK_DENSITY = 0.2
#: A block of at least PROSE_WORDS words is prose with inline links (Wikipedia, news) unless
#: more than MAX_PROSE_LINK_DENSITY of its words are in links (no published values; chosen
#: on the dev halves of the devset, benchmarks/boilerplate_eval.py).
PROSE_WORDS = 10
MAX_PROSE_LINK_DENSITY = 0.5
#: Words a block outside the span needs to be kept as a second content area (no published
#: value: 30 words, the shortest WaCky document, scored best on the CleanEval dev set).
MIN_OUTSIDE_WORDS = 30
#: A block whose link density is above MAX_LINK_DENSITY and that has a link for every
#: LINK_LIST_WORDS words or fewer is a list of links run together (a tag cloud, a list of
#: names, a pager), however long: prose with inline links has far fewer links per word
#: (no published value).
LINK_LIST_WORDS = 3
#: ...unless it reads as a sentence: it ends with ".", "!" or "?" and holds this many
#: lower-case words of three letters or more, and as many words outside links ("The members
#: were Anna, Ben, Carl."; no published value: a verb and a noun around the names).
LINK_SENTENCE_WORDS = 2
#: A block inside the span that reads as a sentence with at most this many links is content
#: however many of its words are in them (no published value: a reference's back link and
#: its cited title; a menu or a list of names has more).
SENTENCE_LINKS = 2
#: Share of a page's words that must lie outside elements named as boilerplate for the
#: outermost names to apply (no published value; :func:`unwrap_page`).
MIN_UNNAMED_SHARE = 0.2
#: A boilerplate-named element holding WRAPPER_SHARE of the words of the page's BTE span
#: (found before cues apply) and MIN_WRAPPER_PARAGRAPHS prose blocks there wraps the main
#: text, its name is ignored (:func:`unname_wrappers`; no published values: a majority, and
#: more paragraphs than a banner or footer has).
WRAPPER_SHARE = 0.5
MIN_WRAPPER_PARAGRAPHS = 3
#: A page whose prose blocks (:data:`PROSE_WORDS` words or more, link density at most
#: :data:`MAX_LINK_DENSITY`) are host-template blocks for at least this share of their words
#: repeats another page of its host (a copy, an edited copy, the same page under another URL):
#: its template is ignored, so the duplicate check sees the whole text (host templates are
#: menus, footers, banners: short or link-dense blocks; no published value, a majority).
TEMPLATE_MAX_PROSE_SHARE = 0.5
#: When more than this share of the words of the BTE span lie in comment sections (class/id
#: ``comments``, ``disqus``...), the span found with the comment sections set aside (the
#: article) is kept too: a long thread drew the span away from a short article (no published
#: value: a majority).
COMMENT_SPAN_SHARE = 0.5
#: A block of at least this many words in a caption or a gallery that repeats an
#: earlier one of them word for word is a copy (a carousel repeats its captions), dropped in
#: the default mode (:func:`_drop_repeated_captions`; no published value: a caption's
#: shortest sentence).
REPEAT_WORDS = 5
#: Elements whose repeated blocks are copies of a caption (with class/id caption, gallery):
#: not ``<figure>``, which also holds quoted text, a poem and its refrain.
CAPTION_ELEMENTS = frozenset(["figcaption"])
#: Article mode: elements whose text (captions, credits) is not the article's.
FIGURES = frozenset(["figure", "figcaption"])
HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])
#: Characters per word in text whose "words" are long runs without spaces (Chinese,
#: Japanese, Thai: a chunk's average token, whitespace left out, longer than
#: :data:`LONG_TOKEN` characters).
CHARS_PER_WORD = 3
LONG_TOKEN = 12
#: Named elements open at once that segment() follows; one opened deeper counts as unnamed
#: (no published value: the devset's pages nest at most 11; a page of thousands of unclosed
#: named divs cost time cubic in their number: 19 s of CPU for 2,000).
MAX_NAMED_DEPTH = 32
#: A block outside the span of at least this many words that reads as a sentence (a
#: paragraph of its own, shorter than MIN_OUTSIDE_WORDS) is content when the block before
#: or after it is (jusText's context rule for short blocks near good ones, Pomikálek 2011;
#: no published value: :data:`PROSE_WORDS`).
NEAR_PROSE_WORDS = 10
#: A note of at most this many words between a heading inside the span and its text (a
#: hatnote: a label, a colon and a link, "Main article: Firefox"), dropped as link-dense, does
#: not decide the heading's class: the block after it does (one such note only; no published
#: value: a label's length, :data:`wackycrawl.text.cues.LABEL_WORDS`).
HEADING_NOTE_WORDS = 5
#: ...whose label before the colon has at most this many words (outside links: the rest of
#: the note is links; no published value: "Main article", "See also", "Further information").
NOTE_LABEL_WORDS = 2
#: A teaser card (:func:`teasers`) holds at most this many words after its linked title (an
#: excerpt of a sentence or three, a byline, a date; no published value: the devset's
#: cards hold 20 to 80; a blog index's posts, running text CleanEval keeps, are longer).
TEASER_MAX_WORDS = 100
#: A teaser card in one block (a list item: a linked title, then the story's opening words cut
#: off by an ellipsis) has a title of at least this many link words (a contents list's
#: one-word section links, "Development: A look at GlusterFS; ...", are not titles; no
#: published value).
TEASER_TITLE_WORDS = 3
#: A block outside the span kept as a second content area (MIN_OUTSIDE_WORDS) of at most
#: TEASER_MAX_WORDS words right after a block wholly in links of TEASER_TITLE_WORDS words or
#: more (a story's linked title) is a teaser's excerpt when the page holds at least this many
#: of them (a stream of other stories: section, linked title, excerpt, related links; one
#: alone may be the page's own post under a linked title; no published value).
MIN_EXCERPTS = 2
#: A table cell inside the span wholly in this many links, between two kept blocks, is
#: content (a data table's linked names and titles; no published value: one link, a cell's
#: entry, not a list of links; :func:`_keep_linked_cells`).
CELL_LINKS = 1
TABLE_CELLS = frozenset(["td", "th"])
_ELLIPSES = ("...", "…", "[…]", "[...]")
_NESTING = cues.CONTAINERS | {"article", "header", "main"}
# Tags that change the state of segment() (links, blocks, nesting, cue containers).
_STRUCTURAL = frozenset({"a"} | bte.BLOCK_ELEMENTS | _NESTING | cues.CONTAINERS)
# Of those, the ones that open or close a container or may be a named element.
_BOXES_OR_NAMED = _NESTING | cues.CONTAINERS | FIGURES
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")  # UTF-8: digits are single bytes
_INLINE_OR_LINK = NEUTRAL_ELEMENTS | {"a"}
_TAG_SCORES = dict.fromkeys(NEUTRAL_ELEMENTS, 0)  # other tags: bte.TAG_WEIGHT


@dataclass(slots=True)
class Block:
    """One block-level element's text: ``words`` and ``link_words`` are counts of words;
    ``cue`` is non-zero inside an element whose class/id names boilerplate; ``start``,
    ``end`` and ``box_end`` are indexes into :func:`segment`'s ``parts`` (pieces, not
    characters)."""

    text: str
    words: int
    link_words: int
    heading: bool
    start: int  # index of its first piece
    end: int  # index after its last piece
    box_end: int = 0  # index of the piece that closes its container (see segment())
    cues: tuple[int, ...] = ()  # numbers of all named elements it lies in, outermost first
    wrapped: bool = False  # text inside a link that spans several blocks (<a><p>..</p></a>)
    links: int = 0  # <a> start tags in it

    @property
    def cue(self) -> int:
        """Number of the outermost boilerplate-named element it lies in (1, 2...; ``cues[0]``),
        0 if none."""
        return self.cues[0] if self.cues else 0


@dataclass(slots=True)
class Extraction:
    """What :func:`analyse` finds: the clean ``paragraphs``, ``text_chars`` (characters of
    the whole page's text, blocks joined by newlines, as ``clean_chars`` of the paragraphs)
    and ``template_blocks`` (blocks removed as host template)."""

    paragraphs: list[str]
    text_chars: int
    template_blocks: int = 0

    @property
    def clean_chars(self) -> int:
        return sum(map(len, self.paragraphs)) + max(len(self.paragraphs) - 1, 0)

    @property
    def boilerplate_share(self) -> float:
        """Share of the page's text characters removed (0.0 for a page without text)."""
        return 1.0 - self.clean_chars / self.text_chars if self.text_chars else 0.0


def segment(parts: list[str], article: bool = False) -> tuple[list[Block], list[int]]:
    """Blocks of the pieces (from :func:`wackycrawl.text.bte.pieces`), empty ones left out,
    and each piece's BTE score (one pass): words +1, link words :data:`LINK_WORD_WEIGHT`,
    :data:`NEUTRAL_ELEMENTS` tags 0, other tags -1. Whitespace between inline elements is
    kept (``<b>Hallo</b> <i>Welt</i>`` is "Hallo Welt"). Blocks inside an element whose
    opening tag names boilerplate (:func:`wackycrawl.text.cues.names_boilerplate`, with
    ``article`` also comment sections and :data:`FIGURES`) get ``cues``, the numbers of the
    named elements they lie in (1, 2... in page order, outermost first; named elements nest,
    :data:`MAX_NAMED_DEPTH` of them at most), and ``cue``, the outermost of them.
    ``box_end`` is the piece index that closes the innermost container element
    (:data:`wackycrawl.text.cues.CONTAINERS`, ``article``...) holding the block's text and
    another block (a heading alone in its ``<div>`` belongs to the container around that
    div), ``len(parts)`` if none."""
    blocks, scores, _ = _segment(parts, article)
    return blocks, scores


def _segment(parts: list[str], article: bool,
             names: list[str] | None = None) -> tuple[list[Block], list[int], tuple]:
    """:func:`segment`, and its container elements: ``(starts, ends, comments, captions,
    figures)``, the first two lists of piece indexes in the order the elements open
    (``len(parts)`` the end of one never closed), then the numbers (indexes into those
    lists) of the containers whose class/id names a comment section and of those naming a
    caption or a gallery (:func:`wackycrawl.text.cues.section_kind`), and the piece indexes
    of the opening tags of :data:`FIGURES`. ``names``: the tags'
    :func:`wackycrawl.text.bte.tag_names` if known."""
    blocks: list[Block] = []
    chunks: list[str] = []
    solo: list[str] | None = None  # the words of the block's text while it is one piece
    words = link_words = links = 0
    in_link = heading = False
    wrapping = wrapped = False  # the open link has crossed a block boundary; the block's text
    first = 0
    box_starts: list[int] = []  # first piece of each container element (div, section...)
    box_ends: list[int] = []  # and the piece that closes it
    box_parents: list[int] = []  # the container it lies in (-1: none)
    comment_boxes: list[int] = []  # containers named as comment sections
    caption_boxes: list[int] = []  # containers named as captions or galleries
    figure_tags: list[int] = []  # opening tags of FIGURES
    open_boxes: list[int] = []  # the open ones, innermost last
    first_box = -1
    open_cues: list[list] = []  # open named elements: [name, same-name nesting, number]
    inside: tuple[int, ...] = ()  # their numbers, outermost first
    cue_count = 0  # boilerplate-named elements opened so far
    tags = parts[1::2]
    if names is None:
        names = bte.tag_names(tags)
    scores = [0] * len(parts)  # text pieces' scores set below
    scores[1::2] = map(_TAG_SCORES.get, names, repeat(bte.TAG_WEIGHT))
    block_elements, nesting = bte.BLOCK_ELEMENTS, _NESTING
    containers = cues.CONTAINERS
    figures = FIGURES
    section_kind = cues.section_kind
    structural, boxes_or_named = _STRUCTURAL, _BOXES_OR_NAMED
    word_weight, size = bte.WORD_WEIGHT, len(parts)
    # the last text piece has no tag after it: None, not structural, ends the loop
    for j, piece, name, tag in zip(count(), parts[0::2], chain(names, (None,)), chain(tags, ("",))):
        if piece:
            tokens = piece.split()
            n = len(tokens)
            if n:
                if len(piece) > LONG_TOKEN * n and not piece.isascii():
                    chars = sum(map(len, tokens))  # not the whitespace around them
                    if chars > LONG_TOKEN * n:
                        n = chars // CHARS_PER_WORD
                scores[2 * j] = n * (LINK_WORD_WEIGHT if in_link else word_weight)
                if not chunks:
                    first, first_box = 2 * j, open_boxes[-1] if open_boxes else -1
                    solo = tokens
                else:
                    solo = None
                chunks.append(piece)
                words += n
                link_words += n if in_link else 0
                wrapped = wrapped or wrapping
            elif chunks:
                chunks.append(" ")
        if name not in structural:
            continue
        closing = tag[1] == "/"
        if name == "a":
            in_link, wrapping = not closing, False
            links += in_link
            continue  # a link is no container and no named element
        k = 2 * j + 1
        if name in block_elements:
            if chunks:  # (else words, link_words and wrapped are still 0, 0, False)
                blocks.append(Block(_block_text(chunks, solo), words, link_words,
                                    heading, first, k, first_box, inside, wrapped, links))
                chunks, words, link_words, wrapped = [], 0, 0, False
            links = 0
            heading = name in HEADINGS and not closing
            wrapping = in_link
        if name not in boxes_or_named:
            continue
        if name in nesting:
            if not closing:
                if name in containers:
                    kind = section_kind(tag)
                    if kind:
                        (comment_boxes if kind == 1 else caption_boxes).append(len(box_ends))
                box_parents.append(open_boxes[-1] if open_boxes else -1)
                open_boxes.append(len(box_ends))
                box_starts.append(k)
                box_ends.append(size)
            elif open_boxes:
                box_ends[open_boxes.pop()] = k
        elif name in figures and not closing:
            figure_tags.append(k)
        if open_cues:
            closed = False
            for entry in open_cues:
                if entry[0] == name:
                    entry[1] += -1 if closing else 1
                    closed = closed or not entry[1]
            if closed:
                open_cues = [e for e in open_cues if e[1]]
                inside = tuple(e[2] for e in open_cues)
        if not closing and len(open_cues) < MAX_NAMED_DEPTH and (
                (name in containers and cues.names_boilerplate(tag, name, article))
                or (article and name in figures)):
            cue_count += 1
            open_cues.append([name, 1, cue_count])
            inside += (cue_count,)
    if chunks:
        blocks.append(Block(_block_text(chunks, solo), words, link_words, heading,
                            first, len(parts), first_box, inside, wrapped, links))
    for i, b in enumerate(blocks):  # first_box -> the end of the container with another block
        box = b.box_end
        before = blocks[i - 1].start if i else -1
        after = blocks[i + 1].start if i + 1 < len(blocks) else len(parts)
        while box >= 0 and box_starts[box] > before and box_ends[box] <= after:
            box = box_parents[box]
        b.box_end = box_ends[box] if box >= 0 else len(parts)
    return blocks, scores, (box_starts, box_ends, comment_boxes, caption_boxes, figure_tags)


def _block_text(chunks: list[str], solo: list[str] | None) -> str:
    """:func:`wackycrawl.text.bte.normalise` of the block's ``chunks`` joined; ``solo``, the
    words of ``chunks[0]`` when no other chunk has words, are its text when that chunk has
    no entity and nothing normalise leaves out (soft hyphen, bidi controls)."""
    if solo is not None and "&" not in chunks[0] and not bte.has_hints(chunks[0]):
        return " ".join(solo)
    return bte.normalise("".join(chunks))


def block_hash(text: str) -> int:
    """64-bit hash of a block's text for host templates: digits folded to 0 (dates, counters
    and years vary between pages of one template), BLAKE2b (stable across processes)."""
    return int.from_bytes(blake2b(text.encode().translate(_DIGITS), digest_size=8).digest())


def text_hashes(blocks: list[Block]) -> list[int]:
    """:func:`block_hash` of each block's text (unsigned 64-bit ints, one per block, in order),
    the texts UTF-8-encoded and their digits folded in one pass (a block's text holds no
    newline: its whitespace is normalised). Raises UnicodeEncodeError for a text holding a lone
    surrogate, as :func:`block_hash` does."""
    if not blocks:
        return []
    data = "\n".join([b.text for b in blocks]).encode().translate(_DIGITS)
    from_bytes = int.from_bytes
    return [from_bytes(blake2b(line, digest_size=8).digest()) for line in data.split(b"\n")]


def unwrap(blocks: list[Block], numbers: set[int]) -> None:
    """Ignore the names of the named elements ``numbers`` (wrappers of the text), changing
    the blocks' ``cues`` (and so ``cue``) in place: a block inside one keeps the cues of the named
    elements nested in it (a comment section inside ``<div class="content-with-sidebar">``)."""
    for b in blocks:
        if numbers.intersection(b.cues):
            b.cues = tuple(c for c in b.cues if c not in numbers)


def unwrap_page(blocks: list[Block]) -> None:
    """Class/id cues apply where the blocks outside named elements hold at least
    :data:`MIN_UNNAMED_SHARE` of the page's words; while they hold less, the outermost named
    elements wrap the text (``<div class="footer-wrapper">``, every post of a blog named
    ``entry_author_...``), not banners, and their names are ignored (:func:`unwrap`; the
    named elements nested in them still count). Changes the blocks in place."""
    words = sum(b.words for b in blocks)
    while True:
        named = sum(b.words for b in blocks if b.cues)
        if not named or words - named >= MIN_UNNAMED_SHARE * words:
            return
        unwrap(blocks, {b.cues[0] for b in blocks if b.cues})


def unname_wrappers(blocks: list[Block], span: tuple[int, int], text_cue: list[bool]) -> bool:
    """Clear ``cue`` of the blocks of a boilerplate-named element that wraps the main text
    (``<div class="content-with-sidebar-wrp">``) rather than naming a banner or a footer;
    True if there was one. :func:`analyse` asks when the span found with the cues applied
    holds fewer than :data:`MIN_WRAPPER_PARAGRAPHS` prose blocks (the names would leave the
    page without its text). A wrapper holds, inside ``span`` (the page's BTE span before any
    cue applies, in piece indexes), at least :data:`WRAPPER_SHARE` of the words and at least
    :data:`MIN_WRAPPER_PARAGRAPHS` prose blocks (:data:`PROSE_WORDS` words or more, link
    density at most :data:`MAX_LINK_DENSITY`), and none of its blocks carries a banner's phrase
    (``text_cue``, :func:`wackycrawl.text.cues.text_cues`)."""
    words: dict[int, int] = {}
    prose: dict[int, int] = {}
    phrased = set()
    total = 0
    for b, cue_text in zip(blocks, text_cue):
        cue = b.cues[0] if b.cues else 0
        if cue and cue_text:
            phrased.add(cue)
        if b.end > span[0] and b.start < span[1]:
            total += b.words
            if cue:
                words[cue] = words.get(cue, 0) + b.words
                if _is_prose(b):
                    prose[cue] = prose.get(cue, 0) + 1
    wrappers = {c for c, n in words.items() if n >= WRAPPER_SHARE * total and c not in phrased
                and prose.get(c, 0) >= MIN_WRAPPER_PARAGRAPHS}
    unwrap(blocks, wrappers)
    return bool(wrappers)


def text_cue_of(blocks: list[Block], article: bool = False) -> list[bool]:
    """:func:`wackycrawl.text.cues.text_cues` of the blocks."""
    return cues.text_cues([b.text for b in blocks], [b.heading for b in blocks],
                          [b.words for b in blocks], [b.start for b in blocks],
                          [b.box_end for b in blocks], article,
                          [b.heading and b.link_words == b.words for b in blocks],
                          [b.link_words for b in blocks])


def classify(
    blocks: list[Block],
    span: tuple[int, int],
    max_link_density: float = MAX_LINK_DENSITY,
    min_outside_words: int = MIN_OUTSIDE_WORDS,
    template: list[bool] | None = None,
    text_cue: list[bool] | None = None,
    region: tuple[int, int] | None = None,
    extra: tuple[int, int] | None = None,
) -> list[bool]:
    """Content (True) or boilerplate (False) for each block; ``span`` in piece indexes,
    ``extra`` a second span whose blocks count as inside (:func:`_article_span`),
    ``template[i]`` True when block ``i`` is part of the host's template, ``text_cue`` the
    blocks' :func:`text_cue_of` (computed when None), ``region`` (piece indexes) where a
    block outside the span may be a second content area (None: anywhere; given, its blocks
    are kept when the rules would keep nothing of the span). A block with
    ``cue`` set is boilerplate (call :func:`unwrap_page` first to ignore wrappers' names)."""
    low, high = region or (0, 1 << 62)
    inside = [b.end > span[0] and b.start < span[1] for b in blocks]
    if extra is not None:
        inside = [i or (b.end > extra[0] and b.start < extra[1]) for b, i in zip(blocks, inside)]
    if text_cue is None:
        text_cue = text_cue_of(blocks)
    span_words = sum(b.words for b, i in zip(blocks, inside) if i)
    # (a block of more than LABEL_WORDS words is no label: the call is left out)
    label = [b.words <= cues.LABEL_WORDS and cues.is_label(b.text, b.words) for b in blocks]
    dateline_words = cues.DATELINE_WORDS
    good = []
    near = []  # blocks outside the span kept when next to content (NEAR_PROSE_WORDS)
    for i, b in enumerate(blocks):
        density = max_link_density if b.words < PROSE_WORDS else MAX_PROSE_LINK_DENSITY
        if ((b.link_words > density * b.words and not (inside[i] and _linked_sentence(b)))
                or text_cue[i] or b.cues or label[i]
                or _link_list(b, max_link_density)
                or (b.words <= dateline_words and cues.is_dateline(b.text, b.words))
                or (b.words <= cues.CREDIT_WORDS and cues.is_credit(b.text, b.words))):
            good.append(False)
        elif template is not None and template[i]:
            good.append(False)
        else:
            good.append(inside[i] or (b.words >= min_outside_words
                                      and low <= b.start and b.end <= high))
            if not good[i] and region is None and _near_prose(b):
                near.append(i)
    for i, teaser in enumerate(teasers(blocks)):
        if teaser:
            good[i] = False
    excerpts = [i for i, b in enumerate(blocks)  # teasers' excerpts outside the span
                if good[i] and not inside[i] and b.words <= TEASER_MAX_WORDS and i
                and _linked_title(blocks[i - 1])]
    if len(excerpts) >= MIN_EXCERPTS:
        for i in excerpts:
            good[i] = False
    if near:
        _keep_near(blocks, good, near)
    after = False  # the next block's class, advertisement labels skipped
    beyond = None  # the class of the block after it when it is a short linked note
    for i in range(len(blocks) - 1, -1, -1):
        b = blocks[i]
        if b.heading and not text_cue[i]:
            good[i] = ((after if beyond is None or not inside[i] else beyond)
                       and b.link_words <= MAX_PROSE_LINK_DENSITY * b.words)
        if not label[i]:
            beyond = after if not good[i] and not b.heading and _note(b) else None
            after = good[i]
    if span_words and not any(good):  # the rules would empty a page BTE found text in
        if region is not None:  # the blocks of the span's container
            inside = [i or (low <= b.start and b.end <= high and not b.cues and not text_cue[n])
                      for n, (b, i) in enumerate(zip(blocks, inside))]
        good = [i and not (template and template[n])
                and b.link_words <= MAX_PROSE_LINK_DENSITY * b.words  # a menu's "|" drew it
                for n, (b, i) in enumerate(zip(blocks, inside))]
    elif not any(good):  # no span: all of the page's text is in links (<a><p>...</p></a>)
        good = [(b.words >= PROSE_WORDS or b.wrapped)
                and not (b.cues or text_cue[n] or (template and template[n]))
                for n, b in enumerate(blocks)]
    return good


def teasers(blocks: list[Block]) -> list[bool]:
    """True for the blocks of teaser cards: lists of other pages' titles with their opening
    lines ("More in Sports": a linked headline, a date, two sentences of the story, "Read
    more"). A card starts at a heading more than :data:`MAX_PROSE_LINK_DENSITY` of whose words
    are inside links (its title; "Opinion <a>Title</a>": a label before it) and runs
    to the next heading; it is a teaser card when the element holding its title closes within
    it (a card of its own, not a linked heading amid an article's paragraphs; the last card
    before another kind of heading or the end of the page ends with that element), it has text
    outside links, and at most :data:`TEASER_MAX_WORDS` words; and at least two such cards
    follow each other (one card alone may be the page's own post under a linked title). A card
    may also be one block (``<li><a>Title</a> <span>First lines...</span></li>``): a linked
    title of :data:`TEASER_TITLE_WORDS` words or more and text outside links cut off by an
    ellipsis ("...", "…", "[…]"), two or more such blocks in a row. A block cut off by an
    ellipsis right after a card belongs to it (the last card's excerpt, outside the element
    of its title)."""
    titles = [i for i, b in enumerate(blocks)
              if b.heading and b.words and b.link_words > MAX_PROSE_LINK_DENSITY * b.words]
    is_title = set(titles)
    cards = []  # (title, end, is a teaser card's size and shape)
    for i in titles:
        end = i + 1
        while end < len(blocks) and not blocks[end].heading:
            end += 1
        if end not in is_title:  # the last card of a list ends with its own element
            box_end = blocks[i].box_end
            end = next((k for k in range(i + 1, end) if blocks[k].start >= box_end), end)
        body = blocks[i + 1:end]
        own = end == len(blocks) or blocks[i].box_end <= blocks[end].start
        cards.append((i, end, own and sum(b.words for b in body) <= TEASER_MAX_WORDS
                      and any(b.link_words < b.words for b in body)))
    out = [False] * len(blocks)
    for n, (i, end, card) in enumerate(cards):
        if card and ((n and cards[n - 1][1] == i and cards[n - 1][2])
                     or (n + 1 < len(cards) and cards[n + 1][0] == end and cards[n + 1][2])):
            out[i:end] = repeat(True, end - i)
    short = [TEASER_TITLE_WORDS <= b.link_words < b.words and b.text.endswith(_ELLIPSES)
             for b in blocks]
    for i, card in enumerate(short):
        if card and ((i and short[i - 1]) or (i + 1 < len(short) and short[i + 1])):
            out[i] = True
    for i in range(1, len(blocks)):  # the last card's excerpt, outside its title's element
        if (out[i - 1] and not out[i] and not blocks[i].heading
                and blocks[i].text.endswith(_ELLIPSES)):
            out[i] = True
    return out


def _span(blocks: list[Block], scores: list[int], template: list[bool] | None,
          text_cue: list[bool]) -> tuple[int, int]:
    """BTE span of ``scores`` with the words of known boilerplate (cue blocks, host-template
    blocks) scored 0, so they do not draw the span; ``scores`` is left as it is."""
    copied = False
    for i, b in enumerate(blocks):
        if b.cues or (template and template[i]) or text_cue[i]:
            if not copied:
                scores, copied = scores[:], True
            scores[b.start:b.end:2] = repeat(0, (b.end - b.start + 1) // 2)
    return bte.best_span(scores)


def _link_list(b: Block, max_link_density: float = MAX_LINK_DENSITY) -> bool:
    """A list of links run together in one block (names, tags, a pager: "Anna, Ben, Carl",
    "1 2 3 Next"): link density above ``max_link_density`` and at most
    :data:`LINK_LIST_WORDS` words per link; not a block that reads as a sentence, with
    :data:`LINK_SENTENCE_WORDS` words outside links ("The members were Anna, Ben, Carl.")."""
    return (b.link_words > max_link_density * b.words and b.words <= LINK_LIST_WORDS * b.links
            and not (b.words - b.link_words >= LINK_SENTENCE_WORDS
                     and cues.is_sentence(b.text, LINK_SENTENCE_WORDS)))


_NOTE_RE = re.compile(r"^\w+(?: \w+){0,%d}: " % (NOTE_LABEL_WORDS - 1))


def _note(b: Block) -> bool:
    """A note between a heading and its text (a hatnote, "Main article: Firefox"): at most
    :data:`HEADING_NOTE_WORDS` words, opening with a label of :data:`NOTE_LABEL_WORDS` words
    or fewer and a colon, the rest in links; not a byline ("By Anna Berg, 3 May"), nor a
    linked title (a post's, under a date)."""
    return (b.links > 0 and b.words <= HEADING_NOTE_WORDS
            and b.words - b.link_words <= NOTE_LABEL_WORDS
            and _NOTE_RE.match(b.text) is not None)


_STATEMENT_END_RE = re.compile(r"\.[\"'”’»)]*\s*$")


def _linked_sentence(b: Block) -> bool:
    """A sentence most of whose words are in a link or two (a reference: a cited title and its
    source, "^ "Mozilla will add H.264 to Firefox". gigaom.com. Retrieved 2014-04-05."; a line
    of verse): at most :data:`SENTENCE_LINKS` links, :data:`LINK_SENTENCE_WORDS` words
    outside them, and it reads as a sentence (:func:`wackycrawl.text.cues.is_sentence`) that
    ends with a full stop (not a call to click, "Register here!", nor a teaser's question,
    "Read also: Is war coming?"; not a promotion wholly in a link)."""
    return (b.links <= SENTENCE_LINKS and b.words - b.link_words >= LINK_SENTENCE_WORDS
            and _STATEMENT_END_RE.search(b.text) is not None and cues.is_sentence(b.text))


def _linked_title(b: Block) -> bool:
    """A block wholly in links of :data:`TEASER_TITLE_WORDS` words or more (a story's title)."""
    return b.words >= TEASER_TITLE_WORDS and b.link_words == b.words


def _near_prose(b: Block) -> bool:
    """A paragraph of its own outside the span: :data:`NEAR_PROSE_WORDS` words or more, link
    density at most :data:`MAX_PROSE_LINK_DENSITY` (a lead with inline links), not a heading, and a sentence
    (:func:`wackycrawl.text.cues.is_sentence`)."""
    return (b.words >= NEAR_PROSE_WORDS and not b.heading
            and b.link_words <= MAX_PROSE_LINK_DENSITY * b.words and cues.is_sentence(b.text))


def _keep_near(blocks: list[Block], good: list[bool], near: list[int]) -> None:
    """Set ``good`` True for the blocks ``near`` (indexes, in order) next to a kept block
    that is no heading, or next to one such block kept so (a run of short paragraphs between
    two charts, an article's standfirst above its first paragraph); not a block under a
    heading that is all link (a teaser's excerpt under its linked title). Changes ``good`` in
    place."""
    todo = {i for i in near
            if not (i and blocks[i - 1].heading and blocks[i - 1].link_words == blocks[i - 1].words)}
    for order in (near[::-1], near):
        for i in order:
            if i in todo and any(0 <= j < len(blocks) and good[j] and not blocks[j].heading
                                 for j in (i - 1, i + 1)):
                good[i] = True
                todo.discard(i)


def _is_prose(b: Block) -> bool:
    """A prose block: :data:`PROSE_WORDS` words or more, link density at most
    :data:`MAX_LINK_DENSITY`."""
    return b.words >= PROSE_WORDS and b.link_words <= MAX_LINK_DENSITY * b.words


def _prose_blocks(blocks: list[Block], span: tuple[int, int]) -> int:
    """Blocks inside ``span`` of at least :data:`PROSE_WORDS` words and link density at most
    :data:`MAX_LINK_DENSITY`, outside boilerplate-named elements, counted up to
    :data:`MIN_WRAPPER_PARAGRAPHS`."""
    start, end = span
    n = 0
    for b in blocks:
        if b.end > start and b.start < end and not b.cues and _is_prose(b):
            n += 1
            if n == MIN_WRAPPER_PARAGRAPHS:
                break
    return n


def span_container(parts: list[str], span: tuple[int, int]) -> tuple[int, int]:
    """Piece indexes ``(start, end)`` of the innermost container element (``div``,
    ``section``, ``article``...) holding all of ``span``; the whole page, ``(0, len(parts))``,
    if none does (the text lies in ``<body>`` itself); ``(0, 0)`` for an empty span."""
    return _container(_segment(parts, False)[2], span, len(parts))


def _container(boxes: tuple[list[int], list[int]], span: tuple[int, int],
               size: int) -> tuple[int, int]:
    """:func:`span_container` from the container elements ``boxes`` of :func:`_segment`, of a
    page of ``size`` pieces: the one opened last before the span that ends at or after it."""
    start, end = span
    if start >= end:
        return 0, 0
    starts, ends = boxes[0], boxes[1]
    for i in range(bisect_left(starts, start) - 1, -1, -1):
        if ends[i] >= end:
            return starts[i], ends[i]
    return 0, size


_TITLE_RE = re.compile(r"<title\b[^>]*>([^<]*)", re.IGNORECASE)


def page_title(markup: str) -> str:
    """Text of the page's ``<title>`` (entities decoded, whitespace normalised), "" if none."""
    m = _TITLE_RE.search(markup)
    return bte.normalise(m.group(1)) if m else ""


def analyse(
    markup: str,
    templates: Callable[[list[int]], Iterable[int]] | None = None,
    max_link_density: float = MAX_LINK_DENSITY,
    min_outside_words: int = MIN_OUTSIDE_WORDS,
    article: bool = False,
) -> Extraction:
    """Main text of an HTML page (str, already decoded) with the figures of the DOCHDR.

    ``article`` True keeps the article only (see the module's docstring); ``templates``,
    when given, maps the page's block hashes (:func:`block_hash`, in block
    order) to those that belong to the host's template (it may learn from them too: see
    :meth:`wackycrawl.text.templates.TemplateStore.learn`). ``max_link_density`` is a share
    of a block's words, ``min_outside_words`` a count of words. Never raises on malformed
    markup.
    """
    parts, names = bte.named_pieces(bte.strip_invisible(markup))
    blocks, scores, boxes = _segment(parts, article, names)
    text_cue = text_cue_of(blocks, article)
    unwrap_page(blocks)
    template = None
    if templates is not None and blocks:
        hashes = text_hashes(blocks)
        known = set(templates(hashes))
        template = [h in known for h in hashes] if known else None
        if template and _repeats_a_page(blocks, template):
            template = None
    span = _span(blocks, scores, template, text_cue)
    if (_prose_blocks(blocks, span) < MIN_WRAPPER_PARAGRAPHS
            and unname_wrappers(blocks, bte.best_span(scores), text_cue)):
        span = _span(blocks, scores, template, text_cue)
    region = _container(boxes, span, len(parts)) if article else None
    extra = None  # the article's span when comments drew BTE's (the default mode)
    if not article and boxes[2] and boxes[0][boxes[2][0]] < span[1]:
        extra = _article_span(parts, names, blocks, span, template, boxes)
    keep = classify(blocks, span, max_link_density, min_outside_words, template, text_cue,
                    region, extra)
    _keep_linked_cells(parts, names, blocks, keep, span, text_cue)
    if article:
        title = page_title(markup)
        if title:
            for i, b in enumerate(blocks):
                if b.heading and keep[i] and b.text in title:
                    keep[i] = False
    if not article:
        _drop_repeated_captions(parts, names, blocks, keep, boxes)
    text_chars = sum(len(b.text) for b in blocks) + max(len(blocks) - 1, 0)
    removed = sum(1 for t, ok in zip(template or (), keep) if t and not ok)
    return Extraction([b.text for b, ok in zip(blocks, keep) if ok], text_chars, removed)


def _article_span(parts: list[str], names: list[str], blocks: list[Block],
                  span: tuple[int, int], template: list[bool] | None,
                  boxes: tuple) -> tuple[int, int] | None:
    """The span found with comment sections set aside (the ``article`` mode's span), when
    more than :data:`COMMENT_SPAN_SHARE` of the words of ``span`` lie in elements whose
    class/id names a comment section (:func:`wackycrawl.text.cues.section_kind`; ``boxes``
    from :func:`_segment`) and it differs from ``span``: a long thread of readers' comments
    drew BTE's span away from a short article. None otherwise."""
    start, end = span
    starts, ends = boxes[0], boxes[1]
    inside = _within(blocks, [(starts[i], ends[i]) for i in boxes[2]])
    words = named = 0
    for b, c in zip(blocks, inside):
        if b.end > start and b.start < end:
            words += b.words
            if c and not b.cues:
                named += b.words
    if named <= COMMENT_SPAN_SHARE * words:
        return None
    ablocks, ascores, _ = _segment(parts, True, names)
    atext = text_cue_of(ablocks, True)
    aspan = _span(ablocks, ascores, template, atext)
    return aspan if aspan != span else None


def _keep_linked_cells(parts: list[str], names: list[str], blocks: list[Block],
                       keep: list[bool], span: tuple[int, int], text_cue: list[bool]) -> None:
    """Set ``keep`` True for the cells of a data table that are a link and nothing else (a
    film's title in a list of films, a version number linking to its release notes): a block
    inside ``span`` whose text opens a :data:`TABLE_CELLS` element (inline tags and the link
    between), wholly in :data:`CELL_LINKS` link(s), outside named elements and text cues,
    between two kept blocks (the cells around it, the first no heading). A menu laid out as a
    table has no kept cells around its links. Changes ``keep`` in place."""
    inline = _INLINE_OR_LINK
    for i in range(1, len(blocks) - 1):
        b = blocks[i]
        if (keep[i] or not keep[i - 1] or not keep[i + 1] or blocks[i - 1].heading
                or b.links != CELL_LINKS or b.link_words != b.words or b.cues or text_cue[i]
                or not (b.end > span[0] and b.start < span[1])):
            continue
        j = (b.start - 1) // 2  # the tag before its first text piece
        while j >= 0 and names[j] in inline:
            j -= 1
        if j >= 0 and names[j] in TABLE_CELLS and parts[2 * j + 1][1] != "/":
            keep[i] = True


def _drop_repeated_captions(parts: list[str], names: list[str], blocks: list[Block],
                            keep: list[bool], boxes: tuple) -> None:
    """Set ``keep`` False for the blocks of :data:`REPEAT_WORDS` words or more inside a
    caption or a gallery (:data:`CAPTION_ELEMENTS`, class/id
    :data:`wackycrawl.text.cues.CAPTION_WORDS`; ``boxes`` from :func:`_segment`) whose text
    repeats, word for word, an earlier kept block of such an element: a slideshow's or
    carousel's copies of one caption (its first copy stays). Changes ``keep`` in place."""
    counts: dict[str, int] = {}
    for b, ok in zip(blocks, keep):
        if ok and b.words >= REPEAT_WORDS:
            counts[b.text] = counts.get(b.text, 0) + 1
    if len(counts) == sum(counts.values()):  # no text twice
        return
    starts, ends = boxes[0], boxes[1]
    spans = [(starts[i], ends[i]) for i in boxes[3]]
    if boxes[4]:  # figure elements (a figcaption among them): caption ends, nested ones paired by a stack
        open_tags: dict[str, list[int]] = {}
        for j in [j for j, n in enumerate(names) if n in CAPTION_ELEMENTS]:
            k = 2 * j + 1
            stack = open_tags.setdefault(names[j], [])
            if parts[k][1] != "/":
                stack.append(k)
            elif stack:
                spans.append((stack.pop(), k))
        spans.extend((k, len(parts)) for stack in open_tags.values() for k in stack)
    seen = set()
    for i, (b, f) in enumerate(zip(blocks, _within(blocks, spans))):
        if keep[i] and f and counts.get(b.text, 0) > 1:
            if b.text in seen:
                keep[i] = False
            seen.add(b.text)


def _within(blocks: list[Block], spans: list[tuple[int, int]]) -> list[bool]:
    """For each block, True when its first piece lies inside one of ``spans`` (piece
    indexes ``(start, end)`` of elements: after the start tag, before the end tag)."""
    out = [False] * len(blocks)
    if not spans:
        return out
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [m[0] for m in merged]
    for i, b in enumerate(blocks):
        n = bisect_left(starts, b.start) - 1
        out[i] = n >= 0 and b.start < merged[n][1]
    return out


def _repeats_a_page(blocks: list[Block], template: list[bool]) -> bool:
    """True when at least :data:`TEMPLATE_MAX_PROSE_SHARE` of the words of the page's prose
    blocks lie in host-template blocks (the page repeats another page of the host)."""
    prose = shared = 0
    for b, t in zip(blocks, template):
        if _is_prose(b):
            prose += b.words
            if t:
                shared += b.words
    return prose > 0 and shared >= TEMPLATE_MAX_PROSE_SHARE * prose


def block_hashes(markup: str) -> list[int]:
    """:func:`block_hash` of every block of a page, in order (to learn a host's template)."""
    return text_hashes(segment(bte.pieces(bte.strip_invisible(markup)))[0])


def extract(
    markup: str,
    max_link_density: float = MAX_LINK_DENSITY,
    min_outside_words: int = MIN_OUTSIDE_WORDS,
    article: bool = False,
) -> list[str]:
    """Main text of an HTML page (str, already decoded) as a list of paragraphs.

    ``max_link_density`` is a share of a block's words, ``min_outside_words`` a count of
    words, ``article`` as in :func:`analyse`. Never raises on malformed markup; returns
    ``[]`` when nothing is content.
    """
    return analyse(markup, None, max_link_density, min_outside_words, article).paragraphs
