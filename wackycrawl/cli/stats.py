"""``wackycrawl stats CORPUS_DIR [--json]``: corpus-wide totals of a crawl's output directory.

Across every TREC file, crawl process (worker) and resumed run in CORPUS_DIR: documents,
words, characters, files, MB, crawl processes, languages, and drops per reason from the
``drops-*.tsv`` files (each URL once per reason, across the files) (:mod:`wackycrawl.crawl.totals`). Exit
codes: 0 done, 1 the directory cannot be read, holds no crawl output (neither TREC files nor
drops files: a wrong path) or a file is damaged (its complete documents are still counted).
"""

import dataclasses
import json
import sys

from wackycrawl.cli import error
from wackycrawl.crawl.totals import corpus_totals, report


def register(subparsers) -> None:
    p = subparsers.add_parser("stats", help="corpus-wide totals of an output directory")
    p.add_argument("directory", metavar="CORPUS_DIR", help="the crawl's WACKY_OUTPUT_DIR")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        totals = corpus_totals(args.directory)
    except OSError as exc:
        error("stats", f"{args.directory}: {exc.strerror or exc}")
        return 1
    if not (totals.files or totals.open_files or totals.drops_files or totals.rejected
            or totals.rejected_open_files):
        error("stats", f"no crawl output in {args.directory} (no .trec.gz file, no drops-*.tsv)")
        return 1
    if args.json:
        data = {f.name: getattr(totals, f.name) for f in dataclasses.fields(totals)}
        data.update(writers=sorted(totals.writers), languages=dict(totals.languages),
                    drops=dict(totals.drops))
        print(json.dumps(data, sort_keys=True))
    else:
        sys.stdout.write(report(totals, args.directory))
    for problem in totals.problems:
        error("stats", f"{problem}")
    return 1 if totals.problems else 0
