"""Function-word language identification and connected-prose detection.

Source: Baroni, "Linguistic Crawls" (WaCky slides): "Small list of function words: fast and
effective. Minimum proportion of function words also good to detect connected prose (Zipf to
our rescue)"; Baroni et al. 2009, "The WaCky Wide Web" (LRE 43:209-226) and Ferraresi et al.
2008 (ukWaC), who kept only documents with at least ten types and thirty tokens of function
words. langid.py (Lui & Baldwin 2012) gives a second opinion when the lists cannot decide.

Stages, each a plain function over ``str``:

1. :func:`normalise` - Unicode NFKC (full-width letters) and case folding (ALL-CAPS text).
2. :func:`word_counts` - runs of letters; apostrophes, hyphens split (``l'homme`` -> l, homme).
3. :func:`count` - per listed language, function-word tokens and types.
4. :meth:`Identifier.identify` - reads the text in pieces (early stop, below), then: the list
   with most tokens wins when it leads the runner-up by ``min_margin``; otherwise langid.py
   decides among the close lists (or among all its 97 languages when the text is long and
   has no function words of any list); else ``"und"``.
5. :func:`is_connected_prose` - minimum function-word types, tokens and ratio.

Early stop: the text is read in pieces of ``chunk_chars``, ``2 * chunk_chars``, ... characters
(cut at white space). After a piece, the rest is not read when the text read so far is long
enough for the length rules (``min_chars``, ``langid_min_chars``, and ``langid_max_chars``
unless the lists decide) and either its best list has at least ``min_types`` types,
``min_tokens`` tokens and a share of at least ``min_ratio + stop_margin`` of all words, or it
has words but no function word of any list (a language without a list). Every figure of the
result (tokens, ratio) is then that of the text read, not of the whole text: a page of 1,000
characters of prose followed by a long word list is prose by this test. A text near a
threshold, or with some function words but too few, is read to its end, so its figures are
those of the whole text.

All lengths are in characters (``str``), never bytes.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from itertools import compress, filterfalse
from operator import not_

# Texts shorter than this (characters, after strip) get "und" (case C13: page-level policy).
MIN_CHARS = 200
# Relative lead (best - second) / best in function-word tokens needed to decide without langid.
MIN_MARGIN = 0.3
# langid.py over all its languages only for texts at least this long (characters, case C13).
LANGID_MIN_CHARS = 200
# langid.py reads at most this many characters: its feature extraction is a Python loop over
# the UTF-8 bytes, ~0.3 ms per 1,000 characters. 1,000 vs 2,000: same sentence accuracy, 14 vs
# 11 errors in 2,166 devset documents of close neighbours (da/nb/nn, cs/sk, hr/sl, es/pt/ca;
# benchmarks/language_eval.py).
LANGID_MAX_CHARS = 1000
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

UND = "und"
_WORD = re.compile(r"[^\W\d_]+")
_SPACE = re.compile(r"\s")
# Every ASCII byte that is not a letter separates words (bytes.translate runs in C).
_ASCII_NON_LETTERS = bytes(c for c in range(128) if not chr(c).isalpha())
_TO_SPACE = bytes.maketrans(_ASCII_NON_LETTERS, b" " * len(_ASCII_NON_LETTERS))
# Per-language counters packed into one int, _FIELD bits a language (no text has 2**40 words).
_FIELD = 40
_FIELD_MASK = (1 << _FIELD) - 1
# Romanian is written with comma-below letters; older text uses the cedilla forms.
_CEDILLA = str.maketrans("șțȘȚ", "şţŞŢ")
# langid.py labels Norwegian Bokmål "no" (ISO 639-1 macrolanguage); the lists say "nb".
_TO_LANGID = {"nb": "no"}
_FROM_LANGID = {v: k for k, v in _TO_LANGID.items()}


@dataclass(frozen=True, slots=True)
class LangResult:
    """The decision for one text.

    ``lang`` is an ISO 639-1 code or ``"und"``. ``method`` is ``"funcwords"``, ``"langid"``,
    ``"short"`` (below ``min_chars``) or ``"no-evidence"``. ``score`` is the function-word share
    for ``funcwords``, langid's normalised probability for ``langid``, 0.0 for ``und``.
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
    """NFKC then case folding: ``"ＴＨＥ LIBRARY"`` -> ``"the library"`` (cases C12, C13).
    Speed: ASCII text, and text already in NFKC (a quick check in C), skip the NFKC pass."""
    if not (text.isascii() or unicodedata.is_normalized("NFKC", text)):
        text = unicodedata.normalize("NFKC", text)
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
    """Normalised pieces of ``text`` of about ``size``, ``2 * size``, ``4 * size``...
    characters (doubling bounds the pieces of a long text to a logarithm), cut at white space
    or, when none follows within 100 characters, inside a word; ``size <= 0``: one piece."""
    pos = 0
    while pos < len(text):
        end = len(text)
        if 0 < size < end - pos:
            space = _SPACE.search(text, pos + size, pos + size + 100)
            end = space.start() if space else pos + size
            size *= 2
        yield normalise(text[pos:end])
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


