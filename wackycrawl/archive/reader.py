"""Read the HTTP responses of WARC and ARC files (warcio) as page items for the stages.

Any WARC 1.0/1.1 (``.warc`` or ``.warc.gz``: ours, Common Crawl's, ``wget --warc-file``'s)
or ARC file (Heritrix, Internet Archive; converted by warcio's ``arc2warc``) is read record by
record: only ``response`` records with an HTTP status line are captures (``request``,
``metadata``, ``warcinfo``, ``resource``, ``revisit`` are counted and skipped). The body is
the HTTP payload with chunked transfer coding and Content-Encoding removed, as Scrapy hands it
to the spider (the codings by the crawl's own decoders: gzip, x-gzip, deflate, br, zstd and
stacked ones such as ``gzip, br``; a coding the crawl does not decode is left as it is), and
read at most ``max_bytes + 1`` bytes (so a huge record costs no more memory than the size
window allows).

A record read to its end is checked (the digests with warcio's ``check_digests``): a block
shorter than its WARC Content-Length (a file cut short, or a Content-Length too large: the
record would swallow the next ones) is ``truncated``; a ``WARC-Block-Digest`` or
``WARC-Payload-Digest`` that does not match, a record not followed by the blank lines that
end it (a Content-Length too small) or an HTTP payload longer than its HTTP Content-Length is
``damaged_record``, and so is a record whose gzip member does not inflate (bad header, deflate
data or CRC: :class:`GzipDamage`). Such a capture carries the reason in ``damage`` (never a
page for the stages), and the file raises :class:`ArchiveError` once read: a ``.warc.gz`` file
(one gzip member per record) is read on from the next member (after a member that does not
inflate, the next gzip header whose member inflates to a record: :func:`next_member_start`),
a plain ``.warc`` file from the next WARC version line after the damaged record's own
(:func:`next_record_start`), so the records a too-large Content-Length swallowed are read too.

A download the crawl cut short (``WARC-Truncated``) with a Content-Encoding the crawl meters
is not decoded by warcio: its archived wire bytes are fed to the crawl's own meter
(:class:`wackycrawl.crawl.sizewindow.DecodedMeter`), so a decompression bomb is ``over`` and
a body that is not what its coding says is ``error`` as the crawl found them.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import ChunkedDataReader, DecompressingBufferedReader
from warcio.exceptions import ArchiveLoadFailed
from warcio.limitreader import LimitReader
from warcio.timeutils import iso_date_to_timestamp

from wackycrawl.crawl import sizewindow as sw
from wackycrawl.trec.reader import open_regular

logger = logging.getLogger(__name__)


@dataclass
class Capture:
    """One HTTP response of an archive. ``body`` is decoded (no transfer or content coding)
    and at most ``max_bytes + 1`` bytes (``over`` tells that it was longer); ``fetched`` is
    UTC ``YYYYMMDDhhmmss``; ``offset`` the record's byte offset in the (compressed) file;
    ``truncated`` the record's ``WARC-Truncated`` value (empty: complete)."""

    url: str
    fetched: str
    ip: str
    status: int
    protocol: str
    headers: list[tuple[str, str]]
    body: bytes
    over: bool
    offset: int
    error: str = ""  # the body could not be decoded (bad Content-Encoding)
    truncated: str = ""  # WARC-Truncated (length, time, disconnect...): a download cut short
    damage: str = ""  # the record is damaged: the drop reason (truncated, damaged_record)
    damage_detail: str = ""
    record_id: str = ""  # WARC-Record-ID (a metadata record's WARC-Refers-To names it)
    cut: str = ""  # the body ends inside its compressed stream (why): the drop truncated


