"""The ``wackycrawl`` command: corpus work without crawling.

Subcommands live in one module each (``clean``, ``langid``, ``trec``, ``tuples``,
``queries``); each module has ``register(subparsers)`` which adds its parser and sets ``func``
(args -> exit code).
"""

import argparse
import importlib
import os
import sys

SUBCOMMANDS = ["clean", "langid", "trec", "tuples", "queries", "seeds", "status"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wackycrawl", description="WaCky corpus tools (cleaning, language ID, TREC files)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"wackycrawl.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `wackycrawl trec cat ... | head`: the reader is gone, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
