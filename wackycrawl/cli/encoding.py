"""``wackycrawl encoding FILE...``: the codec of each page and the evidence for it.

One line per file, ``path<TAB>codec<TAB>evidence`` (evidence as ``X-Wacky-Encoding-Evidence``:
``declared:meta``, ``guess:cp1252:0.981``...; then ``,repairs:N`` for repaired bytes and
``,controls:N`` for the page's control characters removed). A page the crawl would drop prints
``path<TAB>-<TAB>rejected:<reason>`` and its detail on stderr. ``--content-type`` gives the
HTTP header a server sent. A path holding a TAB or a line break (or bytes that are no UTF-8, or
starting with ``"``) is printed as a JSON string (:func:`wackycrawl.cli.tsv_name`). Exit code
1 if some file could not be read or was rejected.
"""

import sys
from pathlib import Path

from wackycrawl.cli import error, tsv_name
from wackycrawl.text.encoding import (
    MAX_BINARY_SHARE,
    MAX_REPAIRS,
    MIN_PLAUSIBILITY,
    BinaryContentError,
    EncodingError,
    decode_html,
)


def run(args) -> int:
    status = 0
    for name in args.files:
        try:
            body = Path(name).read_bytes()
            decoded = decode_html(body, args.content_type, args.max_repairs,
                                  MAX_BINARY_SHARE, args.min_plausibility)
        except OSError as exc:
            error("encoding", f"{name}: {exc.strerror or exc}")
            status = 1
            continue
        except EncodingError as exc:
            reason = "binary" if isinstance(exc, BinaryContentError) else "encoding"
            print(f"{tsv_name(name)}\t-\trejected:{reason}")
            error("encoding", f"{name}: {exc}")
            status = 1
            continue
        if not decoded.text.strip():  # the crawl's drop "empty"
            print(f"{tsv_name(name)}\t-\trejected:empty")
            print(f"wackycrawl encoding: {name}: nothing but whitespace in {len(body)} bytes",
                  file=sys.stderr)
            status = 1
            continue
        repairs = f",repairs:{decoded.repairs}" if decoded.repairs else ""
        controls = f",controls:{decoded.controls}" if decoded.controls else ""
        print(f"{tsv_name(name)}\t{decoded.encoding}\t{decoded.evidence}{repairs}{controls}")
    return status


def register(subparsers) -> None:
    p = subparsers.add_parser("encoding", help="the codec of HTML files and the evidence")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--content-type", default=None,
                   help="the HTTP Content-Type header sent with the files")
    p.add_argument("--max-repairs", type=int, default=MAX_REPAIRS,
                   help=f"stray bytes repaired at most (default {MAX_REPAIRS})")
    p.add_argument("--min-plausibility", type=float, default=MIN_PLAUSIBILITY,
                   help=f"least plausibility of a stored text (default {MIN_PLAUSIBILITY})")
    p.set_defaults(func=run)
