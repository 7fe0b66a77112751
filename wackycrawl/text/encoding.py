"""HTML bytes to Unicode text, for a corpus: right or rejected, never silently garbled.

Order (WHATWG HTML "determining the character encoding", then evidence):

1. :func:`sniff_binary` - binary bodies served as text raise :class:`BinaryContentError`.
2. A byte-order mark decides (WHATWG: never second-guessed); evidence ``declared:bom``.
3. A declared charset - HTTP ``charset`` (``declared:header``), then ``<meta>``
   (``declared:meta``) or the XML declaration (``declared:xml``), labels resolved by the
   WHATWG Encoding Standard table (``ISO-8859-1``/``latin1`` mean windows-1252; a standard
   CJK label keeps its own codec when that validates: :func:`declarations`; a label naming
   no encoding of that table, ``undefined``, ``idna``, ``palmos``..., is ignored as browsers
   ignore it: :func:`unknown_labels`) - is used when
   the bytes validate under it: they decode with at most ``max_repairs`` bad bytes, they are
   not UTF-8 in disguise (valid multi-byte UTF-8 under a single-byte label), and the text is
   plausible (:mod:`wackycrawl.text.charsets`) or no other codec explains it clearly better
   (a score lead of :data:`OVERRIDE_MARGIN` characters of evidence); under a single-byte
   label "plausible" is also judged for the language a clearly better guess finds (French
   labelled ISO-8859-2 reads as Slovak letters, ``trčs``, implausible for French). A UTF-16/32 label on a
   body without NUL bytes is a lie (WHATWG prescan: such a ``<meta>`` means UTF-8).
4. Otherwise a guess: UTF-8 if the bytes are valid UTF-8 (or need at most ``max_repairs``
   stray bytes repaired), UTF-16/32 by their NUL pattern, else every candidate code page
   (:data:`~wackycrawl.text.charsets.PRIORS`, plus the multi-byte codecs charset-normalizer
   proposes when no single-byte page fits) that decodes the bytes cleanly is scored by
   :func:`wackycrawl.text.charsets.fit` on the page's sample (:func:`charsets.sample`: at
   most 16 KB of its words with high bytes), once per group of code pages that decode the
   sample's high bytes alike; only the winner decodes the whole page,
   ``guess:<codec>:<plausibility>``. A page no candidate reads cleanly and plausibly may be
   CJK text with a stray byte: a CJK codec that fails on at most ``max_repairs`` of its bytes
   reads it, repaired, when charset-normalizer names a CJK codec for the page without them
   (:func:`_repaired_cjk`); when it does not, that near fit rules out the code pages' less
   than :data:`TRUST_DECLARED` plausible readings (Korean bytes read as Thai letters).
5. A text whose best decoding is less plausible than ``min_plausibility`` is rejected
   (:class:`EncodingError`): a corpus stores no garbled text.
6. UTF-8 that holds double-encoded UTF-8 (``Ã©`` for ``é``: UTF-8 read as windows-1252 and
   stored again) is decoded back (:mod:`wackycrawl.text.mojibake`, ftfy's rule) when the
   text decoded back scores higher on the same evidence; evidence ``...+double-utf8``.

The text returned never holds U+FFFD or C0/C1 controls other than TAB, LF, FF, CR: a stray
byte in UTF-8 is read as cp1252 if it is a character there, dropped otherwise (counted as
repairs, at most ``max_repairs``).

Control characters written in the page itself (valid bytes: ``\x01``, ``\x0b``, ``\x1f``, DEL,
in UTF-8 also U+0080-U+009F) are no evidence against the codec, since every ASCII-compatible
codec reads those bytes alike: they are removed, counted (:attr:`Decoded.controls`), and never
count as repairs (:func:`_clean`). Where one stood between two words it becomes a space: a
control that is whitespace in Unicode (line tabulation, the information separators
U+001C-U+001F, NEL) between two visible characters, or any control between two word
characters whose sides the page writes as words elsewhere and never joined; otherwise it is
removed, so a word it sits in stays whole. The C1 controls of a UTF-8 (or UTF-16/32) text are
first read as windows-1252 (``It\u0092s`` is ``It’s``: Windows text stored as Latin-1), counted
as repairs but not bounded by ``max_repairs``, when that reading fits the page's words at
least as well as their removal (:func:`_reads_cp1252`); under a single-byte code page a byte
it maps to a C1 control is repaired as a stray byte. A body of which more than
:data:`MAX_CONTROL_SHARE` of the characters are controls is binary data
(:class:`BinaryContentError`, "N control characters in M characters") when it reads so under
UTF-8 or UTF-16/32; under a code page that only rules the code page out (a CJK text in UTF-16
is mostly controls read as windows-1252), and the body is binary data when no candidate is left.
"""

from __future__ import annotations

import codecs
import functools
import re
import threading
from collections import Counter
from typing import NamedTuple

import charset_normalizer
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

from wackycrawl.text import charsets, mojibake

