"""Function-word language identification, checked by an n-gram model, and connected prose.

Source: Baroni, "Linguistic Crawls" (WaCky slides): "Small list of function words: fast and
effective. Minimum proportion of function words also good to detect connected prose (Zipf to
our rescue)"; Baroni et al. 2009, "The WaCky Wide Web" (LRE 43:209-226) and Ferraresi et al.
2008 (ukWaC), who kept only documents with at least ten types and thirty tokens of function
words. langid.py (Lui & Baldwin 2012; py3langid's model, :mod:`wackycrawl.text.langmodel`)
is the second opinion the design names: it reads every labelled text, so a language without
a list can never pass as a listed one.

Stages, each a plain function over ``str``:

1. :func:`normalise` - default-ignorable code points removed (soft hyphen, ZWJ, variation
   selectors), Unicode NFKC (full-width letters) and case folding (ALL-CAPS text).
2. :func:`word_counts` - runs of letters; apostrophes, hyphens split (``l'homme`` -> l, homme).
3. :func:`count` - per listed language, function-word tokens and types.
4. :meth:`Identifier.identify` - reads the text in pieces (early stop, below) for the lists'
   evidence; the model reads the first ``langid_max_chars`` characters (only ``check_chars``
   when the lists point at a language without close neighbours and the model agrees on
   them). A label is given
   only when both agree (the lists point at the model's best language, which has at least
   ``agree_min_prob``), or when the model alone is sure (``model_min_prob``: no list fits, or
   the lists point elsewhere). Close languages (bs/hr/sr, nb/nn/da/sv, cs/sk, es/pt/gl/ca,
   id/ms, el/grc) need ``close_min_share`` of their group's probability (the group's own share in
   ``close_group_shares``), or distinctive words (the
   function-word and marker lists, ``data/funcwords/markers``: forms one standard writes and
   the other's does not, and words spelt with a letter only one standard's alphabet has,
   ``data/funcwords/letters``; one token against a purist standard, ``close_purist``), counted
   over the whole text when the part read does not tell them apart (in the groups of
   ``close_one_marker_shares``, one distinctive token against the group's second best, none
   against the best, when the best holds that share); else ``"und"`` with the
   two candidates in ``top2``. In a group whose standards write none of each other's forms
   (id/ms, ``close_mixed_ratio``), a text holding forms of two members gets a label only
   with ``close_mixed_ratio`` times as many types of the label's forms. The model's
   ``nso`` (it has no class for Setswana, which it calls nso) needs Northern Sotho markers.
   A listed language the model ranks second behind its neighbour without a list
   (``unlisted_neighbours``: Serbian Cyrillic behind Macedonian) is given when the lists point
   at it, the two hold ``agree_min_prob`` together and its distinctive words are strong against
   the neighbour's (``markers``); else ``"uncertain"``.
5. :func:`is_connected_prose` - minimum function-word types, tokens and ratio.

Early stop: the text is read in pieces of ``chunk_chars``, ``2 * chunk_chars``, ... characters
(cut at white space). After a piece, the rest is not read when the text read so far holds
``min_chars`` and either its best list has at least ``min_types`` types, ``min_tokens``
tokens and a share of at least ``min_ratio + stop_margin`` of all words, or it has words but
no function word of any list (a language without a list). Every figure of the result
(tokens, ratio) is then that of the text read, not of the whole text: a page of 1,000
characters of prose followed by a long word list is prose by this test. A text near a
threshold, or with some function words but too few, is read to its end, so its figures are
those of the whole text.

All lengths are in characters (``str``), never bytes.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from itertools import compress, filterfalse
from operator import not_
from typing import NamedTuple

import numpy as np

from wackycrawl.text import langmodel

# Texts shorter than this (characters, after strip) get "und" (case C13: page-level policy).
MIN_CHARS = 200
# Relative lead (best - second) / best in function-word tokens needed to decide without langid.
MIN_MARGIN = 0.3
# The model reads at most this many characters (its feature extraction is a Python loop over
# the UTF-8 bytes: ~1.3 ms per 1,000 characters with 139 languages).
LANGID_MAX_CHARS = 1000
# When the lists point at one language without close neighbours, the model first reads only
# this many characters; if it agrees, that is the check (0: always read LANGID_MAX_CHARS).
CHECK_CHARS = 300
# Model probability the lists' language needs when lists and model agree, and that any
# language needs when the model decides alone (no list fits, or the lists point elsewhere):
# below, "und" (benchmarks/language_eval.py on the devset's sentences and documents).
AGREE_MIN_PROB = 0.5
MODEL_MIN_PROB = 0.99
# Close languages: share of the group's probability the best member needs (with no
# distinctive word of another member against it), or tokens of distinctive words (in its
# function-word or marker list, not in the other's; three times the other's) against each
# member the model has not ruled out (same benchmark, both halves of the devset: 2 vs 3 tells
# more bs/hr documents apart with no new error; 1 costs hr precision, 1.0 -> 0.98).
CLOSE_MIN_SHARE = 0.9
CLOSE_MIN_MARKERS = 2
# Groups whose own share replaces CLOSE_MIN_SHARE (a group named by its members, any order):
# the model tells Bokmal, Nynorsk, Danish and Swedish, and Spanish, Portuguese, Galician and
# Catalan apart by their spelling systems, so a lower share is as safe there (same benchmark,
# the devset's sentences, both halves: 0.8 gives a label to 15-18 % more of the da, nb and nn
# sentences and 5-6 % more of the es and pt ones; of the labels it gives that are not the gold
# one, 17 of 18 are right by the sentence's own forms, Nynorsk sentences among the nb ones).
# Czech and Slovak: 0.85 (same benchmark, both halves: 20 more cs and sk sentences, none
# wrong; 0.8 calls 3 Czech sentences written without diacritics Slovak).
CLOSE_GROUP_SHARES = {"da,nb,nn,sv": 0.8, "ca,es,gl,pt": 0.8, "cs,sk": 0.85}
# Groups in which one distinctive token settles it when the model already prefers the best
# member: with at least this share of the group's probability, one distinctive token of the
# best member against the group's second best and none of any other member's against it give
# the best member ("markers"). Not for bs/hr/sr and id/ms, whose standards share most forms
# and whose sentences the model cannot rank (benchmarks/language_eval.py, the devset's
# sentences, both halves: 0.5 labels about 330 more da, nb, nn, sv, cs, sk, es, pt and ca
# sentences; the labels that differ from the gold are Nynorsk sentences among the nb ones and
# Spanish ones among the ca ones, by their own forms, and 2 Czech sentences without diacritics
# called sk (pri for při)).
CLOSE_ONE_MARKER_SHARES = {"da,nb,nn,sv": 0.5, "ca,es,gl,pt": 0.5, "cs,sk": 0.5}
# Close groups whose standards write none of each other's distinctive forms (Indonesian, KBBI:
# karena, bahwa, saja, uang; Malay, DBP: kerana, bahawa, sahaja, wang; SOURCES.md): a text
# holding distinctive words of two members mixes the standards, and is given one of them only
# when the label's distinctive words have at least this many times as many types (different
# words) as the other's; else "und" with both candidates. Types, not tokens: one word
# repeated by a page's boilerplate is one form (benchmarks/language_eval.py, devset
# documents: of the 17 ms documents holding forms of both standards, the 6 labelled id become
# 1, the others und, 1 in each half; no other document or sentence changes label).
CLOSE_MIXED_RATIO = {"id,ms": 3.0}
# Close languages whose standard is purist, admitting no form of its neighbours' standards
# (Wikipedia, "Comparison of standard Bosnian, Croatian, Montenegrin and Serbian": the
# Bosnian, Montenegrin and Serbian standards "tend to be inclusive", accepting a wider range
# of idioms, "whereas the Croatian language policy is more purist"): a Bosnian text may hold
# Croatian forms, a Croatian one no Bosnian or Serbian form. So one distinctive token of
# another member (three times the purist's own) tells a text apart from a purist member; two
# (CLOSE_MIN_MARKERS) from any other.
CLOSE_PURIST = ("hr",)
# Listed languages and a language without a list the model takes them for on short texts
# (Serbian Cyrillic and Macedonian: the model ranks them 0.3-0.7 each on a sentence). When the
# lists point at the listed one, the model's two best are the two with AGREE_MIN_PROB together,
# and the text holds CLOSE_MIN_MARKERS distinctive tokens of the listed one against the other
# (function-word and marker lists; markers/mk.txt: Macedonian е, во, со, кој, дека against
# Serbian је, у, са, који, да), three times the other's, the listed one is given ("markers")
# instead of "uncertain" (benchmarks/language_eval.py, sentences, both halves: 28 more sr
# sentences, no Macedonian one labelled sr; documents unchanged).
UNLISTED_NEIGHBOURS = {"sr": "mk"}
# Connected prose (Baroni et al. 2009; Ferraresi et al. 2008; BootCaT whitelist semantics).
MIN_FUNCWORD_TYPES = 10
MIN_FUNCWORD_TOKENS = 30
MIN_FUNCWORD_RATIO = 0.25
# Early stop: the first piece has this many characters (0 reads every text whole), and the
# text read must show a function-word share of MIN_FUNCWORD_RATIO plus this margin (about 1.5
# standard deviations of the share in 1,000 characters, ~165 words). On the devset's 794 clean
# pages: no language changes; 11 pages of prose followed by lists or notices become prose.
CHUNK_CHARS = 1000
STOP_RATIO_MARGIN = 0.05

UND = langmodel.UND
_WORD = re.compile(r"[^\W\d_]+")
_SPACE = re.compile(r"\s")
# Every ASCII byte that is not a letter separates words (bytes.translate runs in C).
_ASCII_NON_LETTERS = bytes(c for c in range(128) if not chr(c).isalpha())
_TO_SPACE = bytes.maketrans(_ASCII_NON_LETTERS, b" " * len(_ASCII_NON_LETTERS))
_TO_SPACE_BUT_NL = _TO_SPACE[:10] + b"\n" + _TO_SPACE[11:]
# Per-language counters packed into one int, _FIELD bits a language (no text has 2**40 words).
_FIELD = 40
_FIELD_MASK = (1 << _FIELD) - 1
# Romanian is written with comma-below letters; older text uses the cedilla forms.
_CEDILLA = str.maketrans("șțȘȚ", "şţŞŢ")


@dataclass(frozen=True, slots=True)
class LangResult:
    """The decision for one text.

    ``lang`` is an ISO 639-1 code (``nb`` for Bokmål, never ``no``) or ``"und"``. ``method``:
    ``"funcwords"`` (lists and model agree), ``"langid"`` (the model alone is sure),
    ``"markers"`` (close languages told apart by their lists' distinctive words), or for
    ``und``: ``"short"`` (below ``min_chars``), ``"no-evidence"`` (no word the model knows),
    ``"uncertain"`` (below the probability thresholds), ``"close"`` (close languages not told
    apart). ``score`` is the model's probability of ``lang`` (for a close language, its share
    of the group's), 0.0 for ``und``. ``top2``: the model's two best ``(lang, probability)``
    (for close languages the group's two best: the candidates of an ``und``), empty when
    the model was not asked.
    ``fw_tokens``/``fw_types`` count words of the chosen language's list (of the best list when
    the language has none); ``fw_ratio`` = ``fw_tokens / tokens``; ``tokens`` counts all words;
    ``chars`` is the number of (normalised) characters read. All figures are those of the text
    read, which is less than the whole text when the decision settled early.
    """

    lang: str
    score: float
    method: str
    fw_tokens: int = 0
    fw_types: int = 0
    fw_ratio: float = 0.0
    tokens: int = 0
    chars: int = 0
    top2: tuple[tuple[str, float], ...] = ()


def _read_list(lang: str) -> list[str]:
    text = files("wackycrawl.text").joinpath("data", "funcwords", f"{lang}.txt").read_text("utf-8")
    words = [normalise(w.strip()) for w in text.splitlines() if w.strip() and w[0] != "#"]
    return words + [w.translate(_CEDILLA) for w in words if w.translate(_CEDILLA) != w]


@cache
def _lexicon() -> tuple[tuple[str, ...], dict[bytes, int]]:
    """(languages, UTF-8 word -> bit mask of the languages whose list has it), built once.
    Language ``i`` is bit ``i * _FIELD``, so ``n * mask`` adds ``n`` to each owner's field."""
    folder = files("wackycrawl.text").joinpath("data", "funcwords")
    langs = tuple(sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".txt")))
    masks: dict[bytes, int] = {}
    for i, lang in enumerate(langs):
        for word in set(_read_list(lang)):
            key = word.encode()
            masks[key] = masks.get(key, 0) | 1 << (_FIELD * i)
    return langs, masks


