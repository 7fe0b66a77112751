"""Read gzip-compressed TREC compound files: every member, random access, truncation, checks.

A file is a sequence of gzip members (RFC 1952 section 2.2), normally one per document, with an
index ``<file>.idx.tsv`` of ``docno TAB url TAB member offset TAB member length`` (offsets and
lengths in bytes of the compressed file; the URL as in the DOCHDR, whitespace percent-encoded).
Indexes of older files have no URL column (``docno TAB offset TAB length``) and still read.
A reader built on one zlib stream stops after the first member
without an error (``zlib.decompress(data, 31)``; internetarchive/warc#21, iipc/warc-specifications
#47): this one restarts the decompressor at every member end, and a member cut short raises
:class:`TruncatedFileError` after the complete documents were yielded, never a silent short read
(webrecorder/warcio#138).
"""

import errno
import heapq
import os
import shlex
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, NamedTuple
from urllib.parse import urlsplit

from wackycrawl.trec.format import (
    TrecDoc,
    TrecFormatError,
    parse_doc,
    split_docs,
    strict_problems,
    url_token,
)

GZIP_WBITS = 31  # zlib: gzip header and trailer
CHUNK_BYTES = 1 << 20
# Largest decompressed member accepted, in bytes: documents are at most 200 KB of text, so a
# member expanding beyond this is a decompression bomb or not ours.
MAX_MEMBER_BYTES = 64 << 20
INDEX_SUFFIX = ".idx.tsv"
INDEX_HEADER = "# docno\turl\tmember_offset\tmember_length\n"
TREC_SUFFIX = ".trec.gz"
OPEN_SUFFIX = ".open"
REJECTS_SUBDIR = "rejects"  # a corpus folder's rejects stream (wackycrawl.pipelines.rejects)
GZIP_ID = b"\x1f\x8b"
DOC_START = b"<DOC>\n"
SNIFF_BYTES = 1 << 16


class TrecFileError(Exception):
    """A compound file that cannot be read as a whole (corrupt member, bomb, bad index)."""


class NotTrecFile(TrecFileError):
    """A file given as a TREC file that is of another kind (JSON, a WARC file, text...)."""


class NotRegularFile(NotTrecFile, OSError):
    """A path given or found as a TREC file, index, WARC or drops file that is no regular
    file (a FIFO, a device, a socket, a folder): never read, as reading a FIFO nobody writes
    would wait forever. An OSError too, so that every caller handling a file it cannot read
    handles this one."""

    def __init__(self, path: str):
        self.path = path
        super().__init__(f"{path}: not a regular file")


def is_irregular(path: str) -> bool:
    """``path`` exists and is no regular file (a FIFO, a device, a folder): not to be opened
    as a TREC file (a FIFO's reader waits for a writer forever)."""
    return os.path.exists(path) and not os.path.isfile(path)


def open_regular(path: str, mode: str = "rb", **kwargs):
    """``open(path, mode, **kwargs)`` for a regular file only; raises :class:`NotRegularFile`
    for anything else without waiting: the file is opened with ``O_NONBLOCK`` (the open of a
    FIFO waits for its other end without it) and looked at with ``fstat`` before any byte is
    read or written, so a FIFO named like a corpus file (``x.trec.gz.open``, an index, a lock
    or drops file) cannot hang a reader or a writer that resumes. A file it creates gets
    ``open``'s own permissions (0o666 less the umask: no execute bits)."""
    def opener(name, flags):
        try:
            fd = os.open(name, flags | os.O_NONBLOCK | os.O_NOCTTY, 0o666)
        except OSError as exc:  # ENXIO: a FIFO without reader opened to write, a socket
            if exc.errno in (errno.ENXIO, errno.EISDIR):
                raise NotRegularFile(path) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise NotRegularFile(path)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd
    return open(path, mode, opener=opener, **kwargs)  # noqa: SIM115 - the caller closes it


