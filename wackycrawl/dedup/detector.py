"""The dedup decision: exact duplicate, near duplicate or new, for one clean text.

Order (cheapest first): the 64-bit checksum of the normalised text against a
:class:`~wackycrawl.dedup.index.ChecksumSet`, then the 64-bit word simhash against a
:class:`~wackycrawl.dedup.index.SimhashIndex` at Hamming distance <= ``k`` (Manku et al.,
WWW 2007: k = 3 for 64-bit fingerprints of web pages). Texts with fewer than
``min_features`` words are never matched against or inserted into the simhash index:
their fingerprints are too coarse to mean anything (case C15; an empty text is all
zeros). Empty texts are not checked at all. Only :meth:`DuplicateDetector.add` stores a
document, so a caller can decide to keep it first.

The work splits in two: :func:`fingerprint_text` (stateless, the costly part: tokens,
features, hashes) can run anywhere, e.g. in a worker process; :meth:`DuplicateDetector.check`
of that :class:`Fingerprint` is the lookup in the stored state.
"""

import os
from dataclasses import dataclass

from wackycrawl.dedup.index import ChecksumSet, SimhashIndex
from wackycrawl.dedup.simhash import checksum, features, fingerprint, hamming
from wackycrawl.text.funcwords import function_words

K = 3  # Manku, Jain, Das Sarma 2007: 64-bit simhash, Hamming distance <= 3
MIN_FEATURES = 50  # words; case C15 ("empty or tiny, e.g. < 50 tokens")
CHECKSUMS_FILE = "checksums.npy"
SIMHASHES_FILE = "simhashes.npy"


@dataclass(frozen=True)
class Fingerprint:
    """The stateless part of the decision for one clean text: ``checksum`` (64-bit
    BLAKE2b of the normalised text), ``simhash`` (64-bit word simhash) and ``n_features``
    (feature words counted, function words left out), all ints."""

    checksum: int
    simhash: int
    n_features: int


def fingerprint_text(text: str, stopwords: frozenset[str]) -> Fingerprint:
    """:class:`Fingerprint` of ``text`` (clean text, str) with ``stopwords`` left out of the
    simhash features (:func:`wackycrawl.dedup.simhash.features`)."""
    weighted = features(text, stopwords)
    return Fingerprint(checksum(text), fingerprint(weighted), sum(weighted.values()))


@dataclass(frozen=True)
class Decision:
    """What :meth:`DuplicateDetector.check` found for one text.

    ``verdict`` is ``"new"``, ``"exact_duplicate"``, ``"near_duplicate"``, ``"empty"`` or
    ``"too_few_features"`` (the last two are kept but not indexed for near duplicates);
    ``match`` is the stored checksum or fingerprint it duplicates (else None) and
    ``distance`` the Hamming distance to a near-duplicate match (0 for exact)."""

    verdict: str
    checksum: int
    simhash: int
    n_features: int
    match: int | None = None
    distance: int | None = None

    @property
    def is_duplicate(self) -> bool:
        return self.verdict in ("exact_duplicate", "near_duplicate")


class DuplicateDetector:
    """Exact and near-duplicate detection over the texts added so far."""

    def __init__(self, k: int = K, min_features: int = MIN_FEATURES,
                 checksums: ChecksumSet | None = None, simhashes: SimhashIndex | None = None,
                 stopwords: frozenset[str] | None = None):
        """``stopwords`` are left out of the simhash features; None means the function
        words of every shipped list (:func:`wackycrawl.text.funcwords.function_words`)."""
        self.k = k
        self.stopwords = function_words() if stopwords is None else stopwords
        self.min_features = min_features
        self.checksums = checksums if checksums is not None else ChecksumSet()
        self.simhashes = simhashes if simhashes is not None else SimhashIndex(k=k)

    def fingerprint(self, text: str) -> Fingerprint:
        """:func:`fingerprint_text` with this detector's stopwords."""
        return fingerprint_text(text, self.stopwords)

    def check(self, text: str | Fingerprint) -> Decision:
        """Classify ``text`` (clean text, str, or its precomputed :class:`Fingerprint`,
        which must come from the same stopwords) without storing it."""
        fpr = text if isinstance(text, Fingerprint) else self.fingerprint(text)
        digest, fp, n = fpr.checksum, fpr.simhash, fpr.n_features
        if n == 0:
            return Decision("empty", digest, fp, n)
        if digest in self.checksums:
            return Decision("exact_duplicate", digest, fp, n, digest, 0)
        if n < self.min_features:
            return Decision("too_few_features", digest, fp, n)
        match = self.simhashes.find(fp)
        if match is not None:
            return Decision("near_duplicate", digest, fp, n, match, hamming(fp, match))
        return Decision("new", digest, fp, n)

    def add(self, decision: Decision) -> None:
        """Store a checked document: its checksum, and its simhash if it has enough
        features. Duplicates and empty texts are ignored."""
        if decision.is_duplicate or decision.verdict == "empty":
            return
        self.checksums.add(decision.checksum)
        if decision.verdict == "new":
            self.simhashes.add(decision.simhash)

    def __len__(self) -> int:
        """Number of stored checksums (= documents added)."""
        return len(self.checksums)

    def save(self, directory: str) -> None:
        """Write ``checksums.npy`` and ``simhashes.npy`` into ``directory`` (created if
        missing), each atomically. Raises OSError if the directory is not writable."""
        os.makedirs(directory, exist_ok=True)
        self.checksums.save(os.path.join(directory, CHECKSUMS_FILE))
        self.simhashes.save(os.path.join(directory, SIMHASHES_FILE))

    @classmethod
    def load(cls, directory: str, k: int = K, min_features: int = MIN_FEATURES):
        """Read a state written by :meth:`save`; a missing file gives an empty part.
        Raises ValueError if a file is not a uint64 .npy array."""
        path = os.path.join(directory, CHECKSUMS_FILE)
        checksums = ChecksumSet.load(path) if os.path.exists(path) else None
        path = os.path.join(directory, SIMHASHES_FILE)
        simhashes = SimhashIndex.load(path, k) if os.path.exists(path) else None
        return cls(k, min_features, checksums, simhashes)
