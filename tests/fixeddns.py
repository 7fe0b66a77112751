"""A Scrapy DNS resolver with fixed answers for crawl tests (``TWISTED_DNS_RESOLVER``).

``-s TWISTED_DNS_RESOLVER=tests.fixeddns.FixedResolver -s FIXED_DNS='{"a.test": "192.0.2.7"}'``
answers the listed names from the table (an empty address: the name does not exist,
DNSLookupError) and resolves every other name (the proxy's 127.0.0.1) as Scrapy's default
resolver does.
"""

from __future__ import annotations

import json
from typing import ClassVar

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer
from twisted.internet.error import DNSLookupError


class FixedResolver(CachingThreadedResolver):
    table: ClassVar[dict[str, str]] = {}

    @classmethod
    def from_crawler(cls, crawler, reactor):
        resolver = super().from_crawler(crawler, reactor)
        resolver.table = json.loads(crawler.settings.get("FIXED_DNS") or "{}")
        return resolver

    def getHostByName(self, name: str, timeout=()):
        if name in self.table:
            if not self.table[name]:
                return defer.fail(DNSLookupError(name))
            return defer.succeed(self.table[name])
        return super().getHostByName(name, timeout)
