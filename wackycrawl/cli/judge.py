"""``wackycrawl judge PAGE.html [--url URL] [-s NAME=VALUE]``: one page through the crawl's stages.

The page is read as a crawl would have downloaded it (``--content-type`` stands for the HTTP
header) and goes through the size window and the stages of ``WACKY_STAGES`` with the
project's settings and the ``-s`` overrides, the same classes a crawl and ``wackycrawl
process`` run (:class:`wackycrawl.pipelines.offline.Chain`). For each stage it prints the
decision, the ``X-Wacky-*`` fields the stage set (encoding and its evidence, extractor,
kept characters, language and its top two, function-word counts, fingerprint...) and the
stats the stage counted; then the verdict: ``kept`` or ``dropped at <stage>: <reason>
(<detail>)``. The dedup index and the writer are not consulted (a single page has nothing
to be a duplicate of). Exit code 0 when kept, 1 when dropped, 2 for usage or read errors.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from scrapy.exceptions import DropItem

from wackycrawl.cli import error
from wackycrawl.pipelines.offline import (
    Chain,
    OfflineContext,
    load_settings,
    split_drop,
    window_reason,
)
from wackycrawl.pipelines.stages import StatsRecorder


def _name(stage) -> str:
    """``TextPipeline`` -> ``text``, ``TrecPrepareStage`` -> ``trec prepare``."""
    name = type(stage).__name__.removesuffix("Pipeline").removesuffix("Stage")
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


def _show_stats(calls: list[tuple]) -> str:
    shown = []
    for method, key, *rest in calls:
        value = rest[0] if rest else 1
        shown.append(f"{key.removeprefix('wacky/')} {'+' if method == 'inc_value' else '='}"
                     f"{value}")
    return ", ".join(shown)


def _text_line(item: dict) -> str:
    paragraphs = item.get("paragraphs")
    if paragraphs is None:
        return ""
    words = sum(len(p.split()) for p in paragraphs)
    return f"{len(paragraphs)} paragraphs, {words} words"


def _show_changes(before: dict, item: dict, stats: StatsRecorder, out) -> None:
    """The X-Wacky-* fields a stage set or changed, and the stats it counted."""
    for key, value in item.get("meta", {}).items():
        if before.get(key) != value:
            print(f"    {key}: {value}", file=out)
    if calls := stats.take():
        print(f"    stats: {_show_stats(calls)}", file=out)


def judge(args) -> int:
    try:
        settings = load_settings(args.set)
        body = Path(args.page).read_bytes()
    except (ValueError, OSError) as exc:
        error("judge", str(exc))  # 2, not 1: exit 1 means the page was dropped
        return 2
    url = args.url or Path(args.page).resolve().as_uri()
    item = {"url": url, "ip": "-", "fetched": "-", "status": 200, "protocol": "HTTP/1.1",
            "headers": [("Content-Type", args.content_type)] if args.content_type else [],
            "content_type": args.content_type or "-", "body": body,
            "meta": {"Raw-Bytes": str(len(body))}}
    stats = StatsRecorder()
    try:
        chain = Chain(OfflineContext(settings, stats), rest=False)
    except ValueError as exc:  # a setting a stage refuses (WACKY_LANGUAGES=xx...)
        error("judge", str(exc))
        return 2
    out = sys.stdout
    print(f"page: {args.page} ({len(body)} bytes) as {url}", file=out)
    reason = window_reason(item, settings)
    print(f"size window: {reason or 'in window'} ({len(body)} B; "
          f"{settings.getint('WACKY_MIN_DOC_BYTES')}-{settings.getint('WACKY_MAX_DOC_BYTES')} B)",
          file=out)
    if reason:
        print(f"verdict: dropped at size window: {reason}", file=out)
        return 1
    stats.take()
    for stage in chain.stages:
        before, had_text = dict(item.get("meta", {})), "paragraphs" in item
        try:
            item = stage.process_item(item)
        except DropItem as exc:  # a stage sets its fields on the item before it drops it
            drop = split_drop(str(exc), url)
            print(f"{_name(stage)}: dropped: {drop.reason} ({drop.detail})", file=out)
            _show_changes(before, item, stats, out)
            print(f"verdict: dropped at {_name(stage)}: {drop.reason} ({drop.detail})", file=out)
            return 1
        extra = _text_line(item) if "paragraphs" in item and not had_text else ""
        print(f"{_name(stage)}: kept" + (f" ({extra})" if extra else ""), file=out)
        if "simhash_features" in item and _name(stage) == "fingerprint":
            print(f"    simhash features: {item['simhash_features']}", file=out)
        _show_changes(before, item, stats, out)
    print("verdict: kept (dedup index and writer not consulted)", file=out)
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "judge", help="run one saved page through the crawl's stages and show each decision")
    parser.add_argument("page", metavar="PAGE.html")
    parser.add_argument("--url", default="", help="the page's URL (default: its file: URI)")
    parser.add_argument("--content-type", default="", metavar="VALUE",
                        help="the HTTP Content-Type header it was served with")
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting, as with scrapy crawl -s (repeatable)")
    parser.set_defaults(func=judge)
