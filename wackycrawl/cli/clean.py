"""``wackycrawl clean -o OUTDIR FILE.html...``: boilerplate removal on saved pages.

Each FILE is decoded (:func:`wackycrawl.text.encoding.decode_html`, no HTTP header), cleaned
by the chosen extractor and written to ``OUTDIR/<name>.txt`` (UTF-8, one paragraph a line;
written to a temporary file first, so no half-written output is left). Exit codes: 0 when
every file was cleaned (a page without text gives an empty file and a note), 1 when some
file could not be read or decoded (each named on stderr), 2 for usage errors (argparse).
"""

import os
import sys
from pathlib import Path

from wackycrawl import settings
from wackycrawl.text.encoding import EncodingError, decode_html
from wackycrawl.text.extractors import EXTRACTORS, get_extractor


def _err(message: str) -> None:
    print(f"wackycrawl clean: {message}", file=sys.stderr)


def clean(args) -> int:
    extract = get_extractor(
        args.extractor, settings.WACKY_MAX_LINK_DENSITY, settings.WACKY_MIN_OUTSIDE_WORDS
    )
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    status, written = 0, set()
    for name in args.files:
        target = outdir / (Path(name).stem + ".txt")
        if target in written:
            _err(f"{name}: skipped, {target} was already written from another input")
            status = 1
            continue
        try:
            paragraphs = extract(decode_html(Path(name).read_bytes()).text)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_text("".join(p + "\n" for p in paragraphs), encoding="utf-8")
            os.replace(tmp, target)
        except (OSError, EncodingError) as exc:
            _err(f"{name}: not cleaned: {exc}")
            status = 1
            continue
        written.add(target)
        if not paragraphs:
            _err(f"{name}: no text left after boilerplate removal ({target} is empty)")
    return status


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "clean", help="remove boilerplate from HTML files (one paragraph a line)"
    )
    parser.add_argument("files", nargs="+", metavar="FILE.html")
    parser.add_argument("-o", "--outdir", required=True, metavar="OUTDIR")
    parser.add_argument(
        "--extractor",
        choices=EXTRACTORS,
        default=settings.WACKY_EXTRACTOR,
        help=f"boilerplate remover (default: {settings.WACKY_EXTRACTOR})",
    )
    parser.set_defaults(func=clean)
