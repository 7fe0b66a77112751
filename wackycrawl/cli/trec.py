"""``wackycrawl trec cat|get|check|index|recover``: read, validate and repair TREC files.

Every FILE argument may be a folder: it stands for the compound files in it (``*.trec.gz``;
files still being written, ``*.trec.gz.open``, are left out with a note on stderr, name them
explicitly to read them); for ``check``, ``index`` and ``recover`` also for those of its
``rejects/`` folder (the rejects stream), named on their own lines. A file of another kind
(JSON, a WARC file) is said to be one, not damaged. A file reached twice (a folder or file
given twice, under any name) is read, checked, indexed or recovered once, with a note on
stderr. Exit codes: 0 success; 1 damage found
(truncated or corrupt file, index mismatch, an index without its file, a document a strict
TREC reader refuses), a file that is no TREC file, or document not found; 2 usage errors
(argparse).
"""

import argparse
import hashlib
import os
import re
import shlex
import shutil
import sys
from collections import defaultdict
from functools import partial

from wackycrawl.archive import writer as warc_writer
from wackycrawl.cli import error, note_left_open, redis_client
from wackycrawl.corpus.source import read_once, repeated_note
from wackycrawl.distributed.keys import default_crawl
from wackycrawl.trec import reader, writer
from wackycrawl.trec.format import TrecFormatError

DAMAGE = (reader.TrecFileError, TrecFormatError, OSError)


_err = partial(error, "trec")


def _files(paths: list[str], rejects: bool = False) -> list[str]:
    """FILE arguments with folders expanded (:func:`reader.corpus_files`, with their
    ``rejects/`` folders when ``rejects``); notes open files, and a file reached twice (a
    folder or file given twice, under any name) is kept once, with a note."""
    open_files: list[str] = []
    repeated: list[tuple[str, str]] = []
    files, seen = [], {}
    for path in paths:
        files += read_once(path, reader.corpus_files([path], open_files, rejects=rejects),
                           seen, repeated)
    note_left_open("trec", read_once("", open_files, {}))
    if repeated:
        _err(repeated_note(repeated))
    return files


def checksum(value: str) -> str:
    """argparse type: a checksum as drops and ``Near-Of`` name it, 16 hex digits."""
    if not re.fullmatch(r"[0-9A-Fa-f]{16}", value.strip()):
        raise argparse.ArgumentTypeError(f"a checksum is 16 hex digits, not {value!r}")
    return value.strip()


def cat(args) -> int:
    """All documents of the files, decompressed, to stdout; damage goes to stderr."""
    status = 0
    files = _files(args.files)
    if not files:
        _err(f"no .trec.gz file in {', '.join(args.files)}")
        return 1
    for path in files:
        try:
            reader.check_kind(path)
            for member, _ in reader.iter_docs(path):
                sys.stdout.buffer.write(member.data)
        except BrokenPipeError:
            raise
        except DAMAGE as exc:
            damaged = isinstance(exc, (reader.TrecFileError, TrecFormatError)) and not \
                isinstance(exc, reader.NotTrecFile)
            _err(f"{exc}; {reader.recover_hint(path)}" if damaged else str(exc))
            status = 1
    sys.stdout.buffer.flush()
    return status


