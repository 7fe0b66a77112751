"""The seed-file format, one rule for the ``seeds`` spider and ``wackycrawl seeds push``.

A seed file holds one absolute http(s) URL a line; blank lines and ``#`` comments are
skipped. :func:`read_seed_file` says what a file yields: its usable URLs, its bad lines
(line number, text: not an http(s) URL, NUL or other control bytes, undecodable bytes;
skipped, counted and named by :func:`bad_line_messages`) and, when it yields no URL at all,
why it is refused (``refusal``: a binary file given by mistake is named by its format,
:func:`wackycrawl.text.encoding.sniff_binary`; an empty file as empty; an all-bad file by its
count, with a hint to add ``http://`` when lines are bare host names).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from w3lib.url import safe_url_string

# Bad seed lines named one by one: a long list of junk gets one line for the rest.
BAD_LINES_LOGGED = 10


@dataclass
class SeedFile:
    """What a seed file yields: ``urls`` in file order, ``bad`` (line number, stripped line),
    ``refusal`` the message when there is no URL (empty string when there is one)."""

    path: str
    urls: list[str] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)
    refusal: str = ""


def is_seed_url(line: str) -> bool:
    """An absolute http(s) URL with a host and a valid port, also in the form Scrapy fetches
    (w3lib's ``safe_url_string`` drops control characters and reads ``\\`` as ``/``): a bad
    IPv6 literal or port makes ``Request`` raise ValueError, which would end ``start()``.
    A line holding control characters (a NUL...) or U+FFFD (undecodable bytes) is no seed."""
    if any(ord(c) < 32 or c == "\x7f" for c in line):
        return False
    try:
        parts = urlsplit(line)
        fetched = urlsplit(safe_url_string(line))
        parts.port, fetched.port  # noqa: B018 - raise ValueError for a bad port
    except ValueError:
        return False
    if not fetched.hostname:
        return False
    return (parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in line
            and "\ufffd" not in line)


def read_seeds(path: str | Path) -> tuple[list[str], list[tuple[int, str]]]:
    """``(urls, bad)`` of :func:`read_seed_file`. Raises OSError (FileNotFoundError...)."""
    found = read_seed_file(path)
    return found.urls, found.bad


def read_seed_file(path: str | Path) -> SeedFile:
    """Read the seed file ``path`` as UTF-8, a byte order mark at its start ignored (Windows
    editors write one; it would make line 1 no URL), undecodable bytes replaced (that line is
    bad).

    Raises OSError (FileNotFoundError with the path...) when it cannot be read."""
    data = Path(path).read_bytes()
    found = SeedFile(str(path))
    for n, line in enumerate(data.decode("utf-8-sig", errors="replace").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if is_seed_url(line):
            found.urls.append(line)
        else:
            found.bad.append((n, line))
    if not found.urls:
        # here only: the encoding module loads numpy, which Scrapyd's listing of the spider
        # modules (every deploy, every job start) must not pay for
        from wackycrawl.text.encoding import BinaryContentError, sniff_binary

        try:
            sniff_binary(data)
        except BinaryContentError as exc:
            found.refusal = (f"seed file {path} holds no usable URL: not text ({exc}); a seed "
                             "file has one http(s) URL a line")
        else:
            found.refusal = _no_url(found, data)
    return found


def bare_host(line: str) -> bool:
    """Whether ``line`` looks like a URL without its scheme (``www.example.org``,
    ``example.org/path``): it is a seed URL once ``http://`` is put before it."""
    host = line.split("/", 1)[0].rsplit(":", 1)[0]
    return ("://" not in line and "." in host.strip(".") and not host.startswith("-")
            and is_seed_url("http://" + line))


def _no_url(found: SeedFile, data: bytes) -> str:
    """The refusal of a text file without a usable URL: empty (or blank lines only), only
    comments, or lines that are no http(s) URL (with a hint when some are bare host names)."""
    path = found.path
    if not found.bad:
        if not data.decode("utf-8-sig", errors="replace").strip():
            return f"seed file {path} is empty: give one http(s) URL a line"
        return f"seed file {path} holds no usable URL (only # comments; one URL per line)"
    n = len(found.bad)
    hint = ""
    if hosts := [line for _, line in found.bad if bare_host(line)]:
        hint = (f"; {hosts[0][:200]!r} and the like lack a scheme: add http:// or https:// "
                f"(http://{hosts[0][:200]})")
    return (f"seed file {path} holds no usable URL ({n} line{'' if n == 1 else 's'} not an "
            f"http(s) URL{hint}; one URL per line, # comments)")


def bad_line_messages(found: SeedFile) -> list[str]:
    """One message per bad line, at most :data:`BAD_LINES_LOGGED`, then one for the rest;
    none for a refused file (its refusal says it all)."""
    if found.refusal:
        return []
    out = [f"seed file {found.path} line {n} is not an http(s) URL, skipped: {line[:200]!r}"
           + (" (add http:// or https://)" if bare_host(line) else "")
           for n, line in found.bad[:BAD_LINES_LOGGED]]
    if len(found.bad) > BAD_LINES_LOGGED:
        out.append(f"seed file {found.path}: {len(found.bad) - BAD_LINES_LOGGED} more lines "
                   "are not http(s) URLs, skipped")
    return out