class TruncatedFileError(TrecFileError):
    """The file ends inside a gzip member: ``offset`` is where that member starts (bytes),
    ``complete`` how many documents before it were read whole."""

    def __init__(self, path: str, offset: int, complete: int):
        self.path, self.offset, self.complete = path, offset, complete
        super().__init__(f"{path}: truncated gzip member at byte {offset} (document "
                         f"{complete + 1}; {complete} complete documents before it)")


class EmptyFileError(TrecFileError):
    """A closed compound file of 0 bytes: no document (a copy or a disk that failed)."""

    def __init__(self, path: str):
        self.path = path
        super().__init__(f"{path}: empty file (0 bytes), no document")


class Member(NamedTuple):
    """One gzip member: ``offset`` and ``length`` in compressed bytes, ``data`` decompressed."""

    offset: int
    length: int
    data: bytes


class IndexEntry(NamedTuple):
    """One index line: ``offset``/``length`` of the member in compressed bytes, ``url`` ``-``
    when the index is of the older three-column kind."""

    docno: str
    offset: int
    length: int
    url: str = "-"

    def line(self) -> str:
        return f"{self.docno}\t{self.url}\t{self.offset}\t{self.length}\n"

    def same_place(self, other: "IndexEntry") -> bool:
        """Same DOCNO and member, and same URL unless one of them has none (old index)."""
        return self[:3] == other[:3] and (self.url == other.url or "-" in (self.url, other.url))


def recover_hint(path: str) -> str:
    """What to do about a damaged compound file: ``wackycrawl trec recover`` on it when it is
    a closed ``*.trec.gz`` file, on its folder when it is a ``.open`` one (recover takes no
    ``.trec.gz.open`` file by name), else renaming it first (recover takes no other name)."""
    if path.endswith(TREC_SUFFIX + OPEN_SUFFIX):
        folder = shlex.quote(os.path.dirname(path) or ".")
        return (f"when no crawl is writing it, run 'wackycrawl trec recover {folder}' to close "
                f"it with its intact documents")
    if not path.endswith(TREC_SUFFIX):
        return (f"'wackycrawl trec recover' rewrites only {TREC_SUFFIX} files: rename it to "
                f"end in {TREC_SUFFIX} and run it on the new name to keep its intact documents")
    return (f"run 'wackycrawl trec recover {shlex.quote(path)}' to rewrite it with its intact "
            f"documents (the original is kept as .damaged)")


def named_trec(path: str) -> bool:
    """Whether ``path`` is named like a compound file (``*.trec.gz`` or ``*.trec.gz.open``)."""
    return path.endswith((TREC_SUFFIX, TREC_SUFFIX + OPEN_SUFFIX))


def index_path(path: str) -> str:
    """The index file of a compound file (``x.trec.gz`` and ``x.trec.gz.open`` share one)."""
    return path.removesuffix(OPEN_SUFFIX) + INDEX_SUFFIX


def corpus_files(paths, open_files: list | None = None, rejects: bool = False) -> list[str]:
    """``paths`` with every folder replaced by its compound files (``*.trec.gz``, sorted),
    and with ``rejects`` by those of its ``rejects/`` folder after them.

    Files still being written (``*.trec.gz.open``) in a folder are left out and appended to
    ``open_files`` when given; a path that is not a folder is kept as it is (even ``.open``)."""
    files = []
    for path in paths:
        if not os.path.isdir(path):
            files.append(path)
            continue
        for folder in corpus_folders(path) if rejects else [path]:
            for name in sorted(os.listdir(folder)):
                if name.endswith(TREC_SUFFIX):
                    files.append(os.path.join(folder, name))
                elif name.endswith(TREC_SUFFIX + OPEN_SUFFIX) and open_files is not None:
                    open_files.append(os.path.join(folder, name))
    return files