def get(args) -> int:
    """One document by DOCNO, or every document of ``--url`` (the same page for the crawl:
    :func:`reader.url_matcher`), found through the index files of ``--dir`` (a corpus
    folder) and its ``rejects/`` folder, or of ``--checksum`` (``--dir``'s files read whole).
    Indexes without their file are skipped, named."""
    if not os.path.isdir(args.dir):
        _err(f"{args.dir} is not a directory")
        return 1
    folders = reader.corpus_folders(args.dir)
    for folder in folders:
        for orphan in reader.orphan_indexes(folder):
            _err(f"skipped {orphan}: its TREC file {orphan.removesuffix(reader.INDEX_SUFFIX)} "
                 "does not exist")
    try:
        if args.url is not None:
            found = [hit for d in folders for hit in reader.find_url(d, args.url)]
            wanted = args.url
        elif args.checksum is not None:
            found = reader.find_checksum(args.dir, args.checksum)
            wanted = f"checksum {args.checksum}"
        else:
            hit = next(filter(None, (reader.find_doc(d, args.docno) for d in folders)), None)
            found, wanted = [hit] if hit else [], args.docno
        if not found:
            _err(f"{wanted} is in no {'document' if args.checksum else 'index'} in "
                 f"{' or '.join([args.dir] if args.checksum else folders)}"
                 f"{_not_found_hint(args, folders)}")
            return 1
        data = [reader.get_doc(*hit) for hit in found]
    except DAMAGE as exc:
        _err(str(exc))
        return 1
    sys.stdout.buffer.write(b"".join(data))
    sys.stdout.buffer.flush()
    return 0


def _not_found_hint(args, folders: list[str]) -> str:
    """What may explain a document not found: files without an index (``wackycrawl trec
    index`` makes them), a rejects folder ``--checksum`` did not search."""
    hints = []
    unindexed = [p for d in folders for p in reader.unindexed_files(d)]
    if unindexed and not args.checksum:
        hints.append(f"{len(unindexed)} TREC file(s) have no index: 'wackycrawl trec index "
                     f"{' '.join(shlex.quote(d) for d in folders)}' makes them")
    if len(folders) > 1 and args.checksum is not None:
        hints.append(f"documents the crawl rejected are searched with --dir {folders[1]}")
    return "; " + "; ".join(hints) if hints else ""


def check(args) -> int:
    """Validate each file (a folder's, and its ``rejects/`` folder's); one line per file,
    ``OK``, ``DAMAGED`` with the problems, ``MISSING``, or ``NOT-TREC`` for a file of another
    kind; one ``ORPHAN`` line per index file without its TREC file; then, over the kept
    documents of all sound files, one ``REPEATED`` line per DOCNO or page (canonical URL)
    written more than once."""
    status = 0
    sound: list[str] = []
    files = _files(args.files, rejects=True)
    orphans = [o for path in args.files if os.path.isdir(path)
               for folder in reader.corpus_folders(path) for o in reader.orphan_indexes(folder)]
    if not files and not orphans:
        _err(f"no .trec.gz file in {', '.join(args.files)}")
        return 1
    for path in files:
        if not os.path.exists(path):
            status = 1
            print(f"MISSING {path}: no such file")
            continue
        if not os.path.isfile(path):  # a FIFO, a device: not read (it may never end)
            status = 1
            print(f"DAMAGED {path}: not a regular file")
            continue
        if why := reader.not_trec(path):
            status = 1
            print(f"NOT-TREC {path}: not a TREC file ({why})")
            continue
        if os.path.getsize(path) == 0:
            status = 1
            print(f"DAMAGED {path}: empty file (0 bytes), no document")
            continue
        result = reader.check(path)
        if result.ok:
            print(f"OK {path}: {result.docs} documents")
            sound.append(path)
        else:
            status = 1
            print(f"DAMAGED {path}: {result.docs} readable documents; "
                  + "; ".join(result.problems))
    for orphan in orphans:
        status = 1
        print(f"ORPHAN {orphan}: index without its TREC file "
              f"{os.path.basename(orphan.removesuffix(reader.INDEX_SUFFIX))} (remove it if "
              "that file is gone for good)")
    for line in repeated_documents(sound):
        status = 1
        print(line)
    return status


