"""The ``wackycrawl`` command: corpus work without crawling.

Subcommands live in one module each (``clean``, ``langid``, ``trec``); each module has
``register(subparsers)`` which adds its parser and sets ``func`` (args -> exit code).
"""

import argparse
import importlib
import signal
import sys

SUBCOMMANDS = ["clean", "langid", "trec"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wackycrawl", description="WaCky corpus tools (cleaning, language ID, TREC files)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"wackycrawl.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):  # `wackycrawl trec cat ... | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