def function_words() -> frozenset[str]:
    """Every word of every shipped list (normalised as :func:`normalise`)."""
    return frozenset(w.decode() for w in _lexicon()[1])


def languages() -> tuple[str, ...]:
    """ISO 639-1 codes of the shipped function-word lists, sorted."""
    return _lexicon()[0]


def normalise(text: str) -> str:
    """Default-ignorables removed, NFKC, case folding: ``"ＴＨＥ LI\u00adBRARY"`` ->
    ``"the library"`` (cases C12, C13). Speed: ASCII text skips both Unicode passes, text
    already in NFKC (a quick check in C) the NFKC pass."""
    return _fold(langmodel.strip_ignorable(text))


def _fold(text: str) -> str:
    """:func:`normalise` of a text without default-ignorables. A text not in NFKC is
    normalised line by line, skipping the lines that are (a line break neither composes
    nor reorders with its neighbours: the same text)."""
    if not (text.isascii() or unicodedata.is_normalized("NFKC", text)):
        text = "\n".join(line if unicodedata.is_normalized("NFKC", line)
                         else unicodedata.normalize("NFKC", line) for line in text.split("\n"))
    return text.casefold()


def _words(norm: str) -> Counter[bytes]:
    """Word frequencies of a normalised text, words as UTF-8 ``bytes``: the same words as
    :func:`word_counts`. Speed: ASCII non-letters become spaces by ``bytes.translate``; only
    the pieces left with a non-ASCII non-letter (``“the``, ``it’s``) go through the regex."""
    freq = Counter(norm.encode("utf-8", "surrogatepass").translate(_TO_SPACE).split())
    if not norm.isascii():
        keys = list(filterfalse(bytes.isascii, freq))  # keys hold no b" ": decode at once
        texts = _str(b" ".join(keys)).split(" ")
        for key, text in compress(zip(keys, texts), map(not_, map(str.isalpha, texts))):
            n = freq.pop(key)
            for word in _WORD.findall(text):
                freq[word.encode("utf-8", "surrogatepass")] += n
    return freq