# Pages needing more repaired bytes than this are rejected (WACKY_MAX_ENCODING_REPAIRS).
MAX_REPAIRS = 10
# Share of binary data bytes above which a body is binary (WACKY_MAX_BINARY_SHARE).
MAX_BINARY_SHARE = 0.01
# Least plausibility (charsets.fit: share of non-ASCII characters a language explains) of
# a stored text (WACKY_ENCODING_MIN_PLAUSIBILITY). Ours, from benchmarks/encoding_eval.py:
# right decodings of the devset score 0.9-1.0, wrong ones mostly below 0.6.
MIN_PLAUSIBILITY = 0.75
# A declared charset gives way to a guess only when the guess leads by this many characters
# of evidence (charsets.fit score) and is more plausible (ours).
OVERRIDE_MARGIN = 3.0
# Share of a page's characters that may be control characters (C0/C1 other than TAB, LF, FF,
# CR; removed, see the module doc); above it the body is binary data served as text (ours:
# stray controls in a page are a few per thousand characters, binary data is made of them).
MAX_CONTROL_SHARE = 0.05
# Below this plausibility a declared decoding is compared with the guess (ours).
TRUST_DECLARED = 0.95
# A page is rejected as implausible only with at least this many characters a language
# does not explain (foreign letters and junk; charsets.fit): a stray sign is no garbling.
MIN_BAD_CHARS = 8
# CJK codecs read with a few stray bytes repaired when no codec decodes an undeclared page
# cleanly into plausible text (one stray byte in an EUC-KR, GB18030 or EUC-JP page rules out
# every CJK codec, and a short one then reads as cp874, Thai letters): the narrower first.
CJK_REPAIR_CODECS = ("euc_kr", "euc_jp", "gb18030", "big5", "shift_jis")
# ... when the page has at least this many non-ASCII characters under it per repaired byte
# (ours: a CJK page with a stray byte has hundreds, a Thai or Cyrillic page read by a CJK
# codec fails every few characters).
CJK_CHARS_PER_REPAIR = 20
# WHATWG MIME Sniffing 7.1: the "resource header" is at most 1445 bytes; a NUL in it means
# binary data (unless the text is UTF-16/32, where NUL bytes are normal).
SNIFF_BYTES = 1445
# WHATWG MIME Sniffing 3 "binary data byte": 0x00-0x08, 0x0B, 0x0E-0x1A, 0x1C-0x1F.
BINARY_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
_TEXT_BYTES = bytes(b for b in range(256) if b not in BINARY_BYTES)
# Signatures of formats servers send as text/html by mistake (WHATWG MIME Sniffing 6-7 and
# the formats' own specifications). Matched at offset 0 of the body.
MAGIC_NUMBERS = (
    (b"%PDF-", "PDF document"),
    (b"%!PS-Adobe-", "PostScript document"),
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"PK\x03\x04", "zip archive (docx, odt, jar...)"),
    (b"\x1f\x8b\x08", "gzip stream"),
    (b"BZh", "bzip2 stream"),
    (b"\xfd7zXZ\x00", "xz stream"),
    (b"\x28\xb5\x2f\xfd", "zstd stream"),
    (b"7z\xbc\xaf\x27\x1c", "7-zip archive"),
    (b"Rar!\x1a\x07", "RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE2 document (doc, xls)"),
    (b"\x7fELF", "ELF executable"),
    (b"OggS\x00", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"\x1a\x45\xdf\xa3", "Matroska/WebM media"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
)
_RIFF_KINDS = {b"WEBP": "WebP image", b"WAVE": "WAV audio", b"AVI ": "AVI video"}
_WIDE = ("utf-16", "utf-32")
# Characters a corpus text must not contain: U+FFFD, C1 controls, C0 controls other than
# tab, LF, FF, CR (they are illegal in XML 1.0 and never part of running text).
_UNCLEAN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")
# The ASCII characters that are not among those, as bytes: deleting them from an ASCII text's
# bytes (bytes.translate) leaves its unclean characters, if any.
_CLEAN_ASCII = re.sub(b"[\x00-\x08\x0b\x0e-\x1f\x7f]", b"", bytes(range(128)))
# Runs of them, as the cleaning reads them.
_UNCLEAN_RUN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]+")
# What a codec may be blamed for: U+FFFD (bytes it cannot decode) and C1 controls (bytes of
# another code page); the C0 controls and DEL are the same bytes in every ASCII-compatible codec.
_CODEC_UNCLEAN = re.compile("[\x80-\x9f\ufffd]")
_C1 = re.compile("[\x80-\x9f]")
# Controls that are whitespace in Unicode (White_Space): line tabulation, the information
# separators FS GS RS US, next line (NEL). Python's str.split() splits on them too.
_SEPARATOR_CONTROLS = frozenset("\x0b\x1c\x1d\x1e\x1f\x85")
# Codecs in which a C1 control is a character of the text (not a byte of another code page).
_UNICODE = ("utf-8", "utf-16", "utf-32")
# The word ending where a control run starts (possessive: linear), the word after it; words.
_WORD_END = re.compile(r"(?<!\w)\w++\Z")
_WORDS = re.compile(r"\w+")
# Whitespace the cleaned text keeps: the page's words for the evidence are split on it only
# (str.split() would also split on NEL and the separators, which the evidence must see).
_TEXT_SPACE = re.compile("[ \t\n\f\r]+")


class EncodingError(ValueError):
    """The body cannot be decoded to clean text (too many bad bytes, no clean codec)."""


class BinaryContentError(EncodingError):
    """The body is binary data (image, PDF, archive...) served as text."""


class Decoded(NamedTuple):
    """Result of :func:`decode_html`."""

    text: str  # the document, free of U+FFFD and C0/C1 controls other than TAB, LF, FF, CR
    encoding: str  # Python codec name, e.g. "utf-8", "cp1252", "utf-16-le"
    repairs: int  # bytes (or characters) mapped through cp1252 or dropped
    # why this codec, no whitespace: declared:bom|header|meta|xml, guess:<codec>:<0.000>,
    # then "+double-utf8" when double-encoded UTF-8 was decoded back
    evidence: str = ""
    undoubled: int = 0  # double-encoded UTF-8 sequences decoded back (text/mojibake.py)
    controls: int = 0  # control characters of the page removed (or made a space): characters
    # declared labels ignored, as (source, codec): codecs outside the WHATWG table
    # (:func:`unknown_labels`), the page decoded as if they were not there
    ignored: tuple[tuple[str, str], ...] = ()


def sniff_binary(body: bytes, declared: str | None = None,
                 max_share: float = MAX_BINARY_SHARE) -> None:
    """Raise :class:`BinaryContentError` if ``body`` is binary data, else return None.

    Binary means: a known magic number at offset 0; or a NUL byte in the first
    :data:`SNIFF_BYTES` bytes; or more than ``max_share`` (fraction of all bytes) WHATWG
    binary data bytes. The two byte tests are skipped when ``declared`` (the codec named by
    BOM or label) is UTF-16/32, whose text holds NUL bytes.
    """
    for magic, kind in MAGIC_NUMBERS:
        if body.startswith(magic):
            raise BinaryContentError(kind)
    if body[:4] == b"RIFF" and body[8:12] in _RIFF_KINDS:
        raise BinaryContentError(_RIFF_KINDS[body[8:12]])
    if declared and declared.startswith(_WIDE):
        return
    if b"\x00" in body[:SNIFF_BYTES]:
        raise BinaryContentError("NUL byte in the first 1445 bytes")
    if not body:  # no byte is no binary data
        return
    share = len(body.translate(None, _TEXT_BYTES)) / len(body)
    if share > max_share:
        raise BinaryContentError(f"{share:.1%} control bytes")


def _unclean(text: str) -> bool:
    """True if ``text`` holds a character of :data:`_UNCLEAN`."""
    if text.isascii():  # faster than the search (with its U+FFFD and C1 controls)
        return bool(text.encode("ascii").translate(None, _CLEAN_ASCII))
    return _UNCLEAN.search(text) is not None


def _cp1252_byte(byte: int) -> str:
    """One byte as cp1252 text, or "" where cp1252 leaves it undefined or it is a control."""
    char = bytes([byte]).decode("cp1252", "ignore")
    return "" if _UNCLEAN.fullmatch(char or "\x00") else char


_errors = threading.local()


# A UTF-8-style sequence of a surrogate code point (U+D800-U+DFFF), which UTF-8 forbids: Python
# reports its three bytes one by one.
_SURROGATE = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")


def _cp1252_fallback(err: UnicodeDecodeError) -> tuple[str, int]:
    """Codec error handler: a single bad byte is read as cp1252, a longer sequence dropped
    (also a lone surrogate's three bytes in UTF-8, not ``í\xa0½``)."""
    if err.encoding.replace("-", "").lower() == "utf8" and (
            lone := _SURROGATE.match(err.object, err.start)):
        _errors.count += 3
        return "", lone.end()
    span = err.object[err.start:err.end]
    mapped = _cp1252_byte(span[0]) if len(span) == 1 else ""
    _errors.count += len(span)
    _errors.mapped += len(mapped)
    return mapped, err.end


