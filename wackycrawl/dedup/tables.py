"""The loops over :class:`~wackycrawl.dedup.index.SimhashIndex`'s permuted tables, compiled
with numba (LLVM): the lookup and the merge of new fingerprints (and the in-place insertion
that :class:`~wackycrawl.dedup.index.ChecksumSet` uses too), and the shingle counts behind
:func:`~wackycrawl.dedup.shingles.resemblances` (the confirmation of the candidates found).

One lookup at k = 11 probes 548 buckets and compares about 8,400 entries at 1M documents.
As numpy calls, the per-call overhead and the gathers of the entry positions cost more than
the comparisons; here the runs are walked in place and only the entries within ``k`` are
written anywhere. The merge inserts a batch in place from the back, with no temporary
array of the tables' size (whose freed memory the C allocator would keep).

Layout: the 4 tables are one array of :data:`ENTRY` (table ``t`` of ``n`` documents is
entries ``t * n ... (t + 1) * n - 1``), each sorted by the table's block, then by the other
48 bits (``hi`` 32, ``lo`` 16, packed in 6 bytes so that ``lo`` is in the cache line that
``hi`` brought in); ``offsets[t * BUCKETS + b]`` is where block value ``b`` of table ``t``
starts; ``ids`` is table 0's document id per entry.

numba compiles these on first use and caches the machine code (``__pycache__`` beside this
file, or numba's user cache directory where that is not writable): a later process loads
it in about 0.15 s of CPU; code run from an egg (as Scrapyd runs a project) is cached in
numba's user cache directory (:mod:`~wackycrawl.dedup.eggcache`). Where numba finds no place
for a cache (a read-only install or an egg with no writable home or ``NUMBA_CACHE_DIR``) every
process compiles them again, 5-30 s of CPU (by the machine) on its first lookup, with one
WARNING; so does a process that cannot load or save the cache (damaged files, a full disk:
:func:`~wackycrawl.dedup.index._compiled`). The cache is keyed on this file alone, so a
change of the layout constants (from :mod:`~wackycrawl.dedup.index`) must come with a
change here.
"""

import logging

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from wackycrawl.dedup import eggcache, index
from wackycrawl.dedup.index import (BUCKETS, ENTRY, HI_SHIFTS, LO_SHIFTS, SHIFTS,
                                     TABLES)

logger = logging.getLogger(__name__)
_U64 = np.uint64
_M16, _M32 = _U64(0xFFFF), _U64(0xFFFFFFFF)
_uncached = False
eggcache.register()  # run from an egg (Scrapyd): cached in numba's user cache directory


def _compile(func):
    """``njit(cache=True)``, or ``njit`` where numba has nowhere to cache (RuntimeError
    "no locator available" when the function is decorated)."""
    global _uncached
    if index.UNCACHED:
        return njit(func)
    try:
        return njit(cache=True)(func)
    except RuntimeError as exc:
        if not _uncached:
            logger.warning("dedup loops compiled in this process, not cached (5-30 s of "
                           "CPU; a writable NUMBA_CACHE_DIR or home caches them): %s", exc)
        _uncached = True
        return njit(func)


@intrinsic
def popcount(typingctx, x):
    """Bits set in an unsigned integer: LLVM's ctpop (one POPCNT where the CPU has it)."""
    if isinstance(x, types.Integer) and not x.signed:
        return x(x), lambda context, builder, sig, args: builder.ctpop(args[0])
    return None


