"""Crawl progress figures: the per-host yield table and the periodic progress line.

Yield of a host = words kept (whitespace tokens of the clean text of its stored documents) per
MB (10^6 bytes) of page bodies fetched from it (decoded bytes, after Content-Encoding): which
hosts feed the corpus and which only cost bandwidth.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass


@dataclass
class HostRow:
    pages: int = 0
    bytes: int = 0
    docs: int = 0
    words: int = 0

    @property
    def words_per_mb(self) -> float:
        return self.words / (self.bytes / 1e6) if self.bytes else 0.0


class YieldTable:
    """Per-host counters. Memory: one small row per host fetched from."""

    COLUMNS = ("host", "pages", "mb_fetched", "docs", "words", "words_per_mb")

    def __init__(self):
        self.rows: dict[str, HostRow] = {}

    def fetched(self, host: str, nbytes: int) -> None:
        row = self.rows.setdefault(host, HostRow())
        row.pages += 1
        row.bytes += nbytes

    def kept(self, host: str, words: int) -> None:
        row = self.rows.setdefault(host, HostRow())
        row.docs += 1
        row.words += words

    def ranked(self) -> list[tuple[str, HostRow]]:
        """Best yield first; among equal yields, more MB first (the costliest zero-yield hosts
        end the list)."""
        return sorted(self.rows.items(), key=lambda kv: (-kv[1].words_per_mb, kv[1].bytes, kv[0]))

    def top_bottom(self, n: int) -> tuple[list[tuple[str, HostRow]], list[tuple[str, HostRow]]]:
        """The n best hosts and the n worst (worst last), without overlap."""
        ranked = self.ranked()
        top = ranked[:n]
        return top, ranked[max(n, len(ranked) - n):]

    def write_tsv(self, path: str) -> int:
        """Write every host, best yield first, with a header line; returns the row count.
        Raises OSError as ``open`` does."""
        ranked = self.ranked()
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(self.COLUMNS)
            for host, r in ranked:
                w.writerow((host, r.pages, f"{r.bytes / 1e6:.3f}", r.docs, r.words,
                            f"{r.words_per_mb:.0f}"))
        return len(ranked)


def parked_part(stats: dict) -> str:
    """``parked N on M hosts, next retry in S s`` from the frontier's (or the robots.txt
    middleware's) ``wacky/frontier/parked_*`` stats; "" when nothing is parked."""
    n = stats.get("wacky/frontier/parked_now") or 0
    if not n:
        return ""
    wait = stats.get("wacky/frontier/parked_next")
    retry = f", next retry in {wait:.0f} s" if wait is not None else ""
    return f"; parked {n} on {stats.get('wacky/frontier/parked_hosts', 0)} hosts{retry}"


def progress_line(stats: dict, pages_per_min: float, hosts_active: int,
                  drops: dict[str, int], top_drops: int = 3, queue: int | None = None) -> str:
    """``pages/min, docs kept, words kept, MB written, queue, top drops, hosts active``.
    ``queue`` is the scheduler's length when known (a resumed or shared frontier holds
    requests this run never enqueued); else ``scheduler/enqueued`` less ``/dequeued``."""
    if queue is None:
        queue = stats.get("scheduler/enqueued", 0) - stats.get("scheduler/dequeued", 0)
    top = ", ".join(f"{r} {n}" for r, n in list(drops.items())[:top_drops]) or "none"
    return (f"wacky progress: {pages_per_min:.0f} pages/min, "
            f"pages {stats.get('response_received_count', 0)}, "
            f"docs kept {stats.get('wacky/kept', 0)}, words {stats.get('wacky/words_kept', 0)}, "
            f"MB written {stats.get('wacky/trec/bytes_written', 0) / 1e6:.2f}, queue {queue}, "
            f"hosts active {hosts_active}; top drops: {top}{parked_part(stats)}")


def time_left(queue: int | None, pages_per_min: float, shrinking: bool) -> str | None:
    """``"about 12 min left"``: ``queue`` requests (waiting and in progress) done at the
    recent rate, or None when that says nothing (work unknown or none, no pages fetched
    lately, or a frontier still growing with the links of the pages fetched)."""
    if not queue or pages_per_min <= 0 or not shrinking:
        return None
    minutes = queue / pages_per_min
    if minutes < 1:
        return f"about {max(1, round(minutes * 60))} s left"
    if minutes < 120:
        return f"about {round(minutes)} min left"
    return f"about {minutes / 60:.1f} h left"