def _str(word: bytes) -> str:
    return word.decode("utf-8", "surrogatepass")


def word_counts(text: str) -> Counter[str]:
    """Word frequencies of a normalised text. Words are maximal runs of Unicode letters (no
    digits, no ``_``)."""
    return Counter({_str(w): n for w, n in _words(text).items()})


def count(freq: Counter[str]) -> tuple[list[int], list[int]]:
    """Function-word (tokens, types) per language, aligned with :func:`languages`."""
    return _unpack(_function_words({w.encode("utf-8", "surrogatepass"): n
                                    for w, n in freq.items()}))


def paragraph_tokens(paragraphs: list[str]) -> list[list[int]]:
    """Function-word tokens per language (aligned with :func:`languages`) of each paragraph
    (raw: normalised here). Cheaper than :func:`count` for many short texts: one Unicode pass
    over them all, words split at ASCII non-letters only (a word glued to non-ASCII
    punctuation, ``„die``, is not counted), found and looked up by numpy (:func:`_lookup`)."""
    return paragraph_counts(paragraphs).tolist()


def paragraph_counts(paragraphs: list[str]) -> np.ndarray:
    """:func:`paragraph_tokens` as an ``int64`` array of shape ``(len(paragraphs),
    len(languages()))``."""
    if not paragraphs:
        return np.zeros((0, len(languages())), dtype=np.int64)
    norm = normalise("\n".join(paragraphs)).encode("utf-8", "surrogatepass")
    if norm.count(b"\n") != len(paragraphs) - 1:  # a paragraph held a line break
        norm = b"\n".join(normalise(p).encode("utf-8", "surrogatepass").translate(_TO_SPACE)
                          for p in paragraphs)
    return _lookup(norm.translate(_TO_SPACE_BUT_NL), len(paragraphs))


