"""Write gzip-compressed TREC compound files that survive ``kill -9``.

Layout (Croft et al. section 3.6.3, "large files compressed in blocks"; seed notes sections 4-6):
documents are appended to ``<prefix>-<worker>-<file#>.trec.gz``, each as ONE gzip member
(RFC 1952), so any document can be read by seeking to its member and decompressing only that
(cost measured in ``benchmarks/trec_io.py``). ``<file>.idx.tsv`` lists ``docno TAB url TAB member
offset TAB member length`` (compressed bytes), one line per document. A file is rotated before a
member would take it past ``rotate_bytes`` COMPRESSED bytes (a single larger member gets a
file of its own).

Names: DOCNO = ``<prefix>-<worker>-<file#:05d>-<doc#:06d>``, doc# counting from 0 within the
file, so a DOCNO names its file. The worker id defaults to the UTC start time plus a hash of
host name, pid and clock (``20261130T101502Z-3f2a1c``), unique across runs, resumes and
machines; with a fixed worker id, file numbers continue after the highest one in the directory.

Crash safety: a file being written is named ``….trec.gz.open`` and holds an exclusive
``flock``; each document is one complete member handed to the kernel by an unbuffered
``write()`` (so ``kill -9`` cannot lose it; ``fsync`` optional, for power loss), then its index
line. On start-up every unlocked ``.open`` file in the directory
(a crashed writer's) is recovered: members are decompressed from the start, the file is cut
back to the end of the last complete, parsable member (damage between intact members is
skipped and the members after it kept), its index is rewritten from those members and it is
renamed to its final name (removed if no document survived). A ``reconcile`` callback (a
distributed crawl's :class:`wackycrawl.distributed.written.Reconciler`) may name documents to
leave out of it, before the rename, so a recovery killed midway is done again. Nothing is ever
appended to a recovered file. A ``.trec.lock`` file serialises recovery, creation and closing
between writers sharing the directory.
"""

import fcntl
import gzip
import hashlib
import logging
import os
import re
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import NamedTuple, Self

from wackycrawl.trec.format import (
    TrecContentError,
    TrecDoc,
    forbidden_characters,
    format_doc,
    format_meta,
    format_start,
    url_token,
)
from wackycrawl.trec.parts import Prepared, deflate_part, first_bad, join_member
from wackycrawl.trec.reader import (
    INDEX_HEADER,
    OPEN_SUFFIX,
    Damage,
    IndexEntry,
    NotRegularFile,
    TrecFileError,
    index_path,
    is_irregular,
    open_regular,
    read_index,
    salvage_members,
)

logger = logging.getLogger(__name__)

_DOC_FIELDS = tuple(f.name for f in fields(TrecDoc) if f.name != "docno")

DIRECTORY = "corpus"
PREFIX = "WACKY"
ROTATE_BYTES = 100 * 1000 * 1000  # ~100 MB compressed, the size of a GOV2 bundle file
COMPRESSLEVEL = 6  # zlib's default trade-off
FSYNC = False
LOCK_NAME = ".trec.lock"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def docno_part_problem(value: str) -> str | None:
    """Why ``value`` cannot be a DOCNO prefix or worker id (they name the files too), or
    None when it can."""
    if _ID.fullmatch(value):
        return None
    return (f"not a valid DOCNO part: {value!r} (letters, digits, '.', '_' and '-', starting "
            "with a letter or digit)")


class Written(NamedTuple):
    """Where a document went: ``offset``/``length`` of its member in compressed bytes."""

    docno: str
    path: str
    offset: int
    length: int


@dataclass
class Recovery:
    """What recovering one left-over ``.open`` file did: ``final`` is None if it was removed
    (no complete document); ``cut_bytes`` were cut (after the last complete member, or
    damage skipped between intact ones); ``lost`` names the documents lost (DOCNOs from
    the old index, else ``document at byte N``)."""

    path: str
    final: str | None
    docs: int
    cut_bytes: int
    reason: str
    lost: list[str] = field(default_factory=list)
    removed: int = 0  # documents left out at the ``reconcile`` callback's request


def default_worker_id() -> str:
    """``YYYYMMDDThhmmssZ-xxxxxx``: UTC start time and 6 hex digits of host, pid and clock."""
    seed = f"{socket.gethostname()}:{os.getpid()}:{time.time_ns()}".encode()
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"{stamp}-{hashlib.sha1(seed).hexdigest()[:6]}"


