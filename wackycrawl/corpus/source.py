"""The documents of a corpus: gzip TREC files given as files or directories.

A directory stands for its ``*.trec.gz`` files (sorted by name, so DOCNO order within one
writer), and with ``rejects=True`` also for those of its ``rejects/`` folder (the rejects
stream of :mod:`wackycrawl.pipelines.rejects`). Files still being written (``.open``) are
left out, and listed when asked (:func:`left_open`). A damaged file (truncated, corrupt member, a document that does not parse) gives
its complete documents, then one ERROR log line and a count in :class:`SourceErrors`; it
never stops the reading of the other files.
"""

import errno
import logging
import os
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from wackycrawl.trec.format import TrecDoc, TrecFormatError
from wackycrawl.trec.reader import TrecFileError, iter_docs, recover_hint

logger = logging.getLogger(__name__)

SUFFIX = ".trec.gz"
OPEN_SUFFIX = ".open"
REJECTS_SUBDIR = "rejects"


@dataclass
class SourceErrors:
    """Files that could not be read to their end: ``(path, message)`` each."""

    damaged: list[tuple[str, str]] = field(default_factory=list)


def corpus_files(paths: Iterable[str], rejects: bool = False,
                 open_files: list[str] | None = None) -> list[str]:
    """The TREC files named by ``paths`` (files as given; a directory's ``*.trec.gz``, and
    its ``rejects/*.trec.gz`` with ``rejects``). A directory's ``*.trec.gz.open`` files are
    left out and appended to ``open_files`` when given. Raises FileNotFoundError for a path
    that does not exist."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            dirs = [path] + ([os.path.join(path, REJECTS_SUBDIR)] if rejects else [])
            for d in dirs:
                if os.path.isdir(d):
                    names = sorted(os.listdir(d))
                    found += [os.path.join(d, n) for n in names if n.endswith(SUFFIX)]
                    if open_files is not None:
                        open_files += [os.path.join(d, n) for n in names
                                       if n.endswith(SUFFIX + OPEN_SUFFIX)]
        elif os.path.exists(path):
            found.append(path)
        else:
            raise FileNotFoundError(errno.ENOENT, "no such corpus file or directory", path)
    return found


def nothing_found(paths: Iterable[str]) -> str:
    """The error message for corpus paths that name no TREC file (an empty or wrong folder)."""
    return f"no {SUFFIX} file in {', '.join(paths)}"


def left_open(open_files: list[str]) -> str:
    """The note for ``.open`` files a reader left out: which ones, and how to include them
    (``wackycrawl trec recover`` with their folders)."""
    folders = " ".join(shlex.quote(d) for d in dict.fromkeys(os.path.dirname(f) or "."
                                                             for f in open_files))
    return (f"left out {len(open_files)} file(s) still open (being written, or left by a "
            f"crash; when no crawl is writing them, 'wackycrawl trec recover {folders}' closes "
            f"them so that they are read): {', '.join(open_files)}")


def iter_corpus(files: Iterable[str], errors: SourceErrors | None = None) -> Iterator[TrecDoc]:
    """Every document of ``files``, in order; damage is logged and noted in ``errors``."""
    for path in files:
        try:
            for _, doc in iter_docs(path):
                yield doc
        except (TrecFileError, TrecFormatError, OSError) as exc:
            message = str(exc) if isinstance(exc, OSError) else f"{exc}; {recover_hint(path)}"
            logger.error("%s: stopped reading: %s", path, message)
            if errors is not None:
                errors.damaged.append((path, message))