class _Table(NamedTuple):
    """The lists for :func:`_lookup`, words of at most 8 bytes ("short") in the first rows."""

    owners: np.ndarray  # int64 (words, languages): 1 where the language's list has the word
    lanes: np.ndarray  # owners as uint32 lanes of uint64 (two languages each), a 0 row last
    keys: np.ndarray  # the short words as little-endian uint64 (zero-padded), then a 0
    slots: np.ndarray  # key * multiplier >> shift -> its index in keys (else the 0's)
    multiplier: np.uint64
    shift: np.uint64
    heads: np.ndarray  # the first 8 bytes of the longer words as uint64, sorted
    long: dict[bytes, int]  # longer word -> its row
    longest: int  # bytes of the longest word


@cache
def _table() -> _Table:
    langs, masks = _lexicon()
    words = sorted(masks, key=lambda w: (len(w) > 8, w))
    owners = np.array([[masks[w] >> (_FIELD * i) & 1 for i in range(len(langs))] for w in words],
                      dtype=np.int64).reshape(-1, len(langs))
    lanes = np.zeros((len(words) + 1, len(langs) + len(langs) % 2), dtype=np.uint32)
    lanes[:-1, :len(langs)] = owners
    n = sum(len(w) <= 8 for w in words)
    keys = np.array([int.from_bytes(w, "little") for w in words[:n]] + [0], dtype=np.uint64)
    long = {w: row for row, w in enumerate(words) if row >= n}
    heads = np.unique(np.array([int.from_bytes(w[:8], "little") for w in long], dtype=np.uint64))
    # a multiplier that hashes no two keys alike (with 256 to 512 slots a key, 1 in 10 does)
    rng = np.random.default_rng(0)
    for bits in range(n.bit_length() + 8, 64):
        for _ in range(100):
            multiplier = rng.integers(1 << 62, 1 << 63, dtype=np.uint64) | np.uint64(1)
            shift = np.uint64(64 - bits)
            hashed = keys[:n] * multiplier >> shift
            if len(np.unique(hashed)) == n:
                slots = np.full(1 << bits, n, dtype=np.int16 if len(words) < 1 << 15 else np.int32)
                slots[hashed] = np.arange(n)
                return _Table(owners, lanes.view(np.uint64), keys, slots, multiplier, shift,
                              heads, long, max(map(len, words), default=0))
    raise AssertionError("no perfect hash of the function words")


# (1 << 8 * n) - 1: the first n bytes of a little-endian uint64 (n = 0...8).
_FIRST_BYTES = np.array([(1 << 8 * n) - 1 for n in range(9)], dtype=np.uint64)


def _lookup(text: bytes, paragraphs: int) -> np.ndarray:
    """Function-word tokens per language of each of the ``paragraphs`` lines of ``text``
    (UTF-8 with every ASCII byte that is no letter made a space, ``paragraphs - 1`` line
    breaks): an ``int64`` array of shape ``(paragraphs, languages)``. A word is a run of
    bytes other than space and line break; one of at most 8 bytes is read as the first
    bytes of a ``uint64`` and found in the lists' words so read by a perfect hash; a longer
    one, as ``bytes``, only when its first 8 bytes begin a longer word of the lists. The
    counts of a line are summed in uint32 lanes (no text has 2**32 words)."""
    owners, lanes, keys, slots, multiplier, shift, heads, long, longest = _table()
    # text from byte 1 (a space before it), 8 zero bytes after: the reads stay inside
    padded = b" " + text + bytes(8)
    edges = np.flatnonzero(np.diff(np.frombuffer(padded, dtype=np.uint8) > 32))
    starts, ends = edges[0::2], edges[1::2]
    lengths = ends - starts
    short = lengths <= 8
    at = starts[short]
    # the first bytes of each short word as uint64 (unaligned reads of 8 bytes)
    eights = np.ndarray(len(text), dtype="<u8", buffer=padded, offset=1, strides=(1,))
    found = eights.take(at) & _FIRST_BYTES.take(lengths[short])
    index = slots.take(found * multiplier >> shift)
    hit = keys.take(index) == found
    row, where = index[hit], at[hit]
    breaks = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == 10)
    bounds = np.concatenate(([0], np.searchsorted(where, breaks), [len(row)]))
    # per line (bounds: its first word in row), the zero row last for empty last lines
    sums = np.add.reduceat(lanes.take(np.append(row, len(lanes) - 1), axis=0), bounds[:-1],
                           axis=0)
    sums[bounds[1:] == bounds[:-1]] = 0  # reduceat's answer for an empty line: one row
    counts = sums.view(np.uint32)[:, :owners.shape[1]].astype(np.int64)
    longer = np.flatnonzero(~short & (lengths <= longest))
    if len(longer):
        head = eights.take(starts.take(longer))
        near = longer[heads.take(np.searchsorted(heads, head), mode="clip") == head]
        more = [(s, long[w]) for s, e in zip(starts.take(near).tolist(), ends.take(near).tolist())
                if (w := text[s:e]) in long]
        if more:
            where, row = np.array(more, dtype=np.intp).T
            np.add.at(counts, np.searchsorted(breaks, where), owners.take(row, axis=0))
    return counts