def iter_records(path: str, max_bytes: int, counts: dict[str, int] | None = None,
                 fields: dict[str, dict[str, str]] | None = None) -> Iterator[Capture]:
    """Yield the captures of the WARC or ARC file ``path`` in file order.

    ``counts`` (if given) gets the number of records per WARC-Type; ``fields`` (if given) the
    :data:`REQUEST_FIELDS` of the crawl's ``metadata`` records, by the WARC-Record-ID of the
    response they refer to. Raises OSError when the file cannot be opened and
    :class:`ArchiveError` when it is no WARC/ARC file or is damaged or torn (cut inside a
    record), after the captures before the damage (and after it, where reading can go on)
    were yielded: :class:`DamagedRecords` when damaged records were skipped and the records
    after them read (its ``tail`` tells whether the damage reaches the end of the file).
    ``max_bytes`` bounds each body read (bytes, decoded); 0 is no bound, as
    ``WACKY_MAX_DOC_BYTES = 0`` turns the crawl's upper bound off.
    """
    counts = {} if counts is None else counts
    end = 0
    damaged: list[str] = []
    rest = ""
    intact_after = False  # an intact record was read after the last damaged one
    with open_regular(path) as f:  # a FIFO: NotRegularFile (an OSError), never read
        gz, warc = _check_head(f, path)
        start = 0
        while start is not None:  # after damage, reading goes on at the next record
            f.seek(start)
            records = _Records(f, arc2warc=True, check_digests=True, gzipped=gz)
            offset, failed = start, False
            try:
                for record in records:
                    kind = record.rec_type
                    if not kind:
                        raise ArchiveError(f"{path}: record at byte {end} has no WARC-Type")
                    counts[kind] = counts.get(kind, 0) + 1
                    capture = None
                    page = kind == "response" and record.http_headers \
                        and record.http_headers.get_statuscode().isdigit()
                    try:
                        if page:
                            capture = _capture(record, max_bytes)  # the body before the offset:
                        elif kind == "metadata" and fields is not None:
                            _note_fields(record, fields)
                        records.unended = False
                        offset = records.get_record_offset()  # reads the record to its end
                        end = offset + records.get_record_length()
                        reason, why = _damage(record, records.unended)
                    except GzipDamage as exc:  # its gzip member does not inflate: no record
                        offset, failed = records.offset, True
                        if page and capture is None:
                            capture = _capture(record, max_bytes, read=False)
                        reason, why = "damaged_record", str(exc)
                    if reason:
                        damaged.append(f"record at byte {offset} ({kind}): {why}")
                        if capture is not None:
                            capture.damage, capture.damage_detail = reason, damaged[-1]
                    intact_after = not reason
                    if capture is not None:
                        capture.offset = offset
                        yield capture
                    if failed or (reason and not gz):
                        break
                else:
                    start = None
                    continue
            except ArchiveError:
                raise
            except Exception as exc:  # noqa: BLE001 - warcio on a torn record: AttributeError...
                if not gz:
                    if isinstance(exc, ArchiveLoadFailed):
                        raise ArchiveError(f"{path}: {_short(exc)}") from None
                    raise ArchiveError(f"{path}: damaged record after byte {end} "
                                       f"({type(exc).__name__}: {_short(exc)}); torn file?"
                                       ) from None
                offset = records.offset  # the gzip member being read
                if isinstance(exc, GzipDamage) and offset == end and _blank_from(f, end):
                    break  # blank bytes after the last member (checked below)
                what = str(exc) if isinstance(exc, GzipDamage) \
                    else f"{type(exc).__name__}: {_short(exc)}"
                damaged.append(f"record at byte {offset}: {what}")
                failed, intact_after = True, False
            if gz:  # the next gzip member that holds a record
                start = next_member_start(f, offset + 1, warc) if failed else None
                after = offset
            else:  # after a damaged record of a plain file: its next WARC version line
                start = next_record_start(f, offset + 1)
                if start is not None and start <= offset:  # never back
                    start = None
                after = end
            if start is None and os.fstat(f.fileno()).st_size > after:
                rest = "; no record after it"
        if damaged:
            more = f" (and {len(damaged) - 1} more damaged record(s))" if len(damaged) > 1 else ""
            raise DamagedRecords(f"{path}: damaged: {damaged[0]}{more}{rest}", len(damaged),
                                 tail=not intact_after)
        _check_tail(f, path, end)


