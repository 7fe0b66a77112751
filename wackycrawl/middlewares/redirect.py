"""Scrapy's RedirectMiddleware and MetaRefreshMiddleware, with the target judged as a page of
its own and every refusal a drop.

A redirect (3xx ``Location`` or ``<meta http-equiv="refresh">``) is built by Scrapy as a
copy of the request, meta included. Meta keys that hold a verdict or a count about the
response or host just answered (:data:`PER_RESPONSE_META`: the size window's "not stored"
flag, robots.txt deferrals, 429/503 and Scrapy retries, politeness claims) are removed from
the copy, so the target is judged afresh: a small meta-refresh stub no longer makes its
target "too small to store". robots.txt's byte count starts again at 0, and the
Content-Encoding its fetch noted (:class:`~wackycrawl.middlewares.robots.RobotsFetch`, shared
by the chain) is forgotten: it was the redirect's.

Refusals are drops (``wackycrawl.crawl.drops``): a Location that is no usable URL (w3lib's
``safe_url_string`` raises ValueError for a bad port or IPv6 literal, which would end the
download with a traceback), or no http(s) URL (``file:``, ``data:``, ``ftp:``, which Scrapy
would hand on as the 3xx response itself), is ``bad_redirect`` (stat ``wacky/redirect/bad_location`` too), a
chain longer than REDIRECT_MAX_TIMES is ``too_many_redirects``, a 3xx back to a URL of its own
chain (itself included, compared as the URLs they are) is ``redirect_loop`` (stat
``wacky/redirect/loop``; the log line names source, target and chain), where the dupefilter
would drop it without a word. A redirect to a new URL whose canonical URL
(:func:`~wackycrawl.crawl.urls.canonical_url`) is one of the chain's, such as
``/article`` -> ``/article?PHPSESSID=<id>``, ``/news;jsessionid=...`` or ``?utm_source=rss``
(sites put the session in the URL when the client takes no cookie), is followed once, past the
dupefilter (``dont_filter`` for that hop only; stat ``wacky/redirect/same_canonical``, one INFO
line naming source and target); the document is stored under the URL it was fetched from,
as every redirected document; a second such hop to the same canonical URL is a loop, and
REDIRECT_MAX_TIMES bounds the chain as ever. The redirects of a robots.txt fetch are refused the
same way but are no drops: the fetch notes the reason
(:meth:`~wackycrawl.middlewares.robots.RobotsFetch.refuse`) and takes the robots.txt as
unavailable. A meta refresh to the page itself or back into its
chain is not followed: the page is judged as it is (``wacky/redirect/refresh_loop``). Everything else is Scrapy's
(REDIRECT_ENABLED, REDIRECT_MAX_TIMES, METAREFRESH_*, ``dont_redirect``).
"""

import logging
from urllib.parse import urlsplit

from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware as ScrapyMetaRefresh
from scrapy.downloadermiddlewares.redirect import RedirectMiddleware as ScrapyRedirectMiddleware
from scrapy.exceptions import IgnoreRequest

from wackycrawl.crawl import drops
from wackycrawl.crawl.urls import canonical_url
from wackycrawl.middlewares.backoff import RETRIES_META
from wackycrawl.middlewares.politeness import _KEYS_META, _SENT_META, NOT_BEFORE_META
from wackycrawl.middlewares.robots import DEFERRALS_META, ROBOTS_BYTES_META, ROBOTS_FETCH_META
from wackycrawl.middlewares.sizewindow import STORE_META

logger = logging.getLogger(__name__)

#: meta keys about one response (or its host) that a redirect target must not inherit:
#: key -> value the target starts with (None: removed)
PER_RESPONSE_META = {STORE_META: None, DEFERRALS_META: None, RETRIES_META: None,
                     "retry_times": None, NOT_BEFORE_META: None, _KEYS_META: None,
                     _SENT_META: None, ROBOTS_BYTES_META: 0}


def fresh_meta(meta: dict, target: str = "") -> None:
    """Reset the :data:`PER_RESPONSE_META` keys of a redirect target's ``meta`` in place, and
    the robots.txt fetch's note of the redirect's Content-Encoding (``target``: the target's
    URL, for the fetch to name it)."""
    for key, start in PER_RESPONSE_META.items():
        if key in meta:
            if start is None:
                del meta[key]
            else:
                meta[key] = start
    if (fetch := meta.get(ROBOTS_FETCH_META)) is not None:
        fetch.redirected(target)


