"""Body Text Extraction (BTE): the main text of a page as the span richest in words.

Finn, Kushmerick & Smyth (2001), "Fact or fiction: Content classification for digital
libraries"; Croft et al., *Search Engines*, §3.8 "Removing Noise". The page is a sequence of
N tokens, each a tag (b_n = 1) or a word (b_n = 0). BTE picks i <= j maximising::

    sum(b_n, n < i) + sum(1 - b_n, i <= n <= j) + sum(b_n, n > j)

i.e. tags outside the span plus words inside it. That equals the total tag count plus the
sum over [i, j] of (+1 per word, -1 per tag), so the span is a maximum-sum subarray, found in
O(N) (Kadane / prefix minima) instead of trying every (i, j) pair (O(N^2) or O(N^3)).

Stages: :func:`strip_invisible` (comments, script, style, title..., elements hidden by their
style, out; unclosed ones too) -> :func:`pieces`
(alternating text chunks and tags, by one compiled regex) -> :func:`weights` ->
:func:`best_span` -> :func:`paragraphs` (one string per block-level element or line break).
"""

import html
import re
from functools import lru_cache
from itertools import accumulate, compress, count

#: Elements whose content is never running text (dropped with their content; ``title`` is
#: the only text of ``<head>``; ``annotation``: the TeX source a MathML formula carries
#: besides the formula the reader sees, which stays).
INVISIBLE_ELEMENTS = (
    "script", "style", "noscript", "template", "svg", "annotation", "select", "iframe",
    "object", "textarea", "title",
)
#: Elements whose end tag HTML lets authors leave out, and void elements: a hidden one
#: (:func:`strip_hidden`) is left in place, its end would be a guess (HTML 5 13.1.2.4).
NO_END_TAG = frozenset([
    "area", "base", "body", "br", "caption", "col", "colgroup", "dd", "dt", "embed", "head",
    "hr", "html", "img", "input", "li", "link", "meta", "optgroup", "option", "p", "rp", "rt",
    "source", "tbody", "td", "tfoot", "th", "thead", "tr", "track", "wbr",
])
#: Elements that start a new paragraph in the output (HTML "block-level" plus br/td/li).
BLOCK_ELEMENTS = frozenset(
    [
        "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd",
        "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
        "form", "frame", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "option",
        "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
        "thead", "title", "tr", "ul",
    ]
)
#: Score of one word and of one tag (Finn et al.: text in the span +1, tag in the span -1).
WORD_WEIGHT = 1
TAG_WEIGHT = -1

# HTML 5 white space (13.2.5; a CR is one too, the input stream's newlines being LF).
_WS = r"\t\n\f\r "
# What follows a tag's name up to its ">", as the HTML 5 tokenizer reads it (13.2.5.32-40):
# white space and "/" between attributes; an attribute's name (any characters but white
# space, "/" and ">", so "<", quotes and a leading "=" too), then maybe "=" and a value: in
# quotes up to the closing quote (">" and "<" inside are part of it), or unquoted up to white
# space or ">". A quote that never closes (the page's last of its kind) is an ordinary
# character here, so the tag ends at the next ">" (HTML 5 would drop the tag and the rest of
# the page). The loop stops at ">" or the end of input only, and every part is possessive:
# a match never fails once started, no backtracking but the white space before an "=" that
# is not there, and a quoted value fails only at the page's last quote of its kind (at most
# two scans to the end): linear.
_ATTRIBUTES = (
    rf"""(?:[{_WS}/]++|[^{_WS}/>][^{_WS}/>=]*+(?:[{_WS}]*+=[{_WS}]*+"""
    rf"""(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+)?+)?+)*+""")
