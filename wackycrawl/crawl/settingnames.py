"""Names of wackycrawl's settings, so a misspelt ``-s WACKY_...`` is an error, not ignored.

Scrapy takes any ``-s NAME=VALUE``; a setting nobody reads has no effect, so
``-s WACKY_LANGUAGE=de`` (for ``WACKY_LANGUAGES``) would keep every language without a word.
The project's settings are the ``WACKY_*`` names of :mod:`wackycrawl.settings` (every name the
code reads is defined there, with its default), plus those of the project's own settings
module when it is another one (``SCRAPY_SETTINGS_MODULE``). Only names starting with
``WACKY_`` are judged: Scrapy's, scrapy-redis's and a user's own settings are left alone.
No Scrapy import.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable

PREFIX = "WACKY_"
DEFAULTS_MODULE = "wackycrawl.settings"


def known_names(settings_module: str | None = None) -> set[str]:
    """The ``WACKY_*`` names of :mod:`wackycrawl.settings` and of ``settings_module`` (the
    project's, when it can be imported)."""
    names: set[str] = set()
    for module in dict.fromkeys(filter(None, (DEFAULTS_MODULE, settings_module))):
        try:
            names.update(n for n in vars(importlib.import_module(module)) if n.startswith(PREFIX))
        except Exception:  # noqa: BLE001 - a broken user module: Scrapy says why elsewhere
            continue
    return names


def check_names(names: Iterable[str], settings_module: str | None = None) -> None:
    """Raise ValueError naming every unknown ``WACKY_*`` name of ``names`` (one line, the
    messages of :func:`unknown_settings` joined by ``; ``)."""
    if messages := unknown_settings(names, settings_module):
        raise ValueError("; ".join(messages))


def unknown_settings(names: Iterable[str], settings_module: str | None = None) -> list[str]:
    """One message per name in ``names`` that starts with ``WACKY_`` and is no known setting,
    with the closest known name: ``unknown setting WACKY_LANGUAGE (did you mean
    WACKY_LANGUAGES?)``. Empty when every name is known (or not ours)."""
    ours = [n for n in dict.fromkeys(names) if n.startswith(PREFIX)]
    if not ours:
        return []
    known = known_names(settings_module)
    messages = []
    for name in ours:
        if name in known:
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        hint = (f"did you mean {close[0]}?" if close
                else "no setting has a name like it; README.md's Settings table lists them")
        messages.append(f"unknown setting {name} ({hint})")
    return messages
