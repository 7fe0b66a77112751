"""The character n-gram model that checks every language label, and the close-language groups.

The model is py3langid's (Lui & Baldwin 2012, "langid.py: An Off-the-shelf Language
Identification Tool"; Barbaresi's fork, retrained on 139 languages plus ``zxx``, "no
linguistic content"): multinomial naive Bayes over byte n-grams, probabilities normalised
with a length temperature. It knows every language of the function-word lists and many
more, so a text in a language without a list (Albanian, Sesotho, Irish) is recognised as
such instead of being forced into the nearest list. Its Norwegian Bokmål label ``no`` is
given as ``nb``; its two Serbian classes (Cyrillic, Latin) are one label ``sr``.

Close languages (:data:`CLOSE_GROUPS`: bs/hr/sr, nb/nn/da/sv, cs/sk, es/pt/gl/ca, id/ms,
el/grc)
share most of their function words and many n-grams; the identifier tells them apart only
with enough evidence and otherwise answers ``und`` naming both candidates.

Loading the model takes about 0.5 s of CPU and 100 MB, once per process, on first use.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import numpy as np

UND = "und"
# ISO 639-1 macrolanguage codes the model uses -> the codes this project gives.
_ALIAS = {"no": "nb"}
# The model's class for text without linguistic content (numbers, code, symbols).
NO_LANGUAGE = "zxx"
CLOSE_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"bs", "hr", "sr"}),
    frozenset({"nb", "nn", "da", "sv"}),
    frozenset({"cs", "sk"}),
    frozenset({"es", "pt", "gl", "ca"}),
    frozenset({"id", "ms"}),
    # Modern and Ancient Greek: the model takes polytonic Modern Greek for Ancient Greek;
    # neither has a function-word list, their marker lists tell them apart.
    frozenset({"el", "grc"}),
)
# Model classes with a close relative the model has no class for (Northern Sotho: Setswana,
# which it labels nso): given only with distinctive words of the class (data/funcwords/markers).
UNKNOWN_NEIGHBOURS = {"nso": "tn"}
_GROUP = {lang: group for group in CLOSE_GROUPS for lang in group}

# rank() gives the model's best labels only (sorting all 140 in Python cost more than the
# model's own arithmetic), and the rest of the best label's close group.
RANK_TOP = 10
# Unicode Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1): soft hyphen,
# combining grapheme joiner, Arabic letter mark, Hangul fillers, Mongolian and other variation
# selectors, zero-width space/joiners, bidi controls, word joiner, invisible operators, BOM,
# tags. Invisible in rendering, they split or disguise words for both identifiers.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+")


# The same without the supplementary planes: searching a text for these is four times
# faster than for the whole set (the regex engine's classes of astral ranges are slow).
_IGNORABLE_BMP = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8]")


def strip_ignorable(text: str) -> str:
    """``text`` without Default_Ignorable_Code_Point characters (``"Bun\\u00addes"`` ->
    ``"Bundes"``). A text without any (ASCII, or none in the Basic Multilingual Plane and no
    UTF-8 lead byte F0 or F3 of the supplementary ones) is returned as is."""
    if text.isascii():
        return text
    if not _IGNORABLE_BMP.search(text):
        raw = text.encode("utf-8", "surrogatepass")
        if b"\xf0" not in raw and b"\xf3" not in raw:
            return text
    return _IGNORABLE.sub("", text)


def group(lang: str) -> frozenset[str]:
    """The close-language group of ``lang`` (itself alone when it has none)."""
    return _GROUP.get(lang) or frozenset({lang})


def normalise_code(code: str) -> str:
    """A user's or the model's code as this project gives it: lower case, ``no`` -> ``nb``."""
    code = code.strip().lower()
    return _ALIAS.get(code, code)


@cache
def _model():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    class Model(LanguageIdentifier):
        """py3langid's identifier, the n-grams of a long text counted by numpy (:func:`_visits`)."""

        __slots__ = ("_walk",)

        def _raw_score(self, text):
            visits = _visits(self, text) if len(text) >= WALK_MIN_BYTES else None
            if visits is None:  # short, no feature, or a walk _visits could not vouch for
                return super()._raw_score(text)
            return self._sparse_score(visits, self.nb_ptc)

    model = Model.from_model_file(MODEL_FILE, norm_probs=True)
    # Its scores are a float32 product with rows of its float16 table, which numpy first
    # casts to float32 on every text (most of the model's arithmetic); held in float32 the
    # rows are only gathered (the cast is exact: the same product, 28 MB more memory).
    model.nb_ptc = model.nb_ptc.astype(np.float32)
    model._full_model = model.nb_ptc, model.nb_pc, model.nb_classes
    return model


