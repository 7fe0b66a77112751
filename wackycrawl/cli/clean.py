"""``wackycrawl clean -o OUTDIR FILE.html...``: boilerplate removal on saved pages.

Each FILE is decoded (:func:`wackycrawl.text.encoding.decode_html`, no HTTP header), cleaned
by the chosen extractor and written to ``OUTDIR/<name>.txt`` (UTF-8, one paragraph a line;
written to a temporary file first, so no half-written output is left); when two inputs from
different folders have the same name, every input goes below a folder named after its own
(``OUTDIR/de/p1.txt``, ``OUTDIR/en/p1.txt``, ``OUTDIR/en/p2.txt``), see :func:`output_names`.

Host templates (``blocks`` extractor, on unless ``--no-templates``): given several pages of
one site, blocks found on at least ``--template-min-pages`` of them (menus, footers,
banners) are removed from all of them (:mod:`wackycrawl.text.templates`). A first pass
counts the blocks of every file, the second cleans. A page's site is the host of its
``<link rel="canonical">``, ``og:url`` or ``<base href>``, else the folder it lies in.

A file that cannot be read or decoded is reported on stderr and skipped; the others are
cleaned. A file given more than once (under any spelling of its path) is cleaned once, with
a note. Exit codes: 0 when every file was cleaned (a page without text gives an empty file
and a note), 1 when some file could not be read or decoded (each named on stderr), 2 for
usage errors (argparse).
"""

import argparse
import os
import re
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

from wackycrawl import settings
from wackycrawl.cli import error, positive_int
from wackycrawl.text import blocks
from wackycrawl.text.encoding import EncodingError, decode_html
from wackycrawl.text.extractors import EXTRACTORS, get_analyser
from wackycrawl.text.templates import TemplateStore

# Tags that may state the page's own URL, and their parts (in the first 64 KB, the head).
_HEAD_TAG_RE = re.compile(r"<(?:link|meta|base)\b[^<>]*>", re.IGNORECASE)
_SELF_RE = re.compile(r"""rel\s*=\s*["']?canonical|property\s*=\s*["']?og:url|^<base""",
                      re.IGNORECASE)
_URL_RE = re.compile(r"""(?:href|content)\s*=\s*["']?(https?://[^"'\s>]+)""", re.IGNORECASE)
#: Errors of reading or decoding one file: reported, the file skipped.
FILE_ERRORS = (OSError, EncodingError, UnicodeError, LookupError, ValueError)


_err = partial(error, "clean")


def site_of(text: str, path: Path) -> str:
    """The site a page belongs to: the host of the URL its markup names (canonical link,
    og:url, base), else its folder (resolved path)."""
    for tag in _HEAD_TAG_RE.findall(text, 0, 65536):
        url = _URL_RE.search(tag) if _SELF_RE.search(tag) else None
        host = urlsplit(url.group(1)).hostname if url else None
        if host:
            return host.removeprefix("www.")
    return str(path.resolve().parent)


def _read(name: str) -> str:
    return decode_html(Path(name).read_bytes()).text


def learn_templates(files: list[str], min_pages: int) -> tuple[TemplateStore, dict[str, str]]:
    """First pass: a store with the block counts of every readable file, and each file's
    site. Unreadable files are left out (the second pass reports them)."""
    store = TemplateStore(min_pages=min_pages, max_hosts=max(len(files), 1))
    sites = {}
    for name in files:
        try:
            text = _read(name)
        except Exception:  # reported by the second pass
            continue
        sites[name] = site_of(text, Path(name))
        store.observe(sites[name], blocks.block_hashes(text))
    return store, sites


def output_names(files: list[str]) -> dict[str, Path]:
    """Each input's output path relative to OUTDIR: ``<name>.txt`` when no two inputs have
    the same name; otherwise every input goes below the folder it lies in, named after it
    (``de/p1.html``, ``en/p1.html``, ``en/p2.html``: ``de/p1.txt``, ``en/p1.txt``,
    ``en/p2.txt``), with as many of its parent folders as it takes to tell all inputs apart
    (``x/de/p1.txt``, ``y/de/p1.txt``). One file given twice is one input."""
    paths = {name: Path(os.path.abspath(name)) for name in dict.fromkeys(files)}
    distinct = set(paths.values())

    def named(depth: int) -> dict[Path, Path]:
        return {path: Path(*path.parent.parts[1:][-depth:] if depth else (),
                           path.stem + ".txt") for path in distinct}

    # one folder's p1.html and p1.htm stay alike however many folders are named
    apart = len({(path.parent, path.stem) for path in distinct})
    depth = 0
    while len(set((out := named(depth)).values())) < apart:
        depth += 1
    return {name: out[path] for name, path in paths.items()}


def clean(args) -> int:
    analyse = get_analyser(
        args.extractor, settings.WACKY_MAX_LINK_DENSITY, settings.WACKY_MIN_OUTSIDE_WORDS
    )
    store = sites = None
    if args.templates and args.extractor != "bte" and len(args.files) > 1:
        store, sites = learn_templates(args.files, args.template_min_pages)
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    status, written = 0, {}  # target -> the input (absolute path) it was written from
    targets = output_names(args.files)
    for name in args.files:
        target = outdir / targets[name]
        if target in written:
            if written[target] == os.path.abspath(name):  # one file given twice: one input
                _err(f"{name}: given more than once, cleaned once into {target}")
            else:
                _err(f"{name}: skipped, {target} was already written from another input")
                status = 1
            continue
        try:
            text = _read(name)
            site = sites.get(name) if sites else None
            lookup = (lambda hashes, site=site: store.templates(site, hashes)) if site else None
            paragraphs = analyse(text, lookup).paragraphs
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_text("".join(p + "\n" for p in paragraphs), encoding="utf-8")
            os.replace(tmp, target)
        except FILE_ERRORS as exc:
            _err(f"{name}: not cleaned: {exc}")
            status = 1
            continue
        except Exception as exc:  # a fault of ours on one page must not stop the others
            _err(f"{name}: not cleaned: internal error {type(exc).__name__}: {exc}")
            status = 1
            continue
        written[target] = os.path.abspath(name)
        if not paragraphs:
            why = "no text left after boilerplate removal" if text.strip() else "empty file"
            _err(f"{name}: {why} ({target} is empty)")
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
    parser.add_argument(
        "--templates", action=argparse.BooleanOptionalAction, default=settings.WACKY_HOST_TEMPLATES,
        help="remove blocks shared by several pages of one site (default: on)",
    )
    parser.add_argument(
        "--template-min-pages", type=positive_int, default=settings.WACKY_TEMPLATE_MIN_PAGES,
        metavar="N", help="pages of a site a block must be on to be template "
        f"(default: {settings.WACKY_TEMPLATE_MIN_PAGES})",
    )
    parser.set_defaults(func=clean)

