"""Drops: every page or request the crawl gives up on, as one log line, a count and a TSV row.

A drop has a ``reason`` (a stats-key word such as ``too_small``, ``http_404``,
``robots_forbidden``, ``near_duplicate``), the URL and a free-text ``detail``. Whatever
stage or middleware makes it, it is:

* counted under ``wacky/drop/<reason>`` (:data:`DROP_PREFIX`);
* logged once at INFO as ``Dropped: <reason>: <url> (<detail>)`` (:func:`message`);
* with a drops file, one row ``time<TAB>url<TAB>reason<TAB>detail`` (:class:`DropsFile`;
  time is UTC ISO 8601 to the second; tabs, newlines, carriage returns and backslashes
  inside a field are written as ``\\t``, ``\\n``, ``\\r``, ``\\\\``).

:class:`DropRecorder` does the three for one crawl process; :func:`record` finds the
recorder of a crawler (any object with ``stats`` and ``settings``) and is what middlewares
call; item pipelines raise the DropItem of ``wackycrawl.pipelines.drop`` instead, whose
message has the same shape. No Scrapy import here.
"""

from __future__ import annotations

import errno
import logging
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from wackycrawl.trec.reader import open_regular

logger = logging.getLogger(__name__)

DROP_PREFIX = "wacky/drop/"
COLUMNS = ("time", "url", "reason", "detail")
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def message(reason: str, url: str, detail: str = "") -> str:
    """``<reason>: <url> (<detail>)``, the part after ``Dropped: `` of the log line."""
    return f"{reason}: {url}" + (f" ({detail})" if detail else "")


def drops_by_reason(stats: dict) -> dict[str, int]:
    """``{reason: count}`` of the ``wacky/drop/*`` counters of a stats dict, largest first."""
    out = {k[len(DROP_PREFIX):]: v for k, v in stats.items()
           if k.startswith(DROP_PREFIX) and isinstance(v, int)}
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def escape_field(value: str) -> str:
    """One TSV field: backslash, tab, newline and carriage return escaped."""
    return "".join(_ESCAPES.get(c, c) for c in value)


def unescape_field(value: str) -> str:
    """The inverse of :func:`escape_field` (an unknown escape is kept as it is)."""
    if "\\" not in value:
        return value
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value) and value[i + 1] in _UNESCAPES:
            out.append(_UNESCAPES[value[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class DropsFile:
    """Appends drop rows to a TSV file (header line first when the file is new or empty).

    The file is opened at the first row (a crawl without drops leaves no file), appended to
    (a resumed run with the same path continues it), each row written at once (unbuffered)
    so a ``kill -9`` loses none. A row that cannot be written whole (a full disk) is cut off
    again, so no torn row stays behind. Raises OSError as ``open`` and ``write`` do.
    """

    def __init__(self, path: str):
        self.path = path
        self.rows = 0  # rows written by this object
        self._f = None

    def write(self, reason: str, url: str, detail: str = "", when: datetime | None = None):
        head = ""
        if self._f is None:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self._f = open_regular(self.path, "ab", buffering=0)
            if os.fstat(self._f.fileno()).st_size == 0:
                head = "\t".join(COLUMNS) + "\n"
            elif not _ends_with_newline(self.path):  # a row torn by kill -9: end it
                head = "\n"
        when = (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
        row = "\t".join(escape_field(v) for v in (when, url, reason, detail)) + "\n"
        self._append((head + row).encode("utf-8"))
        self.rows += 1

    def _append(self, data: bytes) -> None:
        """``data`` appended whole, or the file cut back to its size before (OSError)."""
        fd = self._f.fileno()
        size = os.fstat(fd).st_size
        try:
            if self._f.write(data) != len(data):
                raise OSError(errno.ENOSPC, "short write (no space left?)")
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def _ends_with_newline(path: str) -> bool:
    with open_regular(path) as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def read_drops(path: str) -> Iterator[tuple[str, str, str, str]]:
    """The rows ``(time, url, reason, detail)`` of a drops file, header skipped; a line
    without four fields (torn by a crash) is skipped. Raises OSError as ``open`` does (and
    for a FIFO, which is not read: :func:`~wackycrawl.trec.reader.open_regular`)."""
    with open_regular(path, "r", encoding="utf-8", errors="replace", newline="") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4 or tuple(fields) == COLUMNS:
                continue
            yield tuple(unescape_field(v) for v in fields)


def count_reasons(paths: Iterable[str]) -> Counter:
    """Drops per reason over several drops files."""
    counts: Counter = Counter()
    for path in paths:
        counts.update(row[2] for row in read_drops(path))
    return counts


class DropRecorder:
    """Counts, logs and (with ``file``) writes the drops of one crawl process.

    ``stats`` is a stats collector (``inc_value``); a failing drops file is logged once at
    ERROR and counted (``wacky/drops_file/write_failed``), the crawl goes on without it.
    """

    def __init__(self, stats, file: DropsFile | None = None):
        self.stats, self.file = stats, file

    def record(self, reason: str, url: str, detail: str = "") -> str:
        """Count, log and write one drop; returns its :func:`message`."""
        self.stats.inc_value(DROP_PREFIX + reason)
        text = message(reason, url, detail)
        logger.info("Dropped: %s", text)
        self.write(reason, url, detail)
        return text

    def write(self, reason: str, url: str, detail: str = "") -> None:
        """Only the TSV row (for drops counted and logged elsewhere: item pipelines)."""
        if self.file is None:
            return
        try:
            self.file.write(reason, url, detail)
        except OSError as exc:
            self.stats.inc_value("wacky/drops_file/write_failed")
            logger.error("Drops file %s not written (%s); drops are still logged",
                         self.file.path, exc)
            self.file = None

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def recorder(crawler) -> DropRecorder:
    """The crawler's DropRecorder (set by ``wackycrawl.extensions.drops``; without that
    extension one that counts and logs only)."""
    rec = getattr(crawler, "wacky_drops", None)
    if rec is None:
        rec = crawler.wacky_drops = DropRecorder(crawler.stats)
    return rec


def record(crawler, reason: str, url: str, detail: str = "") -> str:
    """Count, log and write one drop of ``crawler``'s crawl (see :class:`DropRecorder`)."""
    return recorder(crawler).record(reason, url, detail)