def corpus_folders(directory: str) -> list[str]:
    """``directory`` and its ``rejects/`` folder when there is one."""
    rejects = os.path.join(directory, REJECTS_SUBDIR)
    return [directory] + ([rejects] if os.path.isdir(rejects) else [])


def _start(data: bytes) -> str:
    """How ``data`` (a file's first bytes) starts, for a message: its first character
    (after whitespace) when it is a printable one, else its first bytes in hex."""
    stripped = data.lstrip()
    for n in range(1, 5):
        try:
            char = stripped[:n].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if char.isprintable():
            return repr(char)
        break
    return "bytes " + data[:4].hex(" ")


def not_trec(path: str) -> str | None:
    """Why the file ``path`` is not a gzip TREC compound file (JSON, a WARC file, text,
    uncompressed TREC...), or None when it is one or may be one that is damaged (corrupt gzip
    data; an empty file named like a TREC file, :func:`named_trec`: the readers report that
    damage; an empty file of another name is "empty"). Raises OSError when the file
    cannot be read (:class:`NotRegularFile` for a FIFO, a device or a folder)."""
    with open_regular(path) as f:
        head = f.read(SNIFF_BYTES)
    if not head:
        return None if named_trec(path) else "it is empty"
    if not head.startswith(GZIP_ID):
        if head.startswith(DOC_START):
            return "it is uncompressed TREC text: compress it with gzip"
        if head.startswith(b"WARC/"):
            return "it is a WARC file: 'wackycrawl process' makes a corpus of it"
        return f"it starts with {_start(head)}"
    try:
        text = zlib.decompressobj(GZIP_WBITS).decompress(head, len(DOC_START))
    except zlib.error:
        return None
    if text.startswith(b"WARC/"):
        return "it is a WARC file: 'wackycrawl process' makes a corpus of it"
    if text and not DOC_START.startswith(text[:len(DOC_START)]):
        return f"it is gzip-compressed, but its text starts with {_start(text)}, not <DOC>"
    return None


def check_kind(path: str) -> None:
    """Raise :class:`NotTrecFile` (one line naming ``path``, what it is and what to give
    instead) when ``path`` is not a gzip TREC file (:func:`not_trec`), and
    :class:`NotRegularFile` when it is a FIFO, a device or a folder (it is not opened)."""
    if is_irregular(path):
        raise NotRegularFile(path)
    if os.path.isfile(path) and (why := not_trec(path)):
        raise NotTrecFile(f"{path} is not a TREC file ({why}): give a corpus folder or "
                          f"{TREC_SUFFIX} files")


class _Member:
    """One gzip member being inflated, refusing output beyond MAX_MEMBER_BYTES (a bomb)."""

    def __init__(self, offset: int, path: str):
        self.d, self.out, self.size = zlib.decompressobj(GZIP_WBITS), [], 0
        self.offset, self.path = offset, path

    def feed(self, data: bytes) -> None:
        """Inflate ``data``; raises TrecFileError on corrupt data or an oversized member."""
        try:
            while data and not self.d.eof:
                chunk = self.d.decompress(data, MAX_MEMBER_BYTES - self.size + 1)
                self.size += len(chunk)
                if self.size > MAX_MEMBER_BYTES:
                    raise TrecFileError(f"{self.path}: member at byte {self.offset} expands "
                                        f"beyond {MAX_MEMBER_BYTES} bytes")
                self.out.append(chunk)
                data = self.d.unconsumed_tail
        except zlib.error as exc:
            raise TrecFileError(f"{self.path}: corrupt gzip member at byte {self.offset}: "
                                f"{exc}") from None

    def data(self) -> bytes:
        return b"".join(self.out)