# py3langid walks its automaton byte by byte in Python; numpy does it faster from about this
# many bytes of UTF-8 (a text of 1,000 characters in a script of two-byte letters: 1.5x).
WALK_MIN_BYTES = 512
# After each byte the automaton is in the state of the longest suffix read that begins one
# of its n-grams, which is at most this many bytes long.
_WINDOW = 6


def _visits(model, data: bytes) -> dict[int, int] | None:
    """py3langid's ``visit_counts`` of the UTF-8 ``data``: {feature: count}, in the order the
    features first occur (its ``Counter``'s: the scores add them in that order), or None
    when no feature occurs or the walk is not vouched for. The state after each byte is
    found by walking the :data:`_WINDOW` bytes up to it from the start state, for all bytes
    at once; the states are used only when each is the transition of the one before on its
    byte, which checks the whole walk (else None: py3langid walks it)."""
    try:
        nextmove, rowbase, output = model._walk
    except AttributeError:
        nextmove = np.frombuffer(model.tk_nextmove, dtype=np.uint32)
        rowbase = np.frombuffer(model.tk_row, dtype=np.uint16).astype(np.intp) << 8
        output = np.array(model.tk_output, dtype=np.int32)
        model._walk = nextmove, rowbase, output
    n = len(data)
    # byte 0 keeps the start state (checked below with every other transition)
    padded = np.frombuffer(bytes(_WINDOW - 1) + data, dtype=np.uint8).astype(np.intp)
    states = nextmove.take(padded[:n])
    for k in range(1, _WINDOW):
        states = nextmove.take(rowbase.take(states) + padded[k:k + n])
    before = np.empty(n, dtype=np.intp)
    before[0], before[1:] = 0, states[:-1]
    if not np.array_equal(nextmove.take(rowbase.take(before) + padded[_WINDOW - 1:]), states):
        return None
    features = output.take(states)
    features = features[features >= 0]
    if not len(features):
        return None
    found, first, counts = np.unique(features, return_index=True, return_counts=True)
    order = np.argsort(first)
    return dict(zip(found[order].tolist(), counts[order].tolist()))


def languages() -> tuple[str, ...]:
    """Codes the model gives (``nb`` for its ``no``), without ``zxx``; loads the model."""
    return tuple(sorted({normalise_code(c) for c in _model().labels} - {NO_LANGUAGE}))


@cache
def _columns() -> tuple[np.ndarray, list[str]]:
    """(the model's score column of each distinct label, the labels as this project gives
    them). A label with two columns (Serbian Cyrillic and Latin) has its score in the
    first."""
    first: dict[str, int] = {}
    for i, lang in enumerate(_model().nb_classes):
        first.setdefault(lang, i)
    return np.fromiter(first.values(), dtype=np.intp), [_ALIAS.get(c, c) for c in first]


def rank(text: str) -> list[tuple[str, float]]:
    """The model's :data:`RANK_TOP` best labels for ``text``, best first, with their
    probabilities (of all labels, ``zxx`` included, summing to 1), then any other member of
    the best label's close group. The text is read without
    default-ignorables and in NFKC (full-width letters as ASCII). Empty when no n-gram of
    the model occurs in ``text`` (the model would answer its prior: nothing to go on)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", strip_ignorable(text))
    columns, labels = _columns()
    # py3langid's per-column probabilities: its own rank() sorts all 140 in Python.
    probs = _model()._decide(text)[columns]
    # No feature matched: the probabilities are uniform.
    if not len(probs) or probs.max() < 2.5 / len(probs):
        return []
    top = np.argpartition(probs, -RANK_TOP)[-RANK_TOP:]
    top = top[np.argsort(probs[top])[::-1]].tolist()
    ranked = [(labels[i], p) for i, p in zip(top, probs[top].tolist())]
    missing = group(ranked[0][0]).difference(lang for lang, _ in ranked)
    if missing:  # the best label's close group is ranked whole
        index = _label_index()
        # by probability, ties by label: the same order whatever the set's (hash seed's)
        ranked += sorted(((lang, float(probs[index[lang]])) for lang in missing),
                         key=lambda pair: (-pair[1], pair[0]))
    return ranked


@cache
def _label_index() -> dict[str, int]:
    return {lang: i for i, lang in enumerate(_columns()[1])}