def _function_words(freq: dict[bytes, int]) -> Counter[bytes]:
    masks = _lexicon()[1]
    return Counter({w: freq[w] for w in filter(masks.__contains__, freq)})


def _unpack(fw: Counter[bytes]) -> tuple[list[int], list[int]]:
    """(tokens, types) per language of function-word frequencies ``fw``."""
    langs, masks = _lexicon()
    tok = typ = 0
    for word, n in fw.items():
        mask = masks[word]
        tok += n * mask
        typ += mask
    shifts = range(0, _FIELD * len(langs), _FIELD)
    return [tok >> s & _FIELD_MASK for s in shifts], [typ >> s & _FIELD_MASK for s in shifts]


def _pieces(text: str, size: int):
    """Normalised pieces of ``text`` (without default-ignorables) of about ``size``, ``2 * size``, ``4 * size``...
    characters (doubling bounds the pieces of a long text to a logarithm), cut at white space
    or, when none follows within 100 characters, inside a word; ``size <= 0``: one piece."""
    pos = 0
    while pos < len(text):
        end = len(text)
        if 0 < size < end - pos:
            space = _SPACE.search(text, pos + size, pos + size + 100)
            end = space.start() if space else pos + size
            size *= 2
        yield _fold(text[pos:end])
        pos = end


def is_connected_prose(
    result: LangResult,
    min_types: int = MIN_FUNCWORD_TYPES,
    min_tokens: int = MIN_FUNCWORD_TOKENS,
    min_ratio: float = MIN_FUNCWORD_RATIO,
) -> bool:
    """True when the text has enough function words to be running text, not a word list,
    a table or keyword spam (WaCky: at least ``min_types`` types and ``min_tokens`` tokens
    of the list, and ``fw_ratio >= min_ratio``). A language without a list (decided by
    langid.py) cannot be judged and passes; :func:`has_list` tells which."""
    if result.lang != UND and not has_list(result.lang):
        return True
    return (
        result.fw_types >= min_types
        and result.fw_tokens >= min_tokens
        and result.fw_ratio >= min_ratio
    )


def has_list(lang: str) -> bool:
    """True if a function-word list ships for ``lang``."""
    return lang in languages()


def rejection(result: LangResult, targets: tuple[str, ...] | frozenset[str],
              min_types: int = MIN_FUNCWORD_TYPES, min_tokens: int = MIN_FUNCWORD_TOKENS,
              min_ratio: float = MIN_FUNCWORD_RATIO) -> tuple[str, str] | None:
    """The language stage's decision on ``result``: None to keep, else ``(reason, detail)``.
    ``wrong_language`` outside non-empty ``targets`` (but ``not_prose`` when the model alone
    labelled it a language with a list, or was unsure, and too few function words make it no
    prose: a word list is no prose in any listed language; a language without a list is
    never judged by another language's list: ``wrong_language``); ``not_prose`` with too few
    function words (:func:`is_connected_prose`)."""
    prose = {"min_types": min_types, "min_tokens": min_tokens, "min_ratio": min_ratio}
    figures = (f"{result.fw_types} function-word types, {result.fw_tokens} tokens, "
               f"ratio {result.fw_ratio:.2f}")
    if targets and result.lang not in targets:
        if result.method in ("langid", "uncertain") and not is_connected_prose(result, **prose):
            return "not_prose", figures
        return "wrong_language", f"{result.lang} by {result.method}"
    if not is_connected_prose(result, **prose):
        return "not_prose", figures
    return None


