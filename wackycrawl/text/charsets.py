"""Evidence for a code page: how well a decoded text fits a language, as one number.

A guessed codec is never a detector's single answer: every candidate that decodes the bytes
cleanly is scored on what the decoded text shows, and the text's letters must be those of a
language. Only non-ASCII characters are evidence (ASCII reads the same under every candidate
here). For a candidate and a language:

- ``good``: non-ASCII letters of the language's alphabet (lowercase exemplar letters of the
  Unicode CLDR, main sets; :data:`ALPHABETS`), and typographic punctuation and common signs
  (``’ “ – … € © °``) standing outside words; each non-ASCII function word of the language
  (the lists of :mod:`wackycrawl.text.funcwords`: ``für``, ``že``, ``się``) counts
  :data:`FUNCWORD_WEIGHT` more;
- ``foreign``: letters outside that alphabet (``č`` in a French text: cp1250 read for cp1252),
  and every letter of a reading of at least :data:`MIN_SCRIPT_LETTERS` Cyrillic or Greek
  letters without one of the script's :data:`SCRIPT_MARKERS` (``я ы ь ё``...; ``ά έ ή ί ό``):
  Hebrew read as windows-1251's ``а-ъ``; so for a language of :data:`LANGUAGE_MARKERS`
  (French with fewer ``é è à`` than :data:`MIN_MARKER_SHARE` of at least
  :data:`MIN_MARKED_LETTERS` letters; Czech, Slovak, Polish, Croatian, Slovene so with
  their háček and ogonek letters);
- ``junk``: signs inside a word (``Ã¼``, ``pÅ™i``, ``±`` for ``ą``: a code page read for
  another, or UTF-8 read as a single-byte page; not CJK punctuation, ``。`` ``，``, which
  stands between letters in scripts written without spaces; not a sign between two digits,
  ``6×6``, nor a combining mark after a letter of its script, :data:`_SCRIPT_MARKS`), ``© ® ¤ ¦ ¶ §`` glued to the start of a lowercase word (``©okolaad``: ISO-8859-4's
  ``Šokolaad`` read as windows-1252), a lowercase letter followed by an uppercase
  one inside a word (KOI8-R read as windows-1251), private-use or unassigned code points;
  no-break spaces, the soft hyphen and the bidirectional marks and joiners (U+200C-U+200F)
  next to a Hebrew or Arabic letter are neither (0xA0 is a no-break space in most pages);
  spacing diacritics, ``¤`` and ``¦`` (:data:`_ODD_SIGNS`: windows-1252's reading of
  ISO-8859-15's ``€ Š š ž``) cost :data:`ODD_WEIGHT` each.

``plausibility = good / (good + foreign + junk)`` for the language that explains the letters
best (1.0 without non-ASCII characters); the
candidate's score is ``good - FOREIGN_WEIGHT * foreign - JUNK_WEIGHT * junk`` plus
:data:`FUNCWORD_LANGUAGE_WEIGHT` per function-word token of the language (ASCII ones too: they
name the language, whatever the codec; only for the languages named nearly as often as the
most-named one, :data:`FUNCWORD_LANGUAGE_SHARE`; a Latin-script language whose own non-ASCII function
words the text shows, with no foreign letter or junk, gets the bonus of the language the ASCII
words name most: it is quoted in the page), minus the code page's prior (:data:`PRIORS`: a
Central-European, Vietnamese or Mac page must be earned by evidence, never by a tie).
CJK texts have no alphabet here: their letters are scored by script (kana for Japanese,
Hangul for Korean, Han for all three).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache
from typing import NamedTuple

from wackycrawl.text import funcwords

# Lowercase non-ASCII letters of each language (Unicode CLDR exemplar characters, main set;
# Romanian also with the older cedilla forms ş ţ; Maori's macron vowels, which ISO-8859-4
# writes as windows-1252's à º ï ò þ and no other language here explains).
ALPHABETS = {
    "de": "äöüß", "en": "", "fr": "àâæçéèêëîïôœùûüÿ", "es": "áéíñóúü", "pt": "áàâãçéêíóôõú",
    "it": "àèéìíîòóùú", "nl": "áéíóúàèëïöü", "ca": "àçèéíïòóúü", "sv": "åäöé", "da": "æøåé",
    "nb": "æøåéóòô", "fi": "äöåšž", "is": "áðéíóúýþæö", "et": "äõöüšž", "cs": "áčďéěíňóřšťúůýž",
    "sk": "áäčďéíĺľňóôŕšťúýž", "pl": "ąćęłńóśźż", "hr": "čćđšž", "sl": "čšž", "hu": "áéíóöőúüű",
    "ro": "ăâîșțşţ", "lt": "ąčęėįšųūž", "lv": "āčēģīķļņšūž", "mi": "āēīōū", "tr": "çğıöşüâî",
    "sq": "çë", "ru": "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    "uk": "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя'", "bg": "абвгдежзийклмнопрстуфхцчшщъьюя",
    "sr": "абвгдђежзијклљмнњопрстћуфхцчџш", "mk": "абвгдѓежзѕијклљмнњопрстќуфхцчџш",
    "be": "абвгдеёжзійклмнопрстуўфхцчшыьэюя", "el": "αάβγδεέζηήθιίϊΐκλμνξοόπρσςτυύϋΰφχψωώ",
    "he": "אבגדהוזחטיךכלםמןנסעףפץצקרשת", "ar": "ءآأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوىي",
    "fa": "ءآأؤئابتثجحخدذرزژسشصضطظعغفقکگلمنهوی",
    "th": "กขฃคฅฆงจฉชซฌญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรฤลฦวศษสหฬอฮฯะัาำิีึืฺุู฿เแโใไๅๆ็่้๊๋์ํ",
    "vi": "àáâãèéêìíòóôõùúýăđĩũơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ",
}
# Codecs with multi-byte characters that charset-normalizer may propose (Python names);
# its single-byte proposals outside PRIORS (mac-greek, cp437...) are not taken.
MULTIBYTE = frozenset({
    "shift_jis", "cp932", "euc_jp", "euc_jis_2004", "euc_jisx0213", "shift_jis_2004",
    "shift_jisx0213", "euc_kr", "cp949", "johab", "gb2312", "gbk", "gb18030", "hz", "big5",
    "big5hkscs", "cp950", "iso2022_jp", "iso2022_jp_1", "iso2022_jp_2", "iso2022_jp_2004",
    "iso2022_jp_3", "iso2022_jp_ext", "iso2022_kr", "utf-16", "utf-16-le", "utf-16-be",
    "utf-32", "utf-32-le", "utf-32-be"})
# Languages written in the Latin script: their code pages are told apart by letters.
LATIN = frozenset(lang for lang, letters in ALPHABETS.items()
                  if all(ord(ch) < 0x250 for ch in letters))
# Scripts of the CJK languages: a letter counts as good when its Unicode name starts so.
CJK_SCRIPTS = {"ja": ("CJK", "HIRAGANA", "KATAKANA"), "zh": ("CJK",),
               "ko": ("HANGUL", "CJK")}
# The scripts of the languages above (first word of a letter's Unicode name).
_KNOWN_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "HEBREW", "ARABIC", "THAI", "CJK",
                            "HIRAGANA", "KATAKANA", "HANGUL"})
# A code page's prior, in characters of evidence it needs over a tie (Western first).
PRIORS = {"cp1252": 0.0, "cp1250": 0.5, "cp1251": 0.5, "cp1253": 0.5, "cp1254": 0.6,
          "cp1255": 0.5, "cp1256": 0.5, "cp1257": 1.0, "koi8-r": 0.6, "koi8-u": 0.8,
          "iso8859-2": 0.7, "iso8859-5": 0.8, "iso8859-7": 0.7, "iso8859-8": 0.7,
          "iso8859-9": 0.8, "iso8859-6": 0.8, "iso8859-15": 1.0, "iso8859-13": 2.0,
          "iso8859-4": 3.0, "iso8859-10": 3.0, "iso8859-16": 3.0, "cp874": 0.5, "tis-620": 0.6,
          "cp866": 1.0, "cp855": 2.0, "mac-cyrillic": 2.0, "mac-roman": 3.0,
          "mac-latin2": 3.0, "cp1258": 3.0}
FOREIGN_WEIGHT = 2.0
JUNK_WEIGHT = 4.0
FUNCWORD_WEIGHT = 2.0
# A spacing diacritic standing alone (¨ ¯ ¸, :data:`_ODD_SIGNS`) costs as much as a foreign
# letter or a byte dropped as undefined: cp1257 reads the stray bytes 0x8D, 0x8F, 0x9D of a
# windows-1252 page so, and must not win by its prior alone.
ODD_WEIGHT = 2.0
FUNCWORD_LANGUAGE_WEIGHT = 0.25
# ... for the languages whose tokens are at least this share of the most-named language's: a
# language the page's short words name only in passing (Slovak's 3 tokens among 10 Danish,
# German and Norwegian ones in an English and Basque page) earns nothing, or it would tip a
# near tie of code pages (cp1250's Zurińe over windows-1252's Zuriñe); nor does one the page
# names nearly as often as others, as short words shared by many languages do in a page of a
# language without a list (French 9 times against English's, Italian's, Catalan's 11 in a
# Latvian page: windows-1252's Kopçjam over windows-1257's Kopējam; Maori ā ē ī read as
# French â ç î).
FUNCWORD_LANGUAGE_SHARE = 0.9
# A byte the code page leaves undefined (repaired: dropped) costs as much evidence as a
# foreign letter: a few stray bytes (0x81, 0x8D, 0x8F, 0x90, 0x9D in a windows-1252 page) do
# not hand the page to a code page that reads them as foreign letters (cp1250's ť in an
# English word) or letters of another script (cp1256's پ in a French text: junk) with the
# code page's prior on top.
UNDEFINED_WEIGHT = 2.0
# Words with non-ASCII bytes read at most (the first ones outside markup), and their bytes
# at most: the evidence. Prose shows its code page within a few hundred such words.
MAX_TOKENS = 1000
MAX_SAMPLE_BYTES = 16 * 1024
# Allowed inside a word: apostrophes, hyphens, soft hyphen, middle dot (Catalan l·l).
_IN_WORD_OK = frozenset("’ʼ´`‐‑\u00ad·'")
# An unclosed script, style or comment runs to the end (each match is then linear).
_MARKUP = re.compile(rb"<script\b.*?(?:</script\s*>|\Z)|<style\b.*?(?:</style\s*>|\Z)"
                     rb"|<!--.*?(?:-->|\Z)|<[^<>]*>|&#?\w+;", re.S | re.I)
# Bytes of a page read for evidence at most.
MAX_BYTES = 256 * 1024
# A word holding a high byte, matched from its first byte only (linear: no retry inside words).
_NON_ASCII_TOKEN = re.compile(rb"(?<![^\s<>])[^\s<>\x80-\xff]*[\x80-\xff][^\s<>]*")


class Fit(NamedTuple):
    """How a decoded text fits its best language: ``score`` (characters of evidence, higher
    is better), ``plausibility`` in [0, 1], the language (ISO 639-1, ``""`` without
    evidence) and the counts."""

    score: float
    plausibility: float
    lang: str
    good: float
    foreign: int
    junk: int


def visible(body: bytes) -> bytes:
    """The first :data:`MAX_BYTES` bytes of an HTML page with markup, scripts, styles,
    comments and entities replaced by spaces (shared by :func:`sample` and
    :func:`language_evidence`)."""
    return _MARKUP.sub(b" ", body[:MAX_BYTES])


def sample(body: bytes, max_tokens: int = MAX_TOKENS, shown: bytes | None = None) -> bytes:
    """The evidence of an HTML page's bytes: its first ``max_tokens`` whitespace-separated
    words holding a non-ASCII byte, outside markup, scripts, styles, comments and entities
    (``shown``: :func:`visible` of ``body`` if already computed), joined by spaces, at most
    :data:`MAX_SAMPLE_BYTES` bytes (ASCII-compatible codecs only: ``<``, ``>`` and white
    space are never part of a multi-byte character in them)."""
    tokens, size = [], 0
    for match in _NON_ASCII_TOKEN.finditer(visible(body) if shown is None else shown):
        tokens.append(match.group())
        size += len(tokens[-1]) + 1
        if len(tokens) >= max_tokens or size >= MAX_SAMPLE_BYTES:
            break
    return b" ".join(tokens)


def language_evidence(body: bytes, shown: bytes | None = None) -> dict[str, int]:
    """Function-word tokens per language (:mod:`wackycrawl.text.funcwords`) among the
    page's ASCII words outside markup (``shown``: :func:`visible` of ``body`` if already
    computed): the same under every ASCII-compatible codec."""
    words = (visible(body) if shown is None else shown).decode("latin-1")
    freq = funcwords.word_counts(funcwords.normalise(words))
    return dict(zip(funcwords.languages(), funcwords.count(
        {w: n for w, n in freq.items() if w.isascii()})[0]))


def undefined_bytes(codec: str) -> bytes:
    """The high bytes (0x80-0xFF) a single-byte ``codec`` leaves undefined (0x81, 0x8D, 0x8F,
    0x90, 0x9D in windows-1252): stray bytes, or bytes of another code page. The C1 controls of
    the ISO-8859 pages (0x80-0x9F) are not among them: a page holding those bytes is written
    in a Windows code page, and the ISO page stays out of the running."""
    return _undefined_bytes(codec)


@cache
def _undefined_bytes(codec: str) -> bytes:
    out = []
    for byte in range(0x80, 0x100):
        try:
            bytes([byte]).decode(codec)
        except UnicodeDecodeError:
            out.append(byte)
    return bytes(out)


def same_decodings(sample: bytes, codecs: list[str],
                   max_undefined: int = 0) -> dict[str, list[str]]:
    """``{first codec: [codecs...]}``: the ``codecs`` (single-byte, ASCII-compatible) grouped
    by how they decode the high bytes (0x80-0xFF) present in ``sample`` and which of them they
    leave undefined (:func:`undefined_bytes`); codecs that leave more than ``max_undefined``
    of the sample's bytes undefined are left out. Codecs of one group decode ``sample`` (less
    its undefined bytes) to the same text, so its :func:`fit` differs only by their priors: it
    is computed once per group."""
    present = bytes(sorted(set(sample.translate(None, _ASCII_BYTES))))
    groups: dict[tuple[str, bytes], list[str]] = {}
    for codec in codecs:
        undefined = bytes(b for b in present if b in _undefined_bytes(codec))
        if undefined and sum(map(sample.count, (bytes([b]) for b in undefined))) > max_undefined:
            continue
        try:
            key = present.translate(None, undefined).decode(codec)
        except UnicodeDecodeError:
            continue
        groups.setdefault((key, undefined), []).append(codec)
    return {members[0]: members for members in groups.values()}


_ASCII_BYTES = bytes(range(0x80))


@cache
def _all_languages() -> tuple[str, ...]:
    return (*ALPHABETS, *CJK_SCRIPTS)


@cache
def _languages_of(letter: str) -> tuple[str, ...]:
    """The languages whose alphabet (or CJK script) has ``letter`` (lowercase)."""
    script = _script(letter)
    return (*(lang for lang, letters in ALPHABETS.items() if letter in letters),
            *(lang for lang, scripts in CJK_SCRIPTS.items() if script in scripts))


@cache
def _script(char: str) -> str:
    return unicodedata.name(char, "").split(" ")[0]


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Left-to-right and right-to-left marks, zero-width (non-)joiner: format characters of
# running Hebrew, Arabic and Persian text, neither evidence nor junk.
_BIDI_MARKS = frozenset("\u200c\u200d\u200e\u200f")
# ... a mark next to a Hebrew or Arabic letter (or after one and a punctuation mark).
_RTL_BIDI = re.compile("(?:(?<=[\u0590-\u06ff])|(?<=[\u0590-\u06ff][,.;:!?\"')]))"
                       "[\u200c-\u200f]|[\u200c-\u200f](?=[\u0590-\u06ff])")
# Letters every text of a script's languages here writes within a few hundred letters (one
# of them at least): Cyrillic я ы ь ё (ru bg be), і ї є ў (uk be) or ј љ њ (sr mk), not э ю
# (windows-1251's reading of cp1255's marks 0xFD 0xFE); Greek's accented vowels of the
# monotonic orthography (not ύ ώ: windows-1253 reads cp1255's marks 0xFD 0xFE so). A reading
# of at least MIN_SCRIPT_LETTERS letters of the script without any of them is another
# script's text read by the wrong code page (Hebrew letters, cp1255's 0xE0-0xFA, are
# windows-1251's а-ъ and windows-1253's ΰ-ϊ, never я or ό): its letters are foreign to every
# language of that script.
SCRIPT_MARKERS = {"CYRILLIC": "яыьёіїєўјљњ", "GREEK": "άέήίό"}
MIN_SCRIPT_LETTERS = 300
# The same for a language: letters its text always shows among MIN_MARKED_LETTERS of its
# non-ASCII letters. French without é è à is no French: windows-1252's â ç î ô û are then
# another code page's letters (windows-1257's Maori ā ē ī ō ū: whânau for whānau); Czech,
# Slovak, Polish, Croatian, Slovene without their háček or ogonek letters are no such text
# (Irish á é í ó ú with windows-1250's ď for ï: Heloďse).
LANGUAGE_MARKERS = {"fr": "éèà", "cs": "čďěňřšťůž", "sk": "čďľĺňŕšťžäô", "pl": "ąćęłńśźż",
                    "hr": "čćđšž", "sl": "čšž"}
MIN_MARKED_LETTERS = 20
# ... or shows them as less than this share of those letters (ours: they are 40-100 % of
# the non-ASCII letters of such text; one ď among 200 Irish á é í ó ú is a byte of ï).
MIN_MARKER_SHARE = 0.1
# Symbols of running text (besides punctuation, currency signs and ½ ¹ ²).
_COMMON_SIGNS = frozenset("©®°±×÷§¶µ™•¬")
# Spacing diacritics (diaeresis, macron, cedilla), the generic currency sign and the broken
# bar: no running text writes them, but Latin-1 pages hold them at times; not junk, but no
# evidence either: each costs ODD_WEIGHT (a code page that reads a stray byte as one of
# them, cp1257's 0x8D, earns nothing by it; windows-1252's ¤ ¦ ¨ ¸ are ISO-8859-15's
# € Š š ž, "¤1.500" is "€1.500").
_ODD_SIGNS = frozenset("¨¯¸¤¦")
# Signs glued to the start of a lowercase word (``©okolaad``, ``¶θήνα``): no text writes
# them so (``©2009``, ``°C`` are right); a code page read for another does (ISO-8859-4's or
# ISO-8859-15's Š read as windows-1252's ©, ISO-8859-7's Ά as windows-1253's ¶).
_SIGN_BEFORE_WORD = re.compile(r"(?<![^\W\d_])[©®¤¦¶§¨¸]+(?=[^\W\d_])")
_WORD = re.compile(r"[^\W\d_]+")  # as funcwords.word_counts: runs of letters
# The punctuation of the CJK scripts (CJK Symbols and Punctuation, fullwidth and halfwidth
# forms): written between letters, since those scripts put no space after a sentence.
_CJK_PUNCTUATION = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
# Combining marks written inside words after a letter of their script: diacritics after a
# lowercase Latin letter (cp1258's Vietnamese tone marks; not after a capital: windows-1258
# reads the Romanian Ţ of an all-caps ISO-8859-2 or windows-1250 page, 0xDE, as a combining
# tilde, STA\u0303IE), Hebrew points after a Hebrew letter
# (cp1255's niqqud), Arabic harakat after an Arabic letter; Python's \w does not take them
# for word characters. Removed before signs inside words are counted (not Thai's marks:
# cp874 reads CJK bytes as Thai letters and marks).
_SCRIPT_MARKS = re.compile("(?<=[a-z\u00df-\u00ff\u0103\u0111\u01a1\u01b0])[\u0300-\u036f]+"
                           "|(?<=[\u05d0-\u05ea])[\u0591-\u05c7]+"
                           "|(?<=[\u0620-\u064a])[\u0610-\u061a\u064b-\u065f\u0670]+")
_MAQAF = re.compile("(?<=[\u05d0-\u05ea])\u05be")
_IN_WORD_SIGN = re.compile(r"(?<=\w)[^\x00-\x7f\w\s" + re.escape("".join(_IN_WORD_OK))
                           + _CJK_PUNCTUATION + r"]+(?=\w)")


# Number signs (superscripts, fractions, circled digits) before a letter (th²e, ²it; m² is
# right): a word reads so only under a wrong code page (\w takes them for word characters).
_IN_WORD_NUMBER = re.compile(r"[\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u209f"
                             r"\u2150-\u218f\u2460-\u24ff]+(?=[^\W\d_])")

# A middle dot glued to one side of a word only (``penn·``, ``·item``): running text writes it
# between two letters (Catalan ``l·l``) or between spaces (`` · `` in a menu); Mac Roman reads
# the byte 0xE1 (``á`` in windows-1252 and ISO-8859-1/15) so.
_EDGE_DOT = re.compile(r"(?<=[^\W\d_])·(?![^\W\d_])|(?<![^\W\d_])·(?=[^\W\d_])")

_LATIN_LETTER = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_GREEK_CYRILLIC = "\u0370-\u03ff\u0400-\u04ff\u0590-\u06ff\u0e00-\u0e7f"  # + Hebrew, Arabic, Thai
_MIXED_SCRIPTS = re.compile(f"[{_LATIN_LETTER}][{_GREEK_CYRILLIC}]"
                            f"|[{_GREEK_CYRILLIC}][{_LATIN_LETTER}]")

# One or two Han, kana or Hangul characters between two ASCII letters ("d茅j", "na茂ve",
# "Caf챕" is not but "Stra횩e" is): UTF-8 Latin text read by a CJK codec, whose every
# two-byte letter becomes one such character. CJK text writes Latin words apart from its
# own characters or next to longer runs ("T恤", "iPhone手机", "CDを買った").
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_GLUED_CJK = re.compile(f"(?<=[A-Za-z])[{_CJK_CHARS}]{{1,2}}(?=[A-Za-z])")


def _letters_of(category: str) -> str:
    return "".join(chr(c) for c in (*range(0x80, 0x250), *range(0x370, 0x530), *range(0x1E00, 0x2000))
                   if unicodedata.category(chr(c)) == category)


# A lowercase letter (ASCII, or Latin, Greek, Cyrillic) followed by an uppercase one of those
# scripts (non-ASCII): compiled once.
_CASE_SWITCH = re.compile(f"[a-z{re.escape(_letters_of('Ll'))}][{re.escape(_letters_of('Lu'))}]")


@cache
def _category(char: str) -> str:
    return unicodedata.category(char)


def _classify(text: str) -> tuple[dict[str, int], int, int, int]:
    """Non-ASCII letters of ``text`` (lowercased) with counts, signs outside words, junk."""
    chars = Counter(_NON_ASCII.findall(text))
    letters: dict[str, int] = {}
    signs = junk = upper = odd = bidi = 0
    marks = False
    lower_chars, upper_chars = [], []
    for ch, n in chars.items():
        cat = _category(ch)
        if cat[0] == "M":
            marks = True
        if ch in _BIDI_MARKS:
            bidi += n  # written in Hebrew, Arabic, Persian text (cp1255's 0xFD 0xFE)
        elif cat in ("Co", "Cn", "Cs", "Cc"):
            junk += n
        elif cat[0] == "L":
            low = ch.lower()
            low = low if len(low) == 1 else ch  # İ lowercases to two characters
            letters[low] = letters.get(low, 0) + n
            if cat == "Lu":
                upper += n
                upper_chars.append(ch)
            elif cat == "Ll":
                lower_chars.append(ch)
        elif ch in _ODD_SIGNS:
            odd += n
        elif cat[0] == "P" or cat == "Sc" or ch in _COMMON_SIGNS or cat == "No":
            signs += n  # outside words; those inside are counted as junk below
        elif cat[0] != "M" and cat != "Nd" and cat != "Zs" and ch != "\u00ad":
            # box drawing, arrows, dingbats... are no running text; no-break spaces and the
            # soft hyphen are (neither evidence nor junk)
            junk += n
    # signs between letters: Ã¼, ±, ³; not a sign between two digits (6×6, 10€50), nor a
    # combining mark after a letter of its script
    marked = _SCRIPT_MARKS.sub("", text) if marks else text
    if "\u05be" in marked:
        # Hebrew's hyphen, the maqaf, after a Hebrew letter joins it to the next word, a
        # Hebrew, Latin or number one (ו־net, ב־2009): a hyphen, not a sign inside a word
        marked = _MAQAF.sub("-", marked)
    inside = "".join(m.group() for m in _IN_WORD_SIGN.finditer(marked)
                     if not (marked[m.start() - 1].isdigit() and marked[m.end()].isdigit()))
    glued = "".join(m.group() for m in _SIGN_BEFORE_WORD.finditer(text)
                    if text[m.end()].islower())
    junk += len(glued)
    signs -= sum(1 for ch in glued if ch not in _ODD_SIGNS)
    odd -= sum(1 for ch in glued if ch in _ODD_SIGNS)
    junk += len(inside)
    # th²e, ²it: ², ½ before a letter (junk, and no sign: c½ur is ISO-8859-15's cœur)
    numbers = sum(map(len, _IN_WORD_NUMBER.findall(text)))
    junk += numbers
    signs -= numbers
    signs -= sum(n for ch, n in Counter(inside).items() if ch not in _ODD_SIGNS and (
        _category(ch)[0] == "P" or _category(ch) in ("Sc", "No") or ch in _COMMON_SIGNS))
    odd -= sum(n for ch, n in Counter(inside).items() if ch in _ODD_SIGNS)
    # penn·: Mac Roman's á (0xE1) of a Latin-1 page
    edge_dots = len(_EDGE_DOT.findall(text)) if "·" in text else 0
    junk += edge_dots
    signs -= edge_dots
    if bidi:  # marks not next to a Hebrew or Arabic letter or sign are junk (cp1256's 0x9D)
        junk += bidi - len(_RTL_BIDI.findall(text))
    junk += len(_MIXED_SCRIPTS.findall(text))  # xЃ: a Latin and a Cyrillic, Greek... letter
    junk += sum(map(len, _GLUED_CJK.findall(text)))  # d茅j: Latin UTF-8 read as CJK
    if upper_chars:  # aB inside a word (KOI8-R read as windows-1251)
        junk += len(_CASE_SWITCH.findall(text))
    # running text is mostly lowercase: a page of capitals is a cased page read backwards
    # (KOI8-R as windows-1251) unless the other reading is no better
    junk += max(0, upper - (sum(letters.values()) - upper)) // 2
    return letters, max(signs, 0), junk, odd


def usual_char(char: str) -> bool:
    """True if a text of some language holds ``char`` (one character): a letter of an
    alphabet of :data:`ALPHABETS` or a CJK script, a punctuation mark, a currency sign, a
    common sign or number sign (``© ° ½ ²``), a space, the soft hyphen."""
    cat = _category(char)
    if cat[0] == "L" and char not in "ªº":  # ordinal indicators are letters (Lo)
        low = char.lower()
        return bool(_languages_of(low if len(low) == 1 else char))
    return (cat[0] == "P" or cat in ("Sc", "No", "Zs") or char in _COMMON_SIGNS
            or char in _ODD_SIGNS or char in "ªº\u00ad")


def _named(languages: dict[str, int]) -> dict[str, int]:
    """The function-word tokens of the languages the page names clearly: at least
    :data:`FUNCWORD_LANGUAGE_SHARE` of the most-named language's tokens."""
    top = max(languages.values(), default=0)
    return {lang: n for lang, n in languages.items() if n and n >= FUNCWORD_LANGUAGE_SHARE * top}


