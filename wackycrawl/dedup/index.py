"""Compact in-memory stores of 64-bit values: exact checksums, simhash fingerprints, records.

:class:`ChecksumSet` keeps a sorted ``uint64`` numpy array plus a small unsorted insertion
buffer merged into it when it fills (the log-structured-merge idea): 8 bytes per member.

:class:`SimhashIndex` finds the stored fingerprints within Hamming distance ``k`` of a query
with the permuted-tables scheme of Manku, Jain and Das Sarma, "Detecting near-duplicates for
web crawling" (WWW 2007, section 3): the 64 bits are cut into 4 blocks of 16 bits and table
``t`` holds every document sorted by its block ``t``, with an offset directory over the
65,536 block values. Manku et al. use ``k + 1`` blocks for distance ``k`` (pigeonhole: one
block agrees exactly); to reach larger ``k`` without narrower blocks (whose buckets grow as
``n / 2**width``) a query also probes every block value within ``r = k // 4`` bits of its
own: at distance ``<= 4 (r + 1) - 1`` some block differs in at most ``r`` bits, so every
stored fingerprint within ``k`` is found (k = 11: 137 probes per table). A candidate cap
bounds the work of one lookup. Memory: 8 bytes of fingerprint + 4 x 4 bytes of table
entries per document, plus 4 x 256 KiB of directories.

:class:`Records` holds fixed-size byte rows by document id (the checksum and shingle sketch
that confirm a candidate), in chunks so that growing never copies what is stored.

Persistence: ``save(path)`` writes one ``.npy`` array (temp file + ``os.replace``, so a
crash never leaves a half-written file); ``load(path, ...)`` rebuilds.
"""

import os

import numpy as np

BUFFER_SIZE = 4096  # values held unsorted before a merge
_U64 = np.uint64