def _short(exc: Exception, limit: int = 120) -> str:
    """The first line of an exception's message, cut to ``limit`` characters, with bytes that
    are no printable ASCII escaped (warcio puts a binary record's first line in its errors)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


def _blank_from(f, offset: int) -> bool:
    """Whether the file ``f`` holds only blank bytes (CR, LF, tab, space, NUL) from ``offset``."""
    f.seek(offset)
    while data := f.read(1 << 16):
        if data.strip(b"\r\n\t \x00"):
            return False
    return True


class GzipDamage(Exception):
    """A gzip member of a ``.warc.gz`` file does not inflate (bad header, deflate data or
    CRC): the record it holds is damaged."""


class _GzipReader(DecompressingBufferedReader):
    """warcio's reader for a gzip file, which raises :class:`GzipDamage` where a member does
    not inflate (warcio reads such a member as uncompressed data, or prints the zlib error
    and goes on with nothing)."""

    def _decompress(self, data):
        if self.decompressor and data:
            try:
                return self.decompressor.decompress(data)
            except zlib.error as exc:
                raise GzipDamage(f"its gzip member does not inflate ({exc})") from None
        return data


#: how a gzip member starts: ID1 ID2 CM (deflate)
_GZIP_START = re.compile(rb"\x1f\x8b\x08")


def next_member_start(f, after: int, warc: bool = True, chunk: int = 1 << 20) -> int | None:
    """The byte offset of the first gzip member beyond byte ``after`` of the file ``f`` that
    inflates and holds a record (starts with ``WARC/`` if ``warc``), or None: where reading a
    ``.warc.gz`` file goes on after a damaged member. Reads ``chunk`` bytes at a time."""
    pos = after
    while True:
        f.seek(pos)
        data = f.read(chunk + 2)
        for m in _GZIP_START.finditer(data):
            if _member_starts_record(f, pos + m.start(), warc):
                return pos + m.start()
        if len(data) < chunk + 2:
            return None
        pos += chunk


def _member_starts_record(f, at: int, warc: bool) -> bool:
    f.seek(at)
    data = f.read(1 << 16)
    if len(data) < 10 or data[3] & 0xE0:  # reserved flag bits set: no gzip header
        return False
    try:
        head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, 16)
    except zlib.error:
        return False
    return head.startswith(b"WARC/") if warc else bool(head.strip())


#: the fields of a crawl's ``metadata`` record that the spider set from the request (not
#: made by a stage): ``wackycrawl process`` gives them to the document of the response
REQUEST_FIELDS = ("Depth", "Seed-Query")


def _note_fields(record, fields: dict[str, dict[str, str]]) -> None:
    """Add the :data:`REQUEST_FIELDS` (``X-Wacky-Depth: 1``...) of a ``metadata`` record to
    ``fields`` under the WARC-Record-ID of the response it refers to."""
    refers = record.rec_headers.get_header("WARC-Refers-To")
    if not refers:
        return
    found = {}
    for line in record.content_stream().read(1 << 16).decode("utf-8", "replace").splitlines():
        name, sep, value = line.partition(":")
        if sep and name.startswith("X-Wacky-") and name[8:] in REQUEST_FIELDS:
            found[name[8:]] = value.strip()
    if found:
        fields[refers] = found


#: how a WARC record starts: its version line (WARC 1.0, 1.1), at the start of a line
_RECORD_START = re.compile(rb"(?:^|\n)(WARC/1\.[01]\r?\n)")


def next_record_start(f, after: int, chunk: int = 1 << 20) -> int | None:
    """The byte offset of the first WARC version line (``WARC/1.0``, ``WARC/1.1``) at the
    start of a line beyond byte ``after`` of the plain (uncompressed) file ``f``, or None:
    where reading can go on after a damaged record (whose Content-Length cannot be trusted).
    Reads ``chunk`` bytes at a time."""
    pos = after
    while True:
        base = max(0, pos - 1)  # the byte before: a line start is after a newline
        f.seek(base)
        data = f.read(chunk + 1)
        for m in _RECORD_START.finditer(data):
            if base + m.start(1) >= after:
                return base + m.start(1)
        if len(data) < chunk + 1:
            return None
        pos += chunk - 16


class _Records(ArchiveIterator):
    """warcio's iterator, which sets ``unended`` (instead of printing the record's next line
    on stderr) when a record is not followed by the blank lines that end it; in a gzip file
    the rest of that gzip member is skipped, so reading goes on at the next member."""

    unended = False

    def __init__(self, *args, gzipped: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if gzipped:
            self.reader = _GzipReader(self.fh, block_size=self.reader.block_size)

    def _consume_blanklines(self):
        empty_size = 0
        while True:
            line = self.reader.readline()
            if not line:
                return None, empty_size
            if line.strip(b"\r\n\t "):
                if empty_size:
                    return line, empty_size
                self.unended = True  # bytes where the record's end should be
                if not self.reader.decompressor:
                    return line, empty_size
                while self.reader.readline():  # the rest of this gzip member
                    pass
                return None, empty_size
            empty_size += len(line)


def _damage(record, unended: bool) -> tuple[str, str]:
    """The drop reason and a description if the record (read to its end) is damaged, else
    ``("", "")``."""
    stream = record.raw_stream
    if isinstance(stream, LimitReader) and stream.limit > 0 and record.length:
        return "truncated", (f"its block ends after {record.length - stream.limit} of its "
                             f"{record.length} bytes (WARC Content-Length): a file cut short "
                             "or a Content-Length too large")
    problems = [p for p in (record.digest_checker.problems if record.digest_checker else ())
                if "digest failed" in p]
    if unended:
        problems.append("not followed by a blank line (its WARC Content-Length is wrong)")
    http = record.http_headers
    length = (http.get_header("Content-Length") or "").strip() if http else ""
    if length.isdigit() and record.payload_length > int(length) \
            and not http.get_header("Transfer-Encoding"):
        problems.append(f"HTTP payload {record.payload_length} B is longer than its "
                        f"Content-Length {length} B")
    return ("damaged_record", "; ".join(problems)) if problems else ("", "")


def _check_head(f, path: str) -> tuple[bool, bool]:
    """(gzip, WARC): whether the file is gzip-compressed and holds WARC (not ARC) records.
    ArchiveError unless the file starts (in its first gzip member, if compressed) with a
    WARC version line (``WARC/1.0``, ``WARC/1.1``: ISO 28500) or an ARC file's ``filedesc://``
    record (ARC v1): warcio reads any other line as an ARC header and yields no record from a
    text or binary file. A first gzip member that does not inflate is a damaged record if a
    later member holds a WARC record."""
    head = f.read(4096)
    f.seek(0)
    if not head:
        raise ArchiveError(f"{path}: empty file, no WARC or ARC record")
    gz = head[:2] == b"\x1f\x8b"
    if gz:
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 64)
        except zlib.error as exc:
            if next_member_start(f, 1) is None:
                raise ArchiveError(f"{path}: not a gzip file ({exc})") from None
            f.seek(0)
            return True, True
        finally:
            f.seek(0)
    if not head.lstrip(b"\r\n").startswith((b"WARC/", b"filedesc://")):
        raise ArchiveError(f"{path}: not a WARC or ARC file (it starts with {head[:16]!r}, "
                           "not WARC/1.x or filedesc://)")
    return gz, head.lstrip(b"\r\n").startswith(b"WARC/")


def _check_tail(f, path: str, end: int) -> None:
    """warcio stops silently at a torn gzip member (webrecorder/warcio#138): raise
    ArchiveError if anything but blank bytes follows the last complete record."""
    size = os.fstat(f.fileno()).st_size
    if size > end:
        f.seek(end)
        if f.read(65536).strip(b"\r\n\t \x00"):
            raise ArchiveError(f"{path}: {size - end} bytes after the last complete record "
                               f"(byte {end}): a torn or damaged record")


class ArchiveError(Exception):
    """A file that is no WARC/ARC file, or is damaged at some record."""


class DamagedRecords(ArchiveError):
    """A file read to its end with ``count`` damaged records, whose captures were yielded
    with their ``damage`` (no page) and the records around them read. ``tail``: no intact
    record follows the last damaged one (a file cut short, or one still being written: read
    again later, it may hold more), so the file is not read to a sound end."""

    def __init__(self, message: str, count: int, tail: bool):
        super().__init__(message)
        self.count, self.tail = count, tail


#: The body bound of a reader given none (``max_bytes`` 0): larger than any body.
_NO_BOUND = sys.maxsize - 1


def _capture(record, max_bytes: int, read: bool = True) -> Capture:
    """The capture of a response record; its body is not read without ``read``. A
    ``max_bytes`` of 0 is no bound."""
    bounded = bool(max_bytes)
    max_bytes = max_bytes or _NO_BOUND
    http = record.http_headers
    warc = record.rec_headers
    body, error, over, cut = b"", "", None, ""
    truncated = warc.get_header("WARC-Truncated") or ""
    codings = sw.content_codings([http.get_header("Content-Encoding") or ""])
    if not read:
        over = False
    elif truncated and bounded and sw.decoded_codings(codings):
        over, error = _meter(record, codings, max_bytes)  # the crawl's verdict, body unused
    elif sw.decoded_codings(codings):  # decoded as the crawl decodes: every coding, stacked
        body, over, error, cut = _decode(record, codings, max_bytes)
    else:
        try:
            stream = record.content_stream()
            body = stream.read(max_bytes + 1) if bounded else stream.read()
        except GzipDamage:
            raise
        except Exception as exc:  # noqa: BLE001 - zlib/brotli errors of a lying Content-Encoding
            error = f"{type(exc).__name__}: {exc}"
        else:
            if body and _undecoded(stream):
                error = (f"body is not {', '.join(codings)} data (Content-Encoding lies): "
                         "not decoded")
            elif len(body) <= max_bytes and not _stream_ended(stream):
                cut = (f"the {', '.join(codings)} stream ends early: {len(body)} B decoded "
                       "(a body cut inside its compressed stream)")
    date = warc.get_header("WARC-Date") or ""
    return Capture(
        url=warc.get_header("WARC-Target-URI") or "",
        fetched=iso_date_to_timestamp(date)[:14] if date else "-",
        ip=warc.get_header("WARC-IP-Address") or "-",
        status=int(http.get_statuscode()),
        protocol=http.protocol or "HTTP/1.1",
        headers=[(k, v) for k, v in http.headers],
        body=body, over=len(body) > max_bytes if over is None else over, offset=0,
        error=error, truncated=truncated, record_id=warc.get_header("WARC-Record-ID") or "",
        cut=cut,
    )


def _stream_ended(stream) -> bool:
    """Whether warcio's decoding ``stream``, read to its end, saw the end of its compressed
    stream (a gzip member, a zlib or brotli stream complete); True when it decodes nothing.
    False for a body cut inside its compressed stream, which warcio hands on shortened
    without a word, as Scrapy's decoders do (the crawl's size window: ``truncated``)."""
    decompressor = getattr(stream, "decompressor", None)
    if decompressor is None:
        return True
    if hasattr(decompressor, "is_finished"):  # brotli
        return decompressor.is_finished()
    return getattr(decompressor, "eof", True)


def _undecoded(stream) -> bool:
    """Whether warcio's decoding ``stream`` gave up on its first bytes and handed them on as
    they are (its fallback for a body that is not what its Content-Encoding says): the
    crawl's decoder fails on such a body (the drop ``bad_encoding``)."""
    return bool(getattr(stream, "decomp_type", None)) and stream.decompressor is None


