"""The WaCky size window and the HTML-only rule, as decisions over headers and body bytes.

"Ignore docs smaller than 5KB, larger than 200KB" (Baroni, *Large Crawls of the Web for
Linguistic Purposes*, WaCky slides; Baroni et al. 2009, ukWaC/deWaC): pages outside the
window are bad for the corpus (tiny pages are navigation, huge ones lists and logs) but the
small ones are still good for crawling, so their links are followed.

Both bounds apply to the DECODED body (after Content-Encoding), measured in bytes. The
stages, in the order a download meets them:

1. headers: :func:`media_type` / :func:`is_html` on Content-Type (no type: sniff later);
   Content-Length above the upper bound rejects before any body byte is read;
2. body bytes: :class:`DecodedMeter` measures the decoded size of a body while it streams,
   for every Content-Encoding Scrapy's HttpCompressionMiddleware decodes (gzip, x-gzip,
   deflate, br, zstd, and stacks of them such as ``gzip, gzip``), without keeping the
   output, so a decompression bomb is stopped at ``max_bytes + 1`` decoded bytes;
   :func:`sniff_binary` looks at the first bytes of an untyped body;
3. complete body: :func:`window_reason` places the decoded size in the window.

Rejection reasons are the ``wacky/size/<reason>`` stats keys: ``too_small``,
``too_large_wire``, ``too_large_decoded``, ``truncated``, ``not_html``, ``bad_encoding``
(a body its Content-Encoding does not decode).
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Iterable

from w3lib.encoding import read_bom

from wackycrawl.text.encoding import SNIFF_BYTES, BinaryContentError
from wackycrawl.text.encoding import sniff_binary as _sniff

try:
    import brotli
except ImportError:  # PyPy: Scrapy depends on brotlicffi there, same API
    import brotlicffi as brotli

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    import backports.zstd as zstd  # the package Scrapy uses too (scrapy.utils._compression)

# Bounds in bytes of the decoded body (WACKY_MIN_DOC_BYTES, WACKY_MAX_DOC_BYTES).
MIN_DOC_BYTES = 5 * 1024
MAX_DOC_BYTES = 200 * 1024
# Media types stored as documents (WACKY_HTML_TYPES): HTML and its XML serialisation.
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Content-Encodings the meter follows: those Scrapy's HttpCompressionMiddleware decodes
# (zlib; brotli/brotlicffi and zstd are the libraries Scrapy 2.19 decodes with), and the
# Accept-Encoding asking for them (Scrapy's own ACCEPTED_ENCODINGS).
METERED_ENCODINGS = ("gzip", "x-gzip", "deflate", "br", "zstd")
ACCEPT_ENCODING = "gzip, deflate, br, zstd"
# Decoded bytes asked of a decoder per step (Scrapy's own decompression chunk, 64 KiB).
CHUNK_BYTES = 64 * 1024


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


def wide_bom_head(body: bytes) -> str | None:
    """The first :data:`SNIFF_BYTES` bytes of a body starting with a UTF-16 or UTF-32 byte
    order mark, decoded by it (BOM left out, a cut character ignored); None for any other
    body. Scrapy's type sniffing of an untyped body looks for ``<html>`` in its bytes and
    takes the NULs of such a body for binary: this text is what to look at instead."""
    codec, bom = read_bom(body[:4])
    if codec is None or not codec.startswith(("utf-16", "utf-32")):
        return None
    return body[len(bom):SNIFF_BYTES].decode(codec, errors="ignore")


def unasked_partial(status: int, range_header: bytes | str | None) -> bool:
    """A 206 Partial Content answer to a request that sent no ``Range`` (RFC 9110 15.3.7: a
    server sends 206 only for a range request): part of a page, never a whole document."""
    return status == 206 and not range_header


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


def archived_reason(size: int, over: bool, *, encoded: bool, content_length: int | None,
                    truncated: str = "", min_bytes: int = MIN_DOC_BYTES,
                    max_bytes: int = MAX_DOC_BYTES) -> tuple[str, str] | None:
    """The size window's reason and detail for an archived (WARC) response, or None.

    ``size`` is the decoded body's length in bytes as read (at most ``max_bytes + 1``: ``over``
    tells it was longer); ``content_length`` the HTTP Content-Length header (bytes, None if
    absent); ``truncated`` the record's ``WARC-Truncated`` value (``length``, ``time``,
    ``disconnect``...; ``""``: complete). A truncated record holds a download the crawl cut
    short, so the reason is the crawl's: Content-Length over the bound ``too_large_wire``
    (stopped at the headers), a decoded body over it ``too_large_decoded`` or
    ``too_large_wire`` (stopped while streaming), else ``truncated``. A complete record is
    placed in the window by :func:`window_reason`.
    """
    if truncated:
        cut = f"(WARC-Truncated: {truncated})"
        if max_bytes and content_length is not None and content_length > max_bytes:
            detail = f"Content-Length {content_length} B > {max_bytes} B, body not downloaded"
            return "too_large_wire", f"{detail} {cut}"
        if max_bytes and over:
            reason = "too_large_decoded" if encoded else "too_large_wire"
            return reason, f"over {max_bytes} B{' decoded' * encoded}, download cancelled {cut}"
        return "truncated", f"{size} B archived of a download cut short {cut}"
    reason = window_reason(size, min_bytes, max_bytes, encoded=encoded)
    if reason is None:
        return None
    return reason, f"{size}{'+' if over else ''} B decoded"


def content_codings(values: Iterable[bytes | str]) -> list[str]:
    """The codings of Content-Encoding header values, lowercased, in the order applied
    (RFC 9110 8.4: ``gzip, br`` = gzip first, then br)."""
    out = []
    for value in values:
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        out += [c.strip().lower() for c in value.split(",") if c.strip()]
    return out


#: Most stacked content codings a response may have: servers apply one, a misconfigured one
#: two or three (RFC 9110 allows a list); more is a decompression bomb's way to get past a
#: per-step bound (and would cost a decoder state per layer). Beyond it: ``bad_encoding``.
MAX_CODINGS = 8


def decoded_codings(codings: list[str]) -> list[str]:
    """The codings Scrapy's HttpCompressionMiddleware removes, in the order it removes them:
    from the last applied backwards, stopping at the first one it cannot decode."""
    out = []
    for coding in reversed(codings):
        if coding not in METERED_ENCODINGS:
            break
        out.append(coding)
    return out


class _DecodeError(Exception):
    """The data are not what their coding says."""


class _Zlib:
    """gzip (every member, RFC 1952 2.2) or deflate (zlib, RFC 9110 8.4.1.2, or raw, as some
    servers send it), as Scrapy's ``gunzip``/``_inflate``: data after the end are ignored,
    and a gzip error after some output (a bad CRC, trailing bytes) ends the stream."""

    def __init__(self, coding: str):
        self.gzip = coding != "deflate"
        self._raw_fallback = not self.gzip
        self._z = zlib.decompressobj(31 if self.gzip else 15)
        self._tail = b""
        self._out = 0
        self._done = False

    def decode(self, data: bytes, max_length: int) -> bytes:
        if self._done:
            return b""
        data, self._tail = self._tail + data, b""
        if self._z is None:  # between gzip members
            if len(data) < 2:
                self._tail = data
                return b""
            if data[:2] != b"\x1f\x8b":
                self._done = True  # trailing bytes, ignored as GzipFile does
                return b""
            self._z = zlib.decompressobj(31)
        try:
            out = self._z.decompress(data, max_length)
        except zlib.error as exc:
            if self._raw_fallback and self._out == 0:
                self._raw_fallback, self._z = False, zlib.decompressobj(-15)
                return self.decode(data, max_length)
            if self.gzip and self._out:
                self._done = True
                return b""
            raise _DecodeError(str(exc)) from None
        self._out += len(out)
        self._tail = self._z.unconsumed_tail
        if self._z.eof:
            if self.gzip:
                self._tail, self._z = self._z.unused_data, None
            else:
                self._done = True
        return out


    @property
    def ended(self) -> bool:
        """The stream's end was seen (a gzip member or a deflate stream complete)."""
        return self._done or self._z is None


