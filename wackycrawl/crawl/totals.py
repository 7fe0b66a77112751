"""Corpus-wide totals of a crawl's output directory, across files, workers and resumed runs.

A crawl writes ``<prefix>-<worker>-<file#>.trec.gz`` files (``.open`` while being written or
after a crash), an ``.idx.tsv`` beside each, and ``drops-<worker>.tsv`` files
(``wackycrawl.crawl.drops``); every crawl process (a resumed run, another worker) adds its
own. :func:`corpus_totals` reads them all:

* documents, words (whitespace tokens of the clean text, as ``wacky/words_kept``), text
  characters (of the clean text, its paragraphs joined by newlines: the sum of the documents'
  ``X-Wacky-Clean-Chars``) and languages (``X-Wacky-Language``) from the documents themselves;
* files, compressed bytes, and writers (``<prefix>-<worker>``, one per crawl process);
* drops per reason from the drops files, each (reason, URL) once across all of them, so a
  page fetched again after a crash or by another run into the folder (another crawl
  process's drops file) and dropped again counts once;
* documents of the rejects stream (``rejects/``, ``WACKY_KEEP_REJECTS``), read as the
  corpus is, so that a damaged rejects file is a problem too (named ``rejects/FILE``).

:func:`quick_totals` counts documents from the indexes and bytes from the file sizes only
(cheap enough for the end of a crawl). No Scrapy import.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field

from wackycrawl.crawl.drops import read_drops
from wackycrawl.trec.reader import (
    NotTrecFile,
    TrecFileError,
    iter_docs,
    read_index,
    recover_hint,
)

_TREC = re.compile(r"^(?P<writer>.+)-(?P<file>\d+)\.trec\.gz(?P<open>\.open)?$")
_DROPS = re.compile(r"^drops-.+\.tsv$")
REJECTS_SUBDIR = "rejects"  # the rejects stream's default folder (wackycrawl.pipelines.rejects)


@dataclass
class Totals:
    """Corpus totals; ``bytes`` are compressed TREC file bytes; ``problems`` name files that
    could not be read to their end (their complete documents are counted)."""

    documents: int = 0
    words: int = 0
    characters: int = 0
    files: int = 0
    open_files: int = 0
    bytes: int = 0
    writers: set[str] = field(default_factory=set)
    languages: Counter = field(default_factory=Counter)
    drops: Counter = field(default_factory=Counter)
    drops_files: int = 0
    rejected: int = 0
    rejected_open_files: int = 0
    problems: list[str] = field(default_factory=list)


def trec_files(directory: str) -> list[tuple[str, str, bool]]:
    """``(path, writer, is_open)`` of the TREC files in ``directory`` (not recursive), sorted.
    Raises OSError when the directory cannot be listed."""
    out = []
    for name in sorted(os.listdir(directory)):
        if m := _TREC.match(name):
            out.append((os.path.join(directory, name), m["writer"], bool(m["open"])))
    return out


def drops_files(directory: str) -> list[str]:
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory)) if _DROPS.match(n)]


def _files(totals: Totals, directory: str) -> list[tuple[str, str, bool]]:
    files = trec_files(directory)
    for path, writer, is_open in files:
        totals.files += 1
        totals.open_files += is_open
        totals.writers.add(writer)
        totals.bytes += os.path.getsize(path)
    return files


def corpus_totals(directory: str) -> Totals:
    """Read every TREC and drops file of ``directory``. Raises OSError when the directory
    cannot be listed; a damaged file is counted up to its damage and named in ``problems``."""
    totals = Totals()
    for path, _, _ in _files(totals, directory):
        try:
            for _, doc in iter_docs(path):
                totals.documents += 1
                totals.words += sum(len(p.split()) for p in doc.paragraphs)
                totals.characters += len(doc.text)  # as X-Wacky-Clean-Chars counts them
                totals.languages[doc.meta.get("Language", "und")] += 1
        except (TrecFileError, ValueError, OSError) as exc:
            hint = "" if isinstance(exc, (OSError, NotTrecFile)) else f"; {recover_hint(path)}"
            totals.problems.append(f"{os.path.basename(path)}: {exc}{hint}")
    if os.path.isdir(rejects := os.path.join(directory, REJECTS_SUBDIR)):
        rejected = Totals()
        for path, _, _ in _files(rejected, rejects):
            try:
                for _ in iter_docs(path):
                    totals.rejected += 1
            except (TrecFileError, ValueError, OSError) as exc:
                hint = "" if isinstance(exc, (OSError, NotTrecFile)) else f"; {recover_hint(path)}"
                totals.problems.append(f"{REJECTS_SUBDIR}/{os.path.basename(path)}: {exc}{hint}")
        totals.rejected_open_files = rejected.open_files
    seen: set[tuple[str, str]] = set()  # (reason, URL) over all drops files
    for path in drops_files(directory):
        totals.drops_files += 1
        try:
            for row in read_drops(path):
                if (key := (row[2], row[1])) not in seen:
                    seen.add(key)
                    totals.drops[key[0]] += 1
        except OSError as exc:
            totals.problems.append(f"{os.path.basename(path)}: {exc}")
    return totals


def quick_totals(directory: str) -> Totals:
    """Documents (index lines), files, bytes and writers only; an unreadable index counts 0."""
    totals = Totals()
    for path, _, _ in _files(totals, directory):
        try:
            totals.documents += len(read_index(path))
        except (OSError, ValueError) as exc:
            totals.problems.append(f"{os.path.basename(path)}: {exc}")
    return totals


def report(totals: Totals, directory: str) -> str:
    """The totals as lines of text (``wackycrawl stats``)."""
    langs = ", ".join(f"{lang} {n}" for lang, n in totals.languages.most_common()) or "none"
    drops = ", ".join(f"{r} {n}" for r, n in sorted(totals.drops.items(),
                                                     key=lambda kv: (-kv[1], kv[0]))) or "none"
    lines = [f"corpus {directory}",
             f"documents {totals.documents}",
             f"words {totals.words}",
             f"characters {totals.characters}",
             f"files {totals.files}" + (f" ({totals.open_files} open)" if totals.open_files
                                        else ""),
             f"MB {totals.bytes / 1e6:.2f}",
             f"crawl processes {len(totals.writers)}",
             f"languages {langs}",
             f"drops ({totals.drops_files} drops files, distinct URLs) {drops}"]
    if totals.rejected or totals.rejected_open_files:
        open_note = (f", {totals.rejected_open_files} open file(s)"
                     if totals.rejected_open_files else "")
        lines.append(f"rejected documents {totals.rejected} (in {REJECTS_SUBDIR}/{open_note})")
    lines += [f"problem {p}" for p in totals.problems]
    return "\n".join(lines) + "\n"