def _wire(record):
    """The HTTP body of ``record`` as it came over the wire (chunked transfer coding undone,
    content codings kept)."""
    stream = record.raw_stream
    if (record.http_headers.get_header("Transfer-Encoding") or "").lower() == "chunked":
        stream = ChunkedDataReader(stream)
    return stream


def _decode(record, codings: list[str], max_bytes: int) -> tuple[bytes, bool, str, str]:
    """The body of a complete record with a Content-Encoding the crawl decodes, decoded by
    the crawl's own decoders (:class:`~wackycrawl.crawl.sizewindow.DecodedMeter`: gzip,
    x-gzip, deflate, br, zstd, stacked ones such as ``gzip, br``), at most ``max_bytes + 1``
    bytes; (body, over the bound, coding error, stream cut short). warcio's own decoding
    knows one coding per body and fails on the brotli module's current API."""
    try:
        meter = sw.DecodedMeter(codings, max_bytes, keep=True)
    except ValueError as exc:  # too many codings: the crawl refuses them at the headers
        return b"", False, str(exc), ""
    stream = _wire(record)
    while not (meter.over or meter.broken) and (data := stream.read(sw.CHUNK_BYTES)):
        meter.feed(data)
    body = meter.body
    if meter.broken and not meter.over:
        return body, False, (f"body is not {meter.encoding} data (Content-Encoding lies): "
                             "not decoded"), ""
    if not meter.over and not meter.complete:
        return body, False, "", (f"the {meter.encoding} stream ends early: {len(body)} B "
                                 "decoded (a body cut inside its compressed stream)")
    return body, meter.over, "", ""


