"""A TREC document formatted and compressed in parts, joined into one gzip member later.

The stage worker (``wackycrawl.pipelines.trec.TrecPrepareStage``) formats everything of a
document known before the dedup index and the writer run (DOCHDR lines up to its metadata so
far; ``</DOCHDR>``, the text and ``</DOC>``), checks it for forbidden characters and compresses
each part as a raw deflate stream (RFC 1951), keeping its CRC-32 and length. The writer then
formats and deflates only the ``<DOCNO>`` lines and the metadata added since, and joins the
parts: each part but the last ends with a sync flush (an empty stored block: byte-aligned,
not final), the last with the final block, so the concatenation is one valid deflate stream
(as pigz joins its blocks). The member is the gzip header of ``gzip.compress(...,
mtime=0)`` (zlib's), that stream and the CRC-32 and length of the whole document (RFC 1952): it
decompresses to exactly the bytes of :func:`wackycrawl.trec.format.format_doc`.
"""

import functools
import struct
import zlib
from typing import NamedTuple

from wackycrawl.trec.format import forbidden_characters

_MASK = 0xFFFFFFFF
_zeros = bytes(1 << 16)


class Part(NamedTuple):
    """Formatted bytes as a raw deflate stream: ``deflated`` (sync-flushed, or final for
    the last part), ``crc`` (CRC-32 of the uncompressed bytes), ``size`` (uncompressed
    bytes), ``bad``: the first forbidden character as ``(offset in the part, "U+FFFD")``
    or None."""

    deflated: bytes
    crc: int
    size: int
    bad: tuple[int, str] | None


class Prepared(NamedTuple):
    """A document but its ``<DOCNO>`` lines and late metadata: ``head`` holds the DOCHDR
    lines and the metadata lines of ``meta`` (the ``(key, value)`` pairs known then, in
    order), ``body`` the rest (last part); ``level`` is the zlib level both were compressed
    at; ``paragraphs`` is the item's own list of paragraphs (identity shows it unreplaced),
    ``words`` their number of whitespace-separated tokens."""

    head: Part
    body: Part
    meta: tuple
    level: int
    paragraphs: list
    words: int


def deflate_part(data: bytes, level: int, last: bool = False, small: bool = False) -> Part:
    """Compress ``data`` (UTF-8 document bytes) at zlib ``level`` as a :class:`Part`.

    ``small`` (for a few hundred bytes, such as the DOCNO lines): a 512-byte window and the
    smallest hash table (windowBits 9, memLevel 1), which take ~5 us to set up, not the ~60
    us of zlib's default 32 KB window; any deflate decoder reads the stream the same."""
    bad = forbidden_characters(data)
    if bad is not None:
        char, _, offset = bad.partition(" at byte ")
        bad = (int(offset), char)
    c = zlib.compressobj(level, zlib.DEFLATED, -9, 1) if small else zlib.compressobj(
        level, zlib.DEFLATED, -15)
    deflated = c.compress(data) + c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
    return Part(deflated, zlib.crc32(data), len(data), bad)


def crc32_combine(crc1: int, crc2: int, size2: int) -> int:
    """CRC-32 of ``a + b`` from ``crc1`` = crc32(a), ``crc2`` = crc32(b), ``size2`` =
    len(b). CRC-32 is affine over GF(2): crc(a + b) = crc(a + zeros) ^ crc(zeros) ^ crc(b),
    and the first two terms are one pass over ``size2`` zero bytes from ``crc1`` (zlib's
    ``crc32_combine`` does the same with matrix powers; Python's zlib does not expose it)."""
    global _zeros
    if size2 > len(_zeros):
        _zeros = bytes(size2)
    zeros = memoryview(_zeros)[:size2]
    return zlib.crc32(zeros, crc1 ^ _MASK) ^ _MASK ^ crc2


@functools.cache
def gzip_header(level: int) -> bytes:
    """The 10-byte header ``gzip.compress(data, level, mtime=0)`` writes (zlib's own)."""
    return zlib.compress(b"", level, wbits=31)[:10]


def join_member(parts: list[Part], level: int) -> bytes:
    """One gzip member (RFC 1952: 10-byte header, raw deflate data, CRC-32 and ISIZE, both
    little-endian) of the document made of ``parts`` in order, as bytes. Every part but the
    last is sync-flushed (byte-aligned, not final), so their deflate streams join into one
    valid stream (RFC 1951 blocks refer back only within their own stream), as pigz joins
    its blocks; ISIZE is the uncompressed size modulo 2**32."""
    crc, size = parts[0].crc, parts[0].size
    for part in parts[1:]:
        crc = crc32_combine(crc, part.crc, part.size)
        size += part.size
    return b"".join([gzip_header(level), *(p.deflated for p in parts),
                     struct.pack("<LL", crc, size & _MASK)])


def first_bad(parts: list[Part]) -> str | None:
    """The first forbidden character of the joined parts, as
    :func:`~wackycrawl.trec.format.forbidden_characters` would describe it; None if none."""
    start = 0
    for part in parts:
        if part.bad is not None:
            return f"{part.bad[1]} at byte {start + part.bad[0]}"
        start += part.size
    return None
