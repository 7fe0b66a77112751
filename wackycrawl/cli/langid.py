"""``wackycrawl langid [FILE...]``: function-word language identification of text files.

Prints ``name<TAB>lang<TAB>score<TAB>method`` per document: one document per FILE, or, with
``--lines``, one per line (named ``FILE:LINENO``). No FILE (or ``-``) reads stdin.
"""

import sys

from wackycrawl.text import funcwords


def register(subparsers) -> None:
    p = subparsers.add_parser("langid", help="identify the language of text files or lines")
    p.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text files (default stdin)")
    p.add_argument("--lines", action="store_true", help="one document per line")
    p.add_argument("--min-chars", type=int, default=funcwords.MIN_CHARS,
                   help="shorter documents are 'und' (characters; default %(default)s)")
    p.add_argument("--min-margin", type=float, default=funcwords.MIN_MARGIN,
                   help="lead of the best list needed without langid (default %(default)s)")
    p.add_argument("--prose", action="store_true",
                   help="add columns fw_types, fw_tokens, fw_ratio and prose (yes/no)")
    p.set_defaults(func=run)


def _documents(names: list[str], lines: bool):
    for name in names or ["-"]:
        if name == "-":
            data = sys.stdin.buffer.read()
        else:
            try:
                with open(name, "rb") as f:
                    data = f.read()
            except OSError as exc:
                print(f"wackycrawl langid: {name}: {exc.strerror}", file=sys.stderr)
                yield name, None
                continue
        text = data.decode("utf-8", errors="replace")
        if lines:
            for i, line in enumerate(text.splitlines(), 1):
                yield f"{name}:{i}", line
        else:
            yield name, text


def run(args) -> int:
    ident = funcwords.Identifier(min_chars=args.min_chars, min_margin=args.min_margin)
    status = 0
    for name, text in _documents(args.files, args.lines):
        if text is None:
            status = 1
            continue
        r = ident.identify(text)
        cols = [name, r.lang, f"{r.score:.3f}", r.method]
        if args.prose:
            prose = "yes" if funcwords.is_connected_prose(r) else "no"
            cols += [str(r.fw_types), str(r.fw_tokens), f"{r.fw_ratio:.3f}", prose]
        print("\t".join(cols))
    return status