def iter_members(f: BinaryIO, path: str = "<file>", start: int = 0) -> Iterator[Member]:
    """Yield every gzip member of an open binary file, from its current position ``start``
    (0 unless the caller seeked elsewhere).

    Raises :class:`TruncatedFileError` if the file ends inside a member and
    :class:`TrecFileError` on corrupt data; members before the damage are yielded first.
    """
    offset, pending, count = start, b"", 0
    while True:
        member, used = _Member(offset, path), 0
        while not member.d.eof:
            data = pending or f.read(CHUNK_BYTES)
            pending = b""
            if not data:
                if used == 0:
                    return
                raise TruncatedFileError(path, offset, count)
            used += len(data)
            member.feed(data)
        pending = member.d.unused_data
        length = used - len(pending)
        yield Member(offset, length, member.data())
        offset += length
        count += 1


def iter_docs(path: str) -> Iterator[tuple[Member, TrecDoc]]:
    """Yield ``(member, document)`` for every document of a file, in order.

    A member holding several documents (a file compressed as one stream) yields each of them
    with the same member. Raises as :func:`iter_members`, :class:`TrecFormatError` for a
    member that does not parse, and :class:`EmptyFileError` for a closed file of 0 bytes (a
    writer never closes a file without a document: it is damaged), and
    :class:`NotRegularFile` for a FIFO, a device or a folder, which is not opened.
    """
    with open_regular(path) as f:
        if not path.endswith(OPEN_SUFFIX) and os.fstat(f.fileno()).st_size == 0:
            raise EmptyFileError(path)
        count = 0
        try:
            for member in iter_members(f, path):
                for raw in split_docs(member.data):
                    yield member, parse_doc(raw)
                    count += 1
        except TruncatedFileError as exc:
            raise TruncatedFileError(path, exc.offset, count) from None


def read_member(f: BinaryIO, offset: int, length: int | None = None, path: str = "<file>") -> bytes:
    """Decompress exactly one member starting at ``offset`` (bytes); random access.

    ``length`` (from the index) bounds the read; raises :class:`TruncatedFileError` if the
    member is cut short and :class:`TrecFileError` if it is corrupt or followed by garbage
    within ``length``.
    """
    f.seek(offset)
    member, remaining = _Member(offset, path), length
    while not member.d.eof:
        data = f.read(CHUNK_BYTES if remaining is None else min(CHUNK_BYTES, remaining))
        if not data:
            raise TruncatedFileError(path, offset, 0)
        if remaining is not None:
            remaining -= len(data)
        member.feed(data)
    if remaining and member.d.unused_data:
        raise TrecFileError(f"{path}: index length {length} at byte {offset} spans two members")
    return member.data()


def member_at(f: BinaryIO, offset: int, path: str = "<file>") -> Member:
    """The gzip member starting at ``offset`` (bytes), its compressed length measured; raises
    as :func:`read_member`. Reads ahead in small steps, so a failed try costs little."""
    f.seek(offset)
    member, used, step = _Member(offset, path), 0, 1 << 12
    while not member.d.eof:
        data = f.read(step)
        if not data:
            raise TruncatedFileError(path, offset, 0)
        used += len(data)
        step = min(step * 2, CHUNK_BYTES)
        member.feed(data)
    return Member(offset, used - len(member.d.unused_data), member.data())


GZIP_MAGIC = b"\x1f\x8b\x08"  # ID1 ID2 and CM deflate: how every gzip member starts


def _whole_doc(member: Member) -> TrecDoc:
    """The one document of ``member``; raises TrecFormatError for none, several, or bytes
    that do not parse."""
    docs = split_docs(member.data)
    if len(docs) != 1:
        raise TrecFormatError(f"{len(docs)} documents in member at byte {member.offset}")
    return parse_doc(docs[0])


def _magic_offsets(f: BinaryIO, start: int, size: int) -> Iterator[int]:
    """Every offset from ``start`` on where ``1f 8b 08`` begins, in order (read in chunks;
    the caller may seek ``f`` between two offsets)."""
    pos = start
    while pos < size:
        f.seek(pos)
        chunk = f.read(CHUNK_BYTES + len(GZIP_MAGIC) - 1)
        i = chunk.find(GZIP_MAGIC)
        while 0 <= i < CHUNK_BYTES:
            yield pos + i
            i = chunk.find(GZIP_MAGIC, i + 1)
        pos += CHUNK_BYTES