class _Brotli:
    """br (RFC 7932) through the brotli module Scrapy decodes with."""

    @property
    def ended(self) -> bool:
        return self._d.is_finished()

    def __init__(self):
        self._d = brotli.Decompressor()
        self._in = b""

    def decode(self, data: bytes, max_length: int) -> bytes:
        self._in += data
        if self._d.is_finished():
            return b""
        feed = b""
        if self._in and self._d.can_accept_more_data():
            feed, self._in = self._in, b""
        try:
            return self._d.process(feed, output_buffer_limit=max_length)
        except brotli.error as exc:
            raise _DecodeError(str(exc)) from None


class _Zstd:
    """zstd (RFC 8878), every frame, through the decoder Scrapy uses (compression.zstd or
    its backport)."""

    def __init__(self):
        self._d = zstd.ZstdDecompressor()

    @property
    def ended(self) -> bool:
        return self._d.eof

    def decode(self, data: bytes, max_length: int) -> bytes:
        if self._d.eof:
            data = self._d.unused_data + data
            if not data:
                return b""
            self._d = zstd.ZstdDecompressor()
        if not data and self._d.needs_input:
            return b""
        try:
            return self._d.decompress(data, max_length)
        except zstd.ZstdError as exc:
            raise _DecodeError(str(exc)) from None