codecs.register_error("wackycrawl.cp1252", _cp1252_fallback)


def _record_error(err: UnicodeDecodeError) -> tuple[str, int]:
    """Codec error handler: the bad bytes are dropped and their span recorded."""
    _errors.spans.append((err.start, err.end))
    return "", err.end


codecs.register_error("wackycrawl.record", _record_error)


def _without_errors(body: bytes, codec: str) -> bytes:
    """``body`` without the bytes ``codec`` cannot decode."""
    _errors.spans = []
    body.decode(codec, "wackycrawl.record")
    out = bytearray(body)
    for start, end in reversed(_errors.spans):
        del out[start:end]
    return bytes(out)


_CP1252_C1 = {chr(byte): _cp1252_byte(byte) for byte in range(0x80, 0xA0)}  # "": undefined


def _reads_cp1252(text: str) -> bool:
    """Whether the C1 controls of a Unicode ``text`` are windows-1252 characters (Windows text
    stored as Latin-1: ``\u0092`` for ``’``): True when that reading of them fits the page's
    non-ASCII words (:func:`charsets.fit`, on at most 200,000 characters) at least as well as
    their removal; stray controls read so give signs inside words and foreign letters
    (``StadtŠhat``), which the evidence counts against them."""
    words = " ".join(w for w in _TEXT_SPACE.split(text[:200_000]) if not w.isascii())
    if not _C1.search(words):
        return False
    read = _C1.sub(lambda m: _CP1252_C1[m.group()], words)
    return charsets.fit(read).score >= charsets.fit(_C1.sub("", words)).score


class _Cleaned(NamedTuple):
    text: str
    read: int  # C1 controls read as windows-1252 characters
    dropped: int  # U+FFFD, and C1 controls dropped as bytes of another code page
    controls: int  # control characters removed, or made a space


def _clean(text: str, read_c1: bool, c1_controls: bool) -> _Cleaned:
    """``text`` without the characters of :data:`_UNCLEAN` (see the module doc).

    A C1 control is read as its windows-1252 character if ``read_c1`` and windows-1252 has
    one; otherwise, if ``c1_controls`` (a Unicode text, where it is a character the page
    holds), it is a control like the C0 ones, else a byte of another code page, dropped.
    U+FFFD is dropped. A run of controls between two visible characters becomes a space when
    it holds a control that is whitespace in Unicode (:data:`_SEPARATOR_CONTROLS`), or when
    both neighbours are word characters (``\\w``) and the page writes the two sides as words
    elsewhere but never the two joined (case-insensitive); otherwise it is removed. Linear
    in the text, plus one pass over its words when a control sits between two word
    characters."""
    counts = [0, 0, 0]
    words: Counter | None = None

    def one(m: re.Match) -> str:
        nonlocal words
        out: list[str] = []
        controls = separator = False
        for ch in m.group():
            if "\x80" <= ch <= "\x9f":
                mapped = _CP1252_C1[ch] if read_c1 else ""
                if mapped:
                    out.append(mapped)
                    counts[0] += 1
                    continue
                if not c1_controls:
                    counts[1] += 1
                    continue
            elif ch == "\ufffd":
                counts[1] += 1
                continue
            counts[2] += 1
            controls = True
            separator = separator or ch in _SEPARATOR_CONTROLS
        if out or not controls:
            return "".join(out)
        start, end = m.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if before.isspace() or after.isspace():
            return ""
        if separator:
            return " "
        left = _WORD_END.search(text, max(0, start - 100), start)
        right = _WORDS.match(text, end)
        if left is None or right is None:
            return ""
        if words is None:
            words = Counter(w.casefold() for w in _WORDS.findall(_UNCLEAN_RUN.sub(" ", text)))
        a, b = left.group().casefold(), right.group().casefold()
        # this run's sides are counted once each in ``words``: "elsewhere" is a second time
        return " " if words[a] > 1 and words[b] > 1 and not words[a + b] else ""

    cleaned = _UNCLEAN_RUN.sub(one, text)
    return _Cleaned(cleaned, *counts)


def _strict(body: bytes, encoding: str | None) -> str | None:
    """``body`` decoded strictly, or None if that fails or the text holds what the codec may be
    blamed for (U+FFFD, C1 controls: :data:`_CODEC_UNCLEAN`). C0 controls and DEL, the same
    bytes in every ASCII-compatible codec, may remain: for evidence and checks only."""
    if not encoding:
        return None
    try:
        text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return None if not text.isascii() and _CODEC_UNCLEAN.search(text) else text



# The labels of the WHATWG Encoding Standard's table (https://encoding.spec.whatwg.org/,
# "Names and labels"); :data:`WEB_CODECS` are the Python codecs w3lib resolves them to.
WHATWG_LABELS = frozenset("""
    unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8
    866 cp866 csibm866 ibm866
    csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2
    csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3
    csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4
    csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5
    iso_8859-5:1988
    arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e
    iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987
    csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597
    iso_8859-7 iso_8859-7:1987 sun_eu_greek
    csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598
    iso_8859-8 iso_8859-8:1988 visual
    csiso88598i iso-8859-8-i logical
    csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6
    iso-8859-13 iso8859-13 iso885913
    iso-8859-14 iso8859-14 iso885914
    csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9
    iso-8859-16
    cskoi8r koi koi8 koi8-r koi8_r
    koi8-ru koi8-u
    csmacintosh mac macintosh x-mac-roman
    dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874
    cp1250 windows-1250 x-cp1250
    cp1251 windows-1251 x-cp1251
    ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1
    iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252
    cp1253 windows-1253 x-cp1253
    cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5
    latin5 windows-1254 x-cp1254
    cp1255 windows-1255 x-cp1255
    cp1256 windows-1256 x-cp1256
    cp1257 windows-1257 x-cp1257
    cp1258 windows-1258 x-cp1258
    x-mac-cyrillic x-mac-ukrainian
    chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk
    gb18030
    big5 big5-hkscs cn-big5 csbig5 x-x-big5
    cseucpkdfmtjapanese euc-jp x-euc-jp
    csiso2022jp iso-2022-jp
    csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis
    cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601
    ksc_5601 windows-949
    csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr
    unicodefffe utf-16be
    csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le
    x-user-defined
""".split())


def _resolve(label: str) -> str | None:
    """``label`` as w3lib resolves it (the WHATWG table's mapping, else Python's aliases)."""
    try:
        return codecs.lookup(resolve_encoding(label) or label).name
    except LookupError:
        return None


WEB_CODECS = frozenset(filter(None, map(_resolve, WHATWG_LABELS)))


def _codec(label: str | None) -> str | None:
    """A WHATWG-resolved label as a Python codec name, or None if Python has no such codec
    or it is none of the WHATWG Encoding Standard's encodings (:data:`WEB_CODECS`)."""
    if not label:
        return None
    codec = _resolve(label)
    return codec if codec in WEB_CODECS else None