@contextmanager
def dir_lock(directory: str, name: str = LOCK_NAME):
    """Hold the exclusive flock on the lock file ``name`` in ``directory`` (created if
    missing): one writer at a time rotates or recovers the files there."""
    with open_regular(os.path.join(directory, name), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def write_index(path: str, entries) -> None:
    """Atomically replace the index of ``path`` with ``entries``: :class:`IndexEntry` or
    tuples (docno, offset, length[, url])."""
    tmp = index_path(path) + ".tmp"
    with open_regular(tmp, "w", encoding="utf-8") as f:
        f.write(INDEX_HEADER + "".join(IndexEntry(*e).line() for e in entries))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, index_path(path))


def recover_file(path: str, reconcile=None) -> Recovery | None:
    """Recover one ``.open`` file (see module doc); None if a live writer holds its lock.

    ``reconcile(path, entries)``, given the intact members' :class:`IndexEntry` list, returns
    the DOCNOs to leave out (not counted as lost: ``Recovery.removed``), or None to leave the
    file as it is (not recovered; then None is returned).

    Every intact member is kept (:func:`~wackycrawl.trec.reader.salvage_members`, the old
    index's offsets as hints): damage at the end (a member cut short by a crash) is cut off,
    damage between intact members (a corrupt member, garbage) is skipped and the members
    after it are moved up (written to ``<final>.recovering``, which then replaces the file).
    The documents of the old index that are not kept are named in ``Recovery.lost``.
    Call with the directory lock held (as :func:`recover_dir` does). Raises
    :class:`~wackycrawl.trec.reader.NotRegularFile` for a FIFO, a device or a folder (not
    read: a FIFO nobody writes would be waited for forever).
    """
    with open_regular(path, "r+b") as f:
        try:
            old_index = read_index(path)
        except (OSError, TrecFileError, UnicodeDecodeError):
            old_index = []
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        kept, damage = [], []
        for got in salvage_members(f, path, [e.offset for e in old_index]):
            if isinstance(got, Damage):
                damage.append(got)
            else:
                member, doc = got
                kept.append(IndexEntry(doc.docno, member.offset, member.length, doc.url))
        size = os.fstat(f.fileno()).st_size
        lost = _lost(old_index, kept, damage)
        reason = "; ".join(d.reason if d.tail else f"{d.reason} ({d.length} bytes skipped to "
                           f"the intact member at byte {d.offset + d.length})" for d in damage)
        removed = reconcile(path, kept) if reconcile is not None and kept else set()
        if removed is None:
            return None
        left = [e for e in kept if e.docno not in removed]
        gone = len(kept) - len(left)
        if not left or (not gone and all(d.tail for d in damage)):
            end = left[-1].offset + left[-1].length if left else 0
            final = cut_back(f, path, end, bool(left), lambda: write_index(path, left))
            if not final and os.path.exists(index_path(path)):
                os.remove(index_path(path))
            return Recovery(path, final, len(left), size - end, reason or "complete", lost,
                            gone)
        entries, moved = _move_up(f, path, left)
    final = path.removesuffix(OPEN_SUFFIX)
    write_index(path, entries)
    os.replace(moved, path)
    os.rename(path, final)
    new_size = entries[-1].offset + entries[-1].length
    return Recovery(path, final, len(entries), size - new_size, reason or "complete", lost,
                    gone)


def _lost(old_index: list[IndexEntry], kept: list[IndexEntry], damage: list) -> list[str]:
    """The documents recovery loses: DOCNOs of the old index not kept; without an index,
    ``document at byte N`` for each damaged stretch between intact members."""
    if old_index:
        docnos = {e.docno for e in kept}
        return [e.docno for e in old_index if e.docno not in docnos]
    return [f"document at byte {d.offset}" for d in damage if not d.tail]


def _move_up(f, path: str, kept: list[IndexEntry]) -> tuple[list[IndexEntry], str]:
    """Copy the ``kept`` members of ``f`` one after another into ``<final>.recovering``
    (fsynced): their new index entries and that file's path."""
    moved = path.removesuffix(OPEN_SUFFIX) + ".recovering"
    entries, pos = [], 0
    with open_regular(moved, "wb") as out:
        for e in kept:
            f.seek(e.offset)
            out.write(f.read(e.length))
            entries.append(e._replace(offset=pos))
            pos += e.length
        out.flush()
        os.fsync(out.fileno())
    return entries, moved