_INVISIBLE_NAMES = "|".join(INVISIBLE_ELEMENTS)
# The next comment or invisible element's start tag outside a tag, matched from where the
# search goes on: the text and the other tags before it are skipped whole (tags read as
# :data:`_TAG_SPLIT_RE` reads them), so a "<!--" or a "<script>" inside an attribute value
# or in the attributes of an unclosed tag is part of that tag, as in HTML 5. Then group
# "lt" (the opener's "<"), group "name" (an invisible element's start tag: its name followed
# by white space, "/", ">" or the end, and its attributes to ">") or group "bogus" (a bogus
# comment, HTML 5 13.2.5.41-42: "<!" not starting a comment or a DOCTYPE, "<![CDATA[" outside
# SVG and MathML too, or "<?", up to the next ">"), or neither (a comment). One possessive
# pass, no backtracking; it fails only at the end of input, having found no opener.
_NEXT_INVISIBLE_RE = re.compile(
    rf"""(?:[^<]++"""
    rf"""|<(?=[A-Za-z]|/(?!\Z))(?!(?:{_INVISIBLE_NAMES})(?![^{_WS}/>]))/?+[A-Za-z]"""
    rf"""[^{_WS}/>]*+{_ATTRIBUTES}>?+"""  # another start or end tag
    rf"""|<!doctype[^>]*+>?+|</(?![A-Za-z]|\Z)[^>]*+>?+"""  # a DOCTYPE, "</" and no letter
    rf"""|<(?![A-Za-z!?])|</?+\Z)*+"""  # text's "<"
    rf"""(?P<lt><)(?:!--|(?P<name>{_INVISIBLE_NAMES})(?![^{_WS}/>]){_ATTRIBUTES}>?+"""
    rf"""|(?P<bogus>!|\?))""",
    re.IGNORECASE,
)
# Their end tags, read as the start tag (attributes and all).
_INVISIBLE_CLOSE_RE = {
    name: re.compile(rf"</{name}(?![^{_WS}/>]){_ATTRIBUTES}>?+", re.IGNORECASE)
    for name in INVISIBLE_ELEMENTS
}
# HTML 5 13.2.5.43-52: "-->" ends a comment, so do "--!>" and the abrupt "<!-->", "<!--->".
_COMMENT_END_RE = re.compile(r"--!?>")
_TAG_START = r"<[A-Za-z/!?]"  # "<" and a letter, "/", "!" or "?": where a tag may start
_NEXT_TAG_RE = re.compile(_TAG_START)
# Declarations that hide an element (CSS 2.1 9.2.4 display: none, 11.2 visibility: hidden):
# their values first (a fast search led by ":"), then the property before one, the style
# attribute before that and the element's name.
_HIDING_VALUE_RE = re.compile(r":\s*(none|hidden)")
_HIDING_PROPERTY_RE = {"none": re.compile(r"display\s*\Z"),
                       "hidden": re.compile(r"visibility\s*\Z")}
_STYLE_VALUE_RE = re.compile(r"""style\s*=\s*["']?[^"'<>]*""", re.IGNORECASE)
_ELEMENT_NAME_RE = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)")
# Hidden elements of at most this many element names per page are removed (each name's
# elements are matched to their end tags by one scan at most).
_MAX_HIDDEN_NAMES = 16
_NEXT_GT_RE = re.compile(">")
# A tag as the HTML 5 tokenizer reads it (13.2.5.6-9): "<" and a letter, or "</" and a
# letter, starts a start or end tag; its name runs to white space, "/" or ">" (so "<x<x<p>"
# is one tag, as in browsers), its attributes (:data:`_ATTRIBUTES`) to the first ">" outside
# a quoted value (``data-x="a > b"``, ``href="x<b>y"``, escaped JSON or markup in a value do
# not end it). "<!" and "<?" (a DOCTYPE or a bogus comment), and "</" and anything else but
# the end of input, run to the next ">" ("</>" is nothing). A tag that meets the end of input
# before its ">" runs to the end (HTML 5 drops it: it is no text); "<" before anything else
# ("a < b", "<3") is text. Group 2 is the element name (letters and digits after "<" or
# "</", as :func:`tag_name`; "" for the others). A match never fails once its lookahead
# holds and matches never overlap: each position is scanned a bounded number of times,
# linear also on hostile markup (200 KB of ``<a href="``, of "<", unclosed quotes).
_TAG_SPLIT_RE = re.compile(
    rf"""(<(?=[A-Za-z!?]|/(?!\Z))/?+([A-Za-z][A-Za-z0-9]*+|)"""
    rf"""(?>(?<=[A-Za-z0-9])[^{_WS}/>]*+{_ATTRIBUTES}|[^>]*+)>?+)""")
_TAG_NAME_RE = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)")
_TAG_NAMES_RE = re.compile(r"<(?=[A-Za-z/!?])(?:/?([A-Za-z][A-Za-z0-9]*))?")


