"""Downloader middleware refusing private, loopback, link-local, multicast and reserved
addresses (``wackycrawl.crawl.safety``) unless WACKY_ALLOW_PRIVATE_ADDRESSES is True.

Before a request is sent: a literal IP host (any spelling) is judged; ``localhost`` and
``*.localhost`` are loopback by definition (RFC 6761 6.3); any other name is resolved with
Scrapy's resolver (``reactor.resolve``, so its DNS cache, which the download then uses too) and
its address judged. A name that does not resolve is let through: the download fails on it.
After the answer, ``response.ip_address`` (the peer the download really talked to) is judged
again, so a DNS answer that changed in between (DNS rebinding) is not used either.

Through an HTTP proxy (``meta["proxy"]`` or the ``http_proxy``/``https_proxy`` environment
that Scrapy's HttpProxyMiddleware reads) the proxy resolves names, not this process: there only
literal IPs and ``localhost`` are judged, and the response's address (the proxy's) is not.
This is what lets the test suite's local web, a proxy on 127.0.0.1 serving ``*.test`` hosts,
run with the default setting. Stats: ``wacky/safety/refused`` and
``wacky/safety/<class>``, ``wacky/safety/after_response`` for the second check; one WARNING
line per host, and the drop ``unsafe_address`` per request.
"""

from __future__ import annotations

import logging
import urllib.request

from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached

from wackycrawl.crawl import drops
from wackycrawl.crawl.safety import address_class, literal_ip
from wackycrawl.middlewares.robots import ROBOTS_FETCH_META

logger = logging.getLogger(__name__)


class SafetyMiddleware:
    def __init__(self, crawler):
        s = crawler.settings
        if s.getbool("WACKY_ALLOW_PRIVATE_ADDRESSES"):
            raise NotConfigured()
        self.crawler, self.stats = crawler, crawler.stats
        self.env_proxies = urllib.request.getproxies() if s.getbool("HTTPPROXY_ENABLED") else {}
        self.hosts_logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def proxied(self, request: Request) -> bool:
        if "proxy" in request.meta:
            return bool(request.meta["proxy"])
        parts = urlparse_cached(request)
        return parts.scheme in self.env_proxies and \
            not urllib.request.proxy_bypass(parts.hostname or "")

    async def process_request(self, request: Request) -> None:
        host = (urlparse_cached(request).hostname or "").lower().rstrip(".")
        ip = literal_ip(host)
        if ip is None and (host == "localhost" or host.endswith(".localhost")):
            self._refuse(request, host, "loopback", "by name (RFC 6761)")
        if ip is None and not self.proxied(request):
            ip = await self._resolve(host)
        if ip is not None and (cls := address_class(ip)):
            self._refuse(request, host, cls, str(ip))

    def process_response(self, request: Request, response: Response) -> Response:
        ip = response.ip_address
        if ip is not None and not self.proxied(request) and (cls := address_class(ip)):
            self.stats.inc_value("wacky/safety/after_response")
            self._refuse(request, urlparse_cached(request).hostname or "", cls, str(ip))
        return response

    async def _resolve(self, host: str):
        from twisted.internet import reactor
        try:
            return literal_ip(await maybe_deferred_to_future(reactor.resolve(host)))
        except Exception:  # noqa: BLE001 - any resolution failure: the download reports it
            return None

    def _refuse(self, request: Request, host: str, cls: str, address: str) -> None:
        self.stats.inc_value("wacky/safety/refused")
        self.stats.inc_value(f"wacky/safety/{cls}")
        if host not in self.hosts_logged:
            self.hosts_logged.add(host)
            logger.warning("Refused %s: %s address %s (WACKY_ALLOW_PRIVATE_ADDRESSES is off; "
                           "a server of your own: -s WACKY_PROFILE=local)",
                           host, cls, address)
        detail = f"{cls} address {address}"
        if (fetch := request.meta.get(ROBOTS_FETCH_META)) is not None:
            # a robots.txt (or its redirect's target) at such an address is no page drop: the
            # fetch takes the robots.txt as unavailable, as for any redirect not followed
            fetch.refuse("unsafe_address", detail)
        else:
            drops.record(self.crawler, "unsafe_address", request.url, detail)
        raise IgnoreRequest(detail)
