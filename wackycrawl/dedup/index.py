"""Compact in-memory stores of 64-bit values: exact checksums, simhash fingerprints, records.

:class:`ChecksumSet` keeps a sorted ``uint64`` array plus a small unsorted insertion buffer
merged into it in place when it fills (the log-structured-merge idea): 8 bytes per member.

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
document, plus 1 MiB of directories (uint32 offsets: at most :data:`MAX_DOCUMENTS`). The
tables live in anonymous memory maps grown in place (:class:`_Column`), and merges move
them with no temporary copy, so the process's RSS is what they use. A candidate cap bounds
the work of one lookup where buckets are crowded. The lookup and the merge are loops
compiled with numba (:mod:`wackycrawl.dedup.tables`): as numpy calls, a lookup took about
30 calls and gathers over the 8,400 entries, 3-4 times the time of the loop.

:class:`Records` holds fixed-size byte rows by document id (the checksum and shingle sketch
that confirm a candidate), in chunks so that growing never copies what is stored.

Persistence: ``save(path)`` writes one ``.npy`` array (temp file + ``os.replace``, so a
crash never leaves a half-written file); ``load(path, ...)`` rebuilds.
"""

import importlib
import logging
import mmap
import os
import sys
from collections.abc import Sequence

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


def _read(path: str) -> np.ndarray:
    """The array of a ``.npy`` file, read through a memory map: a header claiming more
    than the file holds is a ValueError, not an allocation of the size it claims."""
    return np.array(np.load(path, mmap_mode="r", allow_pickle=False))


def _load(path: str) -> np.ndarray:
    values = _read(path)
    if values.ndim != 1 or values.dtype != np.dtype("<u8"):
        raise ValueError(f"{path}: expected a 1-d uint64 array, got {values.dtype} {values.shape}")
    return values


class ChecksumSet:
    """Set of 64-bit checksums (ints in ``[0, 2**64)``), 8 bytes per member once merged
    (a :class:`_Column`, merged into in place: the process's RSS is what it uses)."""

    def __init__(self, values=(), buffer_size: int = BUFFER_SIZE):
        initial = np.unique(np.asarray(values, dtype=_U64))
        self._sorted = _Column(_U64)
        self._sorted.reserve(len(initial))
        self._sorted.mapped[: len(initial)] = initial
        self._sorted.count = len(initial)
        self._buffer: set[int] = set()
        self._buffer_size = buffer_size

    def __len__(self) -> int:
        return self._sorted.count + len(self._buffer)

    def __contains__(self, value: int) -> bool:
        if value in self._buffer:
            return True
        stored = self._sorted.values
        if not len(stored):
            return False
        i = int(stored.searchsorted(_U64(value)))
        return i < len(stored) and int(stored[i]) == value

    def add(self, value: int) -> None:
        if value in self:
            return
        self._buffer.add(value)
        if len(self._buffer) >= self._buffer_size:
            new = np.sort(np.fromiter(self._buffer, _U64, len(self._buffer)))
            stored = self._sorted
            where = np.searchsorted(stored.values, new)
            stored.reserve(stored.count + len(new))
            _compiled().insert(stored.mapped, stored.count, where, new)
            stored.count += len(new)
            self._buffer.clear()

    @property
    def nbytes(self) -> int:
        """Bytes of the sorted array (the buffer holds at most ``buffer_size`` ints)."""
        return self._sorted.nbytes

    def values(self) -> np.ndarray:
        """All members, unsorted, as a new uint64 array."""
        return np.concatenate([self._sorted.values, np.fromiter(self._buffer, _U64)])

    def save(self, path: str) -> None:
        _atomic_save(path, self.values().astype("<u8"))

    @classmethod
    def load(cls, path: str, buffer_size: int = BUFFER_SIZE) -> "ChecksumSet":
        """Raises OSError if ``path`` is unreadable, ValueError if it is not a uint64 .npy."""
        return cls(_load(path), buffer_size)



BLOCK_BITS = 16  # 4 blocks of 16 bits; a table's directory has 2**16 offsets
TABLES = 64 // BLOCK_BITS
BUCKETS = 1 << BLOCK_BITS  # table t's offsets start at t * BUCKETS; one more ends table 3
# Table t is sorted by block t (from the top), then by the other 48 bits, stored as ``hi``
# (32: blocks 2 and 3 for tables 0 and 1, blocks 0 and 1 for tables 2 and 3, one query
# value per pair of tables) and ``lo`` (16: block t ^ 1), packed in 6 bytes so that ``lo``
# is in the cache line ``hi`` brought in.
SHIFTS = (48, 32, 16, 0)
HI_SHIFTS = (0, 0, 32, 32)
LO_SHIFTS = (32, 48, 0, 16)
ENTRY = np.dtype([("hi", "<u4"), ("lo", "<u2")])  # no padding: 6 bytes
MAX_K = 15  # probes of radius 3: 697 block values per table
MAX_CANDIDATES = 1 << 15  # table entries compared per lookup at most (the candidate cap)
MAX_DOCUMENTS = (2**32 - 1) // TABLES  # the directories' offsets are uint32
_HUGE_PAGE = 4 << 20  # maps from this size ask for transparent huge pages (as numpy does)
_loops = None
UNCACHED = False  # set when numba's cache of the loops failed: compiled without it
logger = logging.getLogger(__name__)


