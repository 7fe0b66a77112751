"""The character n-gram model that checks every language label, and the close-language groups.

The model is py3langid's (Lui & Baldwin 2012, "langid.py: An Off-the-shelf Language
Identification Tool"; Barbaresi's fork, retrained on 139 languages plus ``zxx``, "no
linguistic content"): multinomial naive Bayes over byte n-grams, probabilities normalised
with a length temperature. It knows every language of the function-word lists and many
more, so a text in a language without a list (Albanian, Sesotho, Irish) is recognised as
such instead of being forced into the nearest list. Its Norwegian Bokmål label ``no`` is
given as ``nb``; its two Serbian classes (Cyrillic, Latin) are one label ``sr``.

Close languages (:data:`CLOSE_GROUPS`: bs/hr/sr, nb/nn/da/sv, cs/sk, es/pt/gl/ca, id/ms)
share most of their function words and many n-grams; the identifier tells them apart only
with enough evidence and otherwise answers ``und`` naming both candidates.

Loading the model takes about 1 s and 200 MB, once per process, on first use.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

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
)
# Model classes with a close relative the model has no class for (Northern Sotho: Setswana,
# which it labels nso): given only with distinctive words of the class (data/funcwords/markers).
UNKNOWN_NEIGHBOURS = {"nso": "tn"}
_GROUP = {lang: group for group in CLOSE_GROUPS for lang in group}

# Unicode Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1): soft hyphen,
# combining grapheme joiner, Arabic letter mark, Hangul fillers, Mongolian and other variation
# selectors, zero-width space/joiners, bidi controls, word joiner, invisible operators, BOM,
# tags. Invisible in rendering, they split or disguise words for both identifiers.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+")


def strip_ignorable(text: str) -> str:
    """``text`` without Default_Ignorable_Code_Point characters (``"Bun\\u00addes"`` ->
    ``"Bundes"``). ASCII text is returned as is."""
    return text if text.isascii() else _IGNORABLE.sub("", text)


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

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def languages() -> tuple[str, ...]:
    """Codes the model gives (``nb`` for its ``no``), without ``zxx``; loads the model."""
    return tuple(sorted({normalise_code(c) for c in _model().labels} - {NO_LANGUAGE}))


def rank(text: str) -> list[tuple[str, float]]:
    """The model's labels for ``text``, best first, with probabilities summing to 1
    (``zxx`` included). The text is read without default-ignorables and in NFKC (full-width
    letters as ASCII). Empty when no n-gram of the model occurs in ``text`` (the model
    would answer its prior: nothing to go on)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", strip_ignorable(text))
    ranked = _model().rank(text)
    # No feature matched: the probabilities are uniform (two classes fold into sr, uz).
    if not ranked or ranked[0][1] < 2.5 / len(ranked):
        return []
    alias = _ALIAS.get
    return [(alias(lang, lang), prob) for lang, prob in ranked]