def _atomic_save(path: str, values: np.ndarray) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as fh:
        np.save(fh, values, allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _load(path: str) -> np.ndarray:
    values = np.load(path, allow_pickle=False)
    if values.ndim != 1 or values.dtype != np.dtype("<u8"):
        raise ValueError(f"{path}: expected a 1-d uint64 array, got {values.dtype} {values.shape}")
    return values


class ChecksumSet:
    """Set of 64-bit checksums (ints in ``[0, 2**64)``), 8 bytes per member once merged."""

    def __init__(self, values=(), buffer_size: int = BUFFER_SIZE):
        self._sorted = np.unique(np.asarray(values, dtype=_U64))
        self._buffer: set[int] = set()
        self._buffer_size = buffer_size

    def __len__(self) -> int:
        return len(self._sorted) + len(self._buffer)

    def __contains__(self, value: int) -> bool:
        if value in self._buffer:
            return True
        i = int(np.searchsorted(self._sorted, _U64(value)))
        return i < len(self._sorted) and int(self._sorted[i]) == value

    def add(self, value: int) -> None:
        if value in self:
            return
        self._buffer.add(value)
        if len(self._buffer) >= self._buffer_size:
            merged = np.concatenate([self._sorted, np.fromiter(self._buffer, _U64)])
            merged.sort(kind="stable")  # two sorted runs: a linear merge
            self._sorted = merged
            self._buffer.clear()

    @property
    def nbytes(self) -> int:
        """Bytes of the sorted array (the buffer holds at most ``buffer_size`` ints)."""
        return self._sorted.nbytes

    def values(self) -> np.ndarray:
        """All members, unsorted, as a new uint64 array."""
        return np.concatenate([self._sorted, np.fromiter(self._buffer, _U64)])

    def save(self, path: str) -> None:
        _atomic_save(path, self.values().astype("<u8"))

    @classmethod
    def load(cls, path: str, buffer_size: int = BUFFER_SIZE) -> "ChecksumSet":
        """Raises OSError if ``path`` is unreadable, ValueError if it is not a uint64 .npy."""
        return cls(_load(path), buffer_size)



BLOCK_BITS = 16  # 4 blocks of 16 bits; a table's directory has 2**16 + 1 offsets
TABLES = 64 // BLOCK_BITS
MAX_K = 15  # probes of radius 3: 697 block values per table
MAX_CANDIDATES = 2048  # table entries compared per lookup at most (the candidate cap)
_SHIFTS = [64 - BLOCK_BITS * (t + 1) for t in range(TABLES)]  # block t from the top
_NP_SHIFTS = np.array(_SHIFTS, dtype=_U64)
_DIRECTORY = (1 << BLOCK_BITS) + 1  # offsets per table
_TABLE_BASE = np.arange(TABLES) * _DIRECTORY  # where each table's offsets start


def probe_masks(radius: int) -> list[int]:
    """Every 16-bit mask with at most ``radius`` bits set, by number of bits then value."""
    masks = range(1 << BLOCK_BITS)
    return sorted((m for m in masks if m.bit_count() <= radius), key=lambda m: (m.bit_count(), m))


def block_values(fp: int) -> list[int]:
    """The 4 blocks of 16 bits of ``fp``, block 0 being the top bits."""
    return [(fp >> shift) & 0xFFFF for shift in _SHIFTS]


class SimhashIndex:
    """Stored 64-bit simhash fingerprints (document ids 0, 1, ... in order of :meth:`add`)
    and the lookup of those within Hamming distance ``k`` in ``0..MAX_K``.

    ``buffer_size`` fingerprints are held unmerged and scanned linearly; ``max_candidates``
    caps the table entries one lookup compares (probes of the smallest radius first, the
    query's own 4 blocks always; :attr:`capped` counts the lookups that hit it, which may
    then miss a match beyond distance 3). Raises ValueError for ``k`` out of range."""

    def __init__(self, fingerprints=(), k: int = 3, buffer_size: int = BUFFER_SIZE,
                 max_candidates: int = MAX_CANDIDATES):
        if not 0 <= k <= MAX_K:
            raise ValueError(f"k must be in 0..{MAX_K}, not {k}")
        self.k, self.max_candidates, self.capped = k, max_candidates, 0
        self._probes = np.array(probe_masks(k // TABLES), dtype=np.int64)
        self._fps = np.empty(0, dtype=_U64)  # merged fingerprints by id
        self._ids = np.empty(0, dtype=np.uint32)  # the 4 tables, one after the other
        # flat: table t at t * _DIRECTORY; uint32: at most 2**32 / 4 documents
        self._offsets = np.zeros(TABLES * _DIRECTORY, dtype=np.uint32)
        self._buffer = np.empty(buffer_size, dtype=_U64)
        self._pending = 0
        initial = np.asarray(fingerprints, dtype=_U64)
        if len(initial):
            self._merge(initial)

    def __len__(self) -> int:
        return len(self._fps) + self._pending

    def add(self, fp: int) -> int:
        """Store fingerprint ``fp`` (an int in ``[0, 2**64)``) and return its document id;
        duplicates are kept."""
        self._buffer[self._pending] = fp
        self._pending += 1
        if self._pending == len(self._buffer):
            self._merge(self._buffer.copy())
            self._pending = 0
        return len(self) - 1

    def _merge(self, fps: np.ndarray) -> None:
        first = len(self._fps)
        new_ids = np.arange(first, first + len(fps), dtype=np.uint32)
        positions, inserted, counts = [], [], []
        for t, shift in enumerate(_SHIFTS):
            blocks = ((fps >> _U64(shift)) & _U64(0xFFFF)).astype(np.int64)
            order = np.argsort(blocks, kind="stable")
            positions.append(self._offsets[_TABLE_BASE[t] + blocks[order] + 1].astype(np.int64))
            inserted.append(new_ids[order])
            counts.append(np.bincount(blocks, minlength=1 << BLOCK_BITS))
        self._ids = np.insert(self._ids, np.concatenate(positions), np.concatenate(inserted))
        # each offset moves by the new entries before it: in earlier tables and earlier blocks
        for t in range(TABLES):
            table = self._offsets[_TABLE_BASE[t] : _TABLE_BASE[t] + _DIRECTORY]
            table[1:] += (t * len(fps) + np.cumsum(counts[t])).astype(np.uint32)
            table[0] += np.uint32(t * len(fps))
        self._fps = np.concatenate([self._fps, fps])

    def candidates(self, fp: int) -> list[tuple[int, int]]:
        """``(Hamming distance, document id)`` of every stored fingerprint within ``k`` of
        ``fp`` that the lookup reached, nearest first (ties by id)."""
        found = []
        if self._pending:
            d = np.bitwise_count(self._buffer[: self._pending] ^ _U64(fp))
            near = np.flatnonzero(d <= self.k)
            found += zip(d[near].tolist(), (near + len(self._fps)).tolist())
        if len(self._fps):
            found += self._table_candidates(fp)
        return sorted(set(found))

    def _table_candidates(self, fp: int) -> list[tuple[int, int]]:
        blocks = ((_U64(fp) >> _NP_SHIFTS) & _U64(0xFFFF)).astype(np.int64)
        # probe-major: radius 0 of every table first, then radius 1 ...
        keys = ((self._probes[:, None] ^ blocks) + _TABLE_BASE).ravel()
        starts = self._offsets.take(keys).astype(np.int64)
        lengths = self._offsets.take(keys + 1) - starts
        ends = np.cumsum(lengths)
        if ends[-1] > self.max_candidates:
            self.capped += 1
            # the own blocks (radius 0) always: distance <= 3 is never lost to the cap
            kept = max(TABLES, int(np.searchsorted(ends, self.max_candidates, side="right")))
            starts, lengths, ends = starts[:kept], lengths[:kept], ends[:kept]
        if not len(ends) or not ends[-1]:
            return []
        ids = self._ids.take(np.repeat(starts - (ends - lengths), lengths) + np.arange(ends[-1]))
        d = np.bitwise_count(self._fps.take(ids) ^ _U64(fp))
        near = np.flatnonzero(d <= self.k)
        return list(zip(d[near].tolist(), ids[near].tolist()))

    def find(self, fp: int) -> int | None:
        """The stored fingerprint nearest to ``fp`` within ``k``, or None."""
        found = self.candidates(fp)
        return self.fingerprint(found[0][1]) if found else None

    def fingerprint(self, doc: int) -> int:
        """The fingerprint of document id ``doc`` (IndexError if there is none)."""
        if not 0 <= doc < len(self):
            raise IndexError(doc)
        merged = len(self._fps)
        return int(self._fps[doc] if doc < merged else self._buffer[doc - merged])

    @property
    def nbytes(self) -> int:
        """Bytes of the fingerprints, tables, directories and buffer."""
        return self._fps.nbytes + self._ids.nbytes + self._offsets.nbytes + self._buffer.nbytes

    def values(self) -> np.ndarray:
        """All stored fingerprints in id order, as a new uint64 array."""
        return np.concatenate([self._fps, self._buffer[: self._pending]])

    def save(self, path: str) -> None:
        _atomic_save(path, self.values().astype("<u8"))

    @classmethod
    def load(cls, path: str, k: int = 3, buffer_size: int = BUFFER_SIZE) -> "SimhashIndex":
        """Rebuild from a file written by :meth:`save`, for any ``k`` (the file holds only
        the fingerprints, in id order). Raises OSError / ValueError like :meth:`ChecksumSet.load`."""
        return cls(_load(path), k, buffer_size)


class Records:
    """Rows of ``width`` bytes by document id (0, 1, ... in order of :meth:`append`), in
    chunks of ``chunk`` rows: ``width`` bytes per document once a chunk fills."""

    def __init__(self, width: int, rows=None, chunk: int = 4096):
        self.width, self._chunk = width, chunk
        self._chunks: list[np.ndarray] = []
        self._len = 0
        for row in np.empty((0, width), np.uint8) if rows is None else rows:
            self.append(bytes(row))

    def __len__(self) -> int:
        return self._len

    def append(self, row: bytes) -> int:
        """Store ``row`` (exactly ``width`` bytes, else ValueError) and return its id."""
        if len(row) != self.width:
            raise ValueError(f"a record has {self.width} bytes, not {len(row)}")
        if self._len % self._chunk == 0:
            self._chunks.append(np.empty((self._chunk, self.width), dtype=np.uint8))
        self._chunks[-1][self._len % self._chunk] = np.frombuffer(row, dtype=np.uint8)
        self._len += 1
        return self._len - 1

    def __getitem__(self, doc: int) -> bytes:
        if not 0 <= doc < self._len:
            raise IndexError(doc)
        return self._chunks[doc // self._chunk][doc % self._chunk].tobytes()

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for c in self._chunks)

    def save(self, path: str) -> None:
        rows = np.concatenate(self._chunks)[: self._len] if self._chunks else np.empty(0)
        _atomic_save(path, rows.astype(np.uint8).reshape(self._len, self.width))

    @classmethod
    def load(cls, path: str, width: int) -> "Records":
        """Raises OSError if unreadable, ValueError if not a 2-d uint8 array of ``width``."""
        rows = np.load(path, allow_pickle=False)
        if rows.ndim != 2 or rows.dtype != np.uint8 or rows.shape[1] != width:
            raise ValueError(f"{path}: expected uint8 rows of {width}, got {rows.dtype} {rows.shape}")
        return cls(width, rows)