def _compiled():
    """:mod:`wackycrawl.dedup.tables`, imported on the first merge, lookup or confirmation:
    numba takes about 0.3 s of CPU and 45 MiB of memory to load, which processes that only fingerprint
    texts (the pipeline's stage workers) never pay. Each loop runs once on a tiny input
    first: where numba cannot load or save its cache (damaged files, a full disk) the
    module is imported again with the cache off (:data:`UNCACHED`), one WARNING."""
    global _loops, UNCACHED
    if _loops is None:
        from wackycrawl.dedup import tables as _loops
        from wackycrawl.dedup.shingles import resemblances, sketch
        try:  # every loop once, so that a damaged or unwritable cache fails here
            ChecksumSet(buffer_size=1).add(1)
            SimhashIndex([1], k=1, buffer_size=1).add(2)
            SimhashIndex(k=1).candidates(1)
            resemblances(np.ones(1, np.uint64), [sketch(np.ones(1, np.uint64), 1)])
        except Exception as exc:  # numba raises the cache's own errors (pickle, OSError)
            logger.warning("dedup loops compiled again without numba's cache: %s: %s",
                           type(exc).__name__, exc)
            UNCACHED = True
            sys.modules.pop(_loops.__name__, None)
            _loops = importlib.import_module(_loops.__name__)
    return _loops


def load_loops() -> None:
    """Load (or compile) the index's and the confirmation's numba loops now, as their first
    use would (:func:`_compiled`): for a process that will look up or confirm candidates
    soon, so that its first document does not wait for them."""
    _compiled()


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
    return [(fp >> shift) & 0xFFFF for shift in SHIFTS]


