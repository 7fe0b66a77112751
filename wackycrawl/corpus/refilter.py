"""Re-decide kept and rejected documents with other thresholds, offline (no re-crawl).

The crawl's quality stages run in this order: filters (length, bad words;
:mod:`wackycrawl.text.filters`), language and connected prose
(:mod:`wackycrawl.text.funcwords`), dedup (:mod:`wackycrawl.dedup.detector`). A
:class:`Refilter` applies the same decisions (the language stage's own
:func:`wackycrawl.text.funcwords.rejection`), with a :class:`Policy` built as the crawl builds
its stages, to documents read back from the corpus and its rejects stream
(:mod:`wackycrawl.pipelines.rejects`), so a crawl with
``WACKY_LANGUAGES=en,de`` and rejects kept, re-filtered with ``WACKY_LANGUAGES=en``, keeps
the documents a crawl with ``en`` keeps.

What is recomputed and what is read:

* length and bad words: recomputed from the text (cheap, exact).
* language and prose: the stored ``X-Wacky-Language``, ``-Language-Score``,
  ``-Language-Method`` and ``-Funcword-Types``, ``-Funcword-Tokens``, ``-Funcword-Share``
  when all are there (the label does not depend on ``WACKY_LANGUAGES``); otherwise, with
  ``recompute_language``, or when a stored share is within its rounding (0.0005) of the
  threshold, the text is identified again. The stored figures are those of the text the crawl
  read (it stops reading once the prose test passes by a margin), so a much stricter prose
  threshold is decided exactly only with ``recompute_language``.
* dedup: fingerprints are recomputed from the text; documents the crawl kept are indexed
  first (in DOCNO order, the order they were added), then rejects are checked against them,
  so a document rejected as a near duplicate of one that is now dropped comes back. Among two
  near duplicates the crawl's choice is kept; ``dedup="exact"`` keeps near duplicates and
  ``"off"`` keeps both.

Rejections are :class:`wackycrawl.text.filters.Rejection` (``reason``, ``detail``) with the
crawl's reasons.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from wackycrawl.dedup.detector import (
    MIN_FEATURES,
    DuplicateDetector,
    K,
    near_meta,
)
from wackycrawl.dedup.simhash import to_hex
from wackycrawl.text import funcwords
from wackycrawl.text.filters import Rejection, TextFilter
from wackycrawl.trec.format import TrecDoc

REJECTED, REJECTED_DETAIL = "Rejected", "Rejected-Detail"
DEDUP_MODES = ("near", "exact", "off")
#: stored shares have 3 decimals: closer than this to a threshold, the text is read again
SHARE_ROUNDING = 0.0005
_NEVER = 1 << 62  # min_features that no text reaches: simhash matching off


def compact(detail: str) -> str:
    """A DOCHDR value for ``detail``: the detail as it is, ``-`` if empty or blank; the TREC
    writer percent-encodes its whitespace and ``%`` as in every value (``7 words < 30`` is
    stored ``7%20words%20&lt;%2030``), so nothing is lost: the reader gives the detail back
    (``urllib.parse.unquote`` of the stored value), the command a duplicate's names included."""
    return detail.strip() or "-"


@dataclass(frozen=True)
class Policy:
    """The decisions to apply, built like the crawl's stages (``wackycrawl filter`` builds
    them from the crawl's settings with the stages' own ``from_crawler``).

    ``text_filter``: the filters stage's :class:`TextFilter` (None: off); ``identifier``:
    the language stage's :class:`funcwords.Identifier` (None: language stage off), with its
    ``targets`` and ``prose`` thresholds; ``dedup``: ``near``, ``exact`` or ``off`` with the
    simhash ``k`` and ``min_features`` and the confirmation's ``near`` settings (threshold,
    shingle_size, sketch_size); ``recompute_language``: identify every text again."""

    text_filter: TextFilter | None = None
    identifier: funcwords.Identifier | None = None
    targets: tuple[str, ...] = ()
    prose: dict = field(default_factory=lambda: {
        "min_types": funcwords.MIN_FUNCWORD_TYPES, "min_tokens": funcwords.MIN_FUNCWORD_TOKENS,
        "min_ratio": funcwords.MIN_FUNCWORD_RATIO})
    dedup: str = "near"
    k: int = K
    min_features: int = MIN_FEATURES
    recompute_language: bool = False
    near: dict = field(default_factory=dict)  # DuplicateDetector's threshold, shingle settings

    def __post_init__(self):
        if self.dedup not in DEDUP_MODES:
            raise ValueError(f"dedup must be one of {DEDUP_MODES}, not {self.dedup!r}")