class Identifier:
    """Function-word language identification, every label checked by the n-gram model.

    Thresholds default to the module constants; ``min_types``, ``min_tokens``, ``min_ratio``
    (the connected-prose test) and ``stop_margin`` only decide when reading may stop early
    (module docstring); ``chunk_chars=0`` reads every text whole. The model (about 0.5 s,
    100 MB) is loaded on the first text that needs it, once per process.
    """

    def __init__(
        self,
        min_chars: int = MIN_CHARS,
        min_margin: float = MIN_MARGIN,
        langid_max_chars: int = LANGID_MAX_CHARS,
        check_chars: int = CHECK_CHARS,
        chunk_chars: int = CHUNK_CHARS,
        stop_margin: float = STOP_RATIO_MARGIN,
        min_types: int = MIN_FUNCWORD_TYPES,
        min_tokens: int = MIN_FUNCWORD_TOKENS,
        min_ratio: float = MIN_FUNCWORD_RATIO,
        agree_min_prob: float = AGREE_MIN_PROB,
        model_min_prob: float = MODEL_MIN_PROB,
        close_min_share: float = CLOSE_MIN_SHARE,
        close_group_shares: dict[str, float] | None = None,
        close_min_markers: int = CLOSE_MIN_MARKERS,
        close_purist: tuple[str, ...] | frozenset[str] = CLOSE_PURIST,
        close_mixed_ratio: dict[str, float] | None = None,
        close_one_marker_shares: dict[str, float] | None = None,
        unlisted_neighbours: dict[str, str] | None = None,
    ):
        self.min_chars = min_chars
        self.min_margin = min_margin
        self.langid_max_chars = langid_max_chars
        self.check_chars = check_chars
        self.chunk_chars = chunk_chars
        self.stop_margin = stop_margin
        self.prose = (min_types, min_tokens, min_ratio)
        self.agree_min_prob = agree_min_prob
        self.model_min_prob = model_min_prob
        self.close_min_share = close_min_share
        self.close_group_shares = group_shares(
            CLOSE_GROUP_SHARES if close_group_shares is None else close_group_shares)
        self.close_min_markers = close_min_markers
        self.close_purist = frozenset(close_purist)
        self.close_mixed_ratio = group_ratios(
            CLOSE_MIXED_RATIO if close_mixed_ratio is None else close_mixed_ratio)
        self.close_one_marker_shares = group_shares(
            CLOSE_ONE_MARKER_SHARES if close_one_marker_shares is None
            else close_one_marker_shares)
        self.unlisted_neighbours = dict(
            UNLISTED_NEIGHBOURS if unlisted_neighbours is None else unlisted_neighbours)

    def identify(self, text: str) -> LangResult:
        """Decide the language of ``text`` (any length; never raises on odd input)."""
        langs = languages()
        text = langmodel.strip_ignorable(text).strip()
        read, fw, n = [], Counter(), 0
        pieces = _pieces(text, self.chunk_chars)
        for piece in pieces:
            read.append(piece)
            words = _words(piece)
            n += words.total()
            fw.update(_function_words(words))
            tok, typ = _unpack(fw)
            order = sorted(range(len(langs)), key=lambda i: (tok[i], typ[i]), reverse=True)
            best, second = order[0], order[1]
            decided = tok[best] and (tok[best] - tok[second]) / tok[best] >= self.min_margin
            if self._settled(sum(map(len, read)), n, tok[best], typ[best]):
                break
        if not read:
            tok, typ, order = [0] * len(langs), [0] * len(langs), range(len(langs))
            best = decided = 0
        chars = sum(map(len, read))

        def result(lang: str, score: float, method: str, top2=()) -> LangResult:
            i = langs.index(lang) if lang in langs else best
            return LangResult(lang, score, method, tok[i], typ[i], tok[i] / n if n else 0.0, n,
                              chars, tuple(top2))

        if chars < self.min_chars:
            return result(UND, 0.0, "short")
        pointed = {langs[best]} if decided else {
            langs[i] for i in order if tok[i] and tok[i] >= tok[best] * (1 - self.min_margin)}
        if decided and len(langmodel.group(langs[best])) == 1 and self.check_chars:
            # Cheap check first: the model sure of the lists' language on a short opening.
            ranked = langmodel.rank(text[: self.check_chars])
            if ranked and ranked[0][0] == langs[best] and ranked[0][1] >= self.model_min_prob:
                return result(langs[best], ranked[0][1], "funcwords", ranked[:2])
        ranked = langmodel.rank(text[: self.langid_max_chars]) if n else []
        if not ranked or ranked[0][0] == langmodel.NO_LANGUAGE:
            return result(UND, 0.0, "no-evidence", ranked[:2])
        lang, prob = ranked[0]
        members = langmodel.group(lang)
        agree = bool(pointed & members)  # the lists point at the model's language (group)

        def uncertain() -> LangResult:
            listed = langs[best]
            if decided and self._over_neighbour(listed, ranked, _words("".join(read))):
                return result(listed, dict(ranked)[listed], "markers", ranked[:2])
            return result(UND, 0.0, "uncertain", ranked[:2])

        if len(members) > 1:
            return self._close(ranked, members, agree, _words("".join(read)), pieces,
                               lang in pointed, result, uncertain)
        if not self.told_apart(lang, "".join(read)):
            return result(UND, 0.0, "close", ranked[:2])
        if prob >= (self.agree_min_prob if agree else self.model_min_prob):
            return result(lang, prob, "funcwords" if agree else "langid", ranked[:2])
        return uncertain()

    def _over_neighbour(self, listed: str, ranked, words: Counter) -> bool:
        """True when ``listed`` has a neighbour without a list (``unlisted_neighbours``), the
        model's two best (``ranked``) are the two with at least ``agree_min_prob`` together,
        and ``words`` hold strong distinctive evidence for ``listed`` against it."""
        neighbour = self.unlisted_neighbours.get(listed)
        two = dict(ranked[:2])
        return (bool(neighbour) and set(two) == {listed, neighbour}
                and sum(two.values()) >= self.agree_min_prob
                and self._strong(listed, neighbour, words))

    def _close(self, ranked, members, agree: bool, words: Counter, rest, listed_first: bool,
               result, uncertain=None):
        """The model's best language has close neighbours (``members``). Between two members,
        the *distinctive* words of each are those its function-word and marker lists have
        and the other's have not (``words``: the text's UTF-8 word frequencies); evidence
        for ``a`` against ``b`` is strong with at least ``close_min_markers`` tokens (one
        when ``b`` is in ``close_purist``) and three times the other's. The
        model's best is given when it holds ``close_min_share`` (or the group's own share in
        ``close_group_shares``) of the group's probability
        and no other member has strong evidence against it. Otherwise, among the members with
        at least ``1 - close_min_share`` of the group's probability (the others the model
        rules out), the one whose distinctive words are strong against each other one (a
        lone one: against the group's second best) is given
        (``markers``). Otherwise the words of the pieces not read yet (``rest``, an iterator
        of normalised pieces) are counted too and the test is made again; then ``und``,
        naming the group's two best."""
        probs = [(lang, p) for lang, p in ranked if lang in members]
        total = sum(p for _, p in probs)
        if total < (self.agree_min_prob if agree else self.model_min_prob):
            return uncertain() if uncertain else result(UND, 0.0, "uncertain", ranked[:2])
        share = self.close_group_shares.get(members, self.close_min_share)
        mixed = self.close_mixed_ratio.get(members)
        one = self.close_one_marker_shares.get(members)
        found = self._tell_apart(probs, total, words, share, mixed, one)
        unread = None if found else list(rest)
        if unread:  # the whole text's evidence
            for piece in unread:
                words.update(_words(piece))
            found = self._tell_apart(probs, total, words, share, mixed, one)
        if not found:
            return result(UND, 0.0, "close", probs[:2])
        lang, p, method = found
        if method == "model":
            method = "funcwords" if listed_first else "langid"
        return result(lang, p / total, method, probs[:2])

    def _tell_apart(self, probs, total: float, words: Counter, share: float,
                    mixed: float | None = None, one: float | None = None):
        """(lang, probability, ``"model"`` or ``"markers"``) of :meth:`_close`'s test on
        ``words`` with the group's ``share``, or None. With ``one`` (the group's
        ``close_one_marker_shares``), a best member holding at least that share of the
        group's probability is also given (``"markers"``) on one distinctive token against
        the group's second best and none of any other member's against it. With ``mixed``
        (the group's ``close_mixed_ratio``), None also when a member's distinctive words are
        in the text and the label's have fewer than ``mixed`` times as many types."""
        first, p1 = probs[0]
        found = None
        if p1 >= share * total and not any(
                self._strong(x, first, words) for x, _ in probs[1:]):
            found = first, p1, "model"
        else:
            contenders = [(lang, p) for lang, p in probs if p >= (1 - share) * total]
            against = contenders if len(contenders) > 1 else probs[:2]
            for lang, p in contenders:
                if all(self._strong(lang, x, words) for x, _ in against if x != lang):
                    found = lang, p, "markers"
                    break
        if not found and one and len(probs) > 1 and p1 >= one * total \
                and _markers(first, probs[1][0], words)[0] \
                and not any(_markers(first, x, words)[1] for x, _ in probs[1:]):
            found = first, p1, "markers"
        if found and mixed and any(_mixes(found[0], x, words, mixed) for x, _ in probs
                                   if x != found[0]):
            return None
        return found

    def told_apart(self, lang: str, norm: str) -> bool:
        """False when the model's label ``lang`` has a close relative the model has no class
        for (:data:`~wackycrawl.text.langmodel.UNKNOWN_NEIGHBOURS`: its nso for Setswana) and
        the normalised text ``norm`` holds fewer than ``close_min_markers`` tokens of
        ``lang``'s distinctive words (``data/funcwords/markers/<lang>.txt``); else True."""
        unknown = langmodel.UNKNOWN_NEIGHBOURS.get(lang)
        return not unknown or self._strong(lang, unknown, _words(norm))

    def _strong(self, a: str, b: str, words: Counter) -> bool:
        """Strong evidence for ``a`` against ``b`` in ``words`` (UTF-8 word frequencies):
        distinctive tokens of ``a`` at least ``close_min_markers`` (1 when ``b`` is in
        ``close_purist``) and three times those of ``b``."""
        tokens, against = _markers(a, b, words)
        least = 1 if b in self.close_purist else self.close_min_markers
        return tokens >= least and tokens >= 3 * against

    def _settled(self, chars: int, words: int, tokens: int, types: int) -> bool:
        """True when the text read is at least ``min_chars`` long and either passes the
        prose test with a ratio of at least ``min_ratio + stop_margin`` or has words but no
        function word of any list (a language without a list: the test cannot judge)."""
        min_types, min_tokens, min_ratio = self.prose
        passes = (types >= min_types and tokens >= min_tokens
                  and tokens >= (min_ratio + self.stop_margin) * words)
        return chars >= self.min_chars and (passes or (words > 0 and not tokens))


