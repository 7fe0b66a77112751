"""``wackycrawl dedup FILE...``: exact and near-duplicate clusters of text files.

The files (UTF-8 clean text, one document each; ``-`` is stdin) are checked in the order given,
as the crawl's dedup stage checks documents
(:class:`~wackycrawl.dedup.detector.DuplicateDetector`: checksum, simhash candidates within
``--k`` bits, word-shingle resemblance >= ``--threshold``); a file that duplicates none before
it starts a cluster, a duplicate joins the cluster of the file it matched. Output, one line per
file, tab-separated::

    path  cluster  verdict  distance  resemblance  of

``cluster`` is the first file of its cluster; ``verdict`` is ``new``, ``exact_duplicate``,
``near_duplicate``, ``too_few_features`` or ``empty``; ``distance`` (simhash Hamming
distance), ``resemblance`` (2 decimals) and ``of`` (the file matched or, for a new file, the
nearest candidate that did not resemble it) are ``-`` when there was no candidate - the same
values as the crawl's ``X-Wacky-Near-*`` DOCHDR lines. With ``--clusters``: one line per
cluster of two or more files, its paths tab-separated, the first file first. A path holding a
TAB or a line break (or bytes that are no UTF-8, or starting with ``"``) is printed as a JSON
string (:func:`wackycrawl.cli.tsv_name`).

A file that cannot be read or is not UTF-8 is reported on stderr and skipped; the exit code
is then 1.
"""

import sys

from wackycrawl.cli import error, tsv_name
from wackycrawl.dedup.detector import K, MIN_FEATURES, DuplicateDetector
from wackycrawl.dedup.shingles import RESEMBLANCE, SHINGLE_SIZE, SKETCH_SIZE


def register(subparsers) -> None:
    p = subparsers.add_parser("dedup", help="exact and near-duplicate clusters of text files")
    p.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files ('-' = stdin)")
    p.add_argument("--clusters", action="store_true",
                   help="one line per cluster of duplicates instead of one per file")
    p.add_argument("--k", type=int, default=K,
                   help="simhash candidates within this Hamming distance (default %(default)s)")
    p.add_argument("--threshold", type=float, default=RESEMBLANCE,
                   help="shingle resemblance of a near duplicate (default %(default)s)")
    p.add_argument("--shingle-size", type=int, default=SHINGLE_SIZE,
                   help="words per shingle (default %(default)s)")
    p.add_argument("--sketch-size", type=int, default=SKETCH_SIZE,
                   help="shingles kept per document (default %(default)s)")
    p.add_argument("--min-features", type=int, default=MIN_FEATURES,
                   help="fewer feature words: exact duplicates only (default %(default)s)")
    p.set_defaults(func=run)


def _read(name: str) -> str | None:
    try:
        if name == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        with open(name, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as exc:
        error("dedup", f"{name}: {exc.strerror}")
    except UnicodeDecodeError as exc:
        print(f"wackycrawl dedup: {name}: not UTF-8 ({exc.reason} at byte {exc.start})",
              file=sys.stderr)
    return None


def run(args) -> int:
    try:
        det = DuplicateDetector(args.k, args.min_features, threshold=args.threshold,
                                shingle_size=args.shingle_size, sketch_size=args.sketch_size)
    except ValueError as exc:
        error("dedup", f"{exc}")
        return 2
    by_checksum = {}  # of kept files
    clusters: dict[str, list[str]] = {}
    status = 0
    for name in args.files:
        text = _read(name)
        if text is None:
            status = 1
            continue
        d = det.check(text)
        det.add(d)
        of = None if d.near_of is None else by_checksum[d.near_of]
        cluster = clusters[of][0] if d.is_duplicate else name
        if not d.is_duplicate:
            by_checksum.setdefault(d.checksum, name)
            clusters[name] = [name]
        else:
            clusters[cluster].append(name)
            clusters[name] = clusters[cluster]
        if not args.clusters:
            none = d.distance is None
            print("\t".join([tsv_name(name), tsv_name(cluster), d.verdict,
                             "-" if none else str(d.distance),
                             "-" if none else f"{d.resemblance:.2f}",
                             tsv_name(of) if of else "-"]))
    if args.clusters:
        for name, members in clusters.items():
            if members[0] == name and len(members) > 1:
                print("\t".join(map(tsv_name, members)))
    return status
