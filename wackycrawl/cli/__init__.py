"""The ``wackycrawl`` command: corpus work without crawling.

Subcommands live in one module each (``clean``, ``langid``, ``trec``, ``tuples``,
``queries``); each module has ``register(subparsers)`` which adds its parser and sets ``func``
(args -> exit code). A command that should say more when interrupted (Ctrl-C, SIGTERM)
than ``interrupted (SIGINT)`` sets ``args.interrupted`` to the rest of that line; one whose
output is complete and in place calls :func:`work_done`, after which an interruption is no
failure (exit status 0: :func:`interrupted_status`).
"""

import argparse
import importlib
import json
import os
import re
import signal
import sys

from wackycrawl import __version__

SUBCOMMANDS = ["clean", "langid", "encoding", "trec", "tuples", "queries", "seeds", "status",
               "filter", "export", "report", "stats",
               "process", "judge", "dedup"]


def error(command: str, message: str) -> None:
    """Print ``wackycrawl <command>: <message>`` on stderr (each subcommand's error lines)."""
    print(f"wackycrawl {command}: {message}", file=sys.stderr)


# What would break a line of a TSV output naming files (``process-done.tsv``, ``langid``,
# ``dedup``, ``encoding``): TAB ends a field, str.splitlines() splits at the others; a lone
# surrogate (a name's bytes that are no UTF-8) cannot be written as UTF-8; a name starting
# with a quote would read as JSON.
_UNSAFE_NAME = re.compile('[\t\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029\ud800-\udfff]|^"')


def tsv_name(name: str) -> str:
    """A file name as a TSV field: as it is, or as a JSON string (``"a\\tb.txt"``, ASCII)
    when it holds a TAB, a line break (any ``str.splitlines`` separator), bytes that are no
    UTF-8 or starts with ``"``; :func:`split_tsv_name` reads it back."""
    return json.dumps(name) if _UNSAFE_NAME.search(name) else name


def split_tsv_name(line: str) -> tuple[str, str]:
    """``(name, rest)`` of a TSV line whose first field is a :func:`tsv_name` (the rest
    after its TAB, ``""`` when there is none)."""
    if line.startswith('"'):
        end = json.JSONDecoder().raw_decode(line)[1]
        return json.loads(line[:end]), line[end + 1:]
    name, _, rest = line.partition("\t")
    return name, rest


def note_left_open(command: str, open_files: list[str]) -> None:
    """Print on stderr which ``.open`` files ``command`` left out of its input, and how to
    include them (:func:`wackycrawl.corpus.source.left_open`); nothing when there is none."""
    from wackycrawl.corpus.source import left_open

    if open_files:
        error(command, left_open(open_files))


def at_least(low: int, value: str) -> int:
    """``value`` as an integer of at least ``low``; raises ValueError for a non-integer and
    argparse.ArgumentTypeError below ``low`` (argparse turns both into a usage error naming
    the option, exit 2)."""
    n = int(value)
    if n < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, not {n}")
    return n


def positive_int(value: str) -> int:
    """argparse type: an integer of at least 1 (worker counts, page counts); see
    :func:`at_least`."""
    return at_least(1, value)


def non_negative_int(value: str) -> int:
    """argparse type: an integer of at least 0 (counts that may be zero); see
    :func:`at_least`."""
    return at_least(0, value)


def write_output(command: str, output: str | None, text: str) -> bool:
    """Write ``text`` (UTF-8) to the file ``output``, or to stdout when it is empty.

    Returns False after printing ``wackycrawl <command>: cannot write ...`` on stderr when the
    file cannot be written (OSError)."""
    if not output:
        sys.stdout.write(text)
        return True
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        error(command, f"cannot write {output}: {exc}")
        return False
    return True


def redis_client(command: str, url: str):
    """A ``redis.Redis`` client for ``url`` (``redis://``, ``rediss://`` or ``unix://``; no
    connection is made yet), or None after printing ``wackycrawl <command>: <url>: <why>`` on
    stderr when ``url`` is no Redis URL (redis-py raises ValueError)."""
    import redis  # only the commands that talk to Redis pay for the import

    try:
        return redis.Redis.from_url(url)
    except ValueError as exc:
        error(command, f"{url}: {exc}")
        return None


def damage_exit(command: str, damaged: list[tuple[str, str]]) -> int:
    """Print ``wackycrawl <command>: damaged <path>: <message>`` on stderr for each damaged
    input file (their complete documents were used); 1 if there was any, else 0."""
    for path, message in damaged:
        print(f"wackycrawl {command}: damaged {path}: {message}", file=sys.stderr)
    return 1 if damaged else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wackycrawl", description="WaCky corpus tools (cleaning, language ID, TREC files)."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"wackycrawl.cli.{name}").register(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is, so that commands clean up as they do for Ctrl-C."""

    signum = signal.SIGTERM


def _terminate(signum, frame):
    raise Terminated()


def _on_sigterm(handler):
    """Install ``handler`` for SIGTERM; the one before it, or None off the main thread."""
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (a test calling main in one)
        return None


def work_done(args, what: str) -> None:
    """Note that the command's work is complete (its output renamed into place; ``what``
    says so, e.g. ``corpus.vrt is complete``): a Ctrl-C or SIGTERM that comes later, while
    the command prints its summary or exits, ends it with exit status 0."""
    args.completed = what


def interrupted_status(args, signum: int) -> int:
    """The exit status of a command interrupted by ``signum`` (Ctrl-C, SIGTERM), after one
    line on stderr: 0 when its work was done (:func:`work_done`), else 128 + ``signum``."""
    name = signal.Signals(signum).name
    if done := getattr(args, "completed", ""):
        print(f"wackycrawl {args.command}: interrupted ({name}) after its work was done: "
              f"{done}", file=sys.stderr)
        return 0
    note = getattr(args, "interrupted", "")
    print(f"wackycrawl {args.command}: interrupted ({name})" + (f"; {note}" if note else ""),
          file=sys.stderr)
    return 128 + signum


def _command_name(argv: list[str] | None) -> str:
    """The subcommand named on the command line (for a message before it is parsed)."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if w in SUBCOMMANDS), "")


def main(argv: list[str] | None = None) -> int:
    before = _on_sigterm(_terminate)
    try:
        return _run(argv)
    finally:
        if before is not None:
            _on_sigterm(before)


def _run(argv: list[str] | None) -> int:
    try:  # the subcommands' imports take a second: a Ctrl-C there is one line too
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        command = f"wackycrawl {_command_name(argv)}".rstrip()  # (`filter` is a submodule here)
        print(f"{command}: interrupted ({signal.Signals(signum).name}) before it started",
              file=sys.stderr)
        return 128 + signum
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: one line, 128 + the signal
        return interrupted_status(args, getattr(exc, "signum", signal.SIGINT))
    except BrokenPipeError:  # `wackycrawl trec cat ... | head`: the reader is gone, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # an output folder that cannot be made, a full disk...: one line
        print(f"wackycrawl {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
