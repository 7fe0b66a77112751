"""Word shingles, bottom-k sketches and the resemblance of two documents.

Broder, Glassman, Manasse and Zweig, "Syntactic clustering of the Web" (WWW 1997): the
*shingles* of a text are its contiguous word n-grams (``w``-shingling), and the
*resemblance* of two texts A and B is ``|S(A) & S(B)| / |S(A) | S(B)|`` (the Jaccard
coefficient of their shingle sets). A document is represented by a sample of its shingles:
the ``m`` with the smallest hashes (a bottom-k sketch, Broder 1997 "On the resemblance and
containment of documents"); near-duplicates share most of them.

Here one side is known in full (the document being checked) and the other by its stored
sketch, so the estimate uses every shingle of the query below the sketch's bound: the
union of both shingle sets restricted to hashes ``<= bound`` is known exactly (all of the
stored document's shingles there are in its sketch), and the resemblance estimate is
``shared / |union below bound|`` - a bottom-k estimate over at least ``m`` samples.

Shapes and units:

* :func:`shingle_hashes`: sorted unique ``uint64`` array, one 64-bit hash per distinct
  shingle of ``size`` words (words as :func:`wackycrawl.dedup.simhash.tokens`: case-folded,
  punctuation removed, function words kept). The top 32 bits order the sample (the rank),
  the low 16 bits are the tag that is stored.
* :func:`sketch`: ``bytes`` of ``4 + 2 * m`` (little-endian): the rank bound (uint32, the
  rank of the m-th smallest hash) then ``m`` uint16 tags (repeated last tag when the text
  has fewer than ``m`` shingles). 84 bytes at ``m = 40``.
* :func:`resemblance`: float in ``[0, 1]`` (:func:`resemblances`: one per sketch).

Two stored tags can collide by chance (16 bits): with ``m`` = 40 and the query's ~1.4 m
shingles below the bound, about 0.04 false matches per comparison.
No Scrapy import.
"""

from collections.abc import Sequence

import numpy as np

from wackycrawl.dedup.simhash import feature_hashes, word_hashes

