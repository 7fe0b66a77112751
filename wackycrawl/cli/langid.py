"""``wackycrawl langid [FILE...]``: language identification of texts or HTML pages.

Prints ``name<TAB>lang<TAB>score<TAB>method<TAB>top2`` per document: one document per FILE,
or, with ``--lines``, one per line (named ``FILE:LINENO``; lines end at ``\n`` only, a
``\r`` before it dropped: U+2028 and the other separators of ``str.splitlines`` stay in
their line). No FILE (or ``-``) reads stdin.
``top2`` is ``de:0.981,nl:0.012`` (the model's two best, or a close group's candidates) or
``-``. A FILE with HTML markup (``--html auto``, the default, looks for it) is decoded and
cleaned by the crawl's extractor first, so the language is that of the text a crawl would
keep; ``--html no`` reads it as text, ``--lines`` refuses HTML (exit 1). A document shorter
than ``--min-chars`` is ``und`` with method ``short``; a note on stderr says its length and
the option. A file with a UTF-16 or UTF-32 byte order mark is read in that encoding (text
or HTML). A binary file is refused; a text file that is not UTF-8 is read with its bad bytes
as U+FFFD, with a note. A name holding a TAB or a line break (or bytes that are no UTF-8,
or starting with ``"``) is printed as a JSON string (:func:`wackycrawl.cli.tsv_name`). Exit 1
when some FILE could not be read or was refused.
"""

import re
import sys
from functools import partial

from w3lib.encoding import read_bom

from wackycrawl import settings
from wackycrawl.cli import error, tsv_name
from wackycrawl.text import funcwords
from wackycrawl.text.encoding import BinaryContentError, EncodingError, decode_html, sniff_binary
from wackycrawl.text.extractors import get_extractor

# Markup: a doctype or <html> at the start, or at least two common HTML tags anywhere.
_HTML_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html|\?xml)", re.I)
_HTML_TAG = re.compile(rb"<(?:html|head|body|title|meta|p|div|span|br|a|table|li|h[1-6])[\s>/]",
                       re.I)


def looks_like_html(data: bytes) -> bool:
    """True when ``data`` starts like an HTML document or holds two common HTML tags."""
    return bool(_HTML_START.match(data)) or len(_HTML_TAG.findall(data, 0, 100_000)) >= 2


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` for ``--lines``: split at ``\\n`` only (not at the other
    separators of ``str.splitlines``, U+2028, U+0085, form feed...: they are text within a
    line), a trailing ``\\r`` removed (CRLF files); no empty last line after a final newline."""
    found = text.split("\n")
    if found[-1] == "":
        found.pop()
    return [line.removesuffix("\r") for line in found]


def register(subparsers) -> None:
    p = subparsers.add_parser("langid", help="identify the language of texts or HTML pages")
    p.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text or HTML (default stdin)")
    p.add_argument("--lines", action="store_true", help="one document per line (text only)")
    p.add_argument("--html", choices=("auto", "yes", "no"), default="auto",
                   help="extract the text of HTML first: auto = when markup is found "
                        "(default %(default)s)")
    p.add_argument("--min-chars", type=int, default=funcwords.MIN_CHARS,
                   help="shorter documents are 'und' (characters; default %(default)s)")
    p.add_argument("--min-margin", type=float, default=funcwords.MIN_MARGIN,
                   help="lead of the best list over the runner-up (default %(default)s)")
    p.add_argument("--prose", action="store_true",
                   help="add columns fw_types, fw_tokens, fw_ratio and prose (yes/no)")
    p.set_defaults(func=run)


_err = partial(error, "langid")


def _read(name: str) -> bytes | None:
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        with open(name, "rb") as f:
            return f.read()
    except OSError as exc:
        _err(f"{name}: {exc.strerror}")
        return None


def wide_to_utf8(data: bytes) -> bytes:
    """``data`` (bytes) starting with a UTF-16 or UTF-32 byte order mark, as UTF-8 bytes
    after a UTF-8 BOM (the file's text, as the crawl, ``clean`` and ``encoding`` read it);
    any other data, or such data that does not decode under its BOM, unchanged."""
    codec, bom = read_bom(data[:4])
    if codec is None or not codec.startswith(("utf-16", "utf-32")):
        return data
    try:
        return b"\xef\xbb\xbf" + data[len(bom):].decode(codec).encode("utf-8")
    except UnicodeError:
        return data


def _documents(names: list[str], lines: bool, html: str):
    """(name, text or None when refused/unreadable) per document."""
    extract = get_extractor(settings.WACKY_EXTRACTOR, settings.WACKY_MAX_LINK_DENSITY,
                            settings.WACKY_MIN_OUTSIDE_WORDS)
    for name in names or ["-"]:
        data = _read(name)
        if data is None:
            yield name, None
            continue
        data = wide_to_utf8(data)
        if html == "yes" or (html == "auto" and looks_like_html(data)):
            if lines:
                _err(f"{name}: HTML markup found; --lines reads plain text only (run "
                     "without --lines to identify the page's text, or --html no)")
                yield name, None
                continue
            try:
                paragraphs = extract(decode_html(data).text)
            except EncodingError as exc:
                _err(f"{name}: HTML not decoded: {exc}")
                yield name, None
                continue
            _err(f"{name}: HTML: {len(paragraphs)} paragraph(s) of text extracted by the "
                 f"{settings.WACKY_EXTRACTOR!r} extractor (--html no reads the markup as text)")
            yield name, "\n".join(paragraphs)
            continue
        try:
            sniff_binary(data)
        except BinaryContentError as exc:
            _err(f"{name}: not text: {exc}")
            yield name, None
            continue
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            _err(f"{name}: not UTF-8 (byte {exc.start}: {exc.reason}), bad bytes read as U+FFFD "
                 f"(`wackycrawl encoding {name}` names its encoding; convert it with iconv)")
        if lines:
            for i, line in enumerate(split_lines(text), 1):
                yield f"{name}:{i}", line
        else:
            yield name, text


def run(args) -> int:
    ident = funcwords.Identifier(min_chars=args.min_chars, min_margin=args.min_margin)
    status = 0
    for name, text in _documents(args.files, args.lines, args.html):
        if text is None:
            status = 1
            continue
        r = ident.identify(text)
        top2 = ",".join(f"{lang}:{p:.3f}" for lang, p in r.top2) or "-"
        cols = [tsv_name(name), r.lang, f"{r.score:.3f}", r.method, top2]
        if args.prose:
            prose = "yes" if funcwords.is_connected_prose(r) else "no"
            cols += [str(r.fw_types), str(r.fw_tokens), f"{r.fw_ratio:.3f}", prose]
        print("\t".join(cols))
        if r.method == "short":
            _err(f"{name}: und: {r.chars} characters, shorter than --min-chars "
                 f"{args.min_chars} (lower it, e.g. --min-chars 0, to judge short text)")
    return status
