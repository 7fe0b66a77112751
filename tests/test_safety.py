"""Address safety: literal IPs in every spelling, address classes, and the middleware."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from wackycrawl.crawl.safety import address_class, literal_ip
from wackycrawl.middlewares.safety import SafetyMiddleware


@pytest.mark.parametrize(("host", "ip"), [
    ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("[::1]", "::1"), ("::ffff:10.0.0.1", "10.0.0.1"),
    ("8.8.8.8.", "8.8.8.8"), ("example.com", None), ("1e100.net", None), ("deadbeef", None),
])
def test_literal_ip(host, ip):
    got = literal_ip(host)
    assert (str(got) if got else None) == ip


@pytest.mark.parametrize(("ip", "cls"), [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"),
    ("192.168.0.1", "private"), ("100.64.0.1", "private"), ("169.254.169.254", "link_local"),
    ("fe80::1", "link_local"), ("224.0.0.1", "multicast"), ("0.0.0.0", "unspecified"),
    ("240.0.0.1", "reserved"), ("::ffff:127.0.0.1", "loopback"), ("2001:db8::1", "private"),
    ("8.8.8.8", None), ("2a00:1450:4001::1", None),
])
def test_address_class(ip, cls):
    assert address_class(ip) == cls
    assert address_class(ipaddress.ip_address(ip)) == cls


def make_mw(**settings):
    crawler = get_crawler(settings_dict=settings)
    crawler.stats.open_spider()
    return SafetyMiddleware.from_crawler(crawler), crawler.stats


def test_off_when_allowed():
    with pytest.raises(NotConfigured):
        make_mw(WACKY_ALLOW_PRIVATE_ADDRESSES=True)


@pytest.mark.parametrize("url", ["http://10.0.0.1/", "http://[::1]:8080/", "http://localhost/",
                                 "http://a.localhost/", "http://2130706433/"])
def test_literal_and_localhost_refused_even_through_a_proxy(url):
    mw, stats = make_mw()
    with pytest.raises(IgnoreRequest):
        asyncio.run(mw.process_request(Request(url, meta={"proxy": "http://127.0.0.1:3128"})))
    assert stats.get_value("wacky/safety/refused") == 1


def test_proxied_names_pass_and_public_ip_passes():
    mw, _ = make_mw()
    proxied = Request("http://a.example.test/", meta={"proxy": "http://127.0.0.1:3128"})
    assert asyncio.run(mw.process_request(proxied)) is None
    assert asyncio.run(mw.process_request(Request("http://8.8.8.8/", meta={"proxy": ""}))) is None


def test_response_from_a_private_peer_refused_unless_proxied():
    """DNS rebinding: the name looked public, the connection went to loopback."""
    mw, stats = make_mw()
    req = Request("http://rebind.example/", meta={"proxy": None})
    resp = HtmlResponse(req.url, body=b"<html></html>", request=req,
                        ip_address=ipaddress.ip_address("127.0.0.1"))
    with pytest.raises(IgnoreRequest):
        mw.process_response(req, resp)
    assert stats.get_value("wacky/safety/after_response") == 1
    proxied = Request("http://a.test/", meta={"proxy": "http://127.0.0.1:3128"})
    resp = HtmlResponse(proxied.url, body=b"", request=proxied,
                        ip_address=ipaddress.ip_address("127.0.0.1"))
    assert mw.process_response(proxied, resp) is resp