SHINGLE_SIZE = 5  # words per shingle (the WaCky corpora's 5-grams; Broder et al. use w-grams)
SKETCH_SIZE = 40  # shingles kept per document: 84 bytes of sketch
RESEMBLANCE = 0.5  # Broder et al. 1997 cluster documents at resemblance >= 50 %
_BOUND_BYTES = 4
# Odd 64-bit multipliers (digits of pi, made odd): shingle = sum of word hash * C[position].
_POSITION = np.array([0x243F6A8885A308D3, 0x13198A2E03707345, 0xA4093822299F31D1,
                      0x082EFA98EC4E6C89, 0x452821E638D01377, 0xBE5466CF34E90C6D,
                      0xC0AC29B7C97C50DD, 0x3F84D5B5B5470917, 0x9216D5D98979FB1B,
                      0xD1310BA698DFB5AD], dtype=np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (Steele et al. 2014): every output bit depends on every input bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def shingle_hashes(text: str | list[str], size: int = SHINGLE_SIZE) -> np.ndarray:
    """Sorted unique 64-bit hashes of the ``size``-word shingles of ``text`` (a str, or its
    words already split by :func:`~wackycrawl.dedup.simhash.tokens`). A text of fewer words
    than ``size`` has one shingle (all its words); no words give an empty array. Raises
    ValueError unless ``1 <= size <= 10``."""
    if not 1 <= size <= len(_POSITION):
        raise ValueError(f"shingle size must be in 1..{len(_POSITION)}, not {size}")
    hashes = word_hashes(text, frozenset())[0] if isinstance(text, str) else feature_hashes(text)
    if not len(hashes):
        return np.empty(0, dtype=np.uint64)
    return coded_shingle_hashes(hashes, size)


def coded_shingle_hashes(word_hashes: np.ndarray, size: int = SHINGLE_SIZE) -> np.ndarray:
    """:func:`shingle_hashes` of a text given by the
    :func:`~wackycrawl.dedup.simhash.feature_hash64` of each of its words (``uint64``,
    shape ``(number of words,)``, at least one word). Returns the sorted unique ``uint64``
    shingle hashes; raises ValueError unless ``1 <= size <= 10`` (words)."""
    if not 1 <= size <= len(_POSITION):
        raise ValueError(f"shingle size must be in 1..{len(_POSITION)}, not {size}")
    width = min(size, len(word_hashes))
    n = len(word_hashes) - width + 1
    with np.errstate(over="ignore"):
        combined = np.zeros(n, dtype=np.uint64)
        for j in range(width):
            combined += word_hashes[j : j + n] * _POSITION[j]
        combined = np.sort(_mix(combined))
    distinct = np.ones(n, dtype=bool)  # np.unique, without its hash table (10x slower here)
    np.not_equal(combined[1:], combined[:-1], out=distinct[1:])
    return combined[distinct]


def sketch(hashes: np.ndarray, m: int = SKETCH_SIZE) -> bytes:
    """The stored sketch of a document from its :func:`shingle_hashes` (layout in the module
    docstring); empty ``hashes`` give a sketch that resembles nothing. Raises ValueError if
    ``m < 1``."""
    if m < 1:
        raise ValueError(f"sketch size must be >= 1, not {m}")
    if not len(hashes):
        return b"\0" * (_BOUND_BYTES + 2 * m)
    sample = hashes[:m]
    bound = int(sample[-1]) >> 32
    tags = (sample & np.uint64(0xFFFF)).astype("<u2")
    if len(tags) < m:
        tags = np.concatenate([tags, np.full(m - len(tags), tags[-1], dtype="<u2")])
    return bound.to_bytes(_BOUND_BYTES, "little") + tags.tobytes()


def sketch_size(record: bytes) -> int:
    """Number of tags ``m`` in a sketch of ``len(record)`` bytes."""
    return (len(record) - _BOUND_BYTES) // 2


def resemblance(hashes: np.ndarray, record: bytes) -> float:
    """Estimated resemblance of the document with :func:`shingle_hashes` ``hashes`` (the
    query, known in full) to the document whose :func:`sketch` is ``record``. 0.0 if either
    side has no shingles. Raises ValueError if ``record`` is shorter than a bound and a tag."""
    return resemblances(hashes, [record])[0]


def resemblances(hashes: np.ndarray, records: Sequence[bytes]) -> list[float]:
    """:func:`resemblance` of the query to each of ``records``: a list of ``len(records)``
    floats in ``[0, 1]``, the same values one call per record gives (the bottom-k estimate
    of the module docstring, Broder 1997). ``hashes``: sorted unique ``uint64`` array of
    :func:`shingle_hashes`; ``records``: :func:`sketch` bytes, of any sizes. Raises
    ValueError if a record is not a sketch (shorter than a bound and a tag, or an odd
    number of tag bytes). The sketches of one size go to :func:`row_resemblances` together."""
    records = list(records)
    sizes = {len(record) for record in records}
    for size in sizes:
        if size < _BOUND_BYTES + 2 or (size - _BOUND_BYTES) % 2:
            raise ValueError(f"not a shingle sketch: {size} bytes")
    if not records or not len(hashes):
        return [0.0] * len(records)
    if len(sizes) > 1:  # sketches of other sizes
        return [r for record in records for r in resemblances(hashes, [record])]
    # a writable array: the compiled loop's one signature
    rows = np.frombuffer(bytearray(b"".join(records)), dtype=np.uint8).reshape(len(records), -1)
    return row_resemblances(hashes, rows).tolist()


def row_resemblances(hashes: np.ndarray, rows: np.ndarray, start: int = 0) -> np.ndarray:
    """:func:`resemblances` of the query to the sketches held in byte rows: ``rows`` is a
    ``(number of sketches, width)`` uint8 array (e.g. records taken from a store) whose
    bytes ``start ... width - 1`` are a :func:`sketch` each (``width - start`` at least a
    bound and a tag, and a bound plus whole tags: not checked). Returns a float64 array of
    ``len(rows)`` values in ``[0, 1]``, those :func:`resemblances` gives the sketches as
    bytes. One compiled loop over all rows (:func:`wackycrawl.dedup.tables.resemble`)."""
    if not len(rows) or not len(hashes):
        return np.zeros(len(rows), dtype=np.float64)
    from wackycrawl.dedup.index import _compiled  # numba: loaded where candidates are confirmed

    # one compiled signature whatever arrays came in: writable C-contiguous uint64 and uint8
    if not (isinstance(hashes, np.ndarray) and hashes.dtype == np.uint64
            and hashes.flags.c_contiguous and hashes.flags.writeable):
        hashes = np.array(hashes, dtype=np.uint64)
    if not (isinstance(rows, np.ndarray) and rows.dtype == np.uint8 and rows.ndim == 2
            and rows.flags.c_contiguous and rows.flags.writeable):
        rows = np.array(rows, dtype=np.uint8, ndmin=2)
    return _compiled().resemble(hashes, rows, start)
