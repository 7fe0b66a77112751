"""The dedup decision: exact duplicate, near duplicate or new, for one clean text.

Order (cheapest first):

1. exact: the 64-bit checksum of the normalised text, against the
   :class:`~wackycrawl.dedup.index.ChecksumSet` of the texts outside the simhash index and
   against the records of the simhash candidates at distance 0 (an exact copy has the same
   simhash: an indexed text's checksum is stored once, in its record);
2. candidates: the stored documents whose 64-bit word simhash is within Hamming distance
   ``k`` (:class:`~wackycrawl.dedup.index.SimhashIndex`, permuted tables of Manku, Jain and
   Das Sarma, WWW 2007, probed up to ``k`` = 11 by default; Manku et al.'s k = 3 misses
   re-templated, edited and truncated copies, most of which are 4-11 bits away);
3. confirmation: a candidate is a near duplicate when the word-shingle resemblance
   (Broder et al. 1997) of the two texts is at least ``threshold``, estimated from the
   query's shingles and the candidate's stored sketch (:mod:`wackycrawl.dedup.shingles`).
   The simhash alone cannot tell a copy 8 bits away from a different page of the same site
   8 bits away; the shingles can.

Texts with fewer than ``min_features`` feature words are never matched against or inserted
into the simhash index (case C15: their fingerprints are too coarse; an empty text is all
zeros). Empty texts are not checked at all. Only :meth:`DuplicateDetector.add` stores a
document, so a caller can decide to keep it first.

The work splits in two: :func:`fingerprint_text` (stateless, the costly part: tokens,
features, hashes, sketch) can run anywhere, e.g. in a worker process, which can hand the
text's shingle hashes on with it (:func:`fingerprint_shingles`) so a confirmation needs no
tokenising again;
:meth:`DuplicateDetector.check` of that :class:`Fingerprint` is the lookup in the stored state.
Memory per indexed document: 24 (4 tables of 6 bytes) + 4 (id) + 8 (checksum) + ``4 + 2 m``
(sketch) bytes: 120 bytes with the default ``m`` = 40 (plus 1 MiB of directories); a text
under ``min_features`` costs 8 bytes in the checksum set.
"""

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wackycrawl.dedup.index import MAX_CANDIDATES, ChecksumSet, Records, SimhashIndex
from wackycrawl.dedup.shingles import (
    RESEMBLANCE,
    SHINGLE_SIZE,
    SKETCH_SIZE,
    coded_shingle_hashes,
    resemblances,
    row_resemblances,
    shingle_hashes,
    sketch,
)
from wackycrawl.dedup.simhash import checksum, hashed_vector, vector_fingerprint, word_hashes
from wackycrawl.text.funcwords import function_words

K = 11  # bits; devset/neardup: near-dup pairs up to 11 bits apart, distinct pages >= 10
MIN_FEATURES = 50  # words; case C15 ("empty or tiny, e.g. < 50 tokens")
MAX_CONFIRM = 16  # nearest candidates whose resemblance is estimated per lookup
CHECKSUMS_FILE = "checksums.npy"
SIMHASHES_FILE = "simhashes.npy"
RECORDS_FILE = "near-records.npy"
_CHECKSUM_BYTES = 8


def _record_width(sketch_size: int, shingle_size: int = SHINGLE_SIZE) -> int:
    """Bytes of a record: the checksum, then the :func:`sketch`. ValueError for a shingle
    or sketch size out of range."""
    return _CHECKSUM_BYTES + len(sketch(shingle_hashes("", shingle_size), sketch_size))


@dataclass(frozen=True)
class Fingerprint:
    """The stateless part of the decision for one clean text: ``checksum`` (64-bit
    BLAKE2b of the normalised text), ``simhash`` (64-bit word simhash), ``n_features``
    (feature words counted, function words left out), all ints, and ``sketch`` (bytes,
    :func:`wackycrawl.dedup.shingles.sketch` of its word shingles; empty if not computed)."""

    checksum: int
    simhash: int
    n_features: int
    sketch: bytes = b""