def strip_invisible(markup: str) -> str:
    """Remove comments and :data:`INVISIBLE_ELEMENTS` with their content.

    Bogus comments go as HTML 5 reads them: ``<![CDATA[...`` (outside SVG and MathML,
    removed with them), ``<!x...``, ``<?xml...`` end at the next ``>``.

    Browsers let an unclosed comment, ``<title>`` or ``<script>`` swallow the rest of the
    document; a corpus would then lose a whole page to one typo. Here an unclosed
    ``<title>``, ``<script>`` (etc.) ends at the next tag and an unclosed comment at the next
    ``>``, and a malformed end tag (``</title foo>``, ``</script`` without ``>``) still ends
    its element. Their start and end tags are read as HTML 5 reads tags: the name whole
    (``<style-guide>`` is no ``<style>``, ``</script-x>`` no end of a script), the
    attributes up to the first ``>`` outside a quoted value (``<script data-x="<b>">``),
    and a ``<!--``, ``<?`` or ``<script>`` inside another tag (``<a title="<!--">``) is part
    of that tag, not an opener. Then :func:`strip_hidden`. Linear time, also on hostile
    markup (many unclosed openers): each search for an end is remembered. Returns the
    remaining markup (str).
    """
    out: list[str] = []
    found: dict = {}  # pattern -> (searched from, match or None)

    def after(pattern, start):
        hit = found.get(pattern)
        if hit is None or (hit[1] is not None and hit[1].start() < start) or (
                hit[1] is None and hit[0] > start):
            hit = (start, pattern.search(markup, start))
            found[pattern] = hit
        return hit[1]

    pos = 0
    while (m := _NEXT_INVISIBLE_RE.match(markup, pos)) is not None:
        out.append(markup[pos:m.start("lt")])
        start = m.end()
        if m.group("bogus") is not None:  # a bogus comment
            close = after(_NEXT_GT_RE, start)
            end = close.end() if close else len(markup)
        elif m.group("name") is None:  # a comment
            if markup.startswith(">", start) or markup.startswith("->", start):
                end = markup.index(">", start) + 1
            else:
                close = after(_COMMENT_END_RE, start) or after(_NEXT_GT_RE, start)
                end = close.end() if close else len(markup)
        else:
            close = after(_INVISIBLE_CLOSE_RE[m.group("name").lower()], start)
            if close is None:
                close = after(_NEXT_TAG_RE, start)
                end = close.start() if close else len(markup)
            else:
                end = close.end()
        out.append(" ")
        pos = end
    out.append(markup[pos:])
    return strip_hidden("".join(out))


@lru_cache(maxsize=64)
def _same_name_tags(name: str) -> re.Pattern:
    """Start and end tags of element ``name`` (any case): group 1 is "/" for an end tag."""
    return re.compile(rf"<(/?)(?i:{re.escape(name)})(?![A-Za-z0-9-])")


def strip_hidden(markup: str) -> str:
    """Remove the elements an inline style hides (``style="display:none"``,
    ``visibility:hidden``, in lower case as sites write them) with their content, as a
    reader never sees them (Readability.js skips them too). An element without an end tag of
    its own (:data:`NO_END_TAG`) or whose end tag never comes is left as it is, so a typo
    cannot hide the rest of a page. Linear time: each tag is tested once, and the end tags
    of each hidden element's name (at most 16 names) are scanned once. Returns the markup.
    """
    starts: list[tuple[int, str]] = []  # (start of the hidden element's tag, its name)
    names: set[str] = set()
    seen = lt = -1  # lt: start of the tag open at prev (-1: prev lies in text)
    prev = 0
    for m in _HIDING_VALUE_RE.finditer(markup):
        i = m.start()
        prop = _HIDING_PROPERTY_RE[m.group(1)].search(markup, max(prev, i - 24), i)
        if prop is None:
            continue
        i = prop.start()
        before = markup.rfind("<", prev, i)
        if before >= 0:
            lt = before
        if lt >= 0 and markup.find(">", max(lt, prev), i) >= 0:
            lt = -1  # i lies in text
        prev = i
        if lt <= seen:
            continue
        seen = lt  # one test per tag
        at = markup.rfind("style", lt, i)
        value = _STYLE_VALUE_RE.match(markup, at, i) if at > lt else None
        name = _ELEMENT_NAME_RE.match(markup, lt)
        if value and value.end() == i and markup[at - 1].isspace() and name:
            key = name.group(1).lower()
            if key not in NO_END_TAG and (key in names or len(names) < _MAX_HIDDEN_NAMES):
                names.add(key)
                starts.append((lt, key))
    out, pos = [], 0
    unclosed: set[str] = set()
    for start, name in starts:
        if start < pos or name in unclosed:  # inside a hidden element already cut
            continue
        depth = 0
        for t in _same_name_tags(name).finditer(markup, start):
            depth += -1 if t.group(1) else 1
            if not depth:
                end = markup.find(">", t.end())
                out += (markup[pos:start], " ")
                pos = len(markup) if end < 0 else end + 1
                break
        else:  # never closed: kept, and so are the later ones of this name
            unclosed.add(name)
    if not out:
        return markup
    out.append(markup[pos:])
    return "".join(out)


