"""The WaCky size window and the HTML-only rule, as decisions over headers and body bytes.

"Ignore docs smaller than 5KB, larger than 200KB" (Baroni, *Large Crawls of the Web for
Linguistic Purposes*, WaCky slides; Baroni et al. 2009, ukWaC/deWaC): pages outside the
window are bad for the corpus (tiny pages are navigation, huge ones lists and logs) but the
small ones are still good for crawling, so their links are followed.

Both bounds apply to the DECODED body (after Content-Encoding), measured in bytes. The
stages, in the order a download meets them:

1. headers: :func:`media_type` / :func:`is_html` on Content-Type (no type: sniff later);
   Content-Length above the upper bound rejects before any body byte is read;
2. body bytes: :class:`DecodedMeter` measures the decoded size of a gzip/deflate body while
   it streams, without keeping the output, so a decompression bomb is stopped at
   ``max_bytes + 1`` decoded bytes; :func:`sniff_binary` looks at the first bytes of an
   untyped body;
3. complete body: :func:`window_reason` places the decoded size in the window.

Rejection reasons are the ``wacky/size/<reason>`` stats keys: ``too_small``,
``too_large_wire``, ``too_large_decoded``, ``truncated``, ``not_html``, ``bad_encoding``
(a body its Content-Encoding does not decode).
"""

from __future__ import annotations

import zlib

from w3lib.encoding import read_bom

from wackycrawl.text.encoding import SNIFF_BYTES, BinaryContentError
from wackycrawl.text.encoding import sniff_binary as _sniff

# Bounds in bytes of the decoded body (WACKY_MIN_DOC_BYTES, WACKY_MAX_DOC_BYTES).
MIN_DOC_BYTES = 5 * 1024
MAX_DOC_BYTES = 200 * 1024
# Media types stored as documents (WACKY_HTML_TYPES): HTML and its XML serialisation.
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Content-Encodings the meter can follow (zlib), and the Accept-Encoding asking for them.
METERED_ENCODINGS = ("gzip", "x-gzip", "deflate")
ACCEPT_ENCODING = "gzip, deflate"


def media_type(content_type: str | bytes | None) -> str | None:
    """The lowercased media type of a Content-Type value (RFC 9110 8.3.1), None if empty."""
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    mtype = (content_type or "").split(";", 1)[0].strip().lower()
    return mtype or None


def is_html(content_type: str | bytes | None, html_types=HTML_TYPES) -> bool | None:
    """True/False whether Content-Type names HTML; None when there is no type to judge."""
    mtype = media_type(content_type)
    return None if mtype is None else mtype in html_types


def sniff_binary(prefix: bytes) -> str | None:
    """What binary format the first bytes of an untyped body are, or None (lenient: text).

    Only clear signs count (a magic number, a NUL or many control bytes in the first
    1445 bytes, WHATWG MIME Sniffing 7.1); any text is taken for HTML. A UTF-16/32 BOM
    exempts the body from the byte tests.
    """
    head = prefix[:SNIFF_BYTES]
    if not head:
        return None
    bom = read_bom(head)[0]
    try:
        _sniff(head, declared=bom)
    except BinaryContentError as exc:
        return str(exc)
    return None


def window_reason(size: int, min_bytes: int = MIN_DOC_BYTES, max_bytes: int = MAX_DOC_BYTES,
                  *, encoded: bool = False) -> str | None:
    """The rejection reason for a decoded body of ``size`` bytes, or None inside the window.

    A bound of 0 is off. ``encoded`` says whether the body had a Content-Encoding, which
    names an oversize ``too_large_decoded`` rather than ``too_large_wire``.
    """
    if max_bytes and size > max_bytes:
        return "too_large_decoded" if encoded else "too_large_wire"
    if min_bytes and size < min_bytes:
        return "too_small"
    return None


class DecodedMeter:
    """Counts the decoded size of a gzip or deflate body fed piece by piece.

    Decoded output is thrown away as it comes, and each :meth:`feed` decodes at most
    ``limit + 1 - size`` bytes (zlib's ``max_length``), so the meter never holds more than
    ``limit + 1`` bytes however large the compression ratio. ``size`` is the decoded byte
    count so far; ``over`` is True once it passed ``limit``; ``broken`` is True when the
    stream is not valid for its Content-Encoding (the body cannot be decoded; the meter
    then stops counting).
    A second gzip member (RFC 1952 2.2) is not followed. Raises ValueError for an encoding
    not in :data:`METERED_ENCODINGS`.
    """

    def __init__(self, encoding: str, limit: int):
        if encoding not in METERED_ENCODINGS:
            raise ValueError(f"cannot meter Content-Encoding {encoding!r}")
        self.encoding, self.limit = encoding, limit
        self.size = 0
        self.broken = False
        self._raw_fallback = encoding == "deflate"  # RFC 9110 says zlib; some send raw deflate
        # gzip framing only for gzip (Scrapy's decoder refuses a zlib stream labelled gzip)
        self._z = zlib.decompressobj(15 + 16 if encoding != "deflate" else 15)

    @property
    def over(self) -> bool:
        return self.size > self.limit

    def feed(self, data: bytes) -> int:
        """Decode ``data`` (the next wire bytes) and return the decoded size so far."""
        if self.broken or self.over or self._z.eof:
            return self.size
        try:
            out = self._z.decompress(data, self.limit + 1 - self.size)
        except zlib.error:
            if not (self._raw_fallback and self.size == 0):
                self.broken = True
                return self.size
            self._raw_fallback = False
            self._z = zlib.decompressobj(-15)
            return self.feed(data)
        self.size += len(out)
        return self.size
