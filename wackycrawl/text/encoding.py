"""HTML bytes to Unicode text, for a corpus: right or rejected, never silently garbled.

The choice of codec follows the browser order of the WHATWG HTML standard ("determining the
character encoding"): byte-order mark, then the HTTP ``charset``, then a lenient ``<meta>``
scan (first 4096 bytes), then statistical detection. That order is w3lib's
:func:`~w3lib.encoding.html_to_unicode`, with charset-normalizer as its detector; legacy
labels follow the WHATWG Encoding Standard table (``ISO-8859-1``/``latin1`` mean cp1252).

Browsers tolerate a wrong label by showing U+FFFD; a corpus must not. The stages:

1. :func:`sniff_binary` - binary bodies served as text (magic numbers, NUL, control bytes)
   raise :class:`BinaryContentError`.
2. w3lib's decode; if the text is clean (no U+FFFD, no C0/C1 controls) it is returned.
3. The labelled codec is kept when its good non-ASCII characters outnumber the bad bytes,
   and those are at most ``max_repairs`` (C10: one cp1252 byte in UTF-8): each undecodable
   single byte is read as cp1252, longer invalid sequences are dropped.
4. Otherwise the label may have lied (C10: header UTF-8, body cp1252): the ``<meta>``
   declaration, and the detector's guess if the label decoded no non-ASCII character
   correctly, are tried in strict mode; the first clean decode wins.
5. Otherwise the page is repaired if at most ``max_repairs`` bytes need it, else
   :class:`EncodingError` is raised. A BOM is never second-guessed (WHATWG).

A UTF-16/32 label (header or ``<meta>``) on a body without BOM and without a NUL byte in its
first :data:`SNIFF_BYTES` is a lie (ASCII markup in UTF-16 is half NUL bytes): UTF-8 is
tried instead, as the WHATWG prescan does for a ``<meta>`` naming UTF-16.
"""

from __future__ import annotations

import codecs
import re
import threading
from typing import NamedTuple

