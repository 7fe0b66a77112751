"""``wackycrawl trec cat|get|check|index|recover``: read, validate and repair TREC files.

Exit codes: 0 success; 1 damage found (truncated or corrupt file, index mismatch) or DOCNO not
found; 2 usage errors (argparse).
"""

import os
import sys

from wackycrawl.trec import reader, writer
from wackycrawl.trec.format import TrecFormatError

DAMAGE = (reader.TrecFileError, TrecFormatError, OSError)


def _err(message: str) -> None:
    print(f"wackycrawl trec: {message}", file=sys.stderr)


def cat(args) -> int:
    """All documents of the files, decompressed, to stdout; damage goes to stderr."""
    status = 0
    for path in args.files:
        try:
            for member, _ in reader.iter_docs(path):
                sys.stdout.buffer.write(member.data)
        except BrokenPipeError:
            raise
        except DAMAGE as exc:
            _err(str(exc))
            status = 1
    sys.stdout.buffer.flush()
    return status


def get(args) -> int:
    """One document by DOCNO, found through the index files of ``--dir``."""
    try:
        found = reader.find_doc(args.dir, args.docno)
        if found is None:
            _err(f"{args.docno} is in no index in {args.dir}")
            return 1
        data = reader.get_doc(*found)
    except DAMAGE as exc:
        _err(str(exc))
        return 1
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


def check(args) -> int:
    """Validate each file; one line per file, ``OK`` or ``DAMAGED`` with the problems."""
    status = 0
    for path in args.files:
        result = reader.check(path)
        if result.ok:
            print(f"OK {path}: {result.docs} documents")
        else:
            status = 1
            print(f"DAMAGED {path}: {result.docs} readable documents; "
                  + "; ".join(result.problems))
    return status


def index(args) -> int:
    """Rebuild ``FILE.idx.tsv`` from the members of a complete file."""
    entries = []
    try:
        for member, doc in reader.iter_docs(args.file):
            entries.append((doc.docno, member.offset, member.length))
    except DAMAGE as exc:
        _err(f"{exc}; index not written (run 'wackycrawl trec recover' on .open files)")
        return 1
    if len({offset for _, offset, _ in entries}) != len(entries):
        _err(f"{args.file}: several documents share a member; no random access possible")
        return 1
    writer.write_index(args.file, entries)
    print(f"{reader.index_path(args.file)}: {len(entries)} entries")
    return 0


def recover(args) -> int:
    """Cut back and close the ``.open`` files of crashed writers in DIR (as a writer does)."""
    if not os.path.isdir(args.dir):
        _err(f"{args.dir} is not a directory")
        return 1
    for rec in writer.recover_dir(args.dir):
        print(f"{rec.path} -> {rec.final or 'removed'}: {rec.docs} documents kept, "
              f"{rec.cut_bytes} bytes cut ({rec.reason})")
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("trec", help="read, check and repair gzip TREC files")
    sub = parser.add_subparsers(dest="trec_command", required=True)
    p = sub.add_parser("cat", help="print every document of the files")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cat)
    p = sub.add_parser("get", help="print one document by DOCNO (random access)")
    p.add_argument("docno")
    p.add_argument("--dir", default=writer.DIRECTORY, help="corpus directory (default: corpus)")
    p.set_defaults(func=get)
    p = sub.add_parser("check", help="validate files and indexes; exit 1 on damage")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=check)
    p = sub.add_parser("index", help="rebuild the .idx.tsv of a file")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(func=index)
    p = sub.add_parser("recover", help="close the .open files crashed writers left in DIR")
    p.add_argument("dir", metavar="DIR", nargs="?", default=writer.DIRECTORY)
    p.set_defaults(func=recover)

