"""``wackycrawl queries --engine NAME TUPLES``: word tuples -> search-query URLs, one a line.

TUPLES holds one tuple a line, words separated by white space (``wackycrawl tuples`` output;
``-`` reads stdin; blank lines and ``#`` comments skipped). The URLs go into a seed file or
``scrapy crawl seeds -a queries=FILE``. Engines (:mod:`wackycrawl.seeding.engines`):
``searxng`` (``--base``, default WACKY_SERP_SEARXNG_URL), ``bing``, ``brave``, ``template``
(``--template``, default WACKY_SERP_TEMPLATE). The first line names the engine for the crawl
(``# wackycrawl-engine: NAME TEMPLATE``, a comment line to other readers), so the spider needs
no WACKY_SERP_* setting for it. API keys are not part of the URLs: the crawl reads them from
the environment (a missing one is noted here, its value never printed). Exit codes: 0 done, 1
unreadable, empty, binary or non-UTF-8 input, 2 usage errors (bad engine options).
"""

import os
import sys
from functools import partial
from pathlib import Path

from wackycrawl import settings
from wackycrawl.cli import error, write_output
from wackycrawl.seeding import engines
from wackycrawl.text.encoding import BinaryContentError, sniff_binary

_err = partial(error, "queries")


def run(args) -> int:
    try:
        engine = engines.get_engine(args.engine, args.base, args.template)
    except ValueError as exc:
        _err(str(exc))
        return 2
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        _err(f"cannot read {args.file}: {exc}")
        return 1
    try:
        sniff_binary(data)
        text = data.decode("utf-8-sig")  # a BOM (Windows editors) is no word
    except (BinaryContentError, UnicodeDecodeError) as exc:
        _err(f"{args.file}: not a UTF-8 tuple list (wackycrawl tuples writes one): {exc}")
        return 1
    lines = [line.split() for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        _err(f"{args.file}: no tuples")
        return 1
    urls = [engine.url(words, args.count) for words in lines]
    text = engines.directive(engine) + "\n" + "".join(u + "\n" for u in urls)
    if not write_output("queries", args.output, text):
        return 1
    if engine.key_env and not os.environ.get(engine.key_env, "").strip():
        _err(f"note: the crawl reads the {engine.name} API key from ${engine.key_env}, not set")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("queries", help="word tuples -> search-query URLs")
    p.add_argument("file", metavar="TUPLES", help="one tuple a line ('-' = stdin)")
    p.add_argument("--engine", required=True, choices=engines.ENGINE_NAMES)
    p.add_argument("--base", default=settings.WACKY_SERP_SEARXNG_URL,
                   help="SearXNG base URL, e.g. http://localhost:8888")
    p.add_argument("--template", default=settings.WACKY_SERP_TEMPLATE,
                   help="URL template with {query}, e.g. 'https://example.org/?q={query}'")
    p.add_argument("--count", type=int, default=settings.WACKY_SERP_MAX_RESULTS,
                   help=f"results asked for, where the API takes a count (default: "
                        f"{settings.WACKY_SERP_MAX_RESULTS})")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    p.set_defaults(func=run)