import charset_normalizer
from w3lib.encoding import (
    html_body_declared_encoding,
    html_to_unicode,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

# Pages needing more repaired bytes than this are rejected (WACKY_MAX_ENCODING_REPAIRS).
MAX_REPAIRS = 10
# Share of binary data bytes above which a body is binary (WACKY_MAX_BINARY_SHARE).
MAX_BINARY_SHARE = 0.01
# WHATWG MIME Sniffing 7.1: the "resource header" is at most 1445 bytes; a NUL in it means
# binary data (unless the text is UTF-16/32, where NUL bytes are normal).
SNIFF_BYTES = 1445
# WHATWG MIME Sniffing 3 "binary data byte": 0x00-0x08, 0x0B, 0x0E-0x1A, 0x1C-0x1F.
BINARY_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
_TEXT_BYTES = bytes(b for b in range(256) if b not in BINARY_BYTES)
# Signatures of formats servers send as text/html by mistake (WHATWG MIME Sniffing 6-7 and
# the formats' own specifications). Matched at offset 0 of the body.
MAGIC_NUMBERS = (
    (b"%PDF-", "PDF document"),
    (b"%!PS-Adobe-", "PostScript document"),
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"PK\x03\x04", "zip archive (docx, odt, jar...)"),
    (b"\x1f\x8b\x08", "gzip stream"),
    (b"BZh", "bzip2 stream"),
    (b"\xfd7zXZ\x00", "xz stream"),
    (b"\x28\xb5\x2f\xfd", "zstd stream"),
    (b"7z\xbc\xaf\x27\x1c", "7-zip archive"),
    (b"Rar!\x1a\x07", "RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE2 document (doc, xls)"),
    (b"\x7fELF", "ELF executable"),
    (b"OggS\x00", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"\x1a\x45\xdf\xa3", "Matroska/WebM media"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
)
_RIFF_KINDS = {b"WEBP": "WebP image", b"WAVE": "WAV audio", b"AVI ": "AVI video"}
_WIDE = ("utf-16", "utf-32")
# Characters a corpus text must not contain: U+FFFD, C1 controls, C0 controls other than
# tab, LF, FF, CR (they are illegal in XML 1.0 and never part of running text).
_UNCLEAN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")


class EncodingError(ValueError):
    """The body cannot be decoded to clean text (too many bad bytes, no clean codec)."""


class BinaryContentError(EncodingError):
    """The body is binary data (image, PDF, archive...) served as text."""


class Decoded(NamedTuple):
    """Result of :func:`decode_html`."""

    text: str  # the document, free of U+FFFD and C0/C1 controls
    encoding: str  # Python codec name, e.g. "utf-8", "cp1252", "utf-16-le"
    repairs: int  # bytes (or characters) mapped through cp1252 or dropped


def detect_encoding(body: bytes) -> str | None:
    """charset-normalizer's best guess as a WHATWG-resolved Python codec name, or None."""
    best = charset_normalizer.from_bytes(body).best()
    return resolve_encoding(best.encoding) if best is not None else None


def sniff_binary(body: bytes, declared: str | None = None,
                 max_share: float = MAX_BINARY_SHARE) -> None:
    """Raise :class:`BinaryContentError` if ``body`` is binary data, else return None.

    Binary means: a known magic number at offset 0; or a NUL byte in the first
    :data:`SNIFF_BYTES` bytes; or more than ``max_share`` (fraction of all bytes) WHATWG
    binary data bytes. The two byte tests are skipped when ``declared`` (the codec named by
    BOM or label) is UTF-16/32, whose text holds NUL bytes.
    """
    for magic, kind in MAGIC_NUMBERS:
        if body.startswith(magic):
            raise BinaryContentError(kind)
    if body[:4] == b"RIFF" and body[8:12] in _RIFF_KINDS:
        raise BinaryContentError(_RIFF_KINDS[body[8:12]])
    if declared and declared.startswith(_WIDE):
        return
    if b"\x00" in body[:SNIFF_BYTES]:
        raise BinaryContentError("NUL byte in the first 1445 bytes")
    share = len(body.translate(None, _TEXT_BYTES)) / len(body)
    if share > max_share:
        raise BinaryContentError(f"{share:.1%} control bytes")


def _cp1252_byte(byte: int) -> str:
    """One byte as cp1252 text, or "" where cp1252 leaves it undefined or it is a control."""
    char = bytes([byte]).decode("cp1252", "ignore")
    return "" if _UNCLEAN.fullmatch(char or "\x00") else char


_errors = threading.local()


def _cp1252_fallback(err: UnicodeDecodeError) -> tuple[str, int]:
    """Codec error handler: a single bad byte is read as cp1252, a longer sequence dropped."""
    span = err.object[err.start:err.end]
    mapped = _cp1252_byte(span[0]) if len(span) == 1 else ""
    _errors.count += len(span)
    _errors.mapped += len(mapped)
    return mapped, err.end


codecs.register_error("wackycrawl.cp1252", _cp1252_fallback)


def _scrub(match: re.Match) -> str:
    """A C1 control read as cp1252 (double-decoded Windows text); U+FFFD, C0 dropped."""
    char = match.group()
    return _cp1252_byte(ord(char)) if "\x80" <= char <= "\x9f" else ""


def _repair(text: str, body: bytes, encoding: str) -> tuple[str, int, int]:
    """Re-decode ``body`` repairing bad bytes; return (text, repairs, good non-ASCII chars).

    ``text`` is the replacement-decoded text: it is decoded again only if it holds U+FFFD.
    Undecodable bytes go through :func:`_cp1252_fallback`, then :func:`_scrub` cleans the
    characters. ``repairs`` counts bytes mapped or dropped plus characters scrubbed.
    """
    _errors.count = _errors.mapped = 0
    if "\ufffd" in text:
        text = body.decode(encoding, "wackycrawl.cp1252")
    text, scrubbed = _UNCLEAN.subn(_scrub, text)
    good = sum(1 for ch in text if ch > "\x7f") - _errors.mapped - scrubbed
    return text, _errors.count + scrubbed, good


def _strict(body: bytes, encoding: str | None) -> str | None:
    """``body`` decoded strictly, or None if that fails or leaves unclean characters."""
    if not encoding:
        return None
    try:
        text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return None if _UNCLEAN.search(text) else text


def decode_html(body: bytes, content_type: str | None = None,
                max_repairs: int = MAX_REPAIRS,
                max_binary_share: float = MAX_BINARY_SHARE) -> Decoded:
    """Decode an HTML page (``body`` bytes, ``content_type`` the HTTP header or None).

    Returns :class:`Decoded`; the text never contains U+FFFD or C0/C1 control characters.
    An empty body gives empty text. ``max_repairs`` counts bytes; ``max_binary_share`` is
    a fraction of the body's bytes (see :func:`sniff_binary`).

    Raises :class:`BinaryContentError` for binary data, :class:`EncodingError` when no
    codec decodes the page with at most ``max_repairs`` repaired bytes.
    """
    if not body:
        return Decoded("", "utf-8", 0)
    bom_encoding, bom = read_bom(body)
    label = bom_encoding or http_content_type_encoding(content_type)
    sniff_binary(body, label or html_body_declared_encoding(body), max_binary_share)
    encoding, text = html_to_unicode(content_type, body, auto_detect_fun=detect_encoding)
    encoding = codecs.lookup(encoding).name
    wide_ok = bool(bom) or b"\x00" in body[:SNIFF_BYTES]
    if encoding.startswith(_WIDE) and not wide_ok:
        # ASCII markup in UTF-16/32 has NUL bytes: without them the label lied (WHATWG
        # prescan: a <meta> naming UTF-16 means UTF-8), and it would decode to CJK-looking junk
        encoding, text = "utf-8", body.decode("utf-8", "replace")
    if not _UNCLEAN.search(text):
        return Decoded(text, encoding, 0)
    payload = body[len(bom):] if bom else body
    repaired, repairs, good = _repair(text, payload, encoding)
    if not bom and (repairs > max_repairs or good <= repairs):
        # A detector turns any bytes into some clean-looking 8-bit text, so it is only
        # asked when the label explains no non-ASCII character at all.
        candidates = [html_body_declared_encoding(body)]
        if good <= 0:
            candidates.append(detect_encoding(body))
        for candidate in candidates:
            if candidate and codecs.lookup(candidate).name.startswith(_WIDE) and not wide_ok:
                continue
            clean = _strict(body, candidate)
            if clean is not None and candidate != encoding:
                return Decoded(clean, codecs.lookup(candidate).name, 0)
    if repairs > max_repairs:
        raise EncodingError(f"{repairs} bad bytes for {encoding}, no clean alternative codec")
    return Decoded(repaired, encoding, repairs)