def repeated_documents(paths: list[str]) -> list[str]:
    """``REPEATED`` lines for the kept documents of the sound files ``paths`` (from their
    indexes; ``rejects/`` files left out): a DOCNO found more than once, and a page (the
    crawl's canonical URL) written more than once, each occurrence as ``DOCNO (file)``. A first
    pass keeps an 8-byte digest per DOCNO and page (about 100 bytes of memory per document);
    a second reads the places of the repeated ones only."""
    kept = [p for p in paths
            if os.path.basename(os.path.dirname(os.path.abspath(p))) != reader.REJECTS_SUBDIR]
    seen: set[bytes] = set()
    repeated: set[bytes] = set()
    for _, keys in _document_keys(kept):
        for key in keys:
            (repeated if key in seen else seen).add(key)
    if not repeated:
        return []
    places = defaultdict(list)
    for place, keys in _document_keys(kept):
        for key, name in zip(keys, ("DOCNO", "URL")):
            if key in repeated:  # grouped by the value itself: digests may collide
                places[name, place[1] if name == "DOCNO" else place[2]].append(place)
    lines = []
    for (name, value), where in places.items():
        if len(where) > 1:
            listed = ", ".join(f"{docno} ({path})" for path, docno, _ in where)
            lines.append(f"REPEATED DOCNO {value}: {len(where)} documents: {listed}"
                         if name == "DOCNO" else
                         f"REPEATED URL {value}: written {len(where)} times: {listed} "
                         "(`wackycrawl filter` keeps one of such exact copies)")
    return lines


def _document_keys(paths: list[str]):
    """``((path, docno, canonical URL), (DOCNO digest, page digest))`` per indexed document
    of ``paths`` (a file whose index cannot be read is skipped: its line said why); an older
    index without URLs gives the DOCNO digest alone."""
    for path in paths:
        try:
            entries = reader.read_index(path)
        except (OSError, reader.TrecFileError):
            continue
        for entry in entries:
            keys = [b"D" + hashlib.blake2b(entry.docno.encode(), digest_size=8).digest()]
            url = "-"
            if entry.url != "-":
                url = reader.canonical_or_url(entry.url)
                keys.append(b"U" + hashlib.blake2b(url.encode(), digest_size=8).digest())
            yield (path, entry.docno, url), keys


def _index_one(path: str) -> int:
    entries = []
    try:
        reader.check_kind(path)
    except reader.NotTrecFile as exc:
        _err(f"{exc}; index not written")
        return 1
    try:
        for member, doc in reader.iter_docs(path):
            entries.append(reader.IndexEntry(doc.docno, member.offset, member.length, doc.url))
    except FileNotFoundError:
        _err(f"{path}: no such file")
        return 1
    except DAMAGE as exc:
        _err(f"{exc}; index not written (run 'wackycrawl trec recover FILE' to rewrite it with "
             "its intact documents)")
        return 1
    if len({entry.offset for entry in entries}) != len(entries):
        _err(f"{path}: several documents share a member; no random access possible")
        return 1
    writer.write_index(path, entries)
    print(f"{reader.index_path(path)}: {len(entries)} entries")
    return 0


def index(args) -> int:
    """Rebuild ``FILE.idx.tsv`` from the members of each complete file (a folder's, and its
    ``rejects/`` folder's)."""
    files = _files(args.files, rejects=True)
    if not files:
        _err(f"no .trec.gz file in {', '.join(args.files)}")
        return 1
    return max(_index_one(path) for path in files)


def _cut_back_damaged(path: str) -> list:
    """Rewrite the closed file ``path`` with its intact documents if ``check`` finds it
    damaged (damage between members skipped, damage at the end cut off; the original kept
    as ``FILE.damaged``): its Recovery in a list, else []."""
    if why := reader.not_trec(path):
        _err(f"{path} is not a TREC file ({why}): not rewritten")
        return []
    if not (result := reader.check(path)).problems:
        return []
    print(f"{path}: damaged ({'; '.join(result.problems)}); original kept as {path}.damaged")
    with writer.dir_lock(os.path.dirname(path) or "."):
        shutil.copyfile(path, path + ".damaged")
        os.replace(path, path + reader.OPEN_SUFFIX)
        rec = writer.recover_file(path + reader.OPEN_SUFFIX)
    if not rec.docs and not rec.cut_bytes:  # an empty file: nothing to cut, removed
        rec.reason = result.problems[0].removeprefix(f"{path}: ")
    writer.log_recovery(rec)
    return [rec]