class Identifier:
    """Function-word language identification with langid.py as a second opinion.

    Thresholds default to the module constants; ``min_types``, ``min_tokens``, ``min_ratio``
    (the connected-prose test) and ``stop_margin`` only decide when reading may stop early
    (module docstring); ``chunk_chars=0`` reads every text whole. langid.py's model (about
    3-5 s, 170 MB) is loaded on the first text that needs it, once per process.
    """

    def __init__(
        self,
        min_chars: int = MIN_CHARS,
        min_margin: float = MIN_MARGIN,
        langid_min_chars: int = LANGID_MIN_CHARS,
        langid_max_chars: int = LANGID_MAX_CHARS,
        chunk_chars: int = CHUNK_CHARS,
        stop_margin: float = STOP_RATIO_MARGIN,
        min_types: int = MIN_FUNCWORD_TYPES,
        min_tokens: int = MIN_FUNCWORD_TOKENS,
        min_ratio: float = MIN_FUNCWORD_RATIO,
    ):
        self.min_chars = min_chars
        self.min_margin = min_margin
        self.langid_min_chars = langid_min_chars
        self.langid_max_chars = langid_max_chars
        self.chunk_chars = chunk_chars
        self.stop_margin = stop_margin
        self.prose = (min_types, min_tokens, min_ratio)

    def identify(self, text: str) -> LangResult:
        """Decide the language of ``text`` (any length; never raises on odd input)."""
        langs = languages()
        read, fw, n = [], Counter(), 0
        for piece in _pieces(text.strip(), self.chunk_chars):
            read.append(piece)
            words = _words(piece)
            n += words.total()
            fw.update(_function_words(words))
            tok, typ = _unpack(fw)
            order = sorted(range(len(langs)), key=lambda i: (tok[i], typ[i]), reverse=True)
            best, second = order[0], order[1]
            decided = tok[best] and (tok[best] - tok[second]) / tok[best] >= self.min_margin
            if self._settled(sum(map(len, read)), n, tok[best], typ[best], decided):
                break
        if not read:
            tok, typ, order = [0] * len(langs), [0] * len(langs), range(len(langs))
            best = decided = 0
        norm = "".join(read).strip()

        def result(lang: str, score: float, method: str) -> LangResult:
            i = langs.index(lang) if lang in langs else best
            return LangResult(lang, score, method, tok[i], typ[i], tok[i] / n if n else 0.0, n,
                              len(norm))

        if len(norm) < self.min_chars:
            return result(UND, 0.0, "short")
        if not n:  # digits, symbols, U+FFFD: nothing to identify
            return result(UND, 0.0, "no-evidence")
        if decided:
            return result(langs[best], tok[best] / n, "funcwords")
        close = [langs[i] for i in order if tok[i] and tok[i] >= tok[best] * (1 - self.min_margin)]
        long_enough = len(norm) >= self.langid_min_chars
        if not (close or long_enough):
            return result(UND, 0.0, "no-evidence")
        logp = _langid_logp(norm[: self.langid_max_chars])  # one feature vector for both
        if long_enough:
            lang, prob = _pick(logp)
            # langid's whole model is trusted unless it picks another listed language
            # than the close lists: then the lists' evidence restricts it to those.
            if lang != UND and (not close or lang in close or not has_list(lang)):
                return result(lang, prob, "langid")
        if close:
            lang, prob = _pick(logp, close)
            if lang != UND:
                return result(lang, prob, "langid")
        return result(UND, 0.0, "no-evidence")

    def _settled(self, chars: int, words: int, tokens: int, types: int, decided) -> bool:
        """True when the text read is long enough for every length rule (and, if langid.py
        must decide, holds its ``langid_max_chars``) and either passes the prose test with
        a ratio of at least ``min_ratio + stop_margin`` or has words but no function word
        of any list (a language without a list: langid.py decides, the test cannot judge)."""
        min_types, min_tokens, min_ratio = self.prose
        enough = max(self.min_chars, self.langid_min_chars, 0 if decided else self.langid_max_chars)
        passes = (types >= min_types and tokens >= min_tokens
                  and tokens >= (min_ratio + self.stop_margin) * words)
        return chars >= enough and (passes or (words > 0 and not tokens))


