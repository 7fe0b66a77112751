"""Crawl scope as SURT prefixes (Heritrix ``SurtPrefixedDecideRule``), with a deny list.

A URL is in scope when its SURT (:func:`wackycrawl.crawl.urls.surt`) starts with an allow
prefix (or the allow list is empty) and with no deny prefix. Entries may be SURT prefixes
(``http://(de,``), domains or TLDs (``de``, ``uni-bonn.de``) or URLs; see
:func:`~wackycrawl.crawl.urls.surt_prefix`. Scope can be derived from the seeds: each seed adds
its registered domain (``mode="domain"``: ``www.uni-bonn.de`` -> ``uni-bonn.de``) or its public
suffix (``mode="suffix"``: -> ``de``), by the Public Suffix List snapshot bundled with
``tldextract`` (never downloaded). A host under no known suffix (``a.example.test``) counts its
last label as the suffix.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import tldextract

from wackycrawl.crawl.safety import literal_ip
from wackycrawl.crawl.urls import surt, surt_prefix

DERIVE_MODES = ("", "domain", "suffix")
_PSL = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def registered_domain(host: str) -> str:
    """``www.uni-bonn.de`` -> ``uni-bonn.de``; ``a.b.co.uk`` -> ``b.co.uk``; an IP as is."""
    ext = _PSL(host)
    if ext.suffix:
        return f"{ext.domain}.{ext.suffix}" if ext.domain else ext.suffix
    return ".".join(host.lower().split(".")[-2:])


def public_suffix(host: str) -> str:
    """``www.uni-bonn.de`` -> ``de``; ``a.b.co.uk`` -> ``co.uk``; ``a.example.test`` -> ``test``."""
    ext = _PSL(host)
    return ext.suffix or host.lower().rsplit(".", 1)[-1]


def seed_prefix(url: str, mode: str) -> str | None:
    """The SURT prefix a seed URL gives the scope: its registered domain (``mode``
    "domain") or public suffix ("suffix"), an IP address itself; None for mode "". Raises
    ValueError on another mode."""
    if mode not in DERIVE_MODES:
        raise ValueError(f"scope derive mode must be one of {DERIVE_MODES}, not {mode!r}")
    if not mode:
        return None
    host = urlsplit(url).hostname or ""
    if literal_ip(host) is None:  # an address has no domain or suffix: itself
        host = registered_domain(host) if mode == "domain" else public_suffix(host)
    return surt_prefix(host)


class Scope:
    """SURT-prefix allow/deny lists. ``decide(url)`` is None (in scope), "deny" or "out"."""

    def __init__(self, allow=(), deny=()):
        self._allow: tuple[set[str], list[str]] = (set(), [])
        self._deny: tuple[set[str], list[str]] = (set(), [])
        for spec in allow:
            self.add(spec)
        for spec in deny:
            _put(self._deny, surt_prefix(spec))

    @property
    def prefixes(self) -> list[str]:
        """The allow prefixes, sorted."""
        return sorted(self._allow[0] | set(self._allow[1]))

    def add(self, spec: str) -> str:
        """Allow one more entry; returns its SURT prefix."""
        prefix = surt_prefix(spec)
        _put(self._allow, prefix)
        return prefix

    def add_seed(self, url: str, mode: str) -> str | None:
        """Allow the entry :func:`seed_prefix` derives from a seed URL; returns the prefix
        added, or None for mode "". Raises ValueError on another mode."""
        prefix = seed_prefix(url, mode)
        if prefix is not None:
            _put(self._allow, prefix)
        return prefix

    def decide(self, url: str) -> str | None:
        key = surt(url)
        if _match(self._deny, key):
            return "deny"
        if (self._allow[0] or self._allow[1]) and not _match(self._allow, key):
            return "out"
        return None

    def __contains__(self, url: str) -> bool:
        return self.decide(url) is None


def _put(table: tuple[set[str], list[str]], prefix: str) -> None:
    """Host-boundary prefixes (ending in ",") go to the set, looked up per label; others to
    the list, scanned."""
    if prefix.endswith(",") and ")" not in prefix:
        table[0].add(prefix)
    elif prefix not in table[1]:
        table[1].append(prefix)


def _match(table: tuple[set[str], list[str]], key: str) -> bool:
    bounded, other = table
    if bounded:
        host_part = key[:key.find(")")]
        i = host_part.find(",")
        while i != -1:
            if host_part[:i + 1] in bounded:
                return True
            i = host_part.find(",", i + 1)
    return any(key.startswith(p) for p in other)