def next_intact_member(f: BinaryIO, after: int, hints=(), path: str = "<file>"
                       ) -> tuple[Member, TrecDoc] | None:
    """The first gzip member starting beyond byte ``after`` that decompresses whole and holds
    exactly one TREC document, with that document; None if there is none up to the end.

    Candidates are the offsets in ``hints`` (the index's) and every ``1f 8b 08`` in the
    file, tried in file order."""
    size = os.fstat(f.fileno()).st_size
    hints = sorted(h for h in set(hints) if after < h < size)
    tried = None
    for offset in heapq.merge(hints, _magic_offsets(f, after + 1, size)):
        if offset != tried and (hit := _try_member(f, offset, path)) is not None:
            return hit
        tried = offset
    return None


def _try_member(f: BinaryIO, offset: int, path: str) -> tuple[Member, TrecDoc] | None:
    try:
        member = member_at(f, offset, path)
        return member, _whole_doc(member)
    except (TrecFileError, TrecFormatError):
        return None


class Damage(NamedTuple):
    """Bytes ``offset`` to ``offset + length`` that hold no intact member (``reason``: why
    the member there failed); ``tail`` when nothing intact follows them."""

    offset: int
    length: int
    reason: str
    tail: bool


def salvage_members(f: BinaryIO, path: str = "<file>", hints=()
                    ) -> Iterator[tuple[Member, TrecDoc] | Damage]:
    """Yield ``(member, document)`` for every intact member of ``f`` (one whole TREC document
    each), in order, and a :class:`Damage` for every stretch of bytes between them that holds
    none (a corrupt or truncated member, a member whose CRC fails, garbage): reading goes on
    at the next intact member (:func:`next_intact_member`, with ``hints`` the index's member
    offsets). Never raises for damage (OSError only)."""
    size = os.fstat(f.fileno()).st_size
    pos = 0
    while pos < size:
        f.seek(pos)
        try:
            for member in iter_members(f, path, pos):
                doc = _whole_doc(member)
                yield member, doc
                pos = member.offset + member.length
            return
        except (TrecFileError, TrecFormatError) as exc:
            reason = str(exc)
        hit = next_intact_member(f, pos, hints, path)
        end = hit[0].offset if hit else size
        yield Damage(pos, end - pos, reason, hit is None)
        if hit is None:
            return
        yield hit
        pos = hit[0].offset + hit[0].length


