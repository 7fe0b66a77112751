"""Corpus statistics in one pass: sizes, Zipf, Heaps, hapax legomena, lengths, TLDs, hosts,
languages.

Definitions (Croft, Metzler & Strohman, *Search Engines*, section 4.2; Manning et al.,
*Introduction to Information Retrieval*, section 5.1; the lecture notes on text statistics):

* tokens: the tokens of the vertical export (:mod:`wackycrawl.corpus.tokens`: SoMaJo,
  punctuation included), i.e. the corpus positions CWB counts; types: distinct token strings
  (case-sensitive, as CWB's ``word`` attribute); type/token ratio = types / tokens (it falls
  with size: read it with the token count); hapax legomena: types seen once (their share of
  the types; ~35 % in AP89 per the lecture notes), dis legomena: types seen twice.
* Zipf's law: the rank-frequency relation ``P_r = A / r^s`` (Zipf: ``s`` ~ 1, ``A`` ~ 0.1
  for English). ``s`` and ``A`` are fitted by least squares on ``log P_r = log A - s log r``
  over ranks sampled at geometric steps (each order of magnitude weighs the same) from rank 1
  to the last rank with frequency > 1 (the hapax plateau is left out).
* Heaps' law: vocabulary ``V = K n^beta`` after ``n`` tokens (Croft: K 10-100, beta
  0.4-0.6 for English text); fitted by least squares in log-log space over the growth curve,
  sampled every time ``n`` grows by ``HEAPS_STEP`` (and the end), from ``n >= HEAPS_MIN_N``.

Memory: the type-frequency table is the one part that grows with the corpus (one dict entry
per type, ~100 bytes + the string; ``benchmarks/corpus.py`` measures it), plus one
counter entry per host and TLD; document lengths are kept as a count per length and the
Heaps curve as ~25 points per order of magnitude. Documents are never held.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

HEAPS_STEP = 1.1  # the growth curve is sampled each time n grows by 10 %
HEAPS_MIN_N = 100  # tokens before the first point used in the fit
ZIPF_POINTS = 60  # ranks sampled for the Zipf fit
TOP_HOSTS = 20


@dataclass
class Paragraph:
    """One paragraph of a document: its language and its sentences (lists of token strings)."""

    lang: str
    sentences: list[list[str]]


@dataclass
class CorpusStats:
    """Add documents with :meth:`add`; :meth:`summary` gives the numbers of ``report.json``."""

    freq: Counter = field(default_factory=Counter)
    documents: int = 0
    paragraphs: int = 0
    sentences: int = 0
    tokens: int = 0
    doc_lengths: Counter = field(default_factory=Counter)  # tokens per document -> documents
    tld_docs: Counter = field(default_factory=Counter)
    tld_tokens: Counter = field(default_factory=Counter)
    host_docs: Counter = field(default_factory=Counter)
    host_tokens: Counter = field(default_factory=Counter)
    lang_docs: Counter = field(default_factory=Counter)
    lang_tokens: Counter = field(default_factory=Counter)  # by paragraph language
    heaps: list[tuple[int, int]] = field(default_factory=list)
    _next_sample: float = 1.0

    def add(self, attrs: dict[str, str], paragraphs: list[Paragraph]) -> None:
        """One document: ``attrs`` are its ``<text>`` attributes (``host``, ``tld``,
        ``lang`` used) and ``paragraphs`` its tokens."""
        n = 0
        update = self.freq.update  # Counter.update over a list counts in C
        for para in paragraphs:
            count = 0
            for sentence in para.sentences:
                update(sentence)
                count += len(sentence)
                if self.tokens + n + count >= self._next_sample:  # Heaps: per sentence
                    self._sample(self.tokens + n + count)
            self.sentences += len(para.sentences)
            self.lang_tokens[para.lang] += count
            n += count
        self.documents += 1
        self.paragraphs += len(paragraphs)
        self.tokens += n
        self.doc_lengths[n] += 1
        for counter, key in ((self.tld_docs, "tld"), (self.host_docs, "host"),
                             (self.lang_docs, "lang")):
            counter[attrs.get(key, "-")] += 1
        self.tld_tokens[attrs.get("tld", "-")] += n
        self.host_tokens[attrs.get("host", "-")] += n

    def _sample(self, n: int) -> None:
        self.heaps.append((n, len(self.freq)))
        self._next_sample = max(n + 1, self._next_sample * HEAPS_STEP)

    def heaps_curve(self) -> list[tuple[int, int]]:
        """The sampled ``(n tokens, vocabulary)`` points, ending at the corpus size."""
        points = list(self.heaps)
        if self.tokens and (not points or points[-1][0] != self.tokens):
            points.append((self.tokens, len(self.freq)))
        return points

    def ranked(self) -> np.ndarray:
        """Frequencies sorted from the most frequent type down (int64)."""
        return np.sort(np.fromiter(self.freq.values(), dtype=np.int64, count=len(self.freq)))[::-1]

    def summary(self, drops: dict[str, int] | None = None) -> dict:
        """Every number of the report (JSON-ready)."""
        freqs = self.ranked()
        types = len(freqs)
        hapax = int((freqs == 1).sum())
        lengths = _length_summary(self.doc_lengths)
        return {
            "documents": self.documents, "paragraphs": self.paragraphs,
            "sentences": self.sentences, "tokens": self.tokens, "types": types,
            "type_token_ratio": round(types / self.tokens, 6) if self.tokens else None,
            "hapax_legomena": hapax,
            "hapax_share_of_types": round(hapax / types, 6) if types else None,
            "dis_legomena": int((freqs == 2).sum()),
            "zipf": zipf_fit(freqs, self.tokens),
            "heaps": heaps_fit(self.heaps_curve()),
            "document_tokens": lengths,
            "tlds": _table(self.tld_docs, self.tld_tokens),
            "hosts": _table(self.host_docs, self.host_tokens, TOP_HOSTS),
            "hosts_total": len(self.host_docs),
            "languages": {"documents": dict(self.lang_docs.most_common()),
                          "tokens_by_paragraph": dict(self.lang_tokens.most_common())},
            "drops": drops,
        }


def _table(docs: Counter, tokens: Counter, top: int | None = None) -> dict:
    return {k: {"documents": v, "tokens": tokens[k]} for k, v in docs.most_common(top)}


def _nth(lengths: Counter, ordered: list[int], n: int) -> int:
    """The ``n``-th smallest length (0-based) of the counted lengths."""
    seen = 0
    for length in ordered:
        seen += lengths[length]
        if seen > n:
            return length
    raise IndexError(n)


def _length_summary(lengths: Counter) -> dict:
    """min, quartiles, mean, max of tokens per document from the length counts. The median
    is the usual one (:func:`statistics.median`: the mean of the two middle lengths when the
    count is even); the quartiles and the 95th percentile are nearest-rank (the smallest
    length with at least that share of the documents at or below it)."""
    total = sum(lengths.values())
    if not total:
        return {}
    out, seen, marks = {}, 0, {"p25": 0.25, "p75": 0.75, "p95": 0.95}
    pending = dict(marks)
    ordered = sorted(lengths)
    for length in ordered:
        seen += lengths[length]
        for name, q in list(pending.items()):
            if seen >= q * total:
                out[name] = length
                del pending[name]
    low, high = _nth(lengths, ordered, (total - 1) // 2), _nth(lengths, ordered, total // 2)
    middle = (low + high) / 2
    out["median"] = int(middle) if middle.is_integer() else middle
    out["min"], out["max"] = min(lengths), max(lengths)
    out["mean"] = round(sum(k * v for k, v in lengths.items()) / total, 2)
    return out


def _lstsq(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of the least-squares line through ``(x, y)``."""
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def zipf_fit(freqs: np.ndarray, tokens: int) -> dict:
    """``exponent`` s and ``constant`` A of ``P_r = A / r^s`` (see the module doc), with the
    rank range fitted; None values when fewer than 3 ranks have frequency > 1."""
    last = int((freqs > 1).sum())
    if last < 3 or not tokens:
        return {"exponent": None, "constant": None, "ranks": [1, last]}
    ranks = np.unique(np.geomspace(1, last, ZIPF_POINTS).astype(np.int64))
    slope, intercept = _lstsq(np.log(ranks), np.log(freqs[ranks - 1] / tokens))
    return {"exponent": round(-slope, 4), "constant": round(math.exp(intercept), 4),
            "ranks": [1, last]}


def heaps_fit(points: list[tuple[int, int]]) -> dict:
    """``K`` and ``beta`` of ``V = K n^beta`` over the curve's points with n >= HEAPS_MIN_N."""
    use = [(n, v) for n, v in points if n >= HEAPS_MIN_N]
    if len(use) < 3:
        return {"K": None, "beta": None, "points": len(use)}
    n, v = np.array(use, dtype=float).T
    slope, intercept = _lstsq(np.log(n), np.log(v))
    return {"K": round(math.exp(intercept), 3), "beta": round(slope, 4), "points": len(use)}
