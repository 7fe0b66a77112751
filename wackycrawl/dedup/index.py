"""Compact in-memory sets of 64-bit values: exact checksums and simhash fingerprints.

Both keep a sorted ``uint64`` numpy array plus a small unsorted insertion buffer that is
merged into the array when it fills (the log-structured-merge idea), so a document costs
8 bytes per stored copy instead of a Python object.

:class:`SimhashIndex` answers "is any stored fingerprint within Hamming distance ``k``?"
with the permuted-tables scheme of Manku, Jain and Das Sarma, "Detecting near-duplicates
for web crawling" (WWW 2007, §3): the 64 bits are cut into ``k + 1`` blocks; two
fingerprints at distance <= k agree exactly on at least one block (pigeonhole), so table
``t`` stores every fingerprint rotated to put block ``t`` in front, sorted, and a query
only compares the entries that share its leading bits in some table. With k = 3 that is
4 tables x 8 bytes = 32 bytes per document.

Persistence: ``save(path)`` writes one ``.npy`` array of the stored values (temp file +
``os.replace``, so a crash never leaves a half-written file); ``load(path, ...)`` rebuilds.
"""

import os

import numpy as np

BUFFER_SIZE = 4096  # values held unsorted before a merge
_DIRECTORY_BITS = 16  # leading bits resolved by a per-table offset table (2**16 + 1 entries)
_SCALAR_BUCKET = 48  # buckets up to this size are scanned with Python ints, larger with numpy
_U64 = np.uint64
_MASK = (1 << 64) - 1


def _atomic_save(path: str, values: np.ndarray) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as fh:
        np.save(fh, values.astype("<u8"), allow_pickle=False)
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
        _atomic_save(path, self.values())

    @classmethod
    def load(cls, path: str, buffer_size: int = BUFFER_SIZE) -> "ChecksumSet":
        """Raises OSError if ``path`` is unreadable, ValueError if it is not a uint64 .npy."""
        return cls(_load(path), buffer_size)


def _blocks(k: int) -> list[tuple[int, int]]:
    """(start bit counted from the top, width) of the k + 1 near-equal blocks of 64 bits."""
    base, extra = divmod(64, k + 1)
    widths = [base + (i < extra) for i in range(k + 1)]
    return [(sum(widths[:i]), w) for i, w in enumerate(widths)]


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & _MASK if shift else value


class _Table:
    """One permuted table: fingerprints rotated left by ``shift`` bits and sorted, an
    offset directory over the leading ``prefix_bits`` bits of the rotated values, and the
    not yet merged fingerprints bucketed by the same prefix."""

    def __init__(self, shift: int, prefix_bits: int):
        self.shift = shift
        self.prefix_bits = prefix_bits
        self.sorted = np.empty(0, dtype=_U64)
        self.offsets = np.zeros((1 << prefix_bits) + 1, dtype=np.uint32)
        self.pending: dict[int, list[int]] = {}

    def add_pending(self, fp: int) -> None:
        prefix = _rotl(fp, self.shift) >> (64 - self.prefix_bits)
        self.pending.setdefault(prefix, []).append(fp)

    def merge(self, fingerprints: np.ndarray) -> None:
        """Merge ``fingerprints`` (uint64, not rotated) into the sorted array."""
        rotated = fingerprints
        if self.shift:
            shift = _U64(self.shift)
            rotated = (fingerprints << shift) | (fingerprints >> (_U64(64) - shift))
        merged = np.concatenate([self.sorted, rotated])
        merged.sort(kind="stable")  # two sorted runs: a linear merge
        self.sorted = merged
        bounds = np.arange((1 << self.prefix_bits) + 1, dtype=_U64) << _U64(64 - self.prefix_bits)
        self.offsets = np.searchsorted(merged, bounds).astype(np.uint32)
        self.offsets[-1] = len(merged)  # the last bound wrapped round to 0
        self.pending.clear()

    def nearest(self, fp: int) -> tuple[int, int] | None:
        """(Hamming distance, fingerprint) of the nearest stored fingerprint sharing the
        query's leading ``prefix_bits`` after rotation, or None if the bucket is empty."""
        rotated = _rotl(fp, self.shift)
        prefix = rotated >> (64 - self.prefix_bits)
        bucket = self.sorted[self.offsets[prefix] : self.offsets[prefix + 1]]
        best = None
        if len(bucket) > _SCALAR_BUCKET:
            distances = np.bitwise_count(bucket ^ _U64(rotated))
            i = int(np.argmin(distances))
            best = (int(distances[i]), int(bucket[i]))
        elif len(bucket):
            best = min(((v ^ rotated).bit_count(), v) for v in bucket.tolist())
        if best is not None:
            best = (best[0], _rotl(best[1], (64 - self.shift) % 64))
        pending = self.pending.get(prefix)
        if pending:
            near = min(((v ^ fp).bit_count(), v) for v in pending)
            best = near if best is None or near < best else best
        return best


class SimhashIndex:
    """Near-duplicate index of 64-bit simhash fingerprints for Hamming distance <= ``k``.

    ``k`` is in ``0..7`` (Manku et al. use k = 3); larger k means narrower blocks, bigger
    buckets and slower queries. Memory: ``(k + 1) * 8`` bytes per fingerprint plus
    ``(k + 1) * (2**16 + 1) * 4`` bytes of offset directories and the buffer."""

    def __init__(self, fingerprints=(), k: int = 3, buffer_size: int = BUFFER_SIZE):
        if not 0 <= k <= 7:
            raise ValueError(f"k must be in 0..7, not {k}")
        self.k = k
        self._tables = [
            _Table(start, min(width, _DIRECTORY_BITS)) for start, width in _blocks(k)
        ]
        self._buffer: list[int] = []
        self._buffer_size = buffer_size
        initial = np.asarray(fingerprints, dtype=_U64)
        if len(initial):
            for table in self._tables:
                table.merge(initial)

    def __len__(self) -> int:
        return len(self._tables[0].sorted) + len(self._buffer)

    def add(self, fp: int) -> None:
        """Store fingerprint ``fp`` (an int in ``[0, 2**64)``); duplicates are kept."""
        self._buffer.append(fp)
        for table in self._tables:
            table.add_pending(fp)
        if len(self._buffer) >= self._buffer_size:
            pending = np.array(self._buffer, dtype=_U64)
            for table in self._tables:
                table.merge(pending)
            self._buffer.clear()

    def find(self, fp: int) -> int | None:
        """A stored fingerprint at the smallest Hamming distance <= k from ``fp``, or None."""
        found = [hit for table in self._tables if (hit := table.nearest(fp)) is not None]
        if not found:
            return None
        distance, stored = min(found)
        return stored if distance <= self.k else None

    @property
    def nbytes(self) -> int:
        """Bytes of the sorted tables and their directories (the buffer holds at most
        ``buffer_size`` ints)."""
        return sum(t.sorted.nbytes + t.offsets.nbytes for t in self._tables)

    def values(self) -> np.ndarray:
        """All stored fingerprints, unsorted, as a new uint64 array."""
        return np.concatenate([self._tables[0].sorted, np.array(self._buffer, dtype=_U64)])

    def save(self, path: str) -> None:
        _atomic_save(path, self.values())

    @classmethod
    def load(cls, path: str, k: int = 3, buffer_size: int = BUFFER_SIZE) -> "SimhashIndex":
        """Rebuild from a file written by :meth:`save`, for any ``k`` (the file holds only
        the fingerprints). Raises OSError / ValueError like :meth:`ChecksumSet.load`."""
        return cls(_load(path), k, buffer_size)