def _python_codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def declarations(body: bytes, content_type: str | None) -> list[tuple[str, str]]:
    """``[(source, codec), ...]`` in WHATWG order: ``header`` (HTTP charset), then ``meta``
    or ``xml`` (the first 4096 bytes, w3lib's lenient scan); codecs are Python names, labels
    resolved by the WHATWG table, except that a label naming a standard CJK codec
    (``Shift_JIS``, ``GB2312``, ``Big5``, ``EUC-KR``: :data:`STANDARD_CJK`) is read with that
    codec when it decodes ``body`` cleanly; the WHATWG decoder is its vendor superset (cp932,
    gb18030, big5hkscs, cp949), needed only for the bytes the standard lacks, and maps a few
    symbols otherwise (0x815F is U+005C in shift_jis, U+FF3C in cp932). A label naming no
    encoding of the WHATWG table (Python's ``undefined``, ``idna``, ``unicode_escape``,
    ``palmos``...: :func:`unknown_labels`) is ignored, as browsers ignore it."""
    return _declarations(body, content_type)[0]


def unknown_labels(body: bytes, content_type: str | None) -> list[tuple[str, str]]:
    """``[(source, codec), ...]``: the declarations (``header``, ``body``) whose label Python
    resolves to a codec that is none of the WHATWG Encoding Standard's encodings
    (:data:`WEB_CODECS`): :func:`declarations` ignores them."""
    return _declarations(body, content_type)[1]


def _declarations(body: bytes, content_type: str | None
                  ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    found: list[tuple[str, str]] = []
    ignored: list[tuple[str, str]] = []
    for source, label in (("header", http_content_type_encoding(content_type)),
                          ("body", html_body_declared_encoding(body))):
        codec = _codec(label)
        if label and not codec and (python := _resolve(label)):
            ignored.append((source, python))
        if not codec or codec in dict(found).values():
            continue
        written = ((content_type or "").encode("latin-1", "replace") if source == "header"
                   else body[:4096])
        raw = _LABEL.search(written)
        own = _python_codec(raw.group(1).decode("latin-1")) if raw else None
        if (own and STANDARD_CJK.get(codec) == own and _codec(own) == codec
                and _strict(body, own) is not None):
            codec = own
        if source == "body":
            source = "xml" if _XML_DECL.match(body) else "meta"
        found.append((source, codec))
    return found, ignored


# WHATWG decoder of a CJK label -> the standard codec of its family (Python names).
STANDARD_CJK = {"cp932": "shift_jis", "gb18030": "gb2312", "big5hkscs": "big5",
                "cp949": "euc_kr"}
# A label as written: charset=... (header, meta) or encoding="..." (XML declaration).
_LABEL = re.compile(rb"""(?:charset|encoding)\s*=\s*["']?\s*([\w.:-]+)""", re.I)


_XML_DECL = re.compile(rb"\s*<\?xml[^>]*encoding", re.I)
_ISO2022 = re.compile(rb"\x1b[$(]")
# ESC $: the designation of a multi-byte set (ISO-2022-JP, -KR, -CN), not met in terminal
# output (ESC ( B, ESC [ ...)
_ISO2022_MULTIBYTE = re.compile(rb"\x1b\$")


def _decode_lenient(body: bytes, encoding: str, max_repairs: int,
                    rare: bool = True) -> tuple[str, int, int, int] | None:
    """Decode with stray bytes repaired: (text, repairs, undoubled, controls), or None when
    more than ``max_repairs`` are needed or (``rare``) the repairs outnumber the good non-ASCII
    characters. UTF-8 holding double-encoded UTF-8 is decoded back (:func:`_undouble`;
    ``undoubled`` counts the characters restored). ``controls`` counts the page's control
    characters removed (:func:`_clean`). Raises :class:`BinaryContentError` when more than
    :data:`MAX_CONTROL_SHARE` of the characters are controls."""
    if encoding == "utf-8" and b"\xed" in body:
        body = _cesu_pairs(body)
    if encoding == "utf-8" and mojibake.suspect(body):
        return _undouble(body, max_repairs, rare)
    decoded = _decode_plain(body, encoding, max_repairs, rare)
    return None if decoded is None else (decoded[0], decoded[1], 0, decoded[2])


# A surrogate pair written as two 3-byte UTF-8 sequences (CESU-8: Java's modified UTF-8,
# MySQL's 3-byte "utf8" fed 4-byte characters, UTF-16 converted unit by unit), which UTF-8
# forbids (RFC 3629 3): high surrogate U+D800-U+DBFF, then low surrogate U+DC00-U+DFFF.
_CESU_PAIR = re.compile(rb"\xed[\xa0-\xaf][\x80-\xbf]\xed[\xb0-\xbf][\x80-\xbf]")


def _cesu_pair(m: re.Match) -> bytes:
    pair = m.group().decode("utf-8", "surrogatepass")
    return pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le").encode("utf-8")


def _cesu_pairs(body: bytes) -> bytes:
    """``body`` (UTF-8 bytes) with every surrogate pair written CESU-8 style (two 3-byte
    sequences, 6 bytes) replaced by the 4-byte UTF-8 of the character it encodes (an emoji,
    a CJK Extension B character...); a lone surrogate stays, a stray sequence to repair."""
    return _CESU_PAIR.sub(_cesu_pair, body)


def _decode_plain(body: bytes, encoding: str, max_repairs: int,
                  rare: bool = True) -> tuple[str, int, int] | None:
    """(text, repairs, controls) of :func:`_decode_lenient`, without the double-UTF-8 rule."""
    try:
        text = body.decode(encoding, "replace")
    except LookupError:
        return None
    if not _unclean(text):
        return text, 0, 0
    if text.count("\ufffd") > max_repairs:
        return None
    if not encoding.startswith("iso2022") and _ISO2022_MULTIBYTE.search(body):
        return None  # ESC, SO, SI are the shifts of an ISO-2022 text, not stray controls
    _errors.count = _errors.mapped = 0
    if "\ufffd" in text:
        text = body.decode(encoding, "wackycrawl.cp1252")
    unicode = encoding.startswith(_UNICODE)
    # in a Unicode text a C1 control is a character of the page, read as windows-1252 when
    # the evidence says so; under a code page, a byte of another one, repaired as such
    read_c1 = not unicode or (_C1.search(text) is not None and _reads_cp1252(text))
    cleaned = _clean(text, read_c1, unicode)
    controls = cleaned.controls
    if controls > MAX_CONTROL_SHARE * len(text):
        raise BinaryContentError(f"{controls} control characters in {len(text)} characters")
    repairs = _errors.count + cleaned.read + cleaned.dropped
    # bounded by max_repairs: bytes the codec cannot decode and characters lost (U+FFFD, C1
    # under a code page); the C1 controls of a Unicode text read as windows-1252 are the page's
    bounded = repairs - cleaned.read if unicode else repairs
    good = sum(1 for ch in cleaned.text if ch > "\x7f") - _errors.mapped - cleaned.read
    # undecodable bytes must be rare among good characters; a U+FFFD already in the page
    # (valid bytes) is only dropped
    if bounded > max_repairs or (rare and _errors.count and good <= bounded):
        return None
    return cleaned.text, repairs, controls


def _undouble(body: bytes, max_repairs: int,
              rare: bool) -> tuple[str, int, int, int] | None:
    """UTF-8 ``body`` with double-encoded UTF-8 in it (:func:`mojibake.suspect`): decoded
    back (:func:`mojibake.undouble`, ftfy's rule) round by round, up to
    :data:`mojibake.ROUNDS`, while the text of a round scores at least as high on the
    evidence (:func:`charsets.fit` of its non-ASCII words) as the text before it; a tie
    goes to the round, whose runs are themselves the sign of double encoding."""
    best = _decode_plain(body, "utf-8", max_repairs, rare)  # None: too many stray bytes
    score, total = None, 0
    for _ in range(mojibake.ROUNDS):
        body, runs = mojibake.undouble(body)
        back = _decode_plain(body, "utf-8", max_repairs, rare) if runs else None
        if back is None:
            break
        if score is None:  # scored only when there is something to compare
            score = -float("inf") if best is None else _words_fit(best[0]).score
        if (after := _words_fit(back[0]).score) < score:
            break
        best, total, score = back, total + runs, after
    return None if best is None else (best[0], best[1], total, best[2])


def _words_fit(text: str) -> charsets.Fit:
    return charsets.fit(" ".join(w for w in text[:200_000].split() if not w.isascii()))


def _single_byte(codec: str) -> bool:
    return codec in charsets.PRIORS


def _cjk(codec: str) -> bool:
    """A legacy CJK multi-byte codec (not UTF-16/32)."""
    return codec in charsets.MULTIBYTE and not codec.startswith(_WIDE)


def _utf8_in_disguise(body: bytes) -> bool:
    """Valid UTF-8 with multi-byte sequences: a single-byte label on it lies."""
    if body.isascii():
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# A well-formed UTF-8 multi-byte sequence (RFC 3629 4), and a byte outside ASCII.
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}")
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
# Damaged UTF-8: at least this many well-formed multi-byte sequences per byte outside them.
# Legacy pages (the chardet test files: EUC-JP, GB2312, Big5, TIS-620, code pages) have at
# most 0.41; a UTF-8 page with stray bytes has several.
UTF8_SEQUENCES_PER_STRAY_BYTE = 2.0
# UTF-8 in which a CJK reading is mojibake: at least this many well-formed sequences per
# stray byte, still far above the legacy CJK pages' 0.41 (a UTF-8 page with windows-1252
# words pasted in may fall below 2.0; gb18030 decodes nearly any such bytes, ``Caf茅``).
UTF8_SEQUENCES_PER_STRAY_BYTE_CJK = 1.0