def cut_back(f, path: str, end: int, keep: bool, before_rename=None) -> str | None:
    """End the recovery of the ``.open`` file ``path`` (open as ``f``): with ``keep``, cut it
    to ``end`` bytes (its last complete gzip member), fsync, call ``before_rename()`` and
    rename it without ``.open``, returning the new path; else remove it and return None.
    Shared by the TREC and WARC writers."""
    if not keep:
        os.remove(path)
        return None
    final = path.removesuffix(OPEN_SUFFIX)
    f.truncate(end)
    os.fsync(f.fileno())
    if before_rename:
        before_rename()
    os.rename(path, final)
    return final


def recover_open_files(directory: str, suffix: str, recover, lock_name: str = LOCK_NAME,
                       refused: list[str] | None = None) -> list:
    """Call ``recover(path)`` on every ``<suffix>.open`` file in ``directory``, in name order,
    with the directory lock ``lock_name`` held; the non-None results, in order. One that is
    no regular file (a FIFO, a device, a folder: ``recover`` raises NotRegularFile before
    reading it) is left as it is and appended to ``refused`` when given (the caller says
    so), else logged (one ERROR line). Shared by the TREC and WARC writers."""
    done = []
    with dir_lock(directory, lock_name):
        for name in sorted(os.listdir(directory)):
            if not name.endswith(suffix + OPEN_SUFFIX):
                continue
            path = os.path.join(directory, name)
            try:
                rec = recover(path)
            except NotRegularFile:
                if refused is not None:
                    refused.append(path)
                else:
                    logger.error("%s: not a regular file (a FIFO, a device or a folder); not "
                                 "read, left as it is", path)
                continue
            if rec:
                done.append(rec)
    return done


def recover_dir(directory: str, refused: list[str] | None = None,
                reconcile=None) -> list[Recovery]:
    """Recover every unlocked ``*.trec.gz.open`` file in ``directory`` (``reconcile``: as
    :func:`recover_file` takes it); logs each one (and one that is no regular file, appended
    to ``refused``: :func:`recover_open_files`)."""
    done = recover_open_files(directory, ".trec.gz",
                              lambda path: recover_file(path, reconcile), refused=refused)
    for rec in done:
        log_recovery(rec)
    return done


def log_recovery(rec: Recovery) -> None:
    """One WARNING line for a recovered file: documents kept, bytes cut, why, and the
    documents lost."""
    lost = f"; lost {len(rec.lost)}: {', '.join(rec.lost)}" if rec.lost else ""
    removed = f"; left out {rec.removed} written again elsewhere" if rec.removed else ""
    logger.warning("recovered %s: kept %d documents, cut %d bytes (%s)%s%s",
                   rec.path, rec.docs, rec.cut_bytes, rec.reason, lost, removed)