def stored_language(meta: dict[str, str]) -> funcwords.LangResult | None:
    """The language stage's result as stored in a DOCHDR, or None if a part is missing."""
    try:
        return funcwords.LangResult(
            lang=meta["Language"], score=float(meta["Language-Score"]),
            method=meta["Language-Method"], fw_tokens=int(meta["Funcword-Tokens"]),
            fw_types=int(meta["Funcword-Types"]), fw_ratio=float(meta["Funcword-Share"]))
    except (KeyError, ValueError):
        return None


class Refilter:
    """Decides documents one by one (:meth:`decide`) or a whole corpus (:meth:`run`)."""

    def __init__(self, policy: Policy):
        self.policy = policy
        self.stopwords = funcwords.function_words()
        self.detector = None if policy.dedup == "off" else DuplicateDetector(
            policy.k, _NEVER if policy.dedup == "exact" else policy.min_features,
            stopwords=self.stopwords, **policy.near)
        self.reidentified = 0  # documents whose language was identified again

    def _language(self, doc: TrecDoc) -> funcwords.LangResult:
        result = None if self.policy.recompute_language else stored_language(doc.meta)
        if result is not None and abs(result.fw_ratio - self.policy.prose["min_ratio"]) > \
                SHARE_ROUNDING:
            return result
        result = self.policy.identifier.identify(doc.text)
        self.reidentified += 1
        doc.meta.update({"Language": result.lang, "Language-Score": f"{result.score:.3f}",
                         "Language-Method": result.method,
                         "Funcword-Share": f"{result.fw_ratio:.3f}",
                         "Funcword-Types": str(result.fw_types),
                         "Funcword-Tokens": str(result.fw_tokens)})
        return result

    def quality(self, doc: TrecDoc) -> Rejection | None:
        """Filters, then language and prose (may update ``doc.meta``'s language lines)."""
        p = self.policy
        rejection = p.text_filter.check(doc.paragraphs) if p.text_filter else None
        if rejection or p.identifier is None:
            return rejection
        found = funcwords.rejection(self._language(doc), p.targets, **p.prose)
        return Rejection(*found) if found else None

    def duplicate(self, doc: TrecDoc) -> Rejection | None:
        """Check ``doc`` against the documents kept so far, and keep it in the index if new."""
        if self.detector is None:
            return None
        fp = self.detector.fingerprint(doc.text)
        doc.meta["Simhash"], doc.meta["Checksum"] = to_hex(fp.simhash), to_hex(fp.checksum)
        decision = self.detector.check(fp, doc.text)
        doc.meta.update(near_meta(decision))
        if decision.is_duplicate:
            return Rejection(decision.verdict, f"matches {to_hex(decision.near_of)} at distance "
                                               f"{decision.distance}")
        self.detector.add(decision)
        return None

    def decide(self, doc: TrecDoc) -> Rejection | None:
        """None to keep ``doc``; sets or removes its ``Rejected`` lines accordingly."""
        rejection = self.quality(doc) or self.duplicate(doc)
        doc.meta.pop(REJECTED, None)
        doc.meta.pop(REJECTED_DETAIL, None)
        if rejection:
            doc.meta[REJECTED] = rejection.reason
            doc.meta[REJECTED_DETAIL] = compact(rejection.detail)
        return rejection

    def run(self, kept: Iterable[TrecDoc], rejected: Iterable[TrecDoc] = ()
            ) -> Iterator[tuple[TrecDoc, Rejection | None]]:
        """``(document, rejection or None)`` for the crawl's kept documents, then its rejects."""
        for docs in (kept, rejected):
            for doc in docs:
                yield doc, self.decide(doc)
