"""``wackycrawl report CORPUS... -o DIR``: statistics and plots of a corpus.

CORPUS is a corpus directory or TREC files (tokenised with SoMaJo as the vertical export is,
``--workers`` processes), or vertical files written by ``wackycrawl export`` (``.vrt``,
``.vrt.gz``: read, not tokenised again, so much faster). DIR receives ``report.html`` (one
page, opens offline), its PNG plots, ``report.json`` (the same numbers) and ``freq.tsv``
(``type TAB count``, input for ``wackycrawl tuples``). ``--stats`` adds the drop reasons of
the crawl's stats file (``WACKY_STATS_FILE``). What is counted and fitted:
:mod:`wackycrawl.corpus.stats`. Exit codes: 0 done, 1 unreadable input, a folder without
TREC file, a damaged file (run ``wackycrawl trec recover`` on it) or an unwritable DIR
(nothing is written, as export and filter do: the report is written into ``DIR.partial``
and moved into DIR once complete, :mod:`wackycrawl.corpus.output`), 2 usage errors and a DIR that is or lies
inside an input folder, would overwrite an input file, or exists and is no folder
(nothing written). A DIR that holds files (an earlier report) is refused, exit 1, unless
``--force`` is given: then the new report's files replace those of the same name once the
report is complete.
"""

import gzip
import json
import os
import sys
from functools import partial

from wackycrawl.cli import damage_exit, error, note_left_open, positive_int
from wackycrawl.corpus.output import PartialDir, input_clash, not_a_folder
from wackycrawl.corpus.export import paragraphs_of, read_vertical, text_attributes, tokenized
from wackycrawl.corpus.source import (
    SourceErrors,
    corpus_files,
    iter_corpus,
    nothing_found,
    repeated_note,
)
from wackycrawl.corpus.stats import CorpusStats
from wackycrawl.crawl.drops import drops_by_reason
from wackycrawl.trec.reader import NotTrecFile

VERTICAL = (".vrt", ".vrt.gz")


_err = partial(error, "report")


def add_trec(stats: CorpusStats, files: list[str], workers: int, errors: SourceErrors) -> None:
    docs = iter_corpus(files, errors)
    for doc, langs, tokens in tokenized(docs, workers):
        paragraphs = paragraphs_of(tokens, langs)
        if paragraphs:  # as the vertical export, which leaves documents without tokens out
            stats.add(text_attributes(doc), paragraphs)


def add_vertical(stats: CorpusStats, path: str) -> None:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for attrs, paragraphs in read_vertical(f):
            stats.add(attrs, paragraphs)


def _load_json(path: str) -> dict:
    try:
        f = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise ValueError("no such file: a crawl writes its stats file when run with -s "
                         "WACKY_STATS_FILE=FILE") from None
    with f:
        try:
            data = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"not a stats file (WACKY_STATS_FILE): not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("not a stats file (WACKY_STATS_FILE): no JSON object")
    return data


def _named(path: str, read):
    """``read()``, its decoding errors (not UTF-8, not JSON, not gzip) naming ``path``."""
    try:
        return read()
    except (UnicodeDecodeError, ValueError, gzip.BadGzipFile, EOFError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def _clash(output: str, inputs: list[str], files: list[str]) -> str | None:
    """Why the report folder ``output`` must not be written: it is, or lies inside, an input
    folder, or one of the files it would write is an input file; else None."""
    from wackycrawl.corpus.report import OUTPUT_FILES

    for name in (output, *(os.path.join(output, n) for n in OUTPUT_FILES)):
        if clash := input_clash(name, inputs, files):
            return clash
    return None


def run(args) -> int:
    from wackycrawl.corpus.report import write_report  # matplotlib: only when reporting

    stats, errors = CorpusStats(), SourceErrors()
    drops = None
    try:
        if args.stats:
            drops = _named(args.stats, lambda: drops_by_reason(_load_json(args.stats)))
        trec = [p for p in args.corpus if not p.endswith(VERTICAL)]
        open_files: list[str] = []
        repeated: list[tuple[str, str]] = []
        files = corpus_files(trec, open_files=open_files, repeated=repeated)
        vertical = corpus_files([p for p in args.corpus if p.endswith(VERTICAL)],
                                repeated=repeated, kind=False)
        note_left_open("report", open_files)
        if repeated:
            _err(repeated_note(repeated))
        if trec and not files:  # as export, filter and trec check: nothing is written
            _err(nothing_found(trec))
            return 1
        if clash := _clash(args.output, args.corpus, files + vertical):
            _err(f"{clash}; write the report elsewhere (nothing written)")
            return 2
        if problem := not_a_folder(args.output):
            _err(problem)
            return 2
        if os.path.isdir(args.output) and os.listdir(args.output) and not args.force:
            _err(f"{args.output} already holds files (an earlier report?): give --force to "
                 "replace the report in it, or another -o (nothing written)")
            return 1
        for path in vertical:
            _named(path, lambda path=path: add_vertical(stats, path))
        if files:
            add_trec(stats, files, args.workers, errors)
        if errors.damaged:  # as export and filter: no report of part of the corpus
            damage_exit("report", errors.damaged)
            _err(f"nothing written to {args.output}: an input file is damaged")
            return 1
        args.interrupted = f"nothing written to {args.output}"
        with PartialDir(args.output) as staged:
            summary = write_report(stats, staged.partial, args.title, drops)
            staged.commit()
    except (OSError, ValueError, UnicodeDecodeError, NotTrecFile) as exc:
        _err(str(exc))
        return 1
    print(f"{summary['documents']} documents, {summary['tokens']} tokens, {summary['types']} "
          f"types, {summary['hapax_legomena']} hapax legomena; report in "
          f"{args.output}/report.html", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="corpus statistics (Zipf, Heaps, hapax, TLDs, "
                                             "languages) as HTML, PNG and JSON, and freq.tsv")
    p.add_argument("corpus", nargs="+", metavar="CORPUS",
                   help="corpus directory, TREC files or .vrt[.gz] files from export")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the report's folder, new or empty (see --force)")
    p.add_argument("--force", action="store_true",
                   help="write into a DIR that holds files, replacing an earlier report")
    p.add_argument("--stats", metavar="FILE", help="the crawl's stats JSON (drop reasons)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="tokenizer processes (TREC input)")
    p.add_argument("--title", default="Corpus report")
    p.set_defaults(func=run)