@intrinsic
def prefetch(typingctx, array, index):
    """Ask for the cache line of ``array[index]`` without waiting for it (llvm.prefetch)."""
    if not (isinstance(array, types.Array) and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep
        return context.get_dummy_value()
    return types.void(array, index), codegen


@_compile
def lookup(q, k, offsets, tab, ids, n, buffer, pending, ptable, pmask, order, own, cap):
    """Every stored fingerprint within ``k`` bits of ``q`` (uint64) that the probes reach.

    ``n`` documents are in the tables, ``buffer[:pending]`` are not merged yet (ids ``n``,
    ``n + 1``, ...). Probe ``i`` is bucket ``block_t(q) ^ pmask[i]`` of table
    ``t = ptable[i]``; when the probed runs hold more than ``cap`` entries, the probes are
    taken in ``order`` until they do (the first ``own`` always).

    Returns ``(dist, doc, fp, capped)``: int64, int64, uint64 arrays sorted by distance
    then document id, and whether the cap cut probes."""
    nprobe = len(ptable)
    starts = np.empty(nprobe, np.int64)
    stops = np.empty(nprobe, np.int64)
    total = 0
    for i in range(nprobe):
        t = ptable[i]
        key = t * BUCKETS + np.int64(((q >> _U64(SHIFTS[t])) & _M16) ^ _U64(pmask[i]))
        starts[i], stops[i] = offsets[key], offsets[key + 1]
        total += stops[i] - starts[i]
    capped = False
    if total > cap:
        capped, reach = True, 0
        for j in range(nprobe):
            i = order[j]
            reach += stops[i] - starts[i]
            if j >= own and reach > cap:
                total = reach - (stops[i] - starts[i])
                for jj in range(j, nprobe):
                    stops[order[jj]] = starts[order[jj]]
                break
    for i in range(nprobe):  # every run's first line asked for at once: the misses overlap
        prefetch(tab, starts[i])
    # room for every entry compared: an array reassigned in the loop would cost two atomic
    # reference counts per entry
    found = np.empty(total, np.uint64)
    nfound = 0
    for i in range(nprobe):
        t = ptable[i]
        mask = _U64(pmask[i])
        bits = np.int64(popcount(mask))
        qhi = (q >> _U64(HI_SHIFTS[t])) & _M32
        qlo = (q >> _U64(LO_SHIFTS[t])) & _M16
        for p in range(starts[i], stops[i]):
            dhi = _U64(tab[p].hi) ^ qhi
            d = np.int64(popcount(dhi)) + bits
            if d > k:  # a lower bound: about 1 % of the entries get past it
                continue
            dlo = _U64(tab[p].lo) ^ qlo
            if d + np.int64(popcount(dlo)) <= k:
                found[nfound] = q ^ (mask << _U64(SHIFTS[t]) | dhi << _U64(HI_SHIFTS[t])
                                     | dlo << _U64(LO_SHIFTS[t]))
                nfound += 1
    # the documents: of each distinct fingerprint found, from table 0; the unmerged ones
    found = np.unique(found[:nfound])
    near = np.empty(pending, np.int64)
    m = 0
    for j in range(pending):
        if popcount(buffer[j] ^ q) <= k:
            near[m] = j
            m += 1
    rows = m
    for f in found:
        rows += _same(f, offsets, tab, ids, None)
    doc = np.empty(rows, np.int64)
    fps = np.empty(rows, np.uint64)
    for r in range(m):
        fps[r], doc[r] = buffer[near[r]], n + near[r]
    for f in found:
        got = _same(f, offsets, tab, ids, doc[m:])
        fps[m : m + got] = f
        m += got
    dist = np.empty(rows, np.int64)
    for r in range(rows):
        dist[r] = popcount(fps[r] ^ q)
    rank = np.argsort(dist << 32 | doc)
    return dist[rank], doc[rank], fps[rank], capped


@_compile
def _same(f, offsets, tab, ids, out):
    """Documents whose fingerprint is ``f`` (table 0), written to ``out`` unless None."""
    block = np.int64(f >> _U64(SHIFTS[0]))
    want_hi, want_lo = f & _M32, (f >> _U64(LO_SHIFTS[0])) & _M16
    got = 0
    for p in range(np.int64(offsets[block]), np.int64(offsets[block + 1])):
        if _U64(tab[p].hi) == want_hi and _U64(tab[p].lo) == want_lo:
            if out is not None:
                out[got] = ids[p]
            got += 1
    return got


@_compile
def merge(tab, ids, offsets, n, fps):
    """Insert ``fps`` (uint64, ids ``n``, ``n + 1``, ...) into the tables of ``n``
    documents, in place: ``tab`` has room for ``4 * (n + len(fps))`` entries and ``ids``
    for ``n + len(fps)``. Each goes after the stored entries equal to it, so equal entries
    stay in id order."""
    m = len(fps)
    where = np.empty(TABLES * m, np.int64)  # insertion point of each new entry, in order
    new = np.empty(TABLES * m, ENTRY)
    new_ids = np.empty(m, np.uint32)
    buckets = np.empty(TABLES * m, np.int64)  # of each new entry, in order
    for t in range(TABLES):
        keys = np.empty(m, np.uint64)  # the block on top of the other 48 bits
        for j in range(m):
            f = fps[j]
            keys[j] = (((f >> _U64(SHIFTS[t])) & _M16) << _U64(48)
                       | ((f >> _U64(HI_SHIFTS[t])) & _M32) << _U64(16)
                       | (f >> _U64(LO_SHIFTS[t])) & _M16)
        for jj, j in enumerate(np.argsort(keys, kind="mergesort")):  # stable
            key, e = keys[j], t * m + jj
            bucket = t * BUCKETS + np.int64(key >> _U64(48))
            rest = key & _U64((1 << 48) - 1)
            low, high = np.int64(offsets[bucket]), np.int64(offsets[bucket + 1])
            while low < high:  # the first stored entry above ``rest``
                mid = (low + high) // 2
                if (_U64(tab[mid].hi) << _U64(16) | _U64(tab[mid].lo)) <= rest:
                    low = mid + 1
                else:
                    high = mid
            where[e] = low
            new[e].hi, new[e].lo = np.uint32(rest >> _U64(16)), np.uint16(rest & _M16)
            buckets[e] = bucket
            if t == 0:
                new_ids[jj] = n + j
    insert(tab, TABLES * n, where, new)
    insert(ids, n, where[:m], new_ids)
    e = 0  # each offset moves by the new entries of the buckets before it
    for key in range(len(offsets)):
        while e < len(buckets) and buckets[e] < key:
            e += 1
        offsets[key] += e


@_compile
def insert(values, n, where, new):
    """``values[:n + len(new)]`` becomes ``np.insert(values[:n], where, new)`` (``where``
    non-decreasing), from the back so that no entry is overwritten before it has moved."""
    end = n
    for j in range(len(new) - 1, -1, -1):
        for p in range(end - 1, where[j] - 1, -1):
            values[p + j + 1] = values[p]
        values[where[j] + j] = new[j]
        end = where[j]


@_compile
def resemble(hashes, rows, start):
    """The bottom-k resemblance estimates (:mod:`wackycrawl.dedup.shingles`) of the query
    with sorted unique shingle hashes ``hashes`` (uint64, at least one) to the sketches in
    ``rows`` (uint8, shape ``(number of sketches, width)``: one record a row, its sketch at
    bytes ``start ... width - 1``, the little-endian uint32 rank bound then ``m`` uint16
    tags). Returns a float64 array, one ``shared / union`` a row: ``shared`` counts the
    distinct tags of the sketch that a query hash ranked at or below the bound carries in
    its low 16 bits, ``union`` the shingles below the bound on either side (the query's,
    plus the sketch's distinct tags not shared); 0.0 for an all-zero sketch (a text with
    no shingles). The tags are matched through two small open-addressing tables (the
    query's tag -> first position, the current sketch's tags seen), not by sorting."""
    nrows, width = rows.shape
    m = (width - start - 4) // 2
    n = len(hashes)
    below = np.empty(nrows, np.int64)
    most = 1
    for r in range(nrows):  # the query's hashes whose rank (top 32 bits) is <= the bound
        bound = (_U64(rows[r, start]) | _U64(rows[r, start + 1]) << _U64(8)
                 | _U64(rows[r, start + 2]) << _U64(16) | _U64(rows[r, start + 3]) << _U64(24))
        low, high = 0, n
        while low < high:
            mid = (low + high) // 2
            if hashes[mid] >> _U64(32) <= bound:
                low = mid + 1
            else:
                high = mid
        below[r] = low
        most = max(most, low)
    # the first position of each tag among the query's first ``most`` hashes: open addressing
    size = 64
    while size < 2 * most:
        size *= 2
    slot_tag = np.full(size, -1, np.int64)
    slot_pos = np.empty(size, np.int64)
    for p in range(most):
        tag = np.int64(hashes[p] & _M16)
        h = (tag * 40503) & (size - 1)
        while slot_tag[h] >= 0 and slot_tag[h] != tag:
            h = (h + 1) & (size - 1)
        if slot_tag[h] < 0:
            slot_tag[h], slot_pos[h] = tag, p
    # the tags seen in the current row (a duplicate tag counts once), marked with the row
    seen_size = 64
    while seen_size < 2 * m:
        seen_size *= 2
    seen_row = np.full(seen_size, -1, np.int64)
    seen_tag = np.empty(seen_size, np.int64)
    out = np.zeros(nrows, np.float64)
    for r in range(nrows):
        empty = True
        for j in range(start, width):
            if rows[r, j]:
                empty = False
                break
        if empty:
            continue
        shared, union = 0, below[r]
        for j in range(m):
            p = start + 4 + 2 * j
            tag = np.int64(rows[r, p]) | np.int64(rows[r, p + 1]) << 8
            h = (tag * 40503) & (seen_size - 1)
            while seen_row[h] == r and seen_tag[h] != tag:
                h = (h + 1) & (seen_size - 1)
            if seen_row[h] == r:
                continue
            seen_row[h], seen_tag[h] = r, tag
            h = (tag * 40503) & (size - 1)
            while slot_tag[h] >= 0 and slot_tag[h] != tag:
                h = (h + 1) & (size - 1)
            if slot_tag[h] == tag and slot_pos[h] < below[r]:
                shared += 1
            else:
                union += 1
        if union:
            out[r] = shared / union
    return out