def fingerprint_shingles(text: str, stopwords: frozenset[str], shingle_size: int = SHINGLE_SIZE,
                         sketch_size: int = SKETCH_SIZE) -> tuple[Fingerprint, np.ndarray]:
    """:class:`Fingerprint` of ``text`` (clean text, str) with ``stopwords`` left out of the
    simhash features (:func:`wackycrawl.dedup.simhash.features`) but kept in the shingles,
    and the text's :func:`~wackycrawl.dedup.shingles.shingle_hashes` (what :func:`confirm`
    needs of it: a worker process that fingerprints the text can hand them on)."""
    per_word, stop = word_hashes(text, stopwords)
    if not len(per_word):
        hashes = np.empty(0, dtype=np.uint64)
        return Fingerprint(checksum(text), 0, 0, sketch(hashes, sketch_size)), hashes
    # fingerprint(features(words)) and shingle_hashes(words), each word hashed once for both:
    # the kept tokens weighted 1 each give the vector of their distinct words weighted by count
    kept = per_word[~stop]
    simhash = vector_fingerprint(hashed_vector(kept))
    hashes = coded_shingle_hashes(per_word, shingle_size)
    return Fingerprint(checksum(text), simhash, len(kept), sketch(hashes, sketch_size)), hashes


def fingerprint_text(text: str, stopwords: frozenset[str], shingle_size: int = SHINGLE_SIZE,
                     sketch_size: int = SKETCH_SIZE) -> Fingerprint:
    """The :class:`Fingerprint` of :func:`fingerprint_shingles`."""
    return fingerprint_shingles(text, stopwords, shingle_size, sketch_size)[0]


@dataclass(frozen=True)
class Decision:
    """What :meth:`DuplicateDetector.check` found for one text.

    ``verdict`` is ``"new"``, ``"exact_duplicate"``, ``"near_duplicate"``, ``"empty"`` or
    ``"too_few_features"`` (the last two are kept but not indexed for near duplicates).
    For a duplicate, ``match`` is the stored checksum (exact) or simhash (near) it
    duplicates; for a new text it is the simhash of the nearest candidate, if any.
    ``distance`` is the Hamming distance to that document (0 for exact), ``resemblance``
    the estimated shingle resemblance to it (1.0 for exact) and ``near_of`` its checksum;
    all three None when there was no candidate within ``k``."""

    verdict: str
    checksum: int
    simhash: int
    n_features: int
    sketch: bytes = b""
    match: int | None = None
    distance: int | None = None
    resemblance: float | None = None
    near_of: int | None = None

    @property
    def is_duplicate(self) -> bool:
        return self.verdict in ("exact_duplicate", "near_duplicate")


def near_meta(decision: Decision) -> dict[str, str]:
    """The ``Near-Distance``, ``Near-Resemblance`` (2 decimals) and ``Near-Of`` (checksum, 16
    hex digits) metadata of ``decision``, each ``-`` when there was no candidate."""
    if decision.distance is None:
        return {"Near-Distance": "-", "Near-Resemblance": "-", "Near-Of": "-"}
    return {"Near-Distance": str(decision.distance),
            "Near-Resemblance": f"{decision.resemblance:.2f}",
            "Near-Of": f"{decision.near_of:016x}"}


def confirm(fpr: Fingerprint, text: str | np.ndarray,
            candidates: Sequence[tuple[int, int, bytes, object]], threshold: float,
            shingle_size: int = SHINGLE_SIZE) -> Decision:
    """The near-duplicate decision for ``fpr`` (of ``text``: the clean text, or its
    :func:`~wackycrawl.dedup.shingles.shingle_hashes` of ``shingle_size`` words) among
    ``candidates``:
    ``(distance, simhash, sketch, key)``, of which the ``MAX_CONFIRM`` nearest are compared.
    The near duplicate is the candidate of highest
    resemblance >= ``threshold`` (ties: the nearer, then the smaller simhash); without one
    the text is new and the nearest candidate is reported. ``near_of`` is the chosen ``key``."""
    if not candidates:
        return Decision("new", fpr.checksum, fpr.simhash, fpr.n_features, fpr.sketch)
    candidates = sorted(candidates, key=_by_distance)[:MAX_CONFIRM]
    hashes = text if isinstance(text, np.ndarray) else shingle_hashes(text, shingle_size)
    scores = resemblances(hashes, [c[2] for c in candidates])
    i, r = _chosen(scores, threshold)
    d, match, _, key = candidates[i]
    return _near(fpr, r >= threshold, match, d, r, key)


