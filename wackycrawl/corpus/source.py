"""The documents of a corpus: gzip TREC files given as files or directories.

A directory stands for its ``*.trec.gz`` files (sorted by name, so DOCNO order within one
writer), and with ``rejects=True`` also for those of its ``rejects/`` folder (the rejects
stream of :mod:`wackycrawl.pipelines.rejects`). Files still being written (``.open``) are
left out, and listed when asked (:func:`left_open`). A file named that is not a gzip TREC
file (JSON, a WARC file...), or a FIFO, a device given or found as one, raises
:class:`NotTrecFile` before anything is read; a file
named twice (``corpus ./corpus/``) is read once (:func:`repeated_note`). A damaged file
(truncated, corrupt member, a document that does not parse) gives its complete documents,
then one ERROR log line and a count in :class:`SourceErrors`; it
never stops the reading of the other files.
"""

import errno
import logging
import os
import shlex
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from wackycrawl.trec.format import TrecDoc, TrecFormatError
from wackycrawl.trec.reader import (
    NotRegularFile,
    NotTrecFile,
    TrecFileError,
    check_kind,
    is_irregular,
    iter_docs,
    recover_hint,
)

logger = logging.getLogger(__name__)

SUFFIX = ".trec.gz"
OPEN_SUFFIX = ".open"
REJECTS_SUBDIR = "rejects"
#: what :func:`corpus_files` raises for paths that cannot be read as a corpus
INPUT_ERRORS = (OSError, NotTrecFile)


@dataclass
class SourceErrors:
    """Files that could not be read to their end: ``(path, message)`` each."""

    damaged: list[tuple[str, str]] = field(default_factory=list)


def corpus_files(paths: Iterable[str], rejects: bool = False,
                 open_files: list[str] | None = None,
                 repeated: list[tuple[str, str]] | None = None, kind: bool = True
                 ) -> list[str]:
    """The TREC files named by ``paths`` (files as given; a directory's ``*.trec.gz``, and
    its ``rejects/*.trec.gz`` with ``rejects``). A directory's ``*.trec.gz.open`` files are
    left out and appended to ``open_files`` when given. A file reached again (the same
    folder or file given twice, under any name) is left out, and ``(path, earlier path)``
    of the arguments naming it appended to ``repeated`` when given. Raises
    FileNotFoundError for a path that does not exist, :class:`NotTrecFile` for a file of
    another kind (``kind=False``: files are not looked at, for other kinds of input), and
    :class:`~wackycrawl.trec.reader.NotRegularFile` (a NotTrecFile) for a FIFO, a device or
    a folder given or found as a ``*.trec.gz`` file (also with ``kind=False``): reading a
    FIFO would wait forever."""
    found, seen = [], {}
    for path in paths:
        if os.path.isdir(path):
            names = []
            dirs = [path] + ([os.path.join(path, REJECTS_SUBDIR)] if rejects else [])
            for d in dirs:
                if os.path.isdir(d):
                    listed = sorted(os.listdir(d))
                    names += [os.path.join(d, n) for n in listed if n.endswith(SUFFIX)]
                    if irregular := next(filter(is_irregular, names), None):
                        raise NotRegularFile(irregular)
                    if open_files is not None:
                        open_files += [os.path.join(d, n) for n in listed
                                       if n.endswith(SUFFIX + OPEN_SUFFIX)]
        elif os.path.exists(path):
            if is_irregular(path):
                raise NotRegularFile(path)
            if kind:
                check_kind(path)
            names = [path]
        else:
            raise FileNotFoundError(errno.ENOENT, "no such corpus file or directory", path)
        found += read_once(path, names, seen, repeated)
    return found


def read_once(path: str, names: Iterable[str], seen: dict,
              repeated: list[tuple[str, str]] | None = None) -> list[str]:
    """The files ``names`` that the argument ``path`` stands for, less those already in
    ``seen`` (their identity: device and inode, else the resolved path), which is updated;
    ``(path, earlier argument)`` is appended to ``repeated`` for each file left out."""
    found = []
    for name in names:
        key = _identity(name)
        if key in seen:
            if repeated is not None:
                repeated.append((path, seen[key]))
            continue
        seen[key] = path
        found.append(name)
    return found


def _identity(path: str):
    """What tells two names of one file apart from two files: device and inode."""
    try:
        st = os.stat(path)
        return st.st_dev, st.st_ino
    except OSError:
        return os.path.realpath(path)


def repeated_note(repeated: list[tuple[str, str]]) -> str:
    """The note for files given more than once (:func:`corpus_files`'s ``repeated``): which
    argument repeats which, and that each file is read once."""
    pairs = Counter(repeated)
    return "; ".join(f"{path} names {n} file(s) already given as {first}"
                     for (path, first), n in pairs.items()) + ": each file is read once"


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
            message = (str(exc) if isinstance(exc, (OSError, NotTrecFile))
                       else f"{exc}; {recover_hint(path)}")
            logger.error("%s: stopped reading: %s", path, message)
            if errors is not None:
                errors.damaged.append((path, message))
