"""Exact-duplicate checksums and simhash fingerprints of clean text.

Stages (each a function, so each can be tested and replaced alone):

1. :func:`normalise` and :func:`checksum`: a 64-bit BLAKE2b checksum of the text for
   exact duplicates. A byte sum ignores byte order, a CRC or BLAKE2 does not
   (Croft et al., *Search Engines*, §3.7; seed notes §7).
2. :func:`tokens` and :func:`features`: words weighted by their frequency.
3. :func:`feature_hash64`: a stable 64-bit hash per feature (:func:`feature_hashes` for a
   list of words, :func:`word_hashes` for all words of a text, with their stopword flags).
4. :func:`weight_vector` and :func:`fingerprint`: Charikar's simhash (STOC 2002) as used
   for web pages by Manku, Jain and Das Sarma (WWW 2007): ``V[i] += w`` if bit ``i`` of a
   feature's hash is 1, ``-= w`` if it is 0; bit ``i`` of the fingerprint is 1 iff
   ``V[i] > 0`` (seed notes §9 and worked example §12.4).

Bit ``i`` always means the bit of value ``2**i``; fingerprints are Python ints.
No Scrapy import: the pipeline in :mod:`wackycrawl.pipelines.dedup` is an adapter.
"""

import hashlib
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache, partial

import numpy as np

from wackycrawl.text.langmodel import strip_ignorable

FINGERPRINT_BITS = 64
# Distinct words whose hashes are kept in memory; a Zipfian vocabulary repeats them.
HASH_CACHE_SIZE = 1 << 16

def _is_punctuation(char: str) -> bool:
    """Unicode punctuation: general categories Pc Pd Ps Pe Pi Pf Po."""
    return unicodedata.category(char).startswith("P")


# ASCII punctuation and white space, each to a space (one str.translate of an ASCII text)
_ASCII_SEPARATORS_TO_SPACE = {c: 32 for c in range(128)
                              if _is_punctuation(chr(c)) or chr(c).isspace()}
# a bytes.translate table: ASCII white space to a space, every other byte kept
_ASCII_WHITE_SPACE_TO_SPACE = bytes(32 if c < 128 and chr(c).isspace() else c
                                    for c in range(256))
# Characters seen that are no separator (a bounded set; Unicode has ~800 punctuation marks)
_NOT_SEPARATOR: set[str] = set()


def fold(text: str) -> str:
    """``text`` without Default_Ignorable_Code_Point characters (zero-width space, word
    joiner, ZWJ/ZWNJ, BOM, tag characters, variation selectors, U+034F, U+180E, U+3164...:
    :func:`wackycrawl.text.langmodel.strip_ignorable`) and in NFKC (fullwidth letters,
    ligatures and other compatibility forms as their plain characters): the same text
    however it was disguised with invisible or look-alike characters. An ASCII text is
    returned as is."""
    if text.isascii():
        return text
    text = strip_ignorable(text)
    if unicodedata.is_normalized("NFKC", text):  # most text: a quick check, no copy
        return text
    text = unicodedata.normalize("NFKC", text)
    return text if text.isascii() else strip_ignorable(text)  # NFKC maps U+FFA0 to U+3164


def normalise(text: str) -> str:
    """Return ``text`` folded (:func:`fold`: no default-ignorable characters, NFKC) with
    every run of white space collapsed to one space and the ends stripped. Case and
    punctuation are kept: an exact duplicate is the same text whatever the encoding, markup,
    line breaks or invisible characters were (a case-only variant is left to the simhash,
    whose features are case-folded)."""
    return " ".join(fold(text).split())


def _normalised_utf8(text: str) -> bytes:
    """``normalise(text).encode("utf-8")``; an ASCII text whose white space is single
    characters between words is translated as bytes, without splitting it into words."""
    text = fold(text)
    if text.isascii():
        data = text.encode("ascii").translate(_ASCII_WHITE_SPACE_TO_SPACE)
        if b"  " not in data and not data.startswith(b" ") and not data.endswith(b" "):
            return data
    return " ".join(text.split()).encode("utf-8")


def checksum(text: str) -> int:
    """64-bit checksum of ``normalise(text)`` encoded as UTF-8: BLAKE2b with
    ``digest_size=8``, read little-endian. Returns an int in ``[0, 2**64)``."""
    return int.from_bytes(hashlib.blake2b(_normalised_utf8(text), digest_size=8).digest(),
                          "little")