def damaged_utf8(body: bytes, per_stray: float = UTF8_SEQUENCES_PER_STRAY_BYTE
                 ) -> tuple[int, int] | None:
    """(stray bytes, UTF-8 characters) when ``body`` is UTF-8 with bytes outside well-formed
    sequences (stray bytes, lone surrogates) but at least
    ``per_stray`` (:data:`UTF8_SEQUENCES_PER_STRAY_BYTE`) well-formed multi-byte sequences per
    such byte:
    text whose other decodings (a CJK codec reads each of its sequences as one Han or Hangul
    character: ``Caf茅`` for ``Café``) are mojibake. None for valid UTF-8, ASCII and other
    bytes."""
    if body.isascii():
        return None
    sequences = _UTF8_SEQUENCE.findall(body)
    stray = len(_HIGH_BYTE.findall(body)) - sum(map(len, sequences))
    if stray and len(sequences) >= per_stray * stray:
        return stray, len(sequences)
    return None


def _wide_guess(body: bytes) -> list[str]:
    """UTF-16/32 codecs whose NUL pattern the first bytes show (ASCII markup is half or three
    quarters NUL bytes in them)."""
    head = body[:4096]
    n = len(head) // 4 * 4
    if n < 8 or head.count(0) < n // 4:
        return []
    zeros = [head[i:n:4].count(0) for i in range(4)]
    quarter = n // 4
    if zeros[1] > 0.8 * quarter and zeros[2] > 0.8 * quarter and zeros[3] > 0.8 * quarter:
        return ["utf-32-le"]
    if zeros[0] > 0.8 * quarter and zeros[1] > 0.8 * quarter and zeros[2] > 0.8 * quarter:
        return ["utf-32-be"]
    if zeros[1] + zeros[3] > 0.8 * 2 * quarter:
        return ["utf-16-le"]
    if zeros[0] + zeros[2] > 0.8 * 2 * quarter:
        return ["utf-16-be"]
    return []


class _Guess(NamedTuple):
    fit: charsets.Fit
    codec: str
    text: str
    repairs: int
    undoubled: int = 0
    controls: int = 0


def _evidence(guess: _Guess) -> str:
    return f"guess:{guess.codec}:{guess.fit.plausibility:.3f}"


