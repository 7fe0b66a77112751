"""Real crawls: a private address is refused unless WACKY_ALLOW_PRIVATE_ADDRESSES is on.

The local web answers direct requests too (``http://127.0.0.1:PORT/``); HTTPPROXY_ENABLED is
off for the direct crawls, so Scrapy connects to the loopback address itself. tests.crawlrun's
FAST settings allow private addresses (other tests reach the local web directly): these
crawls turn that off again."""

from __future__ import annotations

import socket

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.crawl.safety import address_class

pytestmark = pytest.mark.crawl

SAFE = {"WACKY_ALLOW_PRIVATE_ADDRESSES": "False", "WACKY_LANGUAGES": "en"}
DIRECT = {**SAFE, "HTTPPROXY_ENABLED": "False"}


def own_name() -> str | None:
    """This machine's name if it resolves to a non-public address (/etc/hosts: loopback)."""
    try:
        name = socket.gethostname()
        return name if address_class(socket.gethostbyname(name)) else None
    except OSError:
        return None


def serve(web: LocalWeb) -> list[str]:
    """Seeds: the loopback address in two spellings, localhost and, where it resolves to a
    private address, this machine's name (judged by its DNS answer)."""
    port = web.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        web.add(f"http://{host}/", page("Loopback", prose(1)))
        web.add(f"http://{host}/robots.txt", "User-agent: *\n", content_type="text/plain")
    seeds = [f"http://127.0.0.1:{port}/", f"http://2130706433:{port}/", f"http://localhost:{port}/"]
    if name := own_name():
        seeds.append(f"http://{name}:{port}/")
    return seeds


def test_private_addresses_refused_by_default(tmp_path):
    with LocalWeb() as web:
        seeds = serve(web)
        result = run_crawl(web, seeds, tmp_path, DIRECT, timeout=60)
        hits = list(web.hits)
    assert result.returncode == 0, result.log[-3000:]
    assert hits == []
    assert result.stat("wacky/safety/refused") == len(seeds)
    assert result.stat("wacky/safety/loopback") >= 3
    assert "Refused 127.0.0.1: loopback address 127.0.0.1" in result.log
    assert "Refused localhost: loopback address" in result.log


def test_private_addresses_fetched_when_allowed(tmp_path):
    with LocalWeb() as web:
        seeds = serve(web)
        result = run_crawl(web, seeds[:1], tmp_path,
                           {**DIRECT, "WACKY_ALLOW_PRIVATE_ADDRESSES": "True"}, timeout=60)
        hits = list(web.hits)
        port = web.port
    assert result.returncode == 0, result.log[-3000:]
    assert ("/", f"127.0.0.1:{port}") in {(h.path, h.host) for h in hits}
    assert result.stat("wacky/safety/refused") == 0
    assert result.stat("wacky/kept") == 1


def test_private_target_refused_through_proxy(tmp_path):
    """Behind the proxy, a literal private IP in the URL is refused before anything is sent;
    the *.test names are the proxy's to resolve and are fetched."""
    with LocalWeb() as web:
        web.add("http://www.alpha.test/", page("Alpha", prose(0), links=[
            "http://10.1.2.3/admin", "http://[::1]/", "http://169.254.169.254/latest/"]))
        result = run_crawl(web, ["http://www.alpha.test/"], tmp_path, SAFE, timeout=60)
        hits = list(web.hits)
    assert result.returncode == 0, result.log[-3000:]
    assert {h.host for h in hits} == {"www.alpha.test"}
    assert result.stat("wacky/safety/private") == 1
    assert result.stat("wacky/safety/loopback") == 1
    assert result.stat("wacky/safety/link_local") == 1
    assert result.stat("wacky/kept") == 1


def test_a_robots_txt_redirected_to_a_private_address_is_unavailable_not_a_page_drop(tmp_path):
    """The redirect target of a robots.txt at a private address is not fetched; the robots.txt
    is then unavailable (allow all, RFC 9309 2.3.1.2) as for any redirect not followed, and no
    page drop is recorded for it: the host's page is fetched and kept."""
    with LocalWeb() as web:
        web.add("http://www.alpha.test/robots.txt", status=301,
                headers={"Location": "http://10.1.2.3/robots.txt"})
        web.add("http://www.alpha.test/", page("Alpha", prose(0)))
        result = run_crawl(web, ["http://www.alpha.test/"], tmp_path, SAFE, timeout=60)
        hits = {(h.host, h.path) for h in web.hits}
    assert result.returncode == 0, result.log[-3000:]
    assert {("www.alpha.test", "/robots.txt"), ("www.alpha.test", "/")} <= hits
    assert {host for host, _ in hits} == {"www.alpha.test"}
    assert result.stat("wacky/safety/private") == 1
    assert result.stat("wacky/robots/unavailable_redirects") == 1
    assert not result.stat("wacky/drop/unsafe_address")
    assert result.stat("wacky/kept") == 1
