"""Random tuples of mid-frequency words, the queries that find a corpus's seed URLs.

Source: BootCaT (Baroni & Bernardini 2004, LREC): random tuples of k words (k = 3 by
default) sent to a search engine; WaCky (Baroni's "Linguistic Crawls" slides, 2005;
Baroni et al. 2009, LRE 43): "random word combinations", "middle-frequency words from a
general/newspaper corpus", seed URLs "all from different domains". Function words dominate
the top ranks of every frequency list (Zipf), so the band starts below them, and the
project's function-word lists are removed from it as well (content words only).

Stages, each a plain function:

1. :func:`read_frequency_list` (``word TAB count`` lines) or :func:`count_words` (running
   text) -> ``Counter[str]``; :func:`looks_like_frequency_list` tells the two apart.
2. :func:`clean` - drop non-words (:func:`is_word`: digits, punctuation, too short, mixed
   scripts), merge case variants (NFKC + lower case; the most frequent form is kept).
3. :func:`mid_frequency_band` - rank by count, skip the top ranks, keep the next ``band``.
4. :func:`sample_tuples` - N distinct k-word tuples, none a permutation of another,
   reproducible from a seed number.

All lengths are in characters.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from itertools import combinations

#: Words per tuple (BootCaT's default tuple length).
TUPLE_SIZE = 3
#: Most frequent ranks skipped: the function-word zone of a frequency list (no published
#: cut-off; the shipped function-word lists hold 100-300 words per language).
SKIP_TOP = 100
#: Ranks kept after the skipped ones: the "middle-frequency" band (project choice).
BAND = 5000
#: Shortest word kept, in characters (drops abbreviations and OCR debris; project choice).
MIN_CHARS = 3

_FREQ_LINE = re.compile(r"^([^\t]+)\t(\d+)\s*$")
# Scripts written together in one word (Japanese: kanji with kana).
_SCRIPT_ALIAS = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "KATAKANA-HIRAGANA": "CJK"}
_INNER = "-'\u2019"  # hyphen and apostrophes allowed between letters


def _script(ch: str) -> str:
    """First word of the Unicode character name: LATIN, CYRILLIC, GREEK, CJK, ..."""
    name = unicodedata.name(ch, "").split(" ", 1)[0]
    return _SCRIPT_ALIAS.get(name, name)


def is_word(token: str, min_chars: int = MIN_CHARS) -> bool:
    """True for a word: at least ``min_chars`` characters, letters (with their combining
    marks) of one script, hyphens or apostrophes only between letters."""
    if len(token) < min_chars or not token[0].isalpha() or token[-1] in _INNER:
        return False
    scripts = set()
    for ch in token:
        if ch.isalpha():
            scripts.add(_script(ch))
        elif ch in _INNER:
            continue
        elif not unicodedata.category(ch).startswith("M"):
            return False
    return len(scripts) == 1 and not re.search(r"[-'\u2019]{2}", token)


def looks_like_frequency_list(lines: list[str], probe: int = 20) -> bool:
    """True when the first ``probe`` non-blank lines are all ``word TAB count``."""
    sample = [line for line in lines if line.strip()][:probe]
    return bool(sample) and all(_FREQ_LINE.match(line) for line in sample)


def read_frequency_list(lines: Iterable[str]) -> tuple[Counter[str], list[int]]:
    """``word TAB count`` lines -> (counts, numbers of the malformed lines, 1-based).

    Blank lines and ``#`` comments are skipped; a repeated word adds up.
    """
    counts: Counter[str] = Counter()
    bad = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = _FREQ_LINE.match(line)
        if m:
            counts[m.group(1).strip()] += int(m.group(2))
        else:
            bad.append(n)
    return counts, bad


def count_words(lines: Iterable[str]) -> Counter[str]:
    """Token frequencies of running text: whitespace tokens with the punctuation and symbols
    around them stripped (``"(well-known),"`` -> ``well-known``)."""
    counts: Counter[str] = Counter()
    for line in lines:
        for token in line.split():
            i, j = 0, len(token)
            while i < j and unicodedata.category(token[i])[0] in "PS":
                i += 1
            while j > i and unicodedata.category(token[j - 1])[0] in "PS":
                j -= 1
            if i < j:
                counts[token[i:j]] += 1
    return counts


def clean(counts: Counter[str], min_chars: int = MIN_CHARS) -> Counter[str]:
    """Words only (:func:`is_word`), NFKC and lower case, case variants' counts summed."""
    merged: Counter[str] = Counter()
    for word, n in counts.items():
        word = unicodedata.normalize("NFKC", word).lower()
        if is_word(word, min_chars):
            merged[word] += n
    return merged


def mid_frequency_band(counts: Counter[str], skip_top: int = SKIP_TOP, band: int = BAND,
                       exclude: Iterable[str] = ()) -> list[str]:
    """Words of ranks ``skip_top + 1`` .. ``skip_top + band`` (rank 1 = most frequent; ties
    broken alphabetically, so the band is deterministic), minus ``exclude`` (compared after
    case folding). Raises ValueError when ``skip_top`` < 0 or ``band`` < 1."""
    if skip_top < 0 or band < 1:
        raise ValueError(f"need skip_top >= 0 and band >= 1, got {skip_top} and {band}")
    ranked = sorted(counts, key=lambda w: (-counts[w], w))[skip_top:skip_top + band]
    excluded = {w.casefold() for w in exclude}
    return [w for w in ranked if w.casefold() not in excluded]


def sample_tuples(words: list[str], n: int, k: int = TUPLE_SIZE,
                  seed: int = 0) -> list[tuple[str, ...]]:
    """``n`` distinct tuples of ``k`` distinct words, no tuple a permutation of another.

    Same ``words``, ``n``, ``k`` and ``seed`` -> same tuples in the same order (Python's
    Mersenne Twister, ``random.Random(seed)``). Raises ValueError when ``k`` < 1, ``n`` < 0,
    or ``n`` exceeds C(len(words), k), the number of possible tuples.
    """
    words = list(dict.fromkeys(words))
    if k < 1 or n < 0:
        raise ValueError(f"need k >= 1 and n >= 0, got k={k}, n={n}")
    possible = math.comb(len(words), k)
    if n > possible:
        raise ValueError(f"{n} tuples of {k} words asked, but {len(words)} words give only "
                         f"{possible} distinct tuples")
    rng = random.Random(seed)
    if possible <= 4 * n:  # dense: draw from the enumerated combinations
        picked = rng.sample(list(combinations(range(len(words)), k)), n)
        out = []
        for combo in picked:
            combo = list(combo)
            rng.shuffle(combo)
            out.append(tuple(words[i] for i in combo))
        return out
    seen: set[frozenset[int]] = set()
    out = []
    while len(out) < n:  # sparse: rejection, at most 1 in 4 draws repeats a tuple
        idx = rng.sample(range(len(words)), k)
        key = frozenset(idx)
        if key not in seen:
            seen.add(key)
            out.append(tuple(words[i] for i in idx))
    return out