def recover(args) -> int:
    """Cut back and close the ``.open`` files of crashed writers in each DIR and its
    ``rejects/`` folder (as a writer does), and rewrite each closed file that ``check`` finds
    damaged, a FILE or one of a DIR's, with its intact documents: a damaged member or garbage
    between intact members is skipped (the documents lost named), damage at the end cut off
    (its index rewritten; the damaged original is kept as ``FILE.damaged``). A closed file is
    never written again by a crawl, so this is safe while one runs. The ``.warc.gz.open``
    files a crawl killed without a JOBDIR left in a DIR (its WARC folder), or named as FILE,
    are closed too: cut back to their last complete record and renamed, as the crawl's next
    start would. With ``--redis URL`` (``--crawl NAME``) the ``.open`` TREC files are
    reconciled with that Redis crawl as its next worker would
    (:class:`wackycrawl.distributed.written.Reconciler`: a document another worker wrote
    again is left out); Redis not answering leaves them ``.open`` (exit 1). Exit 1 if a
    path is neither, or a file of another kind."""
    status = 0
    reconciler = _reconciler(getattr(args, "redis", None), getattr(args, "crawl", None))
    if reconciler is False:
        return 2
    seen, repeated, paths = {}, [], []
    for path in args.paths:  # a folder or file given twice (under any name) is done once
        names = reader.corpus_files([path], rejects=True) if os.path.isdir(path) else []
        if read_once(path, [path], seen, repeated):
            paths.append((path, set(read_once(path, names, seen, repeated))))
    if repeated:
        _err(repeated_note(repeated).replace("is read once", "is recovered once"))
    for path, fresh in paths:
        if os.path.isdir(path):
            refused: list[str] = []  # .open files that are FIFOs...: never read
            warcs = writer.recover_open_files(
                path, warc_writer.SUFFIX, warc_writer.recover_file, warc_writer.LOCK_NAME,
                refused) if any(n.endswith(warc_writer.SUFFIX + warc_writer.OPEN_SUFFIX)
                                for n in os.listdir(path)) else []
            _print_warcs(warcs)
            done = []
            for folder in reader.corpus_folders(path):  # the folder and its rejects/
                done += writer.recover_dir(folder, refused, reconcile=reconciler)
            for name in refused:
                _err(f"{name}: not a regular file; not read")
                status = 1
            closed = {rec.final for rec in done}
            for name in reader.corpus_files([path], rejects=True):
                if name in closed or name not in fresh:
                    continue
                if reader.is_irregular(name):  # a FIFO: never opened (it may never end)
                    _err(f"{name}: not a regular file; not read")
                    status = 1
                    continue
                done += _cut_back_damaged(name)
            if not done and not warcs and not refused:
                print(f"{' and '.join(reader.corpus_folders(path))}: no .open or damaged file "
                      "to recover")
        elif os.path.isfile(path) and path.endswith(warc_writer.SUFFIX
                                                    + warc_writer.OPEN_SUFFIX):
            with writer.dir_lock(os.path.dirname(path) or ".", warc_writer.LOCK_NAME):
                rec = warc_writer.recover_file(path)
            if rec is None:
                _err(f"{path} is being written by a running crawl: left as it is")
                status = 1
            else:
                _print_warcs([rec])
            continue
        elif reader.is_irregular(path):
            _err(f"{path}: not a regular file; nothing to recover")
            status = 1
            continue
        elif os.path.isfile(path) and (why := reader.not_trec(path)):
            _err(f"{path} is not a TREC file ({why}): nothing to recover")
            status = 1
            continue
        elif os.path.isfile(path) and path.endswith(".trec.gz"):
            if not (done := _cut_back_damaged(path)):
                print(f"{path}: not damaged, nothing to do")
                continue
        else:
            _err(f"{path} is neither a directory nor a .trec.gz or .warc.gz.open file")
            status = 1
            continue
        for rec in done:
            lost = (f"; {len(rec.lost)} document(s) lost: {', '.join(rec.lost)}"
                    if rec.lost else "")
            lost += (f"; {rec.removed} left out: written again by another worker"
                     if rec.removed else "")
            print(f"{rec.path} -> {rec.final or 'removed'}: {rec.docs} documents kept, "
                  f"{rec.cut_bytes} bytes cut ({rec.reason}){lost}")
    if reconciler:
        counts = (reconciler.reconciled, reconciler.superseded, reconciler.failed)
        reconciler.finish()
        print(f"crawl {args.crawl}: {counts[0]} documents recorded as written now, {counts[1]} "
              "left out (written again by another worker)")
        if counts[2]:
            _err(f"{counts[2]} .open file(s) not reconciled (Redis did not answer): left .open")
            status = 1
    return status