@cache
def _distinctive(lang: str) -> frozenset[bytes]:
    """UTF-8 words of ``lang``'s function-word list and of its marker list
    (``data/funcwords/markers/<lang>.txt``: forms of its standard that a close neighbour's
    standard writes otherwise); empty for a language with neither."""
    folder = files("wackycrawl.text").joinpath("data", "funcwords")
    words = set(_read_list(lang)) if lang in languages() else set()
    marker_file = folder.joinpath("markers", f"{lang}.txt")
    if marker_file.is_file():
        words.update(normalise(w.strip()) for w in marker_file.read_text("utf-8").splitlines()
                     if w.strip() and w[0] != "#")
    return frozenset(w.encode() for w in words)


@cache
def _letters(lang: str) -> frozenset[str]:
    """The letters of ``lang``'s alphabet outside ASCII (``data/funcwords/letters/<lang>.txt``,
    normalised as :func:`normalise`); empty for a language without the file."""
    letter_file = files("wackycrawl.text").joinpath("data", "funcwords", "letters", f"{lang}.txt")
    if not letter_file.is_file():
        return frozenset()
    return frozenset("".join(normalise(line.strip()) for line in
                             letter_file.read_text("utf-8").splitlines()
                             if line.strip() and line[0] != "#"))


def _markers(a: str, b: str, words: Counter) -> tuple[int, int]:
    """Tokens in ``words`` (UTF-8 word frequencies) of words that ``a``'s function-word or
    marker list has and ``b``'s have not, and the reverse. A word in neither's lists is
    ``a``'s when both alphabets are listed (``data/funcwords/letters``), it is written in
    ``a``'s alphabet (ASCII letters and ``a``'s others) and holds a letter ``b``'s lacks
    (Czech ř, ů, ě against Slovak ä, ľ, ô; Swedish ä, ö against Danish and Norwegian æ, ø).
    A text holding a letter of neither alphabet (a foreign name, mojibake: ``ZĂˇvÄ›r``, whose
    ``Ĺľe`` is Czech že misread) gives no such evidence."""
    lex_a, lex_b = _distinctive(a), _distinctive(b)
    ma = sum(n for w, n in words.items() if w in lex_a and w not in lex_b)
    mb = sum(n for w, n in words.items() if w in lex_b and w not in lex_a)
    letters_a, letters_b = _letters(a), _letters(b)
    if letters_a and letters_b:
        both = letters_a | letters_b
        found = [({c for c in _str(w) if not c.isascii()}, w, n)
                 for w, n in words.items() if not w.isascii()]
        if all(chars <= both for chars, _, _ in found):
            for chars, w, n in found:
                if w in lex_a or w in lex_b:
                    continue
                if not chars <= letters_b:
                    ma += n
                elif not chars <= letters_a:
                    mb += n
    return ma, mb


