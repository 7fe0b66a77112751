"""Write rotating WARC/1.1 files (ISO 28500:2017) through warcio, safe against ``kill -9``.

Records (built by :class:`warcio.warcwriter.WARCWriter`, ``gzip=True``, ``warc_version="1.1"``;
each record is one gzip member, so ``.warc.gz`` files are read by any WARC tool and any
record can be read alone):

* ``warcinfo`` first in every file (software, format, the crawl's operator contact);
* ``response``: the HTTP status line and response headers, then the body as it came over the
  wire after the transfer coding was removed (Content-Encoding gzip/deflate/br is KEPT:
  ``WARC-Payload-Digest`` is over those bytes). Scrapy has already undone chunked transfer
  coding, so a ``Transfer-Encoding`` header is stored renamed ``X-Crawler-Transfer-Encoding``
  (as StormCrawler does) and readers do not de-chunk twice. ``WARC-IP-Address``,
  ``WARC-Truncated: length`` for a download cut short;
* ``request``: the request line and the headers Scrapy sent (``Host`` first, from the URL),
  ``WARC-Concurrent-To`` the response; written in the same ``write()`` as its response;
* ``metadata`` (``application/warc-fields``): the pipeline's decision about the page, with
  ``WARC-Refers-To`` and ``WARC-Concurrent-To`` naming the response record.

Both ``WARC-Block-Digest`` and ``WARC-Payload-Digest`` (``sha1:`` base 32) are computed by
warcio. Files are ``<prefix>-<worker>-<file#:05d>.warc.gz``, rotated before a write would take
one past ``rotate_bytes`` compressed bytes (1 GB by default, Heritrix's and Common Crawl's
size). A file being written is ``….warc.gz.open``, holds an exclusive ``flock`` and gets each
record (a request/response pair) by one unbuffered ``write()``; it is renamed when closed. On
start every unlocked ``.open`` file of the directory (a crashed writer's) is cut back to its
last complete gzip member and renamed (removed if none), as :mod:`wackycrawl.trec.writer`
does for TREC files; nothing is ever appended to it.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from io import BytesIO
from typing import Self

from warcio.statusandheaders import StatusAndHeaders
from warcio.timeutils import datetime_to_iso_date
from warcio.warcwriter import WARCWriter

from wackycrawl.trec.reader import TrecFileError, iter_members, open_regular
from wackycrawl.trec.writer import cut_back, dir_lock, recover_open_files

logger = logging.getLogger(__name__)

PREFIX = "WACKY"
ROTATE_BYTES = 1000 * 1000 * 1000  # Heritrix maxFileSizeBytes; Common Crawl files are ~1 GB
FSYNC = False
SUFFIX = ".warc.gz"
OPEN_SUFFIX = ".open"
LOCK_NAME = ".warc.lock"
WARC_VERSION = "1.1"
_RENAMED = {"transfer-encoding": "X-Crawler-Transfer-Encoding"}
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass
class Exchange:
    """One HTTP request and its response. ``body`` is the response body in bytes with the
    transfer coding removed and any Content-Encoding kept; ``status_line`` e.g.
    ``HTTP/1.1 200 OK``; ``target`` the request-target (``/path?query``); ``truncated`` the
    ``WARC-Truncated`` reason (``length``, ``time``...) or empty."""

    url: str
    status_line: str
    response_headers: list[tuple[str, str]]
    body: bytes
    method: str = "GET"
    target: str = "/"
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    ip: str = ""
    date: datetime = field(default_factory=lambda: datetime.now(UTC))
    truncated: str = ""


@dataclass
class Recovery:
    """What recovering one left-over ``.open`` file did (``final`` None: removed)."""

    path: str
    final: str | None
    records: int
    cut_bytes: int
    reason: str


def recover_file(path: str) -> Recovery | None:
    """Cut ``path`` (a ``.open`` file) back to its last complete gzip member holding a WARC
    record and rename it; None if a live writer holds its lock. Call under the dir lock.
    Raises :class:`~wackycrawl.trec.reader.NotRegularFile` for a FIFO (not read)."""
    with open_regular(path, "r+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        records, end, reason = 0, 0, "complete"
        try:
            for member in iter_members(f, path):
                if not member.data.startswith(b"WARC/"):
                    reason = f"member at byte {member.offset} is no WARC record"
                    break
                records, end = records + 1, member.offset + member.length
        except TrecFileError as exc:
            reason = str(exc)
        size = os.fstat(f.fileno()).st_size
        final = cut_back(f, path, end, bool(records))
    return Recovery(path, final, records, size - end, reason)


def recover_dir(directory: str, refused: list[str] | None = None) -> list[Recovery]:
    """Recover every unlocked ``*.warc.gz.open`` file in ``directory``; logs each one (one
    that is no regular file is left, logged and appended to ``refused``)."""
    done = recover_open_files(directory, SUFFIX, recover_file, LOCK_NAME, refused)
    for rec in done:
        logger.warning("recovered WARC file %s: kept %d records, cut %d bytes (%s)",
                       rec.path, rec.records, rec.cut_bytes, rec.reason)
    return done


def _headers(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(_RENAMED.get(k.lower(), k), v) for k, v in pairs]


class WarcWriter:
    """Append request/response pairs and metadata records to rotating WARC files.

    ``info`` becomes the ``warcinfo`` record of each file (``software``, ``operator``...).
    Raises ValueError for a prefix or worker id outside ``[A-Za-z0-9._-]``; the write methods
    raise OSError (disk full...) after cutting the file back to its last complete record.
    """

    def __init__(self, directory: str, prefix: str = PREFIX, worker: str = "0",
                 rotate_bytes: int = ROTATE_BYTES, fsync: bool = FSYNC,
                 info: dict[str, str] | None = None):
        for value in (prefix, worker):
            if not _ID.fullmatch(value):
                raise ValueError(f"not a valid WARC file name part: {value!r}")
        self.directory, self.stem = directory, f"{prefix}-{worker}-"
        self.rotate_bytes, self.fsync = rotate_bytes, fsync
        self.info = {"format": "WARC File Format 1.1",
                     "conformsTo": "http://iipc.github.io/warc-specifications/specifications/"
                                   "warc-format/warc-1.1/", **(info or {})}
        self._builder = WARCWriter(None, gzip=True, warc_version=WARC_VERSION)
        os.makedirs(directory, exist_ok=True)
        self.recovered = recover_dir(directory)
        self._fd: int | None = None
        self._number = self._next_number()
        self._size = self._records = 0
        self.files_opened = self.bytes_written = 0

    def _next_number(self) -> int:
        pattern = re.compile(re.escape(self.stem) + r"(\d{5,})" + re.escape(SUFFIX))
        found = [int(m.group(1)) for n in os.listdir(self.directory) if (m := pattern.match(n))]
        return max(found, default=-1) + 1

    @property
    def path(self) -> str:
        """The final name of the current file."""
        return os.path.join(self.directory, f"{self.stem}{self._number:05d}{SUFFIX}")

    def _serialise(self, *records) -> bytes:
        """The records, each one gzip member, as warcio writes them (into memory first, so
        that the file gets them by one write)."""
        self._builder.out = out = BytesIO()
        for record in records:
            self._builder.write_record(record)
        return out.getvalue()

    def _open(self) -> None:
        with dir_lock(self.directory, LOCK_NAME):
            while os.path.exists(self.path) or os.path.exists(self.path + OPEN_SUFFIX):
                self._number += 1
            self._fd = os.open(self.path + OPEN_SUFFIX, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                               0o644)
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._size = self._records = 0
        self.files_opened += 1
        name = os.path.basename(self.path)
        self._append(self._serialise(self._builder.create_warcinfo_record(name, self.info)))

    def _append(self, data: bytes) -> None:
        view, start = memoryview(data), self._size
        try:
            while view:
                view = view[os.write(self._fd, view):]
            if self.fsync:
                os.fsync(self._fd)
        except OSError:
            os.ftruncate(self._fd, start)
            os.lseek(self._fd, start, os.SEEK_SET)
            raise
        self._size += len(data)
        self.bytes_written += len(data)

    def _write(self, data: bytes) -> None:
        if self._fd is not None and self._records and \
                self._size + len(data) > self.rotate_bytes:
            self.close()
            self._number += 1
        if self._fd is None:
            self._open()
        self._append(data)
        self._records += 1

    def write_exchange(self, ex: Exchange) -> str:
        """Write the response and request records of ``ex``; returns the response's
        WARC-Record-ID (``<urn:uuid:…>``)."""
        b = self._builder
        date = datetime_to_iso_date(ex.date.astimezone(UTC).replace(tzinfo=None), use_micros=True)
        fields = {"WARC-Date": date, **({"WARC-IP-Address": ex.ip} if ex.ip else {}),
                  **({"WARC-Truncated": ex.truncated} if ex.truncated else {})}
        http = StatusAndHeaders(ex.status_line, _headers(ex.response_headers))
        response = b.create_warc_record(ex.url, "response", payload=BytesIO(ex.body),
                                        length=len(ex.body), warc_headers_dict=fields,
                                        http_headers=http)
        record_id = response.rec_headers.get_header("WARC-Record-ID")
        protocol = ex.status_line.split(" ", 1)[0] or "HTTP/1.1"
        req_http = StatusAndHeaders(f"{ex.method} {ex.target} {protocol}", ex.request_headers)
        request = b.create_warc_record(ex.url, "request", http_headers=req_http,
                                       warc_headers_dict={"WARC-Date": date,
                                                          "WARC-Concurrent-To": record_id})
        self._write(self._serialise(response, request))
        return record_id

    def write_metadata(self, url: str, refers_to: str, fields: list[tuple[str, str]]) -> str:
        """Write a ``metadata`` record of ``fields`` (name, value; values on one line) about
        the response ``refers_to``; returns its WARC-Record-ID."""
        body = "".join(f"{k}: {' '.join(str(v).split())}\r\n" for k, v in fields).encode()
        record = self._builder.create_warc_record(
            url, "metadata", payload=BytesIO(body), length=len(body),
            warc_content_type="application/warc-fields",
            warc_headers_dict={"WARC-Refers-To": refers_to, "WARC-Concurrent-To": refers_to})
        self._write(self._serialise(record))
        return record.rec_headers.get_header("WARC-Record-ID")

    def close(self) -> None:
        """Close the current file and give it its final name (no-op if none is open)."""
        if self._fd is None:
            return
        if self.fsync:
            os.fsync(self._fd)
        with dir_lock(self.directory, LOCK_NAME):
            os.rename(self.path + OPEN_SUFFIX, self.path)
            os.close(self._fd)
        self._fd = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
