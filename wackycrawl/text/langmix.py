"""Language mix of a document's paragraphs: which paragraphs are in another language.

Cheap by design (it reads every paragraph of every kept page): a paragraph's function words
decide first; the n-gram model (:mod:`wackycrawl.text.langmodel`) reads a paragraph only when
the lists point away from the document's language, or find too little, and the paragraph
has at least ``langid_min_chars`` characters.

A paragraph is given

- the document's language when its lists point into that language's close group (the lists
  alone cannot tell close languages apart in one paragraph) or the model agrees with at
  least ``agree_min_prob``;
- another language when the lists and the model agree on it (``agree_min_prob``), or the
  model alone is sure (``model_min_prob``);
- ``und`` otherwise: too short, too few function words (``min_tokens``), or uncertain.

Lengths are characters (``str``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

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


def paragraph_language(paragraph: str, doc_lang: str, identifier: funcwords.Identifier,
                       min_tokens: int = MIX_MIN_TOKENS,
                       langid_min_chars: int = MIX_LANGID_MIN_CHARS) -> str:
    """The language of one paragraph of a document in ``doc_lang`` (rules: module docstring)."""
    text = langmodel.strip_ignorable(paragraph).strip()
    tokens, _types, _words = funcwords.evidence(text)
    langs = funcwords.languages()
    order = sorted(range(len(langs)), key=tokens.__getitem__, reverse=True)
    best, second = tokens[order[0]], tokens[order[1]]
    listed = (langs[order[0]] if best >= min_tokens
              and (best - second) / best >= identifier.min_margin else None)
    home = langmodel.group(doc_lang)
    if listed in home:
        return doc_lang
    if len(text) < langid_min_chars:
        return funcwords.UND
    ranked = langmodel.rank(text[: identifier.langid_max_chars])
    if not ranked or ranked[0][0] == langmodel.NO_LANGUAGE:
        return funcwords.UND
    lang, prob = ranked[0]
    if lang in home and prob >= identifier.agree_min_prob:
        return doc_lang
    if prob >= (identifier.agree_min_prob if lang == listed else identifier.model_min_prob):
        return lang
    return funcwords.UND


def mix(paragraphs: list[str], doc_lang: str, identifier: funcwords.Identifier,
        min_tokens: int = MIX_MIN_TOKENS, langid_min_chars: int = MIX_LANGID_MIN_CHARS) -> Mix:
    """The :class:`Mix` of ``paragraphs`` (empty list: no shares, no foreign paragraph)."""
    labels = [paragraph_language(p, doc_lang, identifier, min_tokens, langid_min_chars)
              for p in paragraphs]
    counts = Counter(labels)
    shares = tuple((lang, n / len(labels)) for lang, n in counts.most_common())
    foreign = () if doc_lang == funcwords.UND else tuple(
        i for i, lang in enumerate(labels) if lang not in (doc_lang, funcwords.UND))
    return Mix(shares, foreign)
