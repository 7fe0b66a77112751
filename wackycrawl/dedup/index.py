"""Compact in-memory stores of 64-bit values: exact checksums, simhash fingerprints, records.

:class:`ChecksumSet` keeps a sorted ``uint64`` numpy array plus a small unsorted insertion
buffer merged into it when it fills (the log-structured-merge idea): 8 bytes per member.

:class:`SimhashIndex` finds the stored fingerprints within Hamming distance ``k`` of a query
with the permuted-tables scheme of Manku, Jain and Das Sarma, "Detecting near-duplicates for
web crawling" (WWW 2007, section 3): the 64 bits are cut into 4 blocks of 16 bits and table
``t`` holds every document sorted by its block ``t``, with an offset directory over the
65,536 block values. Manku et al. use ``k + 1`` blocks for distance ``k`` (pigeonhole: one
block agrees exactly); to reach larger ``k`` without narrower blocks (whose buckets grow as
``n / 2**width``) a query also probes every value within ``r_t`` bits of its block ``t``,
with ``sum(r_t + 1) = k + 1`` (:func:`table_radii`; multi-index hashing, Norouzi et al.
2012): some block of a fingerprint within ``k`` differs in at most ``r_t`` bits, so every
one is found (k = 11: 137 probes per table, about 8,400 entries at 1M documents). A table's
entry is the 48 bits outside its block (its bucket gives the block), 6 bytes: the lookup
compares 32 of them with the query's first (a lower bound that about 1 % pass) and the
other 16 for those only; table 0 also holds the document ids. Memory: 4 x 6 + 4 bytes per
document, plus 2 MiB of directories. The tables live in anonymous memory maps grown in
place (:class:`_Column`), so the process's RSS is what they use. A candidate cap bounds the
work of one lookup where buckets are crowded.

:class:`Records` holds fixed-size byte rows by document id (the checksum and shingle sketch
that confirm a candidate), in chunks so that growing never copies what is stored.

Persistence: ``save(path)`` writes one ``.npy`` array (temp file + ``os.replace``, so a
crash never leaves a half-written file); ``load(path, ...)`` rebuilds.
"""

import mmap
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
MAX_CANDIDATES = 1 << 15  # table entries compared per lookup at most (the candidate cap)
_SHIFTS = [64 - BLOCK_BITS * (t + 1) for t in range(TABLES)]  # block t from the top
# A table's entry holds the 48 bits outside its block: 32 in ``hi`` (blocks 2 and 3 for
# tables 0 and 1, blocks 0 and 1 for tables 2 and 3: one query value per pair of tables)
# and the block ``t ^ 1`` in ``lo``.
_HI_SHIFT = [0, 0, 32, 32]
_LO_SHIFT = [_SHIFTS[t ^ 1] for t in range(TABLES)]
_BUCKETS = 1 << BLOCK_BITS  # table t's offsets start at t * _BUCKETS; one more ends table 3
_MASK64 = (1 << 64) - 1
_CHUNK = 1 << 16  # entries moved per step of an in-place merge
_HUGE_PAGE = 4 << 20  # maps from this size ask for transparent huge pages (as numpy does)
_PREFETCH = 1 << 17  # documents from which a lookup's runs are mostly outside the caches
_SHIFTS_NP, _HI_SHIFTS, _LO_SHIFTS = (np.array(x, dtype=_U64) for x in (_SHIFTS, _HI_SHIFT, _LO_SHIFT))


def probe_masks(radius: int) -> list[int]:
    """Every 16-bit mask with at most ``radius`` bits set, by number of bits then value."""
    masks = range(1 << BLOCK_BITS)
    return sorted((m for m in masks if m.bit_count() <= radius), key=lambda m: (m.bit_count(), m))


def table_radii(k: int) -> list[int]:
    """Probe radius of each table for distance ``k``: every fingerprint within ``k`` differs
    from the query in at most ``r_t`` bits of some block ``t`` when ``sum(r_t + 1) = k + 1``
    (pigeonhole), so ``k + 1`` is spread over the tables, larger radii first; -1 = not probed
    (k = 8: 2, 1, 1, 1; k = 11: 2, 2, 2, 2)."""
    whole, extra = divmod(k + 1, TABLES)
    return [whole - (t >= extra) for t in range(TABLES)]


def block_values(fp: int) -> list[int]:
    """The 4 blocks of 16 bits of ``fp``, block 0 being the top bits."""
    return [(fp >> shift) & 0xFFFF for shift in _SHIFTS]