def pieces(markup: str) -> list[str]:
    """Split markup into alternating pieces: text, tag, text, tag, ..., text.

    Even indexes are text chunks (maybe empty, entities still encoded), odd indexes are tags.
    """
    return named_pieces(markup)[0]


def named_pieces(markup: str) -> tuple[list[str], list[str]]:
    """``(parts, names)``: :func:`pieces` of ``markup`` (str, text and tags alternating, text
    first and last) and the :func:`tag_names` of its tags (``parts[1::2]``: one lower-case
    element name per tag, "" for ``<!...>``; ``len(parts) // 2`` of them), found by the same
    pass."""
    parts = _TAG_SPLIT_RE.split(markup)  # text, tag, name, text, tag, name, ..., text
    names = parts[2::3]
    del parts[2::3]
    return parts, " ".join(names).lower().split(" ") if names else []


def tag_name(tag: str) -> str:
    """Lower-case element name of a tag piece (``"</P >"`` -> ``"p"``), "" for ``<!...>``."""
    m = _TAG_NAME_RE.match(tag)
    return m.group(1).lower() if m else ""


def tag_names(tags: list[str]) -> list[str]:
    """:func:`tag_name` of each tag piece, in one regular-expression pass over all of them
    (one tag start per piece, its first character; tag by tag when a quoted value holds
    more)."""
    if not tags:
        return []
    names = _TAG_NAMES_RE.findall("".join(tags))
    if len(names) != len(tags):  # a tag start inside a quoted value
        return [tag_name(t) for t in tags]
    return " ".join(names).lower().split(" ")


def weights(parts: list[str]) -> list[int]:
    """BTE score of each piece: its words x :data:`WORD_WEIGHT`, or :data:`TAG_WEIGHT`.

    A text chunk's words are consecutive +1 tokens, so the best token span never splits a
    chunk and the span over pieces equals the span over tokens (with N = pieces, not words).
    """
    return [
        len(p.split()) * WORD_WEIGHT if k % 2 == 0 else TAG_WEIGHT for k, p in enumerate(parts)
    ]


def best_span(scores: list[int]) -> tuple[int, int]:
    """Half-open ``(start, end)`` of the maximum-sum contiguous run of ``scores``, in O(N).

    With +1 per word and -1 per tag this is the span of Finn et al. (2001). The earliest
    start and shortest end win ties. Returns ``(0, 0)`` when no score is positive.
    """
    best, span = 0, (0, 0)
    low, low_at = 0, 0  # minimum prefix sum so far and where it was reached
    # a zero score changes neither the sum nor the minimum: only the others are visited
    for end, total in zip(compress(count(1), scores), accumulate(compress(scores, scores))):
        if total - low > best:
            best, span = total - low, (low_at, end)
        if total < low:
            low, low_at = total, end
    return span


def paragraphs(parts: list[str], start: int = 0, end: int | None = None) -> list[str]:
    """Text of ``parts[start:end]`` as paragraphs, split at :data:`BLOCK_ELEMENTS` tags.

    HTML entities are decoded, whitespace (incl. no-break space) is normalised to single
    spaces, and empty paragraphs are left out.
    """
    out: list[str] = []
    current: list[str] = []
    for k in range(start, len(parts) if end is None else end):
        piece = parts[k]
        if k % 2 == 0:
            current.append(piece)
        elif tag_name(piece) in BLOCK_ELEMENTS:
            _flush(current, out)
    _flush(current, out)
    return out


# Character references, as html.unescape finds them: numeric, decimal or hexadecimal (";"
# optional, HTML 5 13.2.5.80; group 1), or named (";" optional for the legacy names).
_CHAR_REF_RE = re.compile(r"&(?:#([xX][0-9a-fA-F]+|[0-9]+);?|[^\t\n\f <&#;]{1,32};?)")