def latin_script(lang: str) -> bool:
    """Whether ``lang`` (of :data:`ALPHABETS`) is written in the Latin script: those of
    :data:`LATIN` and Vietnamese, whose letters go beyond U+024F."""
    return lang in ALPHABETS and _lang_scripts(lang) == ("LATIN",)


@cache
def _lang_scripts(lang: str) -> tuple[str, ...]:
    """The scripts (first word of the Unicode name) of a language's letters."""
    if lang in CJK_SCRIPTS:
        return CJK_SCRIPTS[lang]
    return tuple({_script(ch) for ch in ALPHABETS[lang] if ch.isalpha()} or {"LATIN"})


def fit(text: str, codec: str = "", languages: dict[str, int] | None = None,
        only: str | None = None) -> Fit:
    """Score ``text`` - the evidence words (:func:`sample`) decoded with ``codec``, a Python
    codec name whose prior is subtracted - against every language of :data:`ALPHABETS` and
    :data:`CJK_SCRIPTS` (or the language ``only``: how plausible the text is for it);
    ``languages`` are the page's ASCII function-word tokens per language
    (:func:`language_evidence`). Returns the best :class:`Fit`."""
    prior = PRIORS.get(codec, 0.0)
    if text.isascii():
        # the page's ASCII function words count as for any other decoding of it (a code page
        # that left the sample's few high bytes undefined decodes it to ASCII)
        fw_ascii = languages or {}
        fw_ascii = {lang: n for lang, n in fw_ascii.items() if lang in _all_languages()}
        lang = max(fw_ascii, key=fw_ascii.get, default="") if any(fw_ascii.values()) else ""
        bonus = FUNCWORD_LANGUAGE_WEIGHT * fw_ascii.get(lang, 0)
        return Fit(bonus - prior, 1.0, lang, 0.0, 0, 0)
    letters, signs, junk, odd = _classify(text)
    fw_all = _named(languages or {})
    # the page's ASCII function words read the same in every reading: a Latin-script
    # language that explains all of a reading's non-ASCII letters and shows its own non-ASCII
    # function words in it (a Polish sentence's że quoted in an English page) gets the bonus of
    # the language those ASCII words name most, as windows-1252's reading as that language
    # would (¿e, zwiêkszony: read as English with foreign letters, earning the English bonus)
    latin_bonus = FUNCWORD_LANGUAGE_WEIGHT * max(
        (n for lang, n in fw_all.items() if lang in LATIN), default=0)
    words = Counter(w for w in _WORD.findall(funcwords.normalise(text)) if not w.isascii())
    fw_wide = dict(zip(funcwords.languages(), funcwords.count(words)[0]))
    total = sum(letters.values())
    goods = dict.fromkeys((only,) if only else _all_languages(), 0)
    for ch, n in letters.items():
        for lang in _languages_of(ch):
            if lang in goods:
                goods[lang] += n
    best = None
    plausible = (0.0, total)  # (plausibility, foreign) of the language explaining most
    scripts = Counter()
    for ch, n in letters.items():
        scripts[_script(ch)] += n
    known = sum(n for script, n in scripts.items() if script in _KNOWN_SCRIPTS)
    unmarked = {script for script, markers in SCRIPT_MARKERS.items()
                if scripts[script] >= MIN_SCRIPT_LETTERS
                and not any(ch in letters for ch in markers)}
    if unmarked:
        for lang in goods:
            if lang not in CJK_SCRIPTS and set(_lang_scripts(lang)) & unmarked:
                goods[lang] = 0
    for lang, markers in LANGUAGE_MARKERS.items():
        if (lang in goods and goods[lang] >= MIN_MARKED_LETTERS
                and sum(letters.get(ch, 0) for ch in markers) < MIN_MARKER_SHARE * goods[lang]):
            goods[lang] = 0
    for lang, good in goods.items():
        good_total = good + signs + FUNCWORD_WEIGHT * fw_wide.get(lang, 0)
        foreign = total - good
        # a letter of another script than the language's (an Arabic letter in a French
        # text: a stray byte read by cp1256) is junk, not a foreign letter
        alien = known - sum(scripts[script] for script in _lang_scripts(lang))
        score = (good_total - FOREIGN_WEIGHT * foreign - JUNK_WEIGHT * junk
                 - (JUNK_WEIGHT - FOREIGN_WEIGHT) * alien - ODD_WEIGHT * odd
                 + (latin_bonus if lang in LATIN and fw_wide.get(lang) and not foreign
                    and not junk else FUNCWORD_LANGUAGE_WEIGHT * fw_all.get(lang, 0))
                 - prior)
        seen = good_total + foreign + junk
        plausible = max(plausible, (good_total / seen if seen else 1.0, foreign))
        if best is None or score > best.score:
            best = Fit(score, 0.0, lang, good_total, foreign, junk)
    # plausibility is that of the language that explains the letters best (an English page
    # quoting French names is plausible French-letter text), the score that of the best fit
    return best._replace(plausibility=plausible[0], foreign=plausible[1])
