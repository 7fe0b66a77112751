"""Language mix of a document's paragraphs: which paragraphs are in another language.

Cheap by design (it reads every paragraph of every kept page): the paragraphs' function words
(:func:`wackycrawl.text.funcwords.paragraph_counts`, one pass over the document) decide first;
the n-gram model (:mod:`wackycrawl.text.langmodel`) reads a paragraph of at least
``langid_min_chars`` characters only when its lists point away from the document's language,
or when it has no function word of the document's language at all.

A paragraph is given

- the document's language when its lists point into that language's close group (at least
  ``min_tokens`` function-word tokens, the identifier's ``min_margin`` ahead of the
  runner-up; the lists alone cannot tell close languages apart in one paragraph), or when
  the model agrees with at least ``agree_min_prob``;
- another language when the lists and the model agree on it (``agree_min_prob``), or the
  model alone is sure (``model_min_prob``);
- ``und`` otherwise: too short, too few function words, or uncertain.

Lengths are characters (``str``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from wackycrawl.text import funcwords, langmodel

# A paragraph's lists decide with at least this many function-word tokens (and the
# identifier's lead min_margin over the runner-up).
MIX_MIN_TOKENS = 3
# The model reads paragraphs of at least this many characters (~ one sentence; py3langid is
# ~92 % right on the devset's 100-character sentences, and the probability floors keep its
# uncertain answers out).
MIX_LANGID_MIN_CHARS = 100


@dataclass(frozen=True, slots=True)
class Mix:
    """``shares``: (language or ``und``, share of the paragraphs), largest first; ``foreign``:
    0-based indexes (into the paragraphs given) of paragraphs in a language other than the
    document's (never ``und`` ones; none when the document itself is ``und``)."""

    shares: tuple[tuple[str, float], ...]
    foreign: tuple[int, ...]


def mix(paragraphs: list[str], doc_lang: str, identifier: funcwords.Identifier,
        min_tokens: int = MIX_MIN_TOKENS, langid_min_chars: int = MIX_LANGID_MIN_CHARS) -> Mix:
    """The :class:`Mix` of ``paragraphs`` (empty list: no shares, no foreign paragraph)."""
    if not paragraphs:
        return Mix((), ())
    langs = funcwords.languages()
    home = langmodel.group(doc_lang)
    home_idx = [i for i, lang in enumerate(langs) if lang in home]
    labels = []
    tokens = funcwords.paragraph_counts(paragraphs)
    some_home = tokens[:, home_idx].any(axis=1).tolist()
    for text, listed, home_words in zip(paragraphs, _listed(tokens, langs, min_tokens,
                                                            identifier.min_margin), some_home):
        if listed in home:
            labels.append(doc_lang)
        elif listed is None and home_words:
            labels.append(funcwords.UND)  # some of the document's function words: too few
        else:
            labels.append(_model_says(text.strip(), listed, doc_lang, identifier,
                                      langid_min_chars))
    counts = Counter(labels)
    shares = tuple((lang, n / len(labels)) for lang, n in counts.most_common())
    foreign = () if doc_lang == funcwords.UND else tuple(
        i for i, lang in enumerate(labels) if lang not in (doc_lang, funcwords.UND))
    return Mix(shares, foreign)


def _listed(tokens: np.ndarray, langs, min_tokens: int, min_margin: float) -> list[str | None]:
    """The language each paragraph's lists point at, or None (``tokens``: int64, shape
    ``(paragraphs, languages)``): the list with most tokens, at least ``min_tokens`` and
    ``min_margin`` of them ahead of the runner-up (the first of equals)."""
    rows = np.arange(len(tokens))
    best_at = tokens.argmax(axis=1)
    best = tokens[rows, best_at]
    others = tokens.copy()
    others[rows, best_at] = -1
    lead = best - others.max(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        points = (best >= min_tokens) & (lead / best >= min_margin)
    return [langs[i] if p else None for i, p in zip(best_at.tolist(), points.tolist())]


def _model_says(text: str, listed: str | None, doc_lang: str, identifier, min_chars: int) -> str:
    if len(text) < min_chars:
        return funcwords.UND
    ranked = langmodel.rank(text[: identifier.langid_max_chars])
    if not ranked or ranked[0][0] == langmodel.NO_LANGUAGE:
        return funcwords.UND
    lang, prob = ranked[0]
    if lang in langmodel.UNKNOWN_NEIGHBOURS and not identifier.told_apart(
            lang, funcwords.normalise(text)):  # the text normalised only where it is read
        return funcwords.UND
    if lang in langmodel.group(doc_lang) and prob >= identifier.agree_min_prob:
        return doc_lang
    if prob >= (identifier.agree_min_prob if lang == listed else identifier.model_min_prob):
        return lang
    return funcwords.UND