@cache
def _langid_model():
    from langid.langid import LanguageIdentifier, model

    return LanguageIdentifier.from_modelstring(model, norm_probs=True)


def langid_languages() -> tuple[str, ...]:
    """ISO 639-1 codes langid.py knows (loads its model), "nb" for its "no"."""
    return tuple(_FROM_LANGID.get(c, c) for c in _langid_model().nb_classes)


def langid_rank(text: str, restrict: list[str] | None = None) -> tuple[str, float]:
    """langid.py's best language and normalised probability, among ``restrict`` if given
    (softmax over those classes only, the same as ``set_languages`` without changing the
    shared model). Returns ``("und", 0.0)`` when no feature of the model matched (langid
    would answer its prior, e.g. en 0.1694: case C12) or ``restrict`` has no known code."""
    return _pick(_langid_logp(text), restrict)


def _langid_logp(text: str):
    """langid.py's log-probabilities for all its classes, or None if no feature matched.
    Speed: the naive Bayes product ``fv @ nb_ptc + nb_pc`` (langid's ``nb_classprobs``) over
    the non-zero features only: a 2,000-character text has a few hundred of its 7,480."""
    ident = _langid_model()
    fv = ident.instance2fv(text)
    hits = fv.nonzero()[0]
    return fv[hits] @ ident.nb_ptc[hits] + ident.nb_pc if hits.size else None


def _pick(logp, restrict: list[str] | None = None) -> tuple[str, float]:
    import numpy as np

    if logp is None:
        return UND, 0.0
    classes = _langid_model().nb_classes
    wanted = {_TO_LANGID.get(c, c) for c in restrict} if restrict else None
    idx = [i for i, c in enumerate(classes) if wanted is None or c in wanted]
    if not idx:
        return UND, 0.0
    probs = np.exp(logp[idx] - logp[idx].max())
    top = int(probs.argmax())
    return _FROM_LANGID.get(classes[idx[top]], classes[idx[top]]), float(probs[top] / probs.sum())


def parse_languages(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``"en,de"`` (or a list) -> ``("en", "de")``; empty -> ``()``. Raises ``ValueError``
    naming any code that neither a function-word list nor langid.py knows."""
    codes = value.split(",") if isinstance(value, str) else list(value)
    codes = [c.strip().lower() for c in codes if c.strip()]
    known = set(languages())
    if any(c not in known for c in codes):
        known |= set(langid_languages())
    bad = [c for c in codes if c not in known]
    if bad:
        raise ValueError(f"unknown language code(s) {', '.join(bad)}; known: {sorted(known)}")
    return tuple(dict.fromkeys(codes))


_default = Identifier()


def identify(text: str) -> LangResult:
    """:meth:`Identifier.identify` with the module-level defaults."""
    return _default.identify(text)