class _FreshTarget:
    """Mixin: redirect targets start without the source's per-response meta; refusals drop."""

    def _build_redirect_request(self, source_request, response, *, url, **kwargs):
        # Scrapy hands a 3xx to another scheme (file:, data:, ftp:...) on as the response
        # itself (an http_302 "page") and ignores such a meta refresh without a word: a
        # Location that is no http(s) URL is as unusable as one that is no URL at all
        scheme = urlsplit(url).scheme.lower()
        if scheme not in ("http", "https"):
            raise ValueError(f"not an http(s) URL (scheme {scheme or 'none'!r})")
        redirected = super()._build_redirect_request(source_request, response, url=url,
                                                     **kwargs)
        fresh_meta(redirected.meta, redirected.url)
        return redirected

    def _redirect(self, redirected, request, reason):
        chain = [*(request.meta.get("redirect_urls") or []), request.url]
        kind = redirect_kind(chain, redirected.url)
        if kind == "loop":
            raise _Loop(chain, redirected.url)
        try:
            out = super()._redirect(redirected, request, reason)
        except IgnoreRequest:
            first = (request.meta.get("redirect_urls") or [request.url])[0]
            detail = (f"more than REDIRECT_MAX_TIMES = {self.max_redirect_times} redirects, "
                      f"last {request.url}")
            if not _robots_refused(request, "too_many_redirects", detail):
                drops.record(self.crawler, "too_many_redirects", first, detail)
            raise
        # Scrapy gives the target the source's dont_filter: a hop let through the dupefilter
        # below must not leave later hops of the chain unfiltered
        own = request.meta.get(DONT_FILTER_META, request.dont_filter)
        out.meta.pop(DONT_FILTER_META, None)
        out.dont_filter = own
        if kind == "same_canonical":
            out.meta[DONT_FILTER_META] = own
            out.dont_filter = True  # the dupefilter holds its canonical URL already
            self.crawler.stats.inc_value("wacky/redirect/same_canonical")
            logger.info("%s from %s to %s: the same canonical URL %s (a session id or "
                        "tracking parameter added), followed once", reason, request.url,
                        redirected.url, canonical_url(redirected.url))
        return out


#: meta key: the ``dont_filter`` a chain had before a hop to the same canonical URL set it
DONT_FILTER_META = "wacky_redirect_dont_filter"


def redirect_kind(chain: list[str], target: str) -> str:
    """How a redirect from the last URL of ``chain`` (its URLs so far, first first) to
    ``target`` is taken: ``"loop"`` (``target`` is a URL of the chain, or its canonical URL
    was entered again once before), ``"same_canonical"`` (a new URL whose canonical URL is in
    the chain: a session id or tracking parameter added, ``/a`` -> ``/a?PHPSESSID=...``;
    followed once) or ``"new"``."""
    if target in chain:
        return "loop"
    key = canonical_url(target)
    seen = sum(canonical_url(u) == key for u in chain)
    return "new" if seen == 0 else "same_canonical" if seen == 1 else "loop"


def _robots_refused(request, reason: str, detail: str) -> bool:
    """A refused redirect of a robots.txt fetch is no page drop: the fetch notes it
    (:meth:`~wackycrawl.middlewares.robots.RobotsFetch.refuse`) and counts it its own way.
    True when ``request`` is such a fetch."""
    if (fetch := request.meta.get(ROBOTS_FETCH_META)) is None:
        return False
    fetch.refuse(reason, detail)
    return True


class _Loop(Exception):
    """A redirect back to a URL of its own chain (``chain``: the URLs so far, first first;
    ``target``: the Location); the dupefilter would drop it without a word."""

    def __init__(self, chain: list[str], target: str):
        super().__init__(chain[0])
        self.chain, self.target = chain, target


class RedirectMiddleware(_FreshTarget, ScrapyRedirectMiddleware):
    def process_response(self, request, response, spider=None):
        try:
            return super().process_response(request, response)
        except _Loop as loop:
            chain = " -> ".join(loop.chain)[:500]
            detail = (f"{response.status} from {request.url[:300]} to {loop.target[:300]}, "
                      f"back into its own chain {chain}")
            if not _robots_refused(request, "redirect_loop", detail):
                self.crawler.stats.inc_value("wacky/redirect/loop")
                drops.record(self.crawler, "redirect_loop", loop.chain[0], detail)
            raise IgnoreRequest("redirect loop") from None
        except ValueError as exc:
            location = response.headers.get(b"Location", b"").decode("latin-1")
            detail = f"{response.status} to an unusable Location {location[:200]!r}: {exc}"
            if not _robots_refused(request, "bad_redirect", detail):
                self.crawler.stats.inc_value("wacky/redirect/bad_location")
                drops.record(self.crawler, "bad_redirect", request.url, detail)
            raise IgnoreRequest(f"bad redirect Location {location[:200]!r}") from None


class MetaRefreshMiddleware(_FreshTarget, ScrapyMetaRefresh):
    def process_response(self, request, response, spider=None):
        """A page that refreshes to itself (a news page reloading every minute) or back into
        its own redirect chain is judged as the page it is (``wacky/redirect/refresh_loop``),
        and so is one whose refresh target, or the ``<base href>`` it is resolved against, is
        no usable http(s) URL (``javascript:``, ``file:``, a bad port or IPv6 literal:
        ``wacky/redirect/bad_refresh``)."""
        try:
            return super().process_response(request, response)
        except _Loop:
            self.crawler.stats.inc_value("wacky/redirect/refresh_loop")
            return response
        except ValueError as exc:  # a refresh target or <base href> that is no usable URL
            self.crawler.stats.inc_value("wacky/redirect/bad_refresh")
            logger.info("%s: meta refresh not followed, the page is judged as it is: %s",
                        request.url, exc)
            return response