def _separated(text: str) -> str:
    """``text`` folded (:func:`fold`), case-folded, with every punctuation and white-space
    character replaced by a space: :func:`tokens` are its runs of other characters."""
    text = fold(text).casefold()
    if text.isascii():
        return text.translate(_ASCII_SEPARATORS_TO_SPACE)
    for char in set(text).difference(_NOT_SEPARATOR):
        if _is_punctuation(char) or char.isspace():
            text = text.replace(char, " ")
        elif len(_NOT_SEPARATOR) < HASH_CACHE_SIZE:
            _NOT_SEPARATOR.add(char)
    return text


def tokens(text: str) -> list[str]:
    """Words of ``text``: without default-ignorable characters, NFKC (:func:`fold`),
    case-folded, split at white space and Unicode punctuation.

    Combining marks and symbols stay inside tokens (``"काम" != "कम"``). Scripts written
    without spaces (Thai, Chinese) give one token per space-delimited run; no word
    segmentation is attempted."""
    return _separated(text).split()


def features(text: str | list[str], stopwords: frozenset[str] = frozenset()) -> Counter:
    """Simhash features of ``text`` (a str, or its :func:`tokens`): each word that is not in
    ``stopwords``, weighted by its count (seed notes §9, step 1, whose example leaves out
    "in, the, and"). Weights are unbounded ints (case C28).

    Leave the function words out for real use: they are a third to a half of every text's
    tokens and would dominate the weights, pulling all texts of one language together
    (devset: mean distance of unrelated pages 19.9 bits with them, 30.9 without)."""
    words = tokens(text) if isinstance(text, str) else text
    if not stopwords:
        return Counter(words)
    return Counter(w for w in words if w not in stopwords)


@lru_cache(maxsize=HASH_CACHE_SIZE)
def feature_hash64(feature: str) -> int:
    """Stable 64-bit hash of a feature: BLAKE2b (``digest_size=8``) of its UTF-8 bytes,
    little-endian. Unlike Python's ``hash`` it is the same in every process."""
    return _blake64(feature)


_BLAKE64 = partial(hashlib.blake2b, digest_size=8)  # of bytes: _DIGEST gives its 8 bytes
_DIGEST = hashlib.blake2b.digest


def _blake64(feature: str) -> int:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


_HASHES: dict[str, int] = {}  # feature_hash64 of the words seen lately (cleared when full)


def feature_hashes(distinct: Sequence[str] | Mapping[str, object]) -> np.ndarray:
    """:func:`feature_hash64` of each of ``distinct`` (words, in order; meant for distinct
    ones, a repeat is looked up again), as a ``uint64`` array of shape ``(len(distinct),)``.
    Same values; faster for a document's vocabulary than one call per word: a dict of up to
    ``HASH_CACHE_SIZE`` recent words is read in C, and only new words are hashed."""
    missing = [w for w in distinct if w not in _HASHES]
    if len(_HASHES) + len(missing) > HASH_CACHE_SIZE:
        _HASHES.clear()
        missing = list(distinct)
    _HASHES.update(zip(missing, map(_blake64, missing)))
    return np.fromiter(map(_HASHES.__getitem__, distinct), dtype=np.uint64, count=len(distinct))


# word_hashes: a word of up to _PACKED bytes is its key, two uint64 (its bytes, zero padded)
_PACKED = 16
_KEY_MASKS = np.array([[(1 << 8 * min(n, 8)) - 1, (1 << 8 * max(n - 8, 0)) - 1]
                       for n in range(_PACKED + 1)] + [[0, 0]], dtype=np.uint64)