# Invisible characters the stored text leaves out, being no part of any word's spelling: the
# soft hyphen (a line-break hint) and the Unicode Bidi_Control characters (direction hints:
# ALM U+061C, LRM U+200E, RLM U+200F, the embeddings and overrides U+202A-U+202E, the isolates
# U+2066-U+2069), which made "\u202bword" a token of its own; the zero-width no-break space
# U+FEFF (a byte-order mark pasted inside the text) and the tag characters U+E0000-U+E007F
# (invisible language tags, hidden text: _TAGS, searched only in a text holding a character
# that high, the engine's astral classes being slow). Default-ignorables that belong to a
# spelling (ZWNJ in Persian, ZWJ and variation selectors in Indic scripts and emoji) stay;
# the language identifiers and dedup read the text without any (langmodel.strip_ignorable).
_HINTS = re.compile("[\u00ad\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_TAGS = re.compile("[\U000e0000-\U000e007f]")


def _has_tags(text: str) -> bool:
    # UTF-8 of U+E0000-U+E007F starts F3 A0: a byte search first (max() over a long text and
    # the engine's astral class both cost far more)
    return (b"\xf3\xa0" in text.encode("utf-8", "surrogatepass")
            and _TAGS.search(text) is not None)


def has_hints(text: str) -> bool:
    """True if ``text`` holds a character :func:`normalise` leaves out (:data:`_HINTS`)."""
    return not text.isascii() and (_HINTS.search(text) is not None or _has_tags(text))


# NUL and U+FFFD, and the five C1 code points windows-1252 leaves undefined (HTML 5 keeps
# them as C1 controls).
_NO_CHARACTER = frozenset([0, 0xFFFD, 0x81, 0x8D, 0x8F, 0x90, 0x9D])


_REFS: dict[str, str] = {}  # reference as written -> decoded (pages repeat &amp; &nbsp;...)
_MAX_REFS = 4096


def _char_ref(m: re.Match) -> str:
    """One character reference decoded (:func:`_numeric_ref` first for a numeric one)."""
    ref = m.group(0)
    decoded = _REFS.get(ref)
    if decoded is None:
        decoded = "" if m.group(1) is not None and not _numeric_ref(m) else html.unescape(ref)
        if len(_REFS) < _MAX_REFS:
            _REFS[ref] = decoded
    return decoded


def _numeric_ref(m: re.Match) -> str:
    """"" for a reference that names no character (NUL, a surrogate, beyond U+10FFFF however
    many digits it has, a C1 control) or U+FFFD itself: HTML 5 turns most of those into U+FFFD, which must not reach
    a corpus. Other
    references are left for :func:`html.unescape`, which follows HTML 5: 0x80-0x9F as the
    windows-1252 characters, other controls and non-characters dropped."""
    ref = m.group(1)
    hexadecimal = ref[0] in "xX"
    digits = (ref[1:] if hexadecimal else ref).lstrip("0")
    if len(digits) > (6 if hexadecimal else 7):  # beyond U+10FFFF, however many digits
        return ""
    n = int(digits, 16 if hexadecimal else 10) if digits else 0
    if n in _NO_CHARACTER or 0xD800 <= n <= 0xDFFF or n > 0x10FFFF:
        return ""
    return m.group(0)


def normalise(text: str) -> str:
    """Decode HTML entities, drop soft hyphens (U+00AD, a line-break hint inside a word:
    "Mit&shy;tel&shy;al&shy;ter" is the word "Mittelalter") and the bidi formatting controls
    (LRM, RLM, ALM, embeddings, overrides, isolates: ``"\u202bword\u202c"`` is ``"word"``),
    the zero-width no-break space U+FEFF and the tag characters U+E0000-U+E007F
    (:data:`_HINTS`, :data:`_TAGS`, written or as entities), and collapse whitespace (incl.
    no-break space) to single spaces.

    References are decoded in one pass, each as :func:`html.unescape` decodes it: what a
    reference gives, or what is left around a dropped one, is text, never read again
    (``&#x&#0;41;`` is ``&#x41;`` as written). Numeric references that name no character
    are dropped (:func:`_numeric_ref`), so no U+FFFD comes from an entity.
    """
    if "&" in text:
        text = _CHAR_REF_RE.sub(_char_ref, text)
    if not text.isascii():
        text = _HINTS.sub("", text)
        if _has_tags(text):
            text = _TAGS.sub("", text)
    return " ".join(text.split())


def _flush(current: list[str], out: list[str]) -> None:
    text = normalise("".join(current))
    if text:
        out.append(text)
    current.clear()


def extract(markup: str) -> list[str]:
    """Main text of an HTML page (str, already decoded) by BTE, as a list of paragraphs.

    Never raises on malformed markup; returns ``[]`` when the page has no words.
    """
    parts = pieces(strip_invisible(markup))
    start, end = best_span(weights(parts))
    return paragraphs(parts, start, end)