def _reconciler(url: str | None, crawl: str | None):
    """The Reconciler of ``--redis URL``/``--crawl``, None without a URL, False (said on
    stderr) for a URL that is no Redis URL."""
    if not url:
        return None
    if (server := redis_client("trec", url)) is None:
        return False
    from collections import Counter

    from wackycrawl.distributed.keys import CrawlKeys
    from wackycrawl.distributed.written import Reconciler

    class Stats(Counter):
        def inc_value(self, key, n=1):
            self[key] += n

    return Reconciler(server, CrawlKeys(crawl or default_crawl()), Stats())


def _print_warcs(recovered: list) -> None:
    for rec in recovered:
        print(f"{rec.path} -> {rec.final or 'removed'}: {rec.records} WARC records kept, "
              f"{rec.cut_bytes} bytes cut ({rec.reason})")


def register(subparsers) -> None:
    parser = subparsers.add_parser("trec", help="read, check and repair gzip TREC files")
    sub = parser.add_subparsers(dest="trec_command", required=True)
    files = {"nargs": "+", "metavar": "FILE", "help": "compound files or corpus folders"}
    p = sub.add_parser("cat", help="print every document of the files")
    p.add_argument("files", **files)
    p.set_defaults(func=cat)
    p = sub.add_parser("get", help="print one document by DOCNO, or those of a URL or checksum")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("docno", nargs="?", help="the document's DOCNO")
    which.add_argument("--url", help="every document fetched from this URL")
    which.add_argument("--checksum", metavar="HEX", type=checksum,
                       help="the document a near-duplicate drop names (its X-Wacky-Checksum)")
    p.add_argument("--dir", default=writer.DIRECTORY, help="corpus directory (default: corpus)")
    p.set_defaults(func=get)
    p = sub.add_parser("check", help="validate files and indexes; exit 1 on damage")
    p.add_argument("files", **files)
    p.set_defaults(func=check)
    p = sub.add_parser("index", help="rebuild the .idx.tsv of files")
    p.add_argument("files", **files)
    p.set_defaults(func=index)
    p = sub.add_parser("recover", help="close the .open files (TREC, WARC) crashed writers "
                                       "left in DIR; rewrite a damaged closed TREC file (FILE "
                                       "or in DIR) with its intact documents")
    p.add_argument("paths", metavar="DIR|FILE", nargs="*", default=[writer.DIRECTORY])
    p.add_argument("--redis", metavar="URL", default=None,
                   help="reconcile the .open files with this Redis crawl's written URLs, as "
                        "its next worker would: a document written again by another worker "
                        "is left out")
    p.add_argument("--crawl", default=default_crawl(),
                   help="with --redis: the crawl name, the workers' WACKY_CRAWL_NAME "
                        "(default: $WACKY_CRAWL_NAME or seeds; now %(default)s)")
    p.set_defaults(func=recover)
