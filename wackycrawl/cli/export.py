"""``wackycrawl export CORPUS... --format vrt|txt|jsonl [-o FILE]``: the corpus for other tools.

``vrt``: the vertical format of CWB (``cwb-encode``) and Sketch Engine, with sentences and
tokens from SoMaJo and the DOCHDR metadata as ``<text>`` attributes; the counts and the
``cwb-encode`` options declaring every structure go to stderr. ``txt``: plain text, one
paragraph per line, a blank line after each document (``--one-per-file``: ``-o`` is a
directory of ``<DOCNO>.txt`` files, new or empty: one holding files is refused, exit 2). ``jsonl``: one JSON object per document (text and
metadata). ``-o`` ending in ``.gz`` is gzip-compressed; no ``-o`` writes to stdout.
``--rejects`` adds the rejects stream (their ``rejected`` attribute tells them apart).
The output is written as ``FILE.partial`` (``DIR.partial``) and renamed into place once
complete: after an error, a damaged input, Ctrl-C or SIGTERM no output is left (to stdout,
the complete documents of a damaged file are written); once it is in place, a Ctrl-C or
SIGTERM no longer fails the command (exit 0, a note on stderr). Formats:
:mod:`wackycrawl.corpus.export`. Exit codes: 0 done, 1 unreadable input, an input that is no
TREC file or a damaged file (nothing written; run ``wackycrawl trec recover`` on it), 2
usage errors, an output that is an input file or lies inside an input folder, and an ``-o``
that is a folder without ``--one-per-file`` (nothing written), 130 interrupted before the output was in place.
An ``-o FILE`` that exists is refused (exit 1, nothing written) unless ``--force`` is given:
then it is replaced once the new one is complete.
"""

import gzip
import os
import sys
from contextlib import nullcontext
from functools import partial

from wackycrawl.cli import damage_exit, error, note_left_open, positive_int, work_done
from wackycrawl.corpus import export
from wackycrawl.corpus.output import PartialDir, PartialFile, input_clash
from wackycrawl.corpus.source import (
    INPUT_ERRORS,
    SourceErrors,
    corpus_files,
    iter_corpus,
    nothing_found,
    repeated_note,
)

_err = partial(error, "export")


def open_output(path: str | None, final: str | None = None):
    """A text stream (UTF-8) for ``path``: gzip when ``final`` (the name the file will have,
    default ``path``) ends in ``.gz``, stdout for None/``-``."""
    if not path or path == "-":
        return nullcontext(sys.stdout)
    if (final or path).endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def run(args) -> int:
    open_files: list[str] = []
    repeated: list[tuple[str, str]] = []
    if args.one_per_file and (args.format != "txt" or not args.output):
        _err("--one-per-file needs --format txt and -o DIRECTORY")
        return 2
    try:
        files = corpus_files(args.corpus, rejects=args.rejects, open_files=open_files,
                             repeated=repeated)
    except INPUT_ERRORS as exc:
        _err(str(exc))
        return 1
    note_left_open("export", open_files)
    if repeated:
        _err(repeated_note(repeated))
    if not files:
        _err(nothing_found(args.corpus))
        return 1
    to_file = args.output and args.output != "-"
    if to_file and (clash := input_clash(args.output, args.corpus, files)):
        _err(f"{clash}: it would be overwritten or mixed into the corpus; write the export "
             "elsewhere (nothing written)")
        return 2
    if to_file and not args.one_per_file and os.path.isdir(args.output):
        _err(f"{args.output} is a folder: give a file name for -o (a folder of files is "
             "--format txt --one-per-file -o DIR; nothing written)")
        return 2
    if to_file and not args.one_per_file and os.path.lexists(args.output) and not args.force:
        _err(f"{args.output} exists: give --force to replace it, or another -o (nothing "
             "written)")
        return 1
    if args.one_per_file and os.path.lexists(args.output):
        if not os.path.isdir(args.output):
            _err(f"{args.output} exists and is not a folder: give a new or empty folder for "
                 "--one-per-file (nothing written)")
            return 2
        if os.listdir(args.output):
            _err(f"{args.output} already holds files: the export would be mixed with them; "
                 "give a new or empty folder (nothing written)")
            return 2
    errors, counts = SourceErrors(), export.Counts()
    docs = iter_corpus(files, errors)
    if to_file:
        args.interrupted = f"{args.output} not written"
    try:
        if args.one_per_file:
            with PartialDir(args.output) as out:
                for doc in docs:
                    with open(os.path.join(out.partial, f"{doc.docno}.txt"), "w",
                              encoding="utf-8") as f:
                        f.write(export.txt(doc).rstrip("\n") + "\n")
                    counts.texts += 1
                if not errors.damaged:
                    out.commit()
                    work_done(args, f"{args.output} is complete")
        else:
            with PartialFile(args.output) if to_file else nullcontext() as out:
                with open_output(out and out.partial, args.output) as stream:
                    if args.format == "vrt":
                        blocks = (export.vrt(doc, tokens, langs, counts) for doc, langs, tokens
                                  in export.tokenized(docs, args.workers))
                    else:
                        blocks = (_counted(getattr(export, args.format)(doc), counts)
                                  for doc in docs)
                    for block in blocks:
                        stream.write(block)
                if out and not errors.damaged:
                    out.commit()
                    work_done(args, f"{args.output} is complete")
    except BrokenPipeError:
        raise
    except OSError as exc:
        _err(f"cannot write {args.output or 'stdout'}: {exc}")
        return 1
    if errors.damaged and to_file:
        damage_exit("export", errors.damaged)
        _err(f"nothing written to {args.output}: an input file is damaged")
        return 1
    if args.format == "vrt":
        print(f"{counts.texts} texts, {counts.paragraphs} paragraphs, {counts.sentences} "
              f"sentences, {counts.tokens} tokens ({counts.empty} documents without tokens "
              f"left out)\n{counts.cwb_encode(args.output)}", file=sys.stderr)
    else:
        print(f"{counts.texts} documents", file=sys.stderr)
    return damage_exit("export", errors.damaged)


def _counted(block: str, counts: export.Counts) -> str:
    counts.texts += 1
    return block


def register(subparsers) -> None:
    p = subparsers.add_parser("export", help="write the corpus as vertical (CWB, Sketch "
                                             "Engine), plain text or JSON lines")
    p.add_argument("corpus", nargs="+", metavar="CORPUS", help="corpus directory or TREC files")
    p.add_argument("--format", choices=export.FORMATS, default="vrt",
                   help="output format (default: %(default)s)")
    p.add_argument("-o", "--output", help="output file (.gz: compressed; default stdout); an "
                   "existing one is refused without --force")
    p.add_argument("--force", action="store_true", help="replace an existing -o FILE")
    p.add_argument("--rejects", action="store_true", help="also the rejects/ documents")
    p.add_argument("--one-per-file", action="store_true",
                   help="txt: one file per document in the directory -o")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="tokenizer processes for vrt (default 1)")
    p.set_defaults(func=run)
