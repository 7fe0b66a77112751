"""Scrapy extensions; :func:`write_whole` is their way of writing a file."""

from __future__ import annotations

import os
from collections.abc import Callable


def write_whole(path: str, mode: str, write: Callable, **kwargs) -> None:
    """Write ``path`` whole or not at all: ``write(f)`` fills ``path + ".tmp"`` (opened with
    ``mode`` and ``kwargs``), which then replaces ``path``. Raises OSError (a full disk, a
    folder of that name) with the old file left as it was and no ``.tmp`` left behind."""
    tmp = path + ".tmp"
    try:
        with open(tmp, mode, **kwargs) as f:
            write(f)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