class TrecWriter:
    """Append :class:`TrecDoc` documents to rotating gzip TREC files in ``directory``.

    Creating the writer recovers left-over ``.open`` files (``self.recovered``; ``reconcile``
    as :func:`recover_file` takes it). Raises
    ValueError for a prefix or worker id outside ``[A-Za-z0-9._-]``; :meth:`write` raises
    OSError (disk full...) after cutting the file back to its last complete member.
    """

    def __init__(self, directory: str = DIRECTORY, prefix: str = PREFIX,
                 worker: str | None = None, rotate_bytes: int = ROTATE_BYTES,
                 fsync: bool = FSYNC, compresslevel: int = COMPRESSLEVEL, reconcile=None):
        worker = worker or default_worker_id()
        for value in (prefix, worker):
            if problem := docno_part_problem(value):
                raise ValueError(problem)
        self.directory, self.stem = directory, f"{prefix}-{worker}-"
        self.rotate_bytes, self.fsync, self.compresslevel = rotate_bytes, fsync, compresslevel
        os.makedirs(directory, exist_ok=True)
        self.recovered = recover_dir(directory, reconcile=reconcile)
        self._file = self._index = None
        self._number = self._next_number()
        self._docs = self._size = 0

    def _next_number(self) -> int:
        pattern = re.compile(re.escape(self.stem) + r"(\d{5,})\.trec\.gz")
        found = [int(m.group(1)) for name in os.listdir(self.directory)
                 if (m := pattern.match(name))]
        return max(found, default=-1) + 1

    @property
    def path(self) -> str:
        """The final name of the current file."""
        return os.path.join(self.directory, f"{self.stem}{self._number:05d}.trec.gz")

    def _open(self) -> None:
        with dir_lock(self.directory):
            while (os.path.lexists(self.path) or os.path.lexists(self.path + OPEN_SUFFIX)
                   or is_irregular(index_path(self.path))):  # a FIFO there: never opened
                self._number += 1
            self._file = open(self.path + OPEN_SUFFIX, "xb", buffering=0)  # noqa: SIM115
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._index = open_regular(index_path(self.path), "wb", buffering=0)
        self._append(self._index, 0, INDEX_HEADER.encode())
        self._docs = self._size = 0

    def _member(self, doc: TrecDoc, prepared: Prepared | None) -> tuple[str, bytes]:
        """(DOCNO, gzip member); raises TrecContentError before anything is written."""
        docno = f"{self.stem}{self._number:05d}-{self._docs:06d}"
        if prepared is not None:
            level = self.compresslevel
            late = list(doc.meta.items())[len(prepared.meta):]
            parts = [deflate_part(format_start(docno), level, small=True), prepared.head,
                     *([deflate_part(format_meta(late), level, small=True)] if late else []),
                     prepared.body]
            bad = first_bad(parts)
            if bad is not None:
                raise TrecContentError(f"{doc.url}: {bad} (control character or U+FFFD)")
            return docno, join_member(parts, level)
        # shallow field access: dataclasses.asdict deep-copies every paragraph and header
        data = format_doc(**{name: getattr(doc, name) for name in _DOC_FIELDS}, docno=docno)
        bad = forbidden_characters(data)
        if bad is not None:
            raise TrecContentError(f"{doc.url}: {bad} (control character or U+FFFD)")
        return docno, gzip.compress(data, self.compresslevel, mtime=0)

    def _append(self, f, pos: int, data: bytes) -> None:
        """Hand ``data`` to the kernel at ``pos`` of unbuffered ``f`` (a partial write is
        continued); on an error (disk full, EFBIG) cut ``f`` back to ``pos`` and re-raise."""
        view = memoryview(data)
        try:
            while view:
                view = view[f.write(view):]
            if self.fsync:
                os.fsync(f.fileno())
        except OSError:
            f.truncate(pos)
            f.seek(pos)
            raise

    def usable(self, doc: TrecDoc, prepared: Prepared | None) -> bool:
        """Whether ``prepared`` fits ``doc``: compressed at this writer's level and formatted
        with a prefix of ``doc.meta`` (later entries are formatted by :meth:`write`)."""
        return (prepared is not None and prepared.level == self.compresslevel
                and tuple(doc.meta.items())[:len(prepared.meta)] == prepared.meta)

    def write(self, doc: TrecDoc, prepared: Prepared | None = None) -> Written:
        """Append ``doc`` (its ``docno`` is ignored: the writer assigns one) as one member.

        ``prepared`` (see :mod:`wackycrawl.trec.parts`; used only if :meth:`usable`) holds
        the document formatted and compressed but its DOCNO and the metadata added since:
        the member then decompresses to the same bytes, at a fraction of the CPU here.
        Raises :class:`TrecContentError`, writing nothing, when the document's text or
        metadata holds a C0 control other than TAB/LF, DEL, a C1 control or U+FFFD: a
        corpus never stores them (header fields are sanitised by :func:`format_doc`)."""
        if not self.usable(doc, prepared):
            prepared = None
        docno, member = self._member(doc, prepared)
        if self._file is None:
            self._open()
            docno, member = self._member(doc, prepared)
        if self._docs and self._size + len(member) > self.rotate_bytes:
            self.close()
            self._number += 1
            self._open()
            docno, member = self._member(doc, prepared)
        line = IndexEntry(docno, self._size, len(member), url_token(doc.url)).line().encode()
        index_pos = self._index.tell()
        self._append(self._file, self._size, member)
        try:
            self._append(self._index, index_pos, line)
        except OSError:
            self._file.truncate(self._size)
            self._file.seek(self._size)
            raise
        written = Written(docno, self.path, self._size, len(member))
        self._size += len(member)
        self._docs += 1
        return written

    def close(self) -> None:
        """Close the current file and give it its final name (no-op if none is open)."""
        if self._file is None:
            return
        self._index.close()
        if self.fsync:
            os.fsync(self._file.fileno())
        with dir_lock(self.directory):
            os.rename(self.path + OPEN_SUFFIX, self.path)
            self._file.close()
        self._file = self._index = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