def read_index(path: str) -> list[IndexEntry]:
    """Read the index of compound file ``path``; raises :class:`TrecFileError` on a bad line,
    FileNotFoundError if there is none and :class:`NotRegularFile` for a FIFO (not read)."""
    entries = []
    with open_regular(index_path(path), "r", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            numbers = parts[-2:]
            if len(parts) not in (3, 4) or not all(p.isascii() and p.isdigit() for p in numbers):
                raise TrecFileError(f"{index_path(path)}:{n}: bad index line {line!r}")
            url = parts[1] if len(parts) == 4 else "-"
            entries.append(IndexEntry(parts[0], int(numbers[0]), int(numbers[1]), url))
    return entries


class StaleIndexError(TrecFileError):
    """An index entry that does not fit its compound file, which is itself intact: the index
    is of an earlier state of the file (``wackycrawl trec index`` rebuilds it)."""

    def __init__(self, path: str, entry: IndexEntry, why: str):
        self.path, self.entry = path, entry
        super().__init__(
            f"{index_path(path)} is stale: its entry for {entry.docno} points to byte "
            f"{entry.offset}, where {why}, but {path} itself is intact; rebuild the index "
            f"with 'wackycrawl trec index {shlex.quote(path)}'")


def _intact(path: str) -> bool:
    """Every member of ``path`` inflates and parses (the index is not looked at)."""
    try:
        for _ in iter_docs(path):
            pass
    except (TrecFileError, TrecFormatError):
        return False
    return True


def get_doc(path: str, entry: IndexEntry) -> bytes:
    """The stored bytes of one document via its index entry (one member decompressed).

    Raises :class:`StaleIndexError` when the member there does not inflate or is another
    document while the file itself is intact; else as :func:`read_member`, and
    :class:`TrecFileError` for another document in a damaged file."""
    with open_regular(path) as f:
        try:
            data = read_member(f, entry.offset, entry.length, path)
        except TrecFileError as exc:
            if _intact(path):
                raise StaleIndexError(path, entry, "no whole gzip member starts") from None
            raise exc from None
    try:
        docs = split_docs(data)
        docno = parse_doc(docs[0]).docno if len(docs) == 1 else None
    except TrecFormatError:
        docno = None
    if docno != entry.docno:
        why = f"the member holds {docno}" if docno else "the member holds no single document"
        if _intact(path):
            raise StaleIndexError(path, entry, why)
        raise TrecFileError(f"{path}: its index entry for {entry.docno} points to byte "
                            f"{entry.offset}, where {why}; {recover_hint(path)}")
    return data


def _data_path(index: str) -> str | None:
    """The compound file of the index file ``index`` (``x.trec.gz``, else ``x.trec.gz.open``
    while it is being written); None when neither exists (an orphan index)."""
    data_path = index.removesuffix(INDEX_SUFFIX)
    for candidate in (data_path, data_path + OPEN_SUFFIX):
        if os.path.exists(candidate):
            return candidate
    return None


def orphan_indexes(directory: str) -> list[str]:
    """The index files of ``directory`` whose compound file exists neither closed nor
    ``.open`` (left behind when a file was removed or moved), sorted."""
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory))
            if n.endswith(INDEX_SUFFIX) and _data_path(os.path.join(directory, n)) is None]


def unindexed_files(directory: str) -> list[str]:
    """The closed compound files of ``directory`` without an index file (sorted)."""
    return [p for p in corpus_files([directory]) if not os.path.exists(index_path(p))]


def _indexed_files(directory: str, first: str = "") -> list[str]:
    """Compound files of ``directory`` that have an index (``first``'s file name first);
    orphan indexes (:func:`orphan_indexes`) are skipped."""
    names = sorted(n for n in os.listdir(directory) if n.endswith(INDEX_SUFFIX))
    names.sort(key=lambda n: n != first + INDEX_SUFFIX)
    found = (_data_path(os.path.join(directory, name)) for name in names)
    return [path for path in found if path is not None]


def find_doc(directory: str, docno: str) -> tuple[str, IndexEntry] | None:
    """Find ``docno`` through the index files in ``directory``: ``(file path, entry)`` or None.

    The index of the file the writer's DOCNO scheme names (``<file stem>-<doc#>``) is read
    first, then all others."""
    for data_path in _indexed_files(directory, docno.rsplit("-", 1)[0] + TREC_SUFFIX):
        for entry in read_index(data_path):
            if entry.docno == docno:
                return data_path, entry
    return None


def _canonical(url: str) -> str | None:
    from wackycrawl.crawl.urls import canonical_url

    try:
        return canonical_url(url)
    except ValueError:
        return None


def canonical_or_url(url: str) -> str:
    """The crawl's canonical form of a stored URL (:func:`wackycrawl.crawl.urls.canonical_url`),
    or the URL as stored when it has none."""
    return _canonical(url) or url


def url_matcher(url: str):
    """A test ``stored URL -> bool``: the URL is ``url`` as written (whitespace
    percent-encoded, :func:`url_token`), or the same page for the crawl (both the same
    :func:`wackycrawl.crawl.urls.canonical_url`: ``stra\u00dfe.html`` and
    ``stra%C3%9Fe.html``, host case, default port, fragment, tracking parameters)."""
    exact = url_token(url)
    key = _canonical(url)
    if key is None:
        return lambda stored: stored == exact
    host = (urlsplit(key).hostname or "").lower()

    def matches(stored: str) -> bool:
        # the host test is cheap and spares canonicalising the index's other URLs
        return stored == exact or (host in stored.lower() and _canonical(stored) == key)
    return matches


