"""``wackycrawl export CORPUS... --format vrt|txt|jsonl [-o FILE]``: the corpus for other tools.

``vrt``: the vertical format of CWB (``cwb-encode``) and Sketch Engine, with sentences and
tokens from SoMaJo and the DOCHDR metadata as ``<text>`` attributes; the counts and the
``cwb-encode`` options declaring every structure go to stderr. ``txt``: plain text, one
paragraph per line, a blank line after each document (``--one-per-file``: ``-o`` is a
directory of ``<DOCNO>.txt`` files). ``jsonl``: one JSON object per document (text and
metadata). ``-o`` ending in ``.gz`` is gzip-compressed; no ``-o`` writes to stdout.
``--rejects`` adds the rejects stream (their ``rejected`` attribute tells them apart).
Formats: :mod:`wackycrawl.corpus.export`. Exit codes: 0 done, 1 unreadable input or a
damaged file (its complete documents are exported), 2 usage errors.
"""

import gzip
import os
import sys
from contextlib import nullcontext
from functools import partial

from wackycrawl.cli import damage_exit, error, note_left_open, positive_int
from wackycrawl.corpus import export
from wackycrawl.corpus.source import SourceErrors, corpus_files, iter_corpus, nothing_found

_err = partial(error, "export")


def open_output(path: str | None):
    """A text stream (UTF-8) for ``path``: gzip for ``.gz``, stdout for None/``-``."""
    if not path or path == "-":
        return nullcontext(sys.stdout)
    if path.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def run(args) -> int:
    open_files: list[str] = []
    try:
        files = corpus_files(args.corpus, rejects=args.rejects, open_files=open_files)
    except OSError as exc:
        _err(str(exc))
        return 1
    note_left_open("export", open_files)
    if not files:
        _err(nothing_found(args.corpus))
        return 1
    errors, counts = SourceErrors(), export.Counts()
    docs = iter_corpus(files, errors)
    try:
        if args.one_per_file:
            if args.format != "txt" or not args.output:
                _err("--one-per-file needs --format txt and -o DIRECTORY")
                return 2
            os.makedirs(args.output, exist_ok=True)
            for doc in docs:
                with open(os.path.join(args.output, f"{doc.docno}.txt"), "w",
                          encoding="utf-8") as f:
                    f.write(export.txt(doc).rstrip("\n") + "\n")
                counts.texts += 1
        else:
            with open_output(args.output) as out:
                if args.format == "vrt":
                    blocks = (export.vrt(doc, tokens, langs, counts)
                              for doc, langs, tokens in export.tokenized(docs, args.workers))
                else:
                    blocks = (_counted(getattr(export, args.format)(doc), counts) for doc in docs)
                for block in blocks:
                    out.write(block)
    except BrokenPipeError:
        raise
    except OSError as exc:
        _err(f"cannot write {args.output or 'stdout'}: {exc}")
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
    p.add_argument("--format", choices=export.FORMATS, default="vrt")
    p.add_argument("-o", "--output", help="output file (.gz: compressed; default stdout)")
    p.add_argument("--rejects", action="store_true", help="also the rejects/ documents")
    p.add_argument("--one-per-file", action="store_true",
                   help="txt: one file per document in the directory -o")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="tokenizer processes for vrt (default 1)")
    p.set_defaults(func=run)