def _decoder(coding: str):
    if coding == "br":
        return _Brotli()
    if coding == "zstd":
        return _Zstd()
    return _Zlib(coding)


class DecodedMeter:
    """Counts the decoded size of a body fed piece by piece, through every coding of its
    Content-Encoding that Scrapy decodes (``"gzip"``, ``"br"``, ``"gzip, gzip"``...).

    ``encoding`` is a Content-Encoding value or a list of codings in the order applied.
    Decoded output is thrown away as it comes; each decoder yields at most
    ``limit + 1`` bytes in all (a stacked coding's inner data count against the same bound,
    as Scrapy's DOWNLOAD_MAXSIZE does per decoding step), so the meter never holds more than
    ``limit + 1`` bytes however large the compression ratio. ``size`` is the fully decoded
    byte count so far; ``over`` is True once any step passed ``limit``; ``complete`` once every
    coding's stream has ended (a body cut inside one never is); ``broken`` is True
    when the data are not valid for their coding (Scrapy's decoder would fail on them; the
    meter then stops counting). With ``keep``, the fully decoded bytes are kept too (at most
    ``limit + 1`` bytes: :attr:`body`), so the meter is also the decoder of an archived body.
    Raises ValueError when no coding is one Scrapy decodes (:data:`METERED_ENCODINGS`) or
    there are more than :data:`MAX_CODINGS`.
    """

    def __init__(self, encoding: str | list[str], limit: int, keep: bool = False):
        codings = content_codings([encoding]) if isinstance(encoding, str) else list(encoding)
        steps = decoded_codings(codings)
        if not steps:
            raise ValueError(f"cannot meter Content-Encoding {encoding!r}")
        if len(codings) > MAX_CODINGS:
            raise ValueError(f"{len(codings)} stacked content codings (at most {MAX_CODINGS})")
        self.encoding = ", ".join(codings)
        self.limit = limit
        self.broken = False
        self._steps = [_decoder(c) for c in steps]
        self._out = [0] * len(steps)
        self._kept: list[bytes] | None = [] if keep else None

    @property
    def body(self) -> bytes:
        """The decoded bytes so far (at most ``limit + 1``); ``b""`` without ``keep``."""
        return b"".join(self._kept or ())[:self.limit + 1]

    @property
    def size(self) -> int:
        return self._out[-1]

    @property
    def over(self) -> bool:
        return any(n > self.limit for n in self._out)

    @property
    def complete(self) -> bool:
        """Every coding's stream reached its end (False for a body cut short inside a
        compressed stream, which Scrapy's decoders turn into a shorter page without a word)."""
        return all(step.ended for step in self._steps)

    def feed(self, data: bytes) -> int:
        """Decode ``data`` (the next wire bytes) and return the decoded size so far."""
        if not (self.broken or self.over):
            try:
                self._push(0, data)
            except _DecodeError:
                self.broken = True
        return self.size

    def _push(self, i: int, data: bytes) -> None:
        step, last = self._steps[i], i == len(self._steps) - 1
        while not self.over:
            out = step.decode(data, min(self.limit + 1 - self._out[i], CHUNK_BYTES))
            data = b""
            if not out:
                return
            self._out[i] += len(out)
            if not last:
                self._push(i + 1, out)
            elif self._kept is not None:
                self._kept.append(out)