def _entries(fps: np.ndarray, t: int):
    """(block, hi, lo) of uint64 ``fps`` in table ``t`` (int64, uint32, uint16 arrays)."""
    block = (fps >> _U64(_SHIFTS[t])) & _U64(0xFFFF)
    hi = (fps >> _U64(_HI_SHIFT[t])) & _U64(0xFFFFFFFF)
    lo = (fps >> _U64(_LO_SHIFT[t])) & _U64(0xFFFF)
    return block.astype(np.int64), hi.astype(np.uint32), lo.astype(np.uint16)


def _merge_in_place(buf: np.ndarray, n: int, where: np.ndarray, values: np.ndarray) -> None:
    """``buf[:n + len(values)]`` becomes ``np.insert(buf[:n], where, values)`` (``where``
    non-decreasing) without a second array of that size: from the back, a chunk at a time,
    so no entry is overwritten before it is moved."""
    final = where + np.arange(len(values))  # positions of the new entries once merged
    w1, first = n + len(values), int(final[0])
    out = np.empty(min(_CHUNK, w1 - first), buf.dtype)
    old = np.empty(len(out), bool)
    while w1 > first:
        w0 = max(first, w1 - _CHUNK)
        j0, j1 = (int(j) for j in np.searchsorted(final, [w0, w1]))
        size = w1 - w0
        keep, chunk = old[:size], out[:size]
        keep[:] = True
        keep[final[j0:j1] - w0] = False
        chunk[keep] = buf[w0 - j0 : w1 - j1]
        chunk[~keep] = values[j0:j1]
        buf[w0:w1] = chunk
        w1 = w0


def _mapped(count: int, dtype) -> np.ndarray:
    """A new array of ``count`` items of ``dtype`` in a private anonymous memory map: its
    pages become resident as they are written, and go back to the OS with the array."""
    size = max(count * np.dtype(dtype).itemsize, mmap.PAGESIZE)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if size >= _HUGE_PAGE and hasattr(mmap, "MADV_HUGEPAGE"):
        memory.madvise(mmap.MADV_HUGEPAGE)  # a lookup's runs are far apart: fewer TLB misses
    return np.frombuffer(memory, dtype)