_WAYS = 4  # keys per bucket: 64 bytes, one cache line (4 flags: one uint32)
_BUCKET_BITS = (HASH_CACHE_SIZE // 2).bit_length() - 1  # 2 * HASH_CACHE_SIZE words in all


class _WordTable:
    """The :func:`feature_hash64` of the words seen lately and whether each is one of
    ``stopwords``: a set-associative cache of ``2 ** _BUCKET_BITS`` buckets of ``_WAYS``
    words, the oldest of a full bucket replaced. About 3 MiB. A way's key and values are
    written in separate steps: one thread per table (the stages run in processes)."""

    def __init__(self, stopwords: frozenset[str]):
        self.stopwords = stopwords
        # bucket b: the first uint64 of its words' keys, then the second; an empty way holds
        # (0, 1), the key of no word (a word's first byte is not 0)
        self.keys = np.zeros((1 << _BUCKET_BITS, 2, _WAYS), dtype=np.uint64)
        self.keys[:, 1] = 1
        self.hashes = np.zeros(self.keys.shape[0] * _WAYS, dtype=np.uint64)
        self.stop = np.zeros(self.keys.shape[0] * _WAYS, dtype=bool)
        self.next_way = np.zeros(self.keys.shape[0], dtype=np.uint8)

    def lookup(self, data: bytes, starts: np.ndarray, ends: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Hashes and stopword flags of the words ``data[starts[j]:ends[j]]`` (UTF-8,
        none holding a NUL byte; ``data`` has ``_PACKED`` bytes more after the last)."""
        lengths = np.minimum(ends - starts, _PACKED + 1)
        # 16 bytes from each word's start, unaligned; the bytes past its end masked out
        keys = np.ndarray((len(data) - 15, 2), dtype="<u8", buffer=data, strides=(1, 8))[starts]
        keys &= _KEY_MASKS[lengths]  # a longer word's key is (0, 0): never stored, never found
        with np.errstate(over="ignore"):
            mixed = keys[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ keys[:, 1]
            mixed *= np.uint64(0xC2B2AE3D27D4EB4F)
        bucket = (mixed >> np.uint64(64 - _BUCKET_BITS)).astype(np.intp)
        # the bucket's keys against the word's, repeated to the same layout: one flat compare
        same = self.keys[bucket].reshape(-1, 2 * _WAYS) == np.repeat(keys, _WAYS, axis=1)
        # byte w of found[j]: whether way w holds word j (both uint64 equal); at most one does
        found = np.bitwise_and(*same.view(np.uint32).T)
        slot = bucket * _WAYS + found.view(np.uint8).reshape(-1, _WAYS).argmax(axis=1)
        hashes, stop = self.hashes[slot], self.stop[slot]
        missing = np.flatnonzero(found == 0)
        if len(missing):
            words = list(map(data.__getitem__, map(slice, starts[missing].tolist(),
                                                   ends[missing].tolist())))  # UTF-8
            hashes[missing] = np.frombuffer(b"".join(map(_DIGEST, map(_BLAKE64, words))),
                                            dtype="<u8")
            stop[missing] = np.fromiter(map(self.stopwords.__contains__,
                                            map(bytes.decode, words)), dtype=bool,
                                        count=len(words))
            new = missing[lengths[missing] <= _PACKED]
            slot = bucket[new] * _WAYS + self.next_way[bucket[new]] % _WAYS
            # one word per slot: which of repeated indices an assignment keeps is unspecified
            slot, first = np.unique(slot, return_index=True)
            new, bucket, way = new[first], bucket[new[first]], slot % _WAYS
            self.next_way[bucket] += 1
            self.keys[bucket, 0, way], self.keys[bucket, 1, way] = keys[new, 0], keys[new, 1]
            self.hashes[slot], self.stop[slot] = hashes[new], stop[new]
        return hashes, stop


@lru_cache(maxsize=4)
def _word_table(stopwords: frozenset[str]) -> _WordTable:
    return _WordTable(stopwords)


def word_hashes(text: str, stopwords: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`feature_hash64` of each of the :func:`tokens` of ``text``, in order (``uint64``,
    shape ``(number of tokens,)``), and whether each is in ``stopwords`` (``bool``, same
    shape). Same values as one call per word; the words are found, keyed and looked up in
    a cache as arrays of the text's UTF-8 bytes, and only the words missing from the cache
    are hashed (each occurrence, by a chain of C calls: no Python step per word)."""
    spaced = _separated(text)
    if "\0" in spaced:  # a NUL byte would make a word's zero-padded key ambiguous
        words = spaced.split()
        return feature_hashes(words), np.fromiter(map(stopwords.__contains__, words),
                                                  dtype=bool, count=len(words))
    data = b" " + spaced.encode("utf-8") + b" " * _PACKED
    space = np.frombuffer(data, dtype=np.uint8) == 32
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1  # starts and ends, alternating
    return _word_table(stopwords).lookup(data, edges[0::2], edges[1::2])


def weight_vector(
    weighted: Mapping[str, int],
    bits: int = FINGERPRINT_BITS,
    hashfunc: Callable[[str], int] = feature_hash64,
) -> np.ndarray:
    """The simhash vector ``V`` (int64, shape ``(bits,)``, ``V[i]`` for bit ``i``).

    ``weighted`` maps feature -> weight (ints > 0, exact while their total is below
    2**53); ``hashfunc`` maps a feature to an int in ``[0, 2**64)``; bits from ``bits``
    up are ignored. Raises ValueError unless ``1 <= bits <= 64``. Computed with numpy
    (:func:`hashed_vector`: float64 sums of the weights, exact below 2**53)."""
    if not 1 <= bits <= 64:
        raise ValueError(f"bits must be in 1..64, not {bits}")
    if hashfunc is feature_hash64:
        hashes = feature_hashes(weighted)
    else:
        hashes = np.fromiter(map(hashfunc, weighted), dtype=np.uint64, count=len(weighted))
    weights = np.fromiter(weighted.values(), dtype=np.float64, count=len(weighted))
    return hashed_vector(hashes, weights, bits)


def hashed_vector(hashes: np.ndarray, weights: np.ndarray | None = None,
                  bits: int = FINGERPRINT_BITS) -> np.ndarray:
    """:func:`weight_vector` of features given by their hashes (``uint64``, shape ``(n,)``)
    and weights (``float64``, shape ``(n,)``; None: 1 each, as for a text's tokens, the
    same vector as its distinct words weighted by their counts): the int64 simhash vector
    of shape ``(bits,)`` (Charikar 2002), ``n = 0`` giving zeros. ``bits`` must be in
    ``1..64`` (not checked here: :func:`weight_vector` checks it). ``V[8 k + j]`` is the
    histogram of the hashes' bytes ``k`` (one bincount for all ``k``) summed with sign +1
    for the byte values whose bit ``j`` is 1, -1 for the others."""
    if not len(hashes):
        return np.zeros(bits, dtype=np.int64)
    octets = np.ascontiguousarray(hashes, "<u8").view(np.uint8).reshape(-1, 8) + _OCTET_OFFSETS
    repeated = None if weights is None else np.repeat(weights, 8)
    tally = np.bincount(octets.ravel(), repeated, minlength=8 * 256).reshape(8, 256)
    return (tally @ _OCTET_SIGNS).ravel()[:bits].astype(np.int64)


_OCTET_OFFSETS = np.arange(0, 8 * 256, 256, dtype=np.intp)  # byte k of a hash: bins 256 k..
# [v, j]: +1 if bit j of the byte value v is 1, else -1 (V[i] += w or -= w)
_OCTET_SIGNS = 2 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                                 bitorder="little").astype(np.int64) - 1


def vector_fingerprint(vector: np.ndarray) -> int:
    """Fingerprint of a simhash vector (shape ``(bits,)``, ``bits <= 64``, as from
    :func:`hashed_vector`): an int in ``[0, 2**bits)`` whose bit ``i`` is 1 iff
    ``vector[i] > 0`` (Charikar 2002)."""
    return int.from_bytes(np.packbits(vector > 0, bitorder="little").tobytes(), "little")


def fingerprint(
    weighted: Mapping[str, int],
    bits: int = FINGERPRINT_BITS,
    hashfunc: Callable[[str], int] = feature_hash64,
) -> int:
    """Simhash fingerprint of weighted features: bit ``i`` is 1 iff ``V[i] > 0``.

    Returns an int in ``[0, 2**bits)``; no features give 0. See :func:`weight_vector`."""
    return vector_fingerprint(weight_vector(weighted, bits, hashfunc))


def simhash(text: str, stopwords: frozenset[str] = frozenset()) -> int:
    """64-bit simhash of ``text`` with word-frequency features (minus ``stopwords``)."""
    return fingerprint(features(text, stopwords))


def hamming(a: int, b: int) -> int:
    """Hamming distance: the number of bit positions where ``a`` and ``b`` differ."""
    return (a ^ b).bit_count()


def to_hex(value: int) -> str:
    """A 64-bit value as 16 lower-case hex digits (the ``X-Wacky-Simhash`` form)."""
    return f"{value:016x}"