def _mapped(count: int, dtype) -> np.ndarray:
    """A new array of ``count`` items of ``dtype`` in a private anonymous memory map: its
    pages become resident as they are written, and go back to the OS with the array."""
    itemsize = np.dtype(dtype).itemsize
    size = max(count * itemsize, mmap.PAGESIZE)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if size >= _HUGE_PAGE and hasattr(mmap, "MADV_HUGEPAGE"):
        memory.madvise(mmap.MADV_HUGEPAGE)  # a lookup's runs are far apart: fewer TLB misses
    return np.frombuffer(memory, dtype, size // itemsize)


class _Column:
    """A growable 1-d array of one dtype in an anonymous memory map. Capacity past the used
    entries is never written, so never resident, and an outgrown map goes back to the OS
    at once: growing leaves no freed holes in the heap (RSS = used bytes, rounded up to the
    page: 2 MiB where the kernel gives the map huge pages)."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.count = 0
        self._data = _mapped(1024, self.dtype)

    @property
    def values(self) -> np.ndarray:
        return self._data[: self.count]

    @property
    def mapped(self) -> np.ndarray:
        """The whole map: at least one entry past the used ones (reads there are harmless)."""
        return self._data

    def reserve(self, count: int) -> None:
        """Room for ``count`` entries and one more."""
        if count >= len(self._data):
            grown = _mapped(max(count + 1, len(self._data) * 3 // 2), self.dtype)
            grown[: self.count] = self.values
            self._data = grown

    @property
    def nbytes(self) -> int:
        return self.count * self.dtype.itemsize


class SimhashIndex:
    """Stored 64-bit simhash fingerprints (document ids 0, 1, ... in order of :meth:`add`)
    and the lookup of those within Hamming distance ``k`` in ``0..MAX_K``.

    ``buffer_size`` fingerprints are held unmerged and scanned linearly; ``max_candidates``
    caps the table entries one lookup compares (probes of the smallest radius first, the
    query's own blocks always; :attr:`capped` counts the lookups that hit it, which may
    then miss a match beyond distance ``len(probed tables) - 1``). Raises ValueError for
    ``k`` out of range, OverflowError past :data:`MAX_DOCUMENTS` documents."""

    def __init__(self, fingerprints=(), k: int = 3, buffer_size: int = BUFFER_SIZE,
                 max_candidates: int = MAX_CANDIDATES):
        if not 0 <= k <= MAX_K:
            raise ValueError(f"k must be in 0..{MAX_K}, not {k}")
        self.k, self.max_candidates, self.capped = k, max_candidates, 0
        # the probes, table after table, each table's by radius: (table, mask)
        probes = [(t, m) for t, r in enumerate(table_radii(k)) for m in probe_masks(r)]
        self._ptable = np.array([t for t, _ in probes], dtype=np.int64)
        self._pmask = np.array([m for _, m in probes], dtype=np.int64)
        bits = np.array([m.bit_count() for _, m in probes], dtype=np.int64)
        self._by_radius = np.argsort(bits, kind="stable")  # the cap keeps these first
        self._own = len(set(self._ptable.tolist()))  # probes of radius 0
        # table t of n merged documents: entries t * n ... (t + 1) * n - 1 of _tab
        self._tab = _Column(ENTRY)
        self._ids = _Column(np.uint32)  # document id of each entry of table 0
        self._n = 0
        # bucket b of table t: entries _offsets[t * BUCKETS + b] ... the next offset - 1
        self._offsets = np.zeros(TABLES * BUCKETS + 1, dtype=np.uint32)
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
        n = self._n + len(fps)
        if n > MAX_DOCUMENTS:
            raise OverflowError(f"a SimhashIndex holds at most {MAX_DOCUMENTS} documents")
        self._tab.reserve(TABLES * n)
        self._ids.reserve(n)
        _compiled().merge(self._tab.mapped, self._ids.mapped, self._offsets, self._n, fps)
        self._tab.count, self._ids.count, self._n = TABLES * n, n, n

    def candidates(self, fp: int) -> list[tuple[int, int, int]]:
        """``(Hamming distance, document id, fingerprint)`` of every stored fingerprint
        within ``k`` of ``fp`` that the lookup reached, nearest first (ties by id)."""
        dist, doc, fps = self.candidate_arrays(fp)
        return list(zip(dist.tolist(), doc.tolist(), fps.tolist()))

    def candidate_arrays(self, fp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`candidates` as three arrays of one length: distances (int64), document
        ids (int64) and fingerprints (uint64)."""
        dist, doc, fps, capped = _compiled().lookup(
            _U64(fp), self.k, self._offsets, self._tab.mapped, self._ids.mapped, self._n,
            self._buffer, self._pending, self._ptable, self._pmask, self._by_radius, self._own,
            self.max_candidates)
        self.capped += capped
        return dist, doc, fps

    def find(self, fp: int) -> int | None:
        """The stored fingerprint nearest to ``fp`` within ``k``, or None."""
        found = self.candidates(fp)
        return found[0][2] if found else None

    @property
    def nbytes(self) -> int:
        """Bytes of the tables (6 per entry), table 0's ids, directories and buffer."""
        return self._tab.nbytes + self._ids.nbytes + self._offsets.nbytes + self._buffer.nbytes

    def values(self) -> np.ndarray:
        """All stored fingerprints in id order, as a new uint64 array."""
        out = np.empty(len(self), dtype=_U64)
        if self._n:
            table0 = self._tab.values[: self._n]
            sizes = np.diff(self._offsets[: BUCKETS + 1])
            blocks = np.repeat(np.arange(BUCKETS, dtype=_U64), sizes)
            out[self._ids.values] = (blocks << _U64(SHIFTS[0])
                                     | table0["lo"].astype(_U64) << _U64(LO_SHIFTS[0])
                                     | table0["hi"])
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

    def take(self, docs: Sequence[int]) -> np.ndarray:
        """The rows of ``docs`` (ids) as a ``(len(docs), width)`` uint8 array, one fancy index
        per chunk touched; IndexError for an id not stored."""
        ids = np.asarray(docs, dtype=np.intp)
        # one reduction: a negative id is above every stored one as an unsigned number
        if len(ids) and int(ids.view(np.uintp).max()) >= self._len:
            raise IndexError(f"record ids outside 0..{self._len - 1}")
        if not len(ids):
            return np.empty((0, self.width), dtype=np.uint8)
        if self._len <= self._chunk:  # one chunk (the first 4096 documents)
            return self._chunks[0][ids]
        out = np.empty((len(ids), self.width), dtype=np.uint8)
        chunks, rows = np.divmod(ids, self._chunk)
        for c in np.unique(chunks).tolist():
            where = chunks == c
            out[where] = self._chunks[c][rows[where]]
        return out

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
        rows = _read(path)
        if rows.ndim != 2 or rows.dtype != np.uint8 or rows.shape[1] != width:
            raise ValueError(f"{path}: expected uint8 rows of {width}, got {rows.dtype} {rows.shape}")
        return cls(width, rows)