class _Evidence:
    """The page's evidence, computed once when first asked: sample words, function-word
    counts, and the sample's fit per distinct decoding."""

    def __init__(self, body: bytes):
        self.body = body
        self._fits: dict[str, charsets.Fit | None] = {}
        self._texts: dict[str, str | None] = {}  # the sample decoded strictly, per codec
        # the first candidate ruled out as binary (too many controls under it): raised if no
        # candidate decodes the page
        self.binary: BinaryContentError | None = None

    def decode(self, codec: str, max_repairs: int, rare: bool = True
               ) -> tuple[str, int, int, int] | None:
        """:func:`_decode_lenient` of the body as one candidate: None when it fails. When more
        than :data:`MAX_CONTROL_SHARE` of its characters are controls under a code page
        (single-byte or a CJK codec), that rules out this codec, not the page (kept in
        :attr:`binary`); under UTF-8 or UTF-16/32, which decoded the bytes, the page is
        binary data (:class:`BinaryContentError` raised)."""
        try:
            return _decode_lenient(self.body, codec, max_repairs, rare)
        except BinaryContentError as exc:
            if codec.startswith(_UNICODE):
                raise
            self.binary = self.binary or exc
            return None

    @functools.cached_property
    def damaged_utf8(self) -> tuple[int, int] | None:
        return damaged_utf8(self.body)

    @functools.cached_property
    def utf8_like(self) -> bool:
        """UTF-8 with stray bytes, too many to repair, but well-formed sequences at least
        :data:`UTF8_SEQUENCES_PER_STRAY_BYTE_CJK` per stray byte: no CJK codec reads it."""
        return damaged_utf8(self.body, UTF8_SEQUENCES_PER_STRAY_BYTE_CJK) is not None

    @functools.cached_property
    def visible(self) -> bytes:
        return charsets.visible(self.body)

    @functools.cached_property
    def sample(self) -> bytes:
        # only words holding a non-ASCII byte are sampled: none in an all-ASCII page
        return b"" if self.body.isascii() else charsets.sample(self.body, shown=self.visible)

    @functools.cached_property
    def languages(self) -> dict[str, int]:
        return charsets.language_evidence(self.body, shown=self.visible)

    def fit(self, codec: str, text: str | None = None,
            undefined: bytes = b"") -> charsets.Fit | None:
        """Fit of the sample decoded with ``codec`` (or of ``text``'s own non-ASCII words,
        for codecs that are not ASCII-compatible); None if the sample does not decode. The
        sample's ``undefined`` bytes (under ``codec``) are dropped first, each costing
        :data:`charsets.UNDEFINED_WEIGHT`."""
        if text is not None:
            words = " ".join(w for w in text[:200_000].split() if not w.isascii())
            return charsets.fit(words, codec, self._languages_for(words))
        key = codec if not undefined else f"{codec}-{undefined.hex()}"
        if key not in self._fits:
            sample = self.sample.translate(None, undefined) if undefined else self.sample
            decoded = _strict(sample, codec) if undefined else self.sample_text(codec)
            fit = (None if decoded is None
                   else charsets.fit(decoded, codec,
                                     self.languages if undefined else self._languages_for(decoded)))
            if fit is not None and undefined:
                # a dropped byte is a bad character: an implausible decoding that drops
                # enough of them is rejected (MIN_BAD_CHARS), not stored without them
                dropped = len(self.sample) - len(sample)
                fit = fit._replace(score=fit.score - charsets.UNDEFINED_WEIGHT * dropped,
                                   junk=fit.junk + dropped)
            self._fits[key] = fit
        return self._fits[key]

    def doubts(self, codec: str, fit: charsets.Fit) -> bool:
        """Whether the sample decoded with ``codec`` (its ``fit``), Latin-script letters, is
        implausible for the Latin-script language the page's ASCII function words name most
        (none named: no doubt)."""
        if fit.lang not in charsets.LATIN:
            return False
        lang = self.named_language
        return (bool(lang) and lang != fit.lang
                and self.fit_for(codec, lang).plausibility < TRUST_DECLARED)

    @functools.cached_property
    def named_language(self) -> str:
        """The Latin-script language (of :data:`charsets.LATIN`) the page's ASCII function
        words name most, "" if none."""
        words = {lang: n for lang, n in self.languages.items()
                 if n and lang in charsets.LATIN}
        return max(words, key=words.get) if words else ""

    def letters_fit(self, codec: str, lang: str) -> bool:
        """Whether the sample decoded with ``codec`` holds non-ASCII letters and nearly all
        of them (:data:`TRUST_DECLARED`) are letters of ``lang``'s alphabet: a reading that
        explains the text as that language by its letters, not by turning them into signs or
        dropping them (English has no such letters: nothing explains an English page so)."""
        decoded = self.sample_text(codec) or ""
        letters = [ch.lower() for ch in decoded if not ch.isascii() and ch.isalpha()]
        alphabet = charsets.ALPHABETS.get(lang, "")
        return bool(letters) and sum(ch in alphabet for ch in letters) >= TRUST_DECLARED * len(letters)

    def fit_for(self, codec: str, lang: str) -> charsets.Fit:
        """Fit of the sample decoded with ``codec`` (ASCII-compatible, decoding it) for the
        language ``lang`` alone."""
        decoded = self.sample_text(codec) or ""
        return charsets.fit(decoded, codec, self._languages_for(decoded), only=lang)

    def sample_text(self, codec: str) -> str | None:
        """The sample decoded strictly with ``codec`` (:func:`_strict`), once per codec."""
        if codec not in self._texts:
            self._texts[codec] = _strict(self.sample, codec)
        return self._texts[codec]

    def _languages_for(self, text: str) -> dict[str, int] | None:
        # an all-ASCII text's fit needs no function-word evidence (charsets.fit): not computed
        return None if text.isascii() else self.languages

    def code_pages(self, max_repairs: int = 0) -> list[tuple[charsets.Fit, str, bool]]:
        """``[(fit, codec, repaired), ...]`` of every code page of :data:`charsets.PRIORS`
        that decodes the sample with at most ``max_repairs`` of its bytes undefined
        (:func:`charsets.undefined_bytes`: those are dropped, each costing
        :data:`charsets.UNDEFINED_WEIGHT`, and ``repaired`` is True); one fit per group of code
        pages that decode the sample's high bytes alike (:func:`charsets.same_decodings`), the
        others' scores moved by their priors."""
        scored = []
        groups = charsets.same_decodings(self.sample, list(charsets.PRIORS), max_repairs)
        for first, members in groups.items():
            undefined = bytes(b for b in charsets.undefined_bytes(first) if b in self.sample)
            fit = self.fit(first, undefined=undefined)
            if fit is None:
                continue
            for codec in members:
                shift = charsets.PRIORS[first] - charsets.PRIORS[codec]
                scored.append((fit._replace(score=fit.score + shift), codec, bool(undefined)))
        return scored


def guess(body: bytes, max_repairs: int = MAX_REPAIRS,
          evidence: _Evidence | None = None) -> _Guess | None:
    """The best-scored decoding of ``body`` without any declaration, or None when no codec
    decodes it cleanly. Candidates: UTF-8 (strict, or with at most ``max_repairs`` stray
    bytes), UTF-16/32 by NUL pattern, every code page of :data:`charsets.PRIORS`, and the
    multi-byte codecs charset-normalizer proposes when no single-byte page fits well."""
    ev = evidence or _Evidence(body)
    for codec in _wide_guess(body):
        decoded = ev.decode(codec, 0)  # no bad byte
        if decoded is not None:
            return _Guess(ev.fit(codec, decoded[0]), codec, *decoded)
    utf8 = None if _ISO2022.search(body) else ev.decode("utf-8", max_repairs)
    if utf8 is not None:
        # the sample holds the stray bytes when there are some: then the repaired text is read
        return _Guess(ev.fit("utf-8") or ev.fit("utf-8", utf8[0]), "utf-8", *utf8)
    if ev.damaged_utf8:  # UTF-8 with too many stray bytes: every other decoding is mojibake
        return None
    best = _best_valid(ev, ev.code_pages(max_repairs), max_repairs)
    if (best is None or not charsets.latin_script(best.fit.lang)
            or best.fit.plausibility < TRUST_DECLARED):
        # outside the Latin-script languages the letters alone cannot tell code pages apart
        # (random Han characters are all Han): charset-normalizer's frequency-based ranking
        # proposes, and its first clean and plausible answer is taken (an implausible one
        # only when none is plausible: a Shift_JIS page is not cp1251 because
        # charset-normalizer ranks cp1251 first, nor because a code page that drops a few
        # of its bytes as undefined scored best among the code pages as Greek)
        fallback, best_kept = None, False
        for match in charset_normalizer.from_bytes(body):
            # its own codec name, not the WHATWG one: a guess of Shift_JIS is Shift_JIS (the
            # WHATWG table, which reads it as cp932, is for labels that pages declare)
            codec = _python_codec(match.encoding)
            if codec not in charsets.PRIORS and codec not in charsets.MULTIBYTE:
                continue
            if _cjk(codec) and ev.utf8_like:
                continue  # damaged UTF-8 read by a CJK codec: mojibake
            decoded = ev.decode(codec, 0)  # no bad byte; the page's controls go
            if decoded is None:
                continue
            text = decoded[0]
            # a code page is scored on the sample, as the candidates it is compared with
            fit = (ev.fit(codec) if codec in charsets.PRIORS else None) or ev.fit(codec, text)
            if (codec in charsets.PRIORS and best is not None and best.codec != codec
                    and best.fit.plausibility >= TRUST_DECLARED
                    and best.fit.score > fit.score
                    and ((best.fit.lang and best.fit.lang == fit.lang)
                         or fit.foreign + fit.junk > best.fit.foreign + best.fit.junk)):
                # two code pages reading the same language (not just no letters: a page whose
                # only high byte is a » in an attribute), or the proposal with more bad
                # characters, scored on the same sample: the evidence (signs inside words,
                # ISO-8859-7's ’ read as windows-1253's Ά in απ’; Greek read as windows-1251,
                # фелехфбЯб) ranks them, not charset-normalizer's frequencies
                best_kept = True
                continue
            if (best is None or not charsets.latin_script(best.fit.lang)
                    or fit.score > best.fit.score):
                if not _implausible(fit, MIN_PLAUSIBILITY):
                    return _Guess(fit, codec, *decoded)
                fallback = fallback or _Guess(fit, codec, *decoded)
        near, repaired = (False, None) if ev.utf8_like else _repaired_cjk(ev, max_repairs)
        if repaired is not None:
            return repaired
        if near and (best is None or (best.fit.plausibility < TRUST_DECLARED
                                      and not charsets.latin_script(best.fit.lang))):
            # bytes a CJK codec nearly decodes, which no plausible reading explains: a
            # damaged CJK page (a stray byte that shifts the pairs of a run of characters),
            # rejected rather than stored as the Thai or Cyrillic letters a code page makes;
            # not when a code page reads a Latin-script language: GBK, Big5 and Shift_JIS
            # pair a high byte with the ASCII letter after it, so an all-caps Danish or
            # Romanian page (MÅLSÆTNING, ÎN ROMÂNIA), less plausible than lower case, nearly
            # decodes too
            return None
        if fallback is not None and not best_kept:
            # an implausible proposal only when the evidence preferred no code page to one
            # of charset-normalizer's: an English page with three high bytes is not cp932
            return fallback
    return best