def find_url(directory: str, url: str) -> list[tuple[str, IndexEntry]]:
    """Every document of ``url`` in ``directory``'s files: ``[(file path, entry), ...]``.

    URLs are compared as :func:`url_matcher` does. Indexes with a URL column are read; a
    file whose index has none (older files) is read whole."""
    matches, found = url_matcher(url), []
    for data_path in _indexed_files(directory):
        index = read_index(data_path)
        if index and all(e.url == "-" for e in index):
            index = [IndexEntry(doc.docno, m.offset, m.length, doc.url)
                     for m, doc in iter_docs(data_path)]
        found += [(data_path, entry) for entry in index if matches(entry.url)]
    return found


def find_checksum(directory: str, checksum: str) -> list[tuple[str, IndexEntry]]:
    """Every document of ``directory``'s files whose ``X-Wacky-Checksum`` is ``checksum``
    (16 hex digits, any case: what a near-duplicate drop and ``Near-Of`` name):
    ``[(file path, entry), ...]``. The indexes hold no checksum: every file is read whole."""
    wanted, found = checksum.strip().lower(), []
    for data_path in _indexed_files(directory):
        found += [(data_path, IndexEntry(doc.docno, m.offset, m.length, doc.url))
                  for m, doc in iter_docs(data_path)
                  if doc.meta.get("Checksum", "").lower() == wanted]
    return found


@dataclass
class CheckResult:
    """Outcome of :func:`check`: ``problems`` empty means the file is sound."""

    path: str
    docs: int = 0
    members: int = 0
    index_lines: int | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check(path: str) -> CheckResult:
    """Validate a compound file: every member decompresses and parses, one document per member,
    each document passes the strict reader's rules (:func:`strict_problems`: five fields in
    the first DOCHDR line, metadata values without whitespace, no control character or
    U+FFFD), and the index lists exactly those members (docno, url, offset, length; an older
    index without URLs is accepted). Never raises for damage."""
    result, found, strict = CheckResult(path), [], []
    try:
        last = None
        for member, doc in iter_docs(path):
            result.docs += 1
            if member is last and not result.problems:
                result.problems.append(f"several documents in the member at byte {member.offset}")
            if member is not last:
                result.members += 1
                strict += [p for raw in split_docs(member.data) for p in strict_problems(raw)]
            last = member
            found.append(IndexEntry(doc.docno, member.offset, member.length, doc.url))
    except (TrecFileError, TrecFormatError, OSError) as exc:
        result.problems.append(str(exc))
    damaged = bool(result.problems)
    if strict:
        more = f" (and {len(strict) - 1} more)" if len(strict) > 1 else ""
        result.problems.append(f"not strict TREC: {strict[0]}{more}")
    try:
        index = read_index(path)
    except FileNotFoundError:
        hint = "" if result.problems else f" (wackycrawl trec index {path} rebuilds it)"
        result.problems.append(f"no index {index_path(path)}{hint}")
        return result
    except TrecFileError as exc:
        result.problems.append(str(exc))
        return result
    result.index_lines = len(index)
    # the documents read whole and the index still differs: it is stale, rebuilt from them
    rebuild = "" if damaged else f" (stale index: wackycrawl trec index {path} rebuilds it)"
    if len(index) != result.docs:
        result.problems.append(f"{result.docs} documents but {len(index)} index lines"
                               + rebuild)
    bad = [e for e, f in zip(index, found) if not e.same_place(f)]
    if bad:
        result.problems.append(f"index line for {bad[0].docno} does not match the file"
                               + rebuild)
    return result