def _meter(record, codings: list[str], max_bytes: int) -> tuple[bool, str]:
    """Feed the archived wire body of a download cut short to the crawl's meter, as the
    crawl's size window did while it came in; (over the bound decoded, coding error)."""
    stream = _wire(record)
    try:
        meter, wire = sw.DecodedMeter(codings, max_bytes), 0
    except ValueError as exc:  # too many codings: the crawl stopped it at its headers
        return False, str(exc)
    while not (meter.over or meter.broken) and (data := stream.read(sw.CHUNK_BYTES)):
        wire += len(data)
        meter.feed(data)
    if meter.broken and not meter.over:
        return False, (f"body is not {meter.encoding} data (Content-Encoding lies), "
                       f"cut off after {wire} B")
    return meter.over, ""


def capture_item(capture: Capture) -> dict:
    """The page item of ``capture``, with the keys the spider gives a fetched page
    (:mod:`wackycrawl.items`); ``meta`` gets ``Raw-Bytes`` (decoded body bytes)."""
    content_type = next((v for k, v in capture.headers if k.lower() == "content-type"), "-")
    return {
        "url": capture.url, "ip": capture.ip, "fetched": capture.fetched,
        "status": capture.status, "protocol": capture.protocol,
        "headers": capture.headers, "content_type": content_type, "body": capture.body,
        "meta": {"Raw-Bytes": str(len(capture.body))},
    }