def _repaired_cjk(ev: _Evidence, max_repairs: int) -> tuple[bool, _Guess | None]:
    """A CJK reading of a page no codec decodes cleanly and plausibly, with at most
    ``max_repairs`` stray bytes repaired: a codec of :data:`CJK_REPAIR_CODECS` that fails on
    at most that many bytes and reads at least :data:`CJK_CHARS_PER_REPAIR` non-ASCII
    characters per failure names the bytes to leave out; charset-normalizer, asked about the
    page without them, must propose a CJK codec (not cp874 or cp1251, whose pages a CJK codec
    also reads with few failures when short), which then decodes the page, its stray bytes
    repaired, into plausible text. None otherwise."""
    body = ev.body
    found = []
    for order, codec in enumerate(CJK_REPAIR_CODECS):
        text = body.decode(codec, "replace")
        bad = text.count("\ufffd")
        if 0 < bad <= max_repairs:
            chars = len(text) - len(text.encode("ascii", "ignore")) - bad
            if chars >= CJK_CHARS_PER_REPAIR * bad:
                found.append((bad, order, codec))
    tried = set()
    for _, _, codec in sorted(found):
        cleaned = _without_errors(body, codec)
        if cleaned in tried:
            continue
        tried.add(cleaned)
        match = charset_normalizer.from_bytes(cleaned).best()
        proposed = _python_codec(match.encoding) if match is not None else None
        if proposed is None or not _cjk(proposed):
            continue
        decoded = ev.decode(proposed, max_repairs)
        if decoded is None:
            continue
        fit = ev.fit(proposed, decoded[0])
        if not _implausible(fit, MIN_PLAUSIBILITY):
            return True, _Guess(fit, proposed, *decoded)
    return bool(found), None


def _best_valid(ev: _Evidence, scored: list, max_repairs: int) -> _Guess | None:
    """The best-scored candidate whose whole body decodes with at most ``max_repairs`` bytes
    undefined in it (dropped and counted). A candidate scored with bytes of the sample
    undefined (``repaired``) was chosen by the evidence of its other characters: its repairs
    need not be rare among them (an ASCII page with a stray 0x81 is windows-1252)."""
    for fit, codec, repaired in sorted(scored, key=lambda fc: -fc[0].score):
        decoded = ev.decode(codec, max_repairs, rare=not repaired)
        if decoded is not None:
            return _Guess(fit, codec, *decoded)
    return None


def _implausible(fit: charsets.Fit, min_plausibility: float) -> bool:
    return fit.plausibility < min_plausibility and fit.foreign + fit.junk >= MIN_BAD_CHARS


def _decoded(decoded: tuple[str, int, int, int], codec: str, evidence: str) -> Decoded:
    """:class:`Decoded` of a (text, repairs, undoubled, controls) decoding."""
    text, repairs, undoubled, controls = decoded
    return Decoded(text, codec, repairs, evidence + "+double-utf8" * bool(undoubled), undoubled,
                   controls)


def decode_html(body: bytes, content_type: str | None = None,
                max_repairs: int = MAX_REPAIRS,
                max_binary_share: float = MAX_BINARY_SHARE,
                min_plausibility: float = MIN_PLAUSIBILITY) -> Decoded:
    """Decode an HTML page (``body`` bytes, ``content_type`` the HTTP header or None).

    Returns :class:`Decoded` with the evidence for the codec (module doc); the text never
    contains U+FFFD or C0/C1 controls other than TAB, LF, FF, CR: the page's own control
    characters are removed and counted (``controls``, characters; a space where they
    separated two words, module doc). An empty body gives empty text. ``max_repairs``
    counts bytes that do not decode (and U+FFFD or C1 controls under a code page), not the
    page's controls; ``max_binary_share`` is a fraction of the body's bytes (see
    :func:`sniff_binary`); ``min_plausibility`` is a share in [0, 1]
    (:func:`wackycrawl.text.charsets.fit`).

    Raises :class:`BinaryContentError` for binary data (also a text more than
    :data:`MAX_CONTROL_SHARE` of whose characters are controls: "N control characters in M
    characters"), :class:`EncodingError` when no codec decodes the page cleanly (at most
    ``max_repairs`` repaired bytes) into plausible text.

    A declared label naming no encoding of the WHATWG Encoding Standard (``charset=undefined``,
    ``idna``, ``unicode_escape``, ``palmos``...) is ignored, as browsers ignore it: the page is
    decoded as an undeclared one would be, and ``ignored`` names the label's codec.
    """
    if not body:
        return Decoded("", "utf-8", 0, "empty")
    bom_encoding, bom = read_bom(body)
    if bom_encoding:
        codec = codecs.lookup(bom_encoding).name
        sniff_binary(body, codec, max_binary_share)
        decoded = _decode_lenient(body[len(bom):], codec, max_repairs)
        if decoded is None:
            raise EncodingError(f"more than {max_repairs} bad bytes for {codec} (BOM)")
        return _decoded(decoded, codec, "declared:bom")
    declared, ignored = _declarations(body, content_type)
    return _decode_declared(body, declared, max_repairs, max_binary_share,
                            min_plausibility)._replace(ignored=tuple(ignored))