def _mixes(a: str, b: str, words: Counter, ratio: float) -> bool:
    """True when ``words`` (UTF-8 word frequencies) hold a distinctive word of ``b`` against
    ``a`` and fewer than ``ratio`` times as many types (different words) of ``a``'s."""
    lex_a, lex_b = _distinctive(a), _distinctive(b)
    of_b = sum(1 for w in words if w in lex_b and w not in lex_a)
    return bool(of_b) and sum(1 for w in words if w in lex_a and w not in lex_b) < ratio * of_b


def group_ratios(ratios: dict[str, float]) -> dict[frozenset[str], float]:
    """``{"id,ms": 3}`` (a close group named by its members, any order) ->
    ``{frozenset({"id", "ms"}): 3.0}``. Raises ValueError for a name that is not one of
    :data:`~wackycrawl.text.langmodel.CLOSE_GROUPS` or a ratio that is not positive."""
    out = {}
    for (name, ratio), members in zip(ratios.items(), _named_groups(ratios)):
        if not float(ratio) > 0:
            raise ValueError(f"ratio of {name!r} must be positive, not {ratio}")
        out[members] = float(ratio)
    return out


def _named_groups(values: dict) -> list[frozenset[str]]:
    """The groups the keys of ``values`` name (``"id,ms"``: members, any order, ``no`` for
    ``nb``), in order; ValueError for a name that is no close-language group."""
    out = []
    for name in values:
        members = frozenset(langmodel.normalise_code(c) for c in str(name).split(",") if c.strip())
        if members not in langmodel.CLOSE_GROUPS:
            groups = ", ".join(",".join(sorted(g)) for g in langmodel.CLOSE_GROUPS)
            raise ValueError(f"{name!r} is no close-language group; the groups: {groups}")
        out.append(members)
    return out


def group_shares(shares: dict[str, float]) -> dict[frozenset[str], float]:
    """``{"da,nb,nn,sv": 0.8}`` (a close group named by its members, any order, ``no`` for
    ``nb``) -> ``{frozenset({"da", "nb", "nn", "sv"}): 0.8}``. Raises ValueError for a name
    that is not one of :data:`~wackycrawl.text.langmodel.CLOSE_GROUPS` or a share outside
    ``(0, 1]``."""
    out = {}
    for (name, share), members in zip(shares.items(), _named_groups(shares)):
        if not 0 < float(share) <= 1:
            raise ValueError(f"share of {name!r} must be in (0, 1], not {share}")
        out[members] = float(share)
    return out


def langid_languages() -> tuple[str, ...]:
    """Codes the n-gram model knows (loads it): :func:`wackycrawl.text.langmodel.languages`."""
    return langmodel.languages()


def parse_languages(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``"en,de"`` (or a list) -> ``("en", "de")``; ``no`` -> ``nb``; empty -> ``()``. Raises
    ``ValueError`` naming any code that neither a function-word list nor the model knows."""
    codes = value.split(",") if isinstance(value, str) else list(value)
    codes = [langmodel.normalise_code(c) for c in codes if c.strip()]
    known = set(languages())
    if any(c not in known for c in codes):
        known |= set(langid_languages())
    bad = [c for c in codes if c not in known]
    if bad:
        named = ", ".join(c + (f" (did you mean {' or '.join(near)}?)"
                               if (near := close_codes(c, known)) else "") for c in bad)
        raise ValueError(f"unknown language code(s) {named}; codes are ISO 639-1 such as en, "
                         f"de, it (ISO 639-3 for a language without one, such as yue; "
                         f"{len(known)} known)")
    return tuple(dict.fromkeys(codes))


def close_codes(code: str, known: set[str]) -> list[str]:
    """Known codes that ``code`` (not one of them) may have meant: the one its first two or
    three letters make (``english`` -> ``en``, ``deu`` -> ``de``), then difflib's close
    matches; at most three."""
    code = code.strip().lower()
    near = [code[:n] for n in (2, 3) if len(code) > n and code[:n] in known]
    near += difflib.get_close_matches(code, sorted(known), n=3, cutoff=0.6)
    return list(dict.fromkeys(near))[:3]


_default = Identifier()


def identify(text: str) -> LangResult:
    """:meth:`Identifier.identify` with the module-level defaults."""
    return _default.identify(text)
