"""Exact-duplicate checksums and simhash fingerprints of clean text.

Stages (each a function, so each can be tested and replaced alone):

1. :func:`normalise` and :func:`checksum`: a 64-bit BLAKE2b checksum of the text for
   exact duplicates. A byte sum ignores byte order, a CRC or BLAKE2 does not
   (Croft et al., *Search Engines*, §3.7; seed notes §7).
2. :func:`tokens` and :func:`features`: words weighted by their frequency.
3. :func:`feature_hash64`: a stable 64-bit hash per feature.
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
from functools import lru_cache

import numpy as np

FINGERPRINT_BITS = 64
# Distinct words whose hashes are kept in memory; a Zipfian vocabulary repeats them.
HASH_CACHE_SIZE = 1 << 16

def _is_punctuation(char: str) -> bool:
    """Unicode punctuation: general categories Pc Pd Ps Pe Pi Pf Po."""
    return unicodedata.category(char).startswith("P")


_ASCII_PUNCTUATION_TO_SPACE = {c: 32 for c in range(128) if _is_punctuation(chr(c))}
# Characters seen that are no punctuation (a bounded set; Unicode has ~800 punctuation marks)
_NOT_PUNCTUATION: set[str] = set()


def normalise(text: str) -> str:
    """Return ``text`` in NFC with every run of white space collapsed to one space and
    the ends stripped. Case and punctuation are kept: an exact duplicate is the same text
    whatever the encoding, markup or line breaks were (a case-only variant is left to the
    simhash, whose features are case-folded)."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def checksum(text: str) -> int:
    """64-bit checksum of ``normalise(text)`` encoded as UTF-8: BLAKE2b with
    ``digest_size=8``, read little-endian. Returns an int in ``[0, 2**64)``."""
    data = normalise(text).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def tokens(text: str) -> list[str]:
    """Words of ``text``: NFC, case-folded, split at white space and Unicode punctuation.

    Combining marks and symbols stay inside tokens (``"काम" != "कम"``). Scripts written
    without spaces (Thai, Chinese) give one token per space-delimited run; no word
    segmentation is attempted."""
    text = unicodedata.normalize("NFC", text).casefold()
    if text.isascii():
        return text.translate(_ASCII_PUNCTUATION_TO_SPACE).split()
    for char in set(text).difference(_NOT_PUNCTUATION):
        if _is_punctuation(char):
            text = text.replace(char, " ")
        elif len(_NOT_PUNCTUATION) < HASH_CACHE_SIZE:
            _NOT_PUNCTUATION.add(char)
    return text.split()


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


def _blake64(feature: str) -> int:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


_HASHES: dict[str, int] = {}  # feature_hash64 of the words seen lately (cleared when full)


def feature_hashes(distinct: Sequence[str] | Mapping[str, object]) -> np.ndarray:
    """:func:`feature_hash64` of each of ``distinct`` (distinct words, in order), as a
    ``uint64`` array of shape ``(len(distinct),)``. Same values; faster for a document's
    vocabulary than one call per word: a dict of up to ``HASH_CACHE_SIZE`` recent words is
    read in C, and only new words are hashed."""
    missing = [w for w in distinct if w not in _HASHES]
    if len(_HASHES) + len(missing) > HASH_CACHE_SIZE:
        _HASHES.clear()
        missing = list(distinct)
    _HASHES.update(zip(missing, map(_blake64, missing)))
    return np.fromiter(map(_HASHES.__getitem__, distinct), dtype=np.uint64, count=len(distinct))


def encode(words: list[str]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Words coded for array work: (each distinct word -> its index, in order of first
    occurrence; ``intp`` array of shape ``(len(words),)``: each word's index; ``uint64``
    array of shape ``(len(distinct),)``: :func:`feature_hash64` of each distinct word)."""
    index = dict(zip(dict.fromkeys(words), range(len(words))))
    codes = np.fromiter(map(index.__getitem__, words), dtype=np.intp, count=len(words))
    return index, codes, feature_hashes(index)


def weight_vector(
    weighted: Mapping[str, int],
    bits: int = FINGERPRINT_BITS,
    hashfunc: Callable[[str], int] = feature_hash64,
) -> np.ndarray:
    """The simhash vector ``V`` (int64, shape ``(bits,)``, ``V[i]`` for bit ``i``).

    ``weighted`` maps feature -> weight (ints > 0, exact while their total is below
    2**53); ``hashfunc`` maps a feature to an int in ``[0, 2**64)``; bits from ``bits``
    up are ignored. Raises ValueError unless ``1 <= bits <= 64``. Computed with numpy:
    ``V = 2 * (w @ B) - sum(w)`` where ``B[j, i]`` is bit ``i`` of feature ``j``'s hash
    (a float64 product, which BLAS does faster than an int64 one)."""
    if not 1 <= bits <= 64:
        raise ValueError(f"bits must be in 1..64, not {bits}")
    if hashfunc is feature_hash64:
        hashes = feature_hashes(weighted)
    else:
        hashes = np.fromiter(map(hashfunc, weighted), dtype=np.uint64, count=len(weighted))
    weights = np.fromiter(weighted.values(), dtype=np.float64, count=len(weighted))
    return hashed_vector(hashes, weights, bits)


def hashed_vector(hashes: np.ndarray, weights: np.ndarray,
                  bits: int = FINGERPRINT_BITS) -> np.ndarray:
    """:func:`weight_vector` of features given by their hashes (``uint64``, shape ``(n,)``)
    and weights (``float64``, shape ``(n,)``): the int64 simhash vector of shape
    ``(bits,)`` (Charikar 2002), ``n = 0`` giving zeros. ``bits`` must be in ``1..64``
    (not checked here: :func:`weight_vector` checks it)."""
    if not len(hashes):
        return np.zeros(bits, dtype=np.int64)
    hash_bits = np.unpackbits(hashes.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1,
                              bitorder="little")
    return (2 * (weights @ hash_bits[:, :bits]) - weights.sum()).astype(np.int64)


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
