"""Documents written since a point in time, read back from gzip TREC files (crash resume).

A crawl killed after writing a document but before its request was acknowledged, or before
the dedup state was saved, must not write that URL or that text again when it resumes:
:func:`recent_docs` gives the documents of every finished ``*.trec.gz`` file modified at or
after ``since`` (files are append-only, so older files hold only older documents).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

from wackycrawl.trec.format import TrecDoc, TrecFormatError
from wackycrawl.trec.reader import TrecFileError, iter_docs

logger = logging.getLogger(__name__)


def recent_docs(directory: str, since: float = 0.0) -> Iterator[TrecDoc]:
    """Documents of ``directory/*.trec.gz`` files with mtime >= ``since`` (seconds since the
    epoch). A damaged file is logged and its readable documents still yielded."""
    if not os.path.isdir(directory):
        return
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not name.endswith(".trec.gz") or os.path.getmtime(path) < since:
            continue
        try:
            for _, doc in iter_docs(path):
                yield doc
        except (TrecFileError, TrecFormatError, OSError) as exc:
            logger.error("cannot read all of %s: %s", path, exc)