def _decode_declared(body: bytes, declared: list[tuple[str, str]], max_repairs: int,
                     max_binary_share: float, min_plausibility: float) -> Decoded:
    """:func:`decode_html` of a body without BOM, its ``declared`` codecs known."""
    wide_ok = b"\x00" in body[:SNIFF_BYTES]
    sniffed = declared[0][1] if declared else None
    if sniffed is None and (_wide_guess(body) or _ISO2022.search(body[:SNIFF_BYTES])):
        sniffed = "utf-16" if _wide_guess(body) else "iso2022"
    if sniffed == "iso2022" or (sniffed or "").startswith("iso2022"):
        sniff_binary(body, "utf-16", max_binary_share)  # ESC, SO, SI are its text
    else:
        sniff_binary(body, sniffed, max_binary_share)
    guessed: _Guess | None = None
    ev = _Evidence(body)  # computed only when a declaration is in doubt or missing
    for source, codec in declared:
        if codec.startswith(_WIDE) and not wide_ok:
            continue  # a UTF-16/32 label on ASCII markup lies
        if _single_byte(codec) and _utf8_in_disguise(body):
            continue
        # a code page's undefined bytes (0x81, 0x8D... in windows-1252) are stray bytes to
        # repair even where the page has few other non-ASCII characters: the declaration is
        # the evidence (UTF-8 keeps the rule: its stray bytes are a code page's characters)
        decoded = ev.decode(codec, max_repairs, rare=not _single_byte(codec))
        if decoded is None:
            continue
        if codec == "utf-8":  # valid UTF-8, or nearly (at most max_repairs stray bytes)
            return _decoded(decoded, codec, f"declared:{source}")
        fit = ev.fit(codec) if not codec.startswith(_WIDE) else ev.fit(codec, decoded[0])
        fit = fit or ev.fit(codec, decoded[0])
        if fit.plausibility < TRUST_DECLARED:
            guessed = guessed or guess(body, max_repairs, ev)
            # a guess that is itself implausible (below min_plausibility) is no better
            # evidence than the label: a page holding a few mojibake words (skuteÄŤnĂ˝m)
            # keeps its label, not a code page that garbles its good words too
            if (guessed is not None and guessed.codec != codec
                    and guessed.fit.score > fit.score + OVERRIDE_MARGIN
                    and guessed.fit.plausibility > fit.plausibility
                    and guessed.fit.plausibility >= min_plausibility
                    and not (_single_byte(codec) and _cjk(guessed.codec)
                             and not _implausible(fit, min_plausibility))):
                # (a CJK guess reads two bytes a character: its score is no measure against
                # a single-byte label's, which gives way to it only when implausible itself,
                # not a Thai page with a few junk signs read as Korean)
                continue
            if _implausible(fit, min_plausibility):
                continue
        elif _single_byte(codec) and not ev.sample.isascii() and ev.doubts(codec, fit):
            # letters plausible for some language may still be wrong for the page's: French
            # under ISO-8859-2 reads as Slovak letters (trčs, lŕ). A guess with another code
            # page that explains the text fully as one language, leads clearly, and finds the
            # declared reading implausible for that language overrides the label.
            guessed = guessed or guess(body, max_repairs, ev)
            # the guess must read the language the function words name: short words
            # shared by many languages (a, i, te, e: Maori) name one of them at random, and a
            # guess that reads another (Maori ā ī under windows-1252: French à ï) is no
            # evidence against the label
            if (guessed is not None and guessed.codec != codec
                    and guessed.fit.lang == ev.named_language
                    and ev.letters_fit(guessed.codec, guessed.fit.lang)
                    and guessed.fit.plausibility >= TRUST_DECLARED
                    and guessed.fit.score > fit.score + OVERRIDE_MARGIN
                    and ev.fit_for(codec, guessed.fit.lang).plausibility < TRUST_DECLARED):
                continue
        return _decoded(decoded, codec, f"declared:{source}")
    guessed = guessed or guess(body, max_repairs, ev)
    if guessed is not None and (guessed.codec.startswith(_WIDE)
                                or guessed.codec == "utf-8"):
        # (nearly) valid multi-byte UTF-8, or the NUL pattern of UTF-16/32 and a clean decode, are
        # evidence enough: such pages may hold any script, emoji, symbols no alphabet knows
        return _decoded(guessed[2:], guessed.codec, _evidence(guessed))
    if guessed is None or _implausible(guessed.fit, min_plausibility):
        # last resort: the declared codec with up to max_repairs bytes repaired
        for source, codec in declared:
            decoded = ev.decode(codec, max_repairs, rare=False)
            if decoded is not None and not _implausible(ev.fit(codec, decoded[0]),
                                                        min_plausibility):
                return _decoded(decoded, codec, f"declared:{source}")
    if guessed is None and ev.damaged_utf8:
        stray, chars = ev.damaged_utf8
        raise EncodingError(f"damaged UTF-8: {stray} bytes outside UTF-8 sequences (at most "
                            f"{max_repairs} repaired) among {chars} UTF-8 characters")
    if guessed is None:
        # every candidate failed; if some failed only on its control characters, the body
        # is binary data served as text
        raise ev.binary or EncodingError("no codec decodes the page cleanly")
    if _implausible(guessed.fit, min_plausibility) and ev.utf8_like:
        stray, chars = damaged_utf8(body, UTF8_SEQUENCES_PER_STRAY_BYTE_CJK)
        raise EncodingError(f"damaged UTF-8: {stray} bytes outside UTF-8 sequences (at most "
                            f"{max_repairs} repaired) among {chars} UTF-8 characters")
    if _implausible(guessed.fit, min_plausibility):
        raise EncodingError(f"implausible text: best decoding {guessed.codec} explains "
                            f"{guessed.fit.plausibility:.0%} of its non-ASCII characters")
    return _decoded(guessed[2:], guessed.codec, _evidence(guessed))


def unknown_declared(body: bytes, content_type: str | None) -> str | None:
    """The codec to read ``body`` with in place of the declaration w3lib (and so Scrapy's
    ``TextResponse``) would take, when that one names no encoding of the WHATWG table
    (``charset=undefined`` in the header, or in the ``<meta>`` of a page without a header
    label): the codec :func:`decode_html` chooses, ``utf-8`` if it rejects the page. None
    when a byte-order mark decides, nothing is declared, or the declaration is a WHATWG one."""
    if read_bom(body)[0]:
        return None
    label = http_content_type_encoding(content_type) or html_body_declared_encoding(body)
    if not label or _codec(label) or not _resolve(label):
        return None  # none, a WHATWG label, or one Python does not know either (w3lib: None)
    try:
        return decode_html(body, content_type).encoding
    except EncodingError:
        return "utf-8"
