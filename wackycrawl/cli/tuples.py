"""``wackycrawl tuples FILE``: random tuples of mid-frequency words, one tuple a line.

FILE is a word frequency list (``word TAB count`` lines) or plain running text to count
(``--input auto`` tells them apart by the first lines; ``-`` reads stdin). Non-words are
dropped, the band of ranks ``--skip-top + 1`` .. ``--skip-top + --band`` is kept, function
words of the shipped lists are removed, and ``-n`` tuples of ``-k`` words are drawn with
``--seed`` (same input and options -> same tuples; without it a fresh seed is drawn and
printed on stderr, ``seed 81723; give --seed 81723 to repeat``, so each BootCaT round gets
new tuples). Words of a tuple are separated by one
space. Stages: :mod:`wackycrawl.seeding.tuples`. Exit codes: 0 done, 1 unreadable or
unusable input (empty, too few words for ``-n`` tuples), 2 usage errors (argparse: ``-n``,
``-k``, ``--band``, ``--min-chars`` below 1 or ``--skip-top`` below 0, naming the option).
"""

import secrets
import sys
from functools import partial
from pathlib import Path

from wackycrawl import settings
from wackycrawl.cli import error, non_negative_int, positive_int, write_output
from wackycrawl.seeding import tuples as tp
from wackycrawl.text.funcwords import function_words

_err = partial(error, "tuples")


def run(args) -> int:
    if args.seed is None:  # a fresh draw each run (each BootCaT round), told so it can repeat
        args.seed = secrets.randbelow(1_000_000)
        repeat = f"; give --seed {args.seed} to repeat"
    else:
        repeat = ""
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        _err(f"cannot read {args.file}: {exc}")
        return 1
    lines = data.decode("utf-8-sig", errors="replace").splitlines()  # a BOM is no word
    frequency_list = args.input == "freq" or (args.input == "auto"
                                              and tp.looks_like_frequency_list(lines))
    if frequency_list:
        counts, bad = tp.read_frequency_list(lines)
        if bad:
            _err(f"{len(bad)} malformed lines skipped (first: line {bad[0]}; want word TAB count)")
    else:
        counts = tp.count_words(lines)
    words = tp.clean(counts, args.min_chars)
    if not words:
        _err(f"{args.file}: no words in the input")
        return 1
    exclude = () if args.keep_function_words else function_words()
    band = tp.mid_frequency_band(words, args.skip_top, args.band, exclude)
    try:
        tuples = tp.sample_tuples(band, args.n, args.k, args.seed)
    except ValueError as exc:
        _err(f"{exc} (band: ranks {args.skip_top + 1}-{args.skip_top + args.band} of "
             f"{len(words)} words; lower --skip-top or -n)")
        return 1
    if not write_output("tuples", args.output, "".join(" ".join(t) + "\n" for t in tuples)):
        return 1
    _err(f"{'frequency list' if frequency_list else 'text'}: {len(words)} words, {len(band)} "
         f"in the band, {len(tuples)} tuples of {args.k} (seed {args.seed}{repeat})")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("tuples", help="random mid-frequency word tuples (BootCaT seeds)")
    p.add_argument("file", metavar="FILE", help="frequency list or text ('-' = stdin)")
    p.add_argument("-n", type=positive_int, default=100, help="number of tuples (default: 100)")
    p.add_argument("-k", type=positive_int, default=settings.WACKY_TUPLES_K,
                   help=f"words per tuple (default: {settings.WACKY_TUPLES_K})")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: a fresh one, printed on stderr to repeat the run)")
    p.add_argument("--skip-top", type=non_negative_int, default=settings.WACKY_TUPLES_SKIP_TOP,
                   help=f"most frequent ranks skipped (default: {settings.WACKY_TUPLES_SKIP_TOP})")
    p.add_argument("--band", type=positive_int, default=settings.WACKY_TUPLES_BAND,
                   help=f"ranks kept after them (default: {settings.WACKY_TUPLES_BAND})")
    p.add_argument("--min-chars", type=positive_int, default=settings.WACKY_TUPLES_MIN_CHARS,
                   help=f"shortest word (default: {settings.WACKY_TUPLES_MIN_CHARS})")
    p.add_argument("--input", choices=("auto", "freq", "text"), default="auto",
                   help="FILE is a word TAB count list, running text, or auto-detected")
    p.add_argument("--keep-function-words", action="store_true",
                   help="do not remove the shipped function-word lists from the band")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    p.set_defaults(func=run)