def _by_distance(candidate: tuple) -> tuple:
    return candidate[0], candidate[1]


def _chosen(scores, threshold: float) -> tuple[int, float]:
    """``(i, resemblance)`` of the chosen one of candidates nearest first with resemblances
    ``scores`` (a list or a float array): the first of the highest resemblance if it is at
    least ``threshold`` (the earlier is the nearer, then the smaller simhash), else the first."""
    if isinstance(scores, np.ndarray):
        i = int(scores.argmax())
    else:
        i = scores.index(max(scores))
    r = float(scores[i])
    return (i, r) if r >= threshold else (0, float(scores[0]))


def _near(fpr: Fingerprint, near: bool, match: int, distance: int, resemblance: float,
          key) -> Decision:
    return Decision("near_duplicate" if near else "new", fpr.checksum, fpr.simhash,
                    fpr.n_features, fpr.sketch, match, distance, resemblance, key)


class DuplicateDetector:
    """Exact and near-duplicate detection over the texts added so far.

    ``k``: Hamming distance of simhash candidates (0..15); ``threshold``: shingle
    resemblance of a near duplicate (0..1); ``shingle_size`` words per shingle;
    ``sketch_size`` shingles stored per document; ``max_candidates``: the lookup's cap
    (:class:`~wackycrawl.dedup.index.SimhashIndex`). ``stopwords`` are left out of the
    simhash features; None means the function words of every shipped list
    (:func:`wackycrawl.text.funcwords.function_words`)."""

    def __init__(self, k: int = K, min_features: int = MIN_FEATURES,
                 checksums: ChecksumSet | None = None, simhashes: SimhashIndex | None = None,
                 stopwords: frozenset[str] | None = None, records: Records | None = None,
                 threshold: float = RESEMBLANCE, shingle_size: int = SHINGLE_SIZE,
                 sketch_size: int = SKETCH_SIZE, max_candidates: int = MAX_CANDIDATES):
        self.k, self.min_features, self.threshold = k, min_features, threshold
        self.shingle_size, self.sketch_size = shingle_size, sketch_size
        self.stopwords = function_words() if stopwords is None else stopwords
        self.checksums = checksums if checksums is not None else ChecksumSet()
        self.simhashes = simhashes if simhashes is not None else SimhashIndex(k=k)
        self.simhashes.max_candidates = max_candidates
        if not 0 <= threshold <= 1:  # 0: every simhash candidate is a near duplicate
            raise ValueError(f"resemblance threshold must be in 0..1, not {threshold}")
        # ValueError here, not at the first document, for a shingle or sketch size out of range
        width = _record_width(sketch_size, shingle_size)
        self.records = records if records is not None else Records(width)
        self.cut_on_load = 0
        if len(self.records) != len(self.simhashes) or self.records.width != width:
            raise ValueError(f"{len(self.records)} records of {self.records.width} bytes for "
                             f"{len(self.simhashes)} simhashes (sketch size {sketch_size})")

    def fingerprint(self, text: str) -> Fingerprint:
        """:func:`fingerprint_text` with this detector's stopwords and shingle settings."""
        return fingerprint_text(text, self.stopwords, self.shingle_size, self.sketch_size)

    def check(self, text: str | Fingerprint, source: str | np.ndarray | None = None) -> Decision:
        """Classify ``text`` (clean text, str, or its precomputed :class:`Fingerprint`,
        which must come from the same settings; then ``source`` is its text or the text's
        shingle hashes (:func:`fingerprint_shingles`), needed to confirm candidates,
        ValueError if missing) without storing it."""
        fpr = text if isinstance(text, Fingerprint) else self.fingerprint(text)
        source = text if isinstance(text, str) else source
        digest, n = fpr.checksum, fpr.n_features
        if n == 0:
            return Decision("empty", digest, fpr.simhash, n, fpr.sketch)
        if digest in self.checksums:
            return self._exact(fpr)
        if n < self.min_features:
            return Decision("too_few_features", digest, fpr.simhash, n, fpr.sketch)
        dist, doc, fps = self.simhashes.candidate_arrays(fpr.simhash)
        if not len(dist):
            return Decision("new", digest, fpr.simhash, n, fpr.sketch)
        # only the MAX_CONFIRM nearest reach the confirmation (:func:`confirm`'s order)
        nearest = np.lexsort((fps, dist))  # stable: ties stay in id order
        # an indexed text's checksum is in its record only; a copy of it has its simhash:
        # the candidates at distance 0 come first
        same = int(np.searchsorted(dist, 1))
        rows = self.records.take(doc[nearest[:max(same, MAX_CONFIRM)]])
        if same:
            mine = digest.to_bytes(_CHECKSUM_BYTES, "little")
            for j in range(same):
                if rows[j, :_CHECKSUM_BYTES].tobytes() == mine:
                    return self._exact(fpr)
            rows = rows[:MAX_CONFIRM]
        if source is None:
            raise ValueError("the text is needed to confirm near-duplicate candidates")
        hashes = (source if isinstance(source, np.ndarray)
                  else shingle_hashes(source, self.shingle_size))
        scores = row_resemblances(hashes, rows, _CHECKSUM_BYTES)
        i, r = _chosen(scores, self.threshold)
        j = int(nearest[i])
        key = int.from_bytes(rows[i, :_CHECKSUM_BYTES].tobytes(), "little")
        return _near(fpr, r >= self.threshold, int(fps[j]), int(dist[j]), r, key)

    @staticmethod
    def _exact(fpr: Fingerprint) -> Decision:
        digest = fpr.checksum
        return Decision("exact_duplicate", digest, fpr.simhash, fpr.n_features, fpr.sketch,
                        digest, 0, 1.0, digest)

    def add(self, decision: Decision) -> None:
        """Store a checked document: its simhash and a record (checksum, sketch) if it has
        enough features, else its checksum alone. Duplicates and empty texts are ignored."""
        if decision.verdict == "new":
            self.simhashes.add(decision.simhash)
            self.records.append(decision.checksum.to_bytes(_CHECKSUM_BYTES, "little")
                                + decision.sketch)
        elif decision.verdict == "too_few_features":
            self.checksums.add(decision.checksum)

    def __len__(self) -> int:
        """Number of stored documents (= documents added)."""
        return len(self.checksums) + len(self.simhashes)

    @property
    def nbytes(self) -> int:
        """Bytes of the checksum set, simhash index and records."""
        return self.checksums.nbytes + self.simhashes.nbytes + self.records.nbytes

    def save(self, directory: str) -> None:
        """Write ``checksums.npy``, ``simhashes.npy`` and ``near-records.npy`` into
        ``directory`` (created if missing), each atomically. Raises OSError if the directory
        is not writable."""
        os.makedirs(directory, exist_ok=True)
        self.checksums.save(os.path.join(directory, CHECKSUMS_FILE))
        self.simhashes.save(os.path.join(directory, SIMHASHES_FILE))
        self.records.save(os.path.join(directory, RECORDS_FILE))

    @classmethod
    def load(cls, directory: str, k: int = K, min_features: int = MIN_FEATURES, **settings):
        """Read a state written by :meth:`save`; a missing file gives an empty part.
        ``settings`` are the other constructor arguments. Raises ValueError if a file is
        not the expected array or the parts do not match (a state from another version).
        Of a save cut between its files, the documents of the save before are kept:
        :attr:`cut_on_load` says how many fingerprints and records were left out."""
        path = os.path.join(directory, CHECKSUMS_FILE)
        checksums = ChecksumSet.load(path) if os.path.exists(path) else None
        path = os.path.join(directory, SIMHASHES_FILE)
        simhashes = SimhashIndex.load(path, k) if os.path.exists(path) else None
        path = os.path.join(directory, RECORDS_FILE)
        width = _record_width(settings.get("sketch_size", SKETCH_SIZE))
        records = Records.load(path, width) if os.path.exists(path) else None
        cut = 0
        if simhashes is not None and records is not None:
            # a save cut between its files (a kill) leaves one of the two longer: both are
            # in id order, so their common part is the state of the save before
            n = min(len(simhashes), len(records))
            cut = len(simhashes) - n + len(records) - n
            if len(simhashes) > n:
                simhashes = SimhashIndex(simhashes.values()[:n], k)
            if len(records) > n:
                records = Records(width, records.take(range(n)))
        detector = cls(k, min_features, checksums, simhashes, records=records, **settings)
        detector.cut_on_load = cut
        return detector