class _Column:
    """A growable 1-d array of one dtype in an anonymous memory map. Capacity past the used
    entries is never written, so never resident, and an outgrown map goes back to the OS
    at once: growing by merges leaves no freed holes in the heap (RSS = used bytes)."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self._data, self._n = self._map(1024), 0

    def _map(self, capacity: int) -> np.ndarray:
        return _mapped(capacity, self.dtype)

    @property
    def values(self) -> np.ndarray:
        return self._data[: self._n]

    @property
    def mapped(self) -> np.ndarray:
        """The whole map: at least one entry past the used ones (reads there are harmless)."""
        return self._data

    def insert(self, where: np.ndarray, values: np.ndarray) -> None:
        """``np.insert(values_so_far, where, values)`` in place (``where`` non-decreasing)."""
        if not len(values):
            return
        need = self._n + len(values)
        if need >= len(self._data):
            grown = self._map(max(need + 1, len(self._data) * 3 // 2))
            grown[: self._n] = self.values
            self._data = grown
        _merge_in_place(self._data, self._n, where, values)
        self._n = need

    @property
    def nbytes(self) -> int:
        return self._n * self.dtype.itemsize


class SimhashIndex:
    """Stored 64-bit simhash fingerprints (document ids 0, 1, ... in order of :meth:`add`)
    and the lookup of those within Hamming distance ``k`` in ``0..MAX_K``.

    ``buffer_size`` fingerprints are held unmerged and scanned linearly; ``max_candidates``
    caps the table entries one lookup compares (probes of the smallest radius first, the
    query's own blocks always; :attr:`capped` counts the lookups that hit it, which may
    then miss a match beyond distance ``len(probed tables) - 1``). Raises ValueError for
    ``k`` out of range."""

    def __init__(self, fingerprints=(), k: int = 3, buffer_size: int = BUFFER_SIZE,
                 max_candidates: int = MAX_CANDIDATES):
        if not 0 <= k <= MAX_K:
            raise ValueError(f"k must be in 0..{MAX_K}, not {k}")
        self.k, self.max_candidates, self.capped = k, max_candidates, 0
        # the probes, table after table, each table's by radius: (table, mask)
        probes = [(t, m) for t, r in enumerate(table_radii(k)) for m in probe_masks(r)]
        self._ptable = np.array([t for t, _ in probes], dtype=np.int64)
        self._pkey = np.array([m | t << BLOCK_BITS for t, m in probes], dtype=np.int64)
        self._pbits = np.array([m.bit_count() for _, m in probes], dtype=np.int64)
        self._plimit = (k - self._pbits).astype(np.uint8)  # bits left for the other 48
        self._by_radius = np.argsort(self._pbits, kind="stable")  # the cap keeps these first
        self._own = len(set(self._ptable.tolist()))  # probes of radius 0
        self._pair = int(np.searchsorted(self._ptable, 2))  # first probe of tables 2 and 3
        # table t of n merged documents: entries t * n ... (t + 1) * n - 1 of _hi and _lo
        self._hi, self._lo = _Column(np.uint32), _Column(np.uint16)
        self._ids = _Column(np.uint32)  # document id of each entry of table 0
        self._n = 0
        # bucket b of table t: entries _offsets[t * _BUCKETS + b] ... the next offset - 1
        self._offsets = np.zeros(TABLES * _BUCKETS + 1, dtype=np.int64)
        self._steps = np.arange(1024, dtype=np.int64)  # 0, 1, 2 ... for the entry positions
        self._buffer = np.empty(buffer_size, dtype=_U64)
        self._pending = 0
        initial = np.asarray(fingerprints, dtype=_U64)
        if len(initial):
            self._merge(initial)

    def __len__(self) -> int:
        return self._n + self._pending

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
        new_ids = np.arange(self._n, self._n + len(fps), dtype=np.uint32)
        where, his, los, blocks = [], [], [], []
        for t in range(TABLES):
            block, hi, lo = _entries(fps, t)
            rest = (hi.astype(_U64) << _U64(16)) | lo
            order = np.lexsort((rest, block))  # stable: equal entries stay in id order
            block, hi, lo, rest = block[order], hi[order], lo[order], rest[order]
            where.append(self._insertion_points(t, block, rest))
            his.append(hi)
            los.append(lo)
            blocks.append(block)
            if t == 0:
                new_ids = new_ids[order]
        positions = np.concatenate(where)
        self._hi.insert(positions, np.concatenate(his))
        self._lo.insert(positions, np.concatenate(los))
        self._ids.insert(where[0], new_ids)
        # each offset moves by the new entries before it: in earlier tables and earlier blocks
        for t, block in enumerate(blocks):
            moved = np.bincount(block, minlength=_BUCKETS)
            np.cumsum(moved, out=moved)
            moved += t * len(fps)
            self._offsets[t * _BUCKETS + 1 : (t + 1) * _BUCKETS + 1] += moved
        self._n += len(fps)

    def _insertion_points(self, t: int, blocks: np.ndarray, rest: np.ndarray) -> np.ndarray:
        """Where in the flat tables each new entry of table ``t`` goes (sorted by ``blocks``
        and 48-bit ``rest``), after the stored entries equal to it."""
        starts, lengths, ends = self._runs(blocks + t * _BUCKETS)
        if not ends[-1]:
            return starts
        at = self._positions(starts, lengths, ends)
        stored = (self._hi.values.take(at).astype(_U64) << _U64(16)) | self._lo.values.take(at)
        before = stored <= np.repeat(rest, lengths)
        owner = np.repeat(np.arange(len(blocks)), lengths)
        return starts + np.bincount(owner[before], minlength=len(blocks))

    def _runs(self, keys: np.ndarray):
        """(start, length, cumulated length) of the entries of each directory key."""
        starts = self._offsets.take(keys)
        lengths = self._offsets.take(keys + 1) - starts
        return starts, lengths, np.cumsum(lengths)

    def _positions(self, starts, lengths, ends) -> np.ndarray:
        """The entry positions of every run, one run after the other."""
        total = int(ends[-1])
        if total > len(self._steps):
            self._steps = np.arange(2 * total)
        at = np.repeat(starts - (ends - lengths), lengths)
        return np.add(at, self._steps[:total], out=at)

    def candidates(self, fp: int) -> list[tuple[int, int, int]]:
        """``(Hamming distance, document id, fingerprint)`` of every stored fingerprint
        within ``k`` of ``fp`` that the lookup reached, nearest first (ties by id)."""
        found = []
        if self._pending:
            d = np.bitwise_count(self._buffer[: self._pending] ^ _U64(fp))
            near = np.flatnonzero(d <= self.k)
            found += zip(d[near].tolist(), (near + self._n).tolist(),
                         self._buffer[near].tolist())
        if self._n:
            found += self._table_candidates(fp)
        return sorted(found)

    def _table_candidates(self, fp: int) -> list[tuple[int, int, int]]:
        blocks = np.array([(fp >> s) & 0xFFFF for s in _SHIFTS], dtype=np.int64)
        keys = self._pkey ^ blocks.take(self._ptable)
        starts = self._offsets.take(keys)
        stops = self._offsets[1:].take(keys)
        lengths = stops - starts
        ends = np.cumsum(lengths)
        total = int(ends[-1])
        if total > self.max_candidates:
            self.capped += 1
            reach = np.cumsum(lengths[self._by_radius])
            kept = max(self._own, int(np.searchsorted(reach, self.max_candidates, "right")))
            lengths[self._by_radius[kept:]] = 0
            ends = np.cumsum(lengths)
            total = int(ends[-1])
        if not total:
            return []
        if total > len(self._steps):
            self._steps = np.arange(2 * total)
        at = np.repeat(starts - ends + lengths, lengths)  # entry positions, run after run
        np.add(at, self._steps[:total], out=at)
        hi = self._hi.mapped
        if self._n > _PREFETCH:  # each run's first and last entry: the cache misses at once
            hi.take(starts)
            hi.take(stops - 1)
        # 32 of the 48 bits outside the probed block, and the probe's own bits: a lower
        # bound of the distance that leaves about 1 % of the entries
        diff = hi.take(at)
        pair = int(ends[self._pair - 1]) if self._pair else 0
        np.bitwise_xor(diff[:pair], np.uint32(fp & 0xFFFFFFFF), out=diff[:pair])
        np.bitwise_xor(diff[pair:], np.uint32(fp >> 32), out=diff[pair:])
        d = np.bitwise_count(diff)
        near = np.flatnonzero(d <= np.repeat(self._plimit, lengths))
        if not len(near):
            return []
        probe = np.searchsorted(ends, near, side="right")
        table = self._ptable.take(probe)
        query_lo = np.array([(fp >> s) & 0xFFFF for s in _LO_SHIFT], dtype=np.uint16)
        low = self._lo.values.take(at.take(near)) ^ query_lo.take(table)
        dist = d.take(near) + self._pbits.take(probe) + np.bitwise_count(low)
        ok = dist <= self.k
        if not ok.any():
            return []
        table = table[ok]
        # the fingerprint: the query with the differing bits of block, hi and lo
        delta = ((self._pkey.take(probe[ok]) & 0xFFFF).astype(_U64) << _SHIFTS_NP.take(table)
                 | diff.take(near[ok]).astype(_U64) << _HI_SHIFTS.take(table)
                 | low[ok].astype(_U64) << _LO_SHIFTS.take(table))
        fps, first = np.unique(_U64(fp) ^ delta, return_index=True)
        return [hit for value, d in zip(fps.tolist(), dist[ok][first].tolist())
                for hit in self._documents(value, d)]

    def _documents(self, fp: int, d: int) -> list[tuple[int, int, int]]:
        """``(d, id, fp)`` of each merged document whose fingerprint is ``fp`` (table 0)."""
        block = fp >> _SHIFTS[0]
        start, end = (int(x) for x in self._offsets[block : block + 2])
        same = ((self._hi.values[start:end] == fp & 0xFFFFFFFF)
                & (self._lo.values[start:end] == (fp >> _LO_SHIFT[0]) & 0xFFFF))
        return [(d, doc, fp) for doc in self._ids.values[start:end][same].tolist()]

    def find(self, fp: int) -> int | None:
        """The stored fingerprint nearest to ``fp`` within ``k``, or None."""
        found = self.candidates(fp)
        return found[0][2] if found else None

    @property
    def nbytes(self) -> int:
        """Bytes of the tables (6 per entry), table 0's ids, directories and buffer."""
        return (self._hi.nbytes + self._lo.nbytes + self._ids.nbytes + self._offsets.nbytes
                + self._buffer.nbytes)

    def values(self) -> np.ndarray:
        """All stored fingerprints in id order, as a new uint64 array."""
        out = np.empty(len(self), dtype=_U64)
        if self._n:
            n = self._n
            sizes = np.diff(self._offsets[: _BUCKETS + 1])
            blocks = np.repeat(np.arange(_BUCKETS, dtype=_U64), sizes)
            out[self._ids.values] = (blocks << _U64(_SHIFTS[0])
                                     | self._lo.values[:n].astype(_U64) << _U64(_LO_SHIFT[0])
                                     | self._hi.values[:n])
        out[self._n :] = self._buffer[: self._pending]
        return out

    def save(self, path: str) -> None:
        _atomic_save(path, self.values().astype("<u8"))

    @classmethod
    def load(cls, path: str, k: int = 3, buffer_size: int = BUFFER_SIZE) -> "SimhashIndex":
        """Rebuild from a file written by :meth:`save`, for any ``k`` (the file holds only
        the fingerprints, in id order). Raises OSError / ValueError like :meth:`ChecksumSet.load`."""
        return cls(_load(path), k, buffer_size)


class Records:
    """Rows of ``width`` bytes by document id (0, 1, ... in order of :meth:`append`), in
    chunks of ``chunk`` rows (memory maps, like the tables'): ``width`` bytes per document
    once a chunk fills."""

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
            rows = _mapped(self._chunk * self.width, np.uint8)[: self._chunk * self.width]
            self._chunks.append(rows.reshape(self._chunk, self.width))
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
