"""Search-engine result pages (SERPs) -> seed URLs, at most M per query and N per domain.

WaCky's seeds are "all from different domains" (Baroni's "Linguistic Crawls" slides: 8,631
URLs from random queries) and ukWaC took at most 10 per query (Ferraresi et al. 2008).

Stages:

1. :func:`result_urls` - the result URLs of one SERP body (bytes) by the engine's parser
   (:data:`PARSERS`: JSON per API, a generic HTML parser for URL templates); only absolute
   http(s) URLs off the engine's own host, first occurrence kept. Raises :class:`SerpError`
   for a body the parser cannot read.
2. :func:`registered_domain` - eTLD+1 by the Public Suffix List (tldextract's bundled
   snapshot, private section included, so ``a.blogspot.com`` and ``b.blogspot.com`` are two
   registrants; never fetched over the network).
3. :class:`DomainQuota` / :func:`select` - keep a result while its query has fewer than
   ``max_results`` seeds and its registered domain fewer than ``per_domain`` seeds in the
   whole seed set.
"""

from __future__ import annotations

import ipaddress
import json
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit

import tldextract

# suffix_list_urls=() -> the snapshot shipped with tldextract, no download; no disk cache.
_PSL = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None,
                             include_psl_private_domains=True)


class SerpError(ValueError):
    """A result page that is not what the engine's parser reads (bad JSON, wrong shape)."""


def _json(body: bytes) -> dict:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SerpError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise SerpError(f"JSON top level is {type(data).__name__}, not an object")
    return data


def _urls(entries: object, where: str) -> list[str]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise SerpError(f"{where} is {type(entries).__name__}, not a list")
    return [e["url"] for e in entries if isinstance(e, dict) and isinstance(e.get("url"), str)]


def parse_searxng(body: bytes, base_url: str) -> list[str]:
    """SearXNG ``format=json``: ``results[].url``."""
    return _urls(_json(body).get("results"), "results")


def parse_bing(body: bytes, base_url: str) -> list[str]:
    """Bing Web Search API v7: ``webPages.value[].url`` (no ``webPages``: no results)."""
    pages = _json(body).get("webPages") or {}
    return _urls(pages.get("value") if isinstance(pages, dict) else pages, "webPages.value")


def parse_brave(body: bytes, base_url: str) -> list[str]:
    """Brave Search API: ``web.results[].url`` (no ``web``: no results)."""
    web = _json(body).get("web") or {}
    return _urls(web.get("results") if isinstance(web, dict) else web, "web.results")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href.strip())


def parse_html(body: bytes, base_url: str) -> list[str]:
    """Any HTML result page: every ``<a href>``, resolved against ``base_url``. A link back
    to the engine's host that carries an absolute http(s) URL in a query parameter (a
    click-tracking redirect, ``/l/?uddg=https://...``) yields that URL; the engine's other
    links (navigation, next page) are dropped later by :func:`result_urls`."""
    parser = _Links()
    parser.feed(body.decode("utf-8", errors="replace"))
    parser.close()
    engine_host = (urlsplit(base_url).hostname or "").lower()
    out = []
    for href in parser.hrefs:
        url = urljoin(base_url, href)
        parts = urlsplit(url)
        if (parts.hostname or "").lower() == engine_host:
            wrapped = [v for _, v in parse_qsl(parts.query) if v.startswith(("http://", "https://"))]
            url = wrapped[0] if wrapped else url
        out.append(url)
    return out


PARSERS = {"searxng": parse_searxng, "bing": parse_bing, "brave": parse_brave,
           "html": parse_html}


def result_urls(parser: str, body: bytes, base_url: str) -> list[str]:
    """Result URLs of one SERP in page order: absolute http(s), not on ``base_url``'s host,
    each once. Raises SerpError (unreadable body) or KeyError (unknown ``parser``)."""
    engine_host = (urlsplit(base_url).hostname or "").lower()
    out: dict[str, None] = {}
    for url in PARSERS[parser](body, base_url):
        try:
            parts = urlsplit(url.strip())
            host, _ = parts.hostname, parts.port
        except ValueError:  # port out of range, bad IPv6 literal
            continue
        if parts.scheme in ("http", "https") and host and host.lower() != engine_host \
                and not any(c.isspace() for c in url.strip()):
            out.setdefault(url.strip(), None)
    return list(out)


def registered_domain(host: str) -> str:
    """eTLD+1 of ``host`` (``news.bbc.co.uk`` -> ``bbc.co.uk``); an IP address or a bare
    public suffix is its own domain; a TLD missing from the list counts as one label (the
    PSL's default rule ``*``: ``www.alpha.test`` -> ``alpha.test``)."""
    host = host.lower().rstrip(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    parts = _PSL(host)
    if parts.suffix:
        return f"{parts.domain}.{parts.suffix}" if parts.domain else host
    return ".".join(host.split(".")[-2:])


class DomainQuota:
    """Seeds taken per registered domain across one seed set (``per_domain`` each at most)."""

    def __init__(self, per_domain: int = 1):
        self.per_domain = per_domain
        self.taken: Counter[str] = Counter()

    def take(self, url: str, force: bool = False) -> bool:
        """Count ``url`` as a seed of its domain if the domain has room (or ``force``: a
        seed given by the user, kept anyway); True when counted."""
        domain = registered_domain(urlsplit(url).hostname or "")
        if not force and self.taken[domain] >= self.per_domain:
            return False
        self.taken[domain] += 1
        return True


def select(urls: list[str], quota: DomainQuota, max_results: int) -> tuple[list[str], Counter]:
    """(kept seeds, skipped counts by reason ``over_max`` / ``domain_taken``) of one query."""
    kept: list[str] = []
    skipped: Counter[str] = Counter()
    for url in urls:
        if len(kept) >= max_results:
            skipped["over_max"] += 1
        elif quota.take(url):
            kept.append(url)
        else:
            skipped["domain_taken"] += 1
    return kept, skipped
