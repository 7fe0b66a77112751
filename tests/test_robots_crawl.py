"""Real ``scrapy crawl seeds`` runs over the loopback web: robots.txt (C01, C29), Crawl-delay (C04).

Assertions are on the server's request log (host, path, arrival time) and the crawl's stats.
"""

from __future__ import annotations

import socket
from itertools import pairwise

import pytest

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb

pytestmark = pytest.mark.crawl

TXT = "text/plain"
PAGE = "<html><body><p>page</p></body></html>"
NO_PIPELINES = {"ITEM_PIPELINES": "{}", "WACKY_FOLLOW_LINKS": "False"}
TOLERANCE = 0.05  # seconds; arrival times are taken by the server, send times by the crawler


class DirectLoopbackWeb(LocalWeb):
    """LocalWeb whose crawls reach 127.0.0.1 directly (no proxy), for a refused connection."""

    def env(self) -> dict[str, str]:
        return {**super().env(), "no_proxy": "127.0.0.1", "NO_PROXY": "127.0.0.1"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def paths(web: LocalWeb, host: str) -> list[str]:
    return [h.path for h in sorted(web.hits_for(host), key=lambda h: h.time)]


def pages(host: str, n: int) -> list[str]:
    return [f"http://{host}/p{i}.html" for i in range(n)]


def add_pages(web: LocalWeb, host: str, n: int) -> None:
    for url in pages(host, n):
        web.add(url, PAGE)


def test_c29_concurrent_requests_all_wait_for_robots(tmp_path):
    with LocalWeb() as web:
        web.add("http://race.test/robots.txt", "User-agent: *\nDisallow: /\n", content_type=TXT)
        add_pages(web, "race.test", 12)
        web.add("http://open.test/robots.txt", "User-agent: *\nDisallow: /p1\n", content_type=TXT)
        add_pages(web, "open.test", 4)
        settings = {**NO_PIPELINES, "CONCURRENT_REQUESTS": "32",
                    "CONCURRENT_REQUESTS_PER_DOMAIN": "16"}
        result = run_crawl(web, pages("race.test", 12) + pages("open.test", 4), tmp_path,
                           settings, timeout=60)
        assert result.returncode == 0, result.log[-3000:]
        assert paths(web, "race.test") == ["/robots.txt"]
        open_paths = paths(web, "open.test")
        assert open_paths[0] == "/robots.txt"  # nothing sent before robots.txt is known
        assert sorted(open_paths[1:]) == ["/p0.html", "/p2.html", "/p3.html"]
        assert result.stat("wacky/robots/ok") == 2
        assert result.stat("wacky/robots/forbidden") == 13


def test_c01_failures_disallow_and_retry_4xx_allows(tmp_path):
    dead = f"127.0.0.1:{closed_port()}"
    with DirectLoopbackWeb() as web:
        web.add("http://s503.test/robots.txt", "<html><body>Down for maintenance</body></html>",
                status=503)
        web.add("http://s500.test/robots.txt", b"", status=500, content_type=TXT)
        web.add("http://s429.test/robots.txt", b"", status=429, content_type=TXT)
        web.add("http://slow.test/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT,
                delay=3)
        flaky = web.add("http://flaky.test/robots.txt", "User-agent: *\nDisallow: /p1\n",
                        status=503, content_type=TXT)
        web.add("http://gone.test/robots.txt", b"", status=410)
        hosts = ["s503.test", "s500.test", "s429.test", "slow.test", "flaky.test", "gone.test",
                 "nofile.test"]
        for host in hosts:
            add_pages(web, host, 3)
        seeds = [u for host in hosts for u in pages(host, 3)] + [f"http://{dead}/p0.html"]
        settings = {**NO_PIPELINES, "DOWNLOAD_TIMEOUT": "1", "WACKY_ROBOTS_RETRY_SECONDS": "2",
                    "WACKY_ROBOTS_MAX_DEFERRALS": "1"}
        proc, stats_file = start_crawl(web, seeds, tmp_path, settings)
        log = tmp_path / "crawl.log"
        assert wait_for(lambda: "flaky.test/robots.txt: 503" in log.read_text(), timeout=30)
        flaky.status = 200  # the host comes back before the retry
        result = finish(proc, tmp_path, stats_file, timeout=60)

    assert result.returncode == 0, result.log[-3000:]
    for host in ("s503.test", "s500.test", "s429.test", "slow.test"):
        # no page ever; robots.txt fetched again after the back-off, then the pages dropped
        assert paths(web, host) == ["/robots.txt", "/robots.txt"], host
    assert paths(web, "flaky.test")[:2] == ["/robots.txt", "/robots.txt"]
    assert sorted(paths(web, "flaky.test")[2:]) == ["/p0.html", "/p2.html"]
    for host in ("gone.test", "nofile.test"):  # 410, 404: unavailable, everything allowed
        assert paths(web, host)[0] == "/robots.txt"
        assert sorted(paths(web, host)[1:]) == ["/p0.html", "/p1.html", "/p2.html"]
    assert result.stat("wacky/robots/unreachable_5xx") == 2 * 3 + 1  # s503, s500, s429; flaky
    assert result.stat("wacky/robots/unreachable_network") == 2 * 2  # slow.test, refused
    assert result.stat("wacky/robots/unavailable_4xx") == 2
    assert result.stat("wacky/robots/ok") == 1
    assert result.stat("wacky/robots/forbidden") == 1  # flaky's /p1.html
    assert result.stat("wacky/robots/deferred") == 5 * 3 + 1
    assert result.stat("wacky/robots/dropped_unreachable") == 4 * 3 + 1


def gaps(web: LocalWeb, host: str) -> list[float]:
    times = sorted(h.time for h in web.hits_for(host))
    return [b - a for a, b in pairwise(times)]


def test_c04_crawl_delay_of_our_group_capped_and_not_lowered_by_autothrottle(tmp_path):
    with LocalWeb() as web:
        web.add("http://a.example.test/robots.txt",
                "User-agent: *\nCrawl-delay: 10\n\nUser-agent: wackycrawl\nCrawl-delay: 2\n",
                content_type=TXT)
        web.add("http://b.example.test/robots.txt", "User-agent: *\nCrawl-delay: 1.5\n",
                content_type=TXT)
        web.add("http://e.example.test/robots.txt", "User-agent: *\nCrawl-delay: 86400\n",
                content_type=TXT)
        web.add("http://d.example.test/robots.txt",
                "User-agent: *\nCrawl-delay: ten seconds please\n", content_type=TXT)
        for host in ("a", "b", "e", "d"):
            add_pages(web, f"{host}.example.test", 3)
        seeds = [u for h in ("a", "b", "e", "d") for u in pages(f"{h}.example.test", 3)]
        settings = {**NO_PIPELINES, "DOWNLOAD_DELAY": "0.5", "AUTOTHROTTLE_ENABLED": "True",
                    "AUTOTHROTTLE_START_DELAY": "0.5", "WACKY_CRAWL_DELAY_MAX": "2.5",
                    "CONCURRENT_REQUESTS_PER_DOMAIN": "4"}
        result = run_crawl(web, seeds, tmp_path, settings, timeout=90)

    assert result.returncode == 0, result.log[-3000:]
    expected = {"a.example.test": 2.0, "b.example.test": 1.5, "e.example.test": 2.5,
                "d.example.test": 0.5}
    for host, interval in expected.items():
        g = gaps(web, host)
        assert len(g) == 3, host  # robots.txt + 3 pages
        assert min(g) >= interval - TOLERANCE, (host, g)  # robots.txt -> first page included
    assert max(gaps(web, "a.example.test")) < 10  # our group's value, not the "*" one
    assert result.stat("wacky/politeness/crawl_delay_hosts") == 3
    assert result.stat("wacky/politeness/capped") == 1
    assert "Crawl-delay 86400 s capped at WACKY_CRAWL_DELAY_MAX = 2.5 s" in result.log


def test_crawl_delay_of_one_port_not_lowered_by_another_ports_robots_txt(tmp_path):
    # robots.txt is per scheme+host+port, politeness per host name: port 8002's robots.txt
    # (a 404, parsed after port 8001's) used to reset the host's interval to DOWNLOAD_DELAY
    with LocalWeb() as web:
        web.add("http://site.test:8001/robots.txt", "User-agent: *\nCrawl-delay: 1.5\n",
                content_type=TXT)
        web.add("http://site.test:8002/robots.txt", "not here", status=404, content_type=TXT,
                delay=0.5)
        add_pages(web, "site.test:8001", 4)
        add_pages(web, "site.test:8002", 1)
        settings = {**NO_PIPELINES, "DOWNLOAD_DELAY": "0.1",
                    "CONCURRENT_REQUESTS_PER_DOMAIN": "1"}
        result = run_crawl(web, pages("site.test:8001", 4) + pages("site.test:8002", 1),
                           tmp_path, settings, timeout=60)
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("wacky/robots/ok") == 1 and result.stat("wacky/robots/unavailable_4xx") == 1
    g = gaps(web, "site.test:8001")
    assert len(g) == 4  # robots.txt + 4 pages
    assert min(g) >= 1.5 - TOLERANCE, g


class NoProxyWeb(LocalWeb):
    """LocalWeb whose crawls resolve nohost.test themselves (no proxy for it)."""

    def env(self) -> dict[str, str]:
        return {**super().env(), "no_proxy": "nohost.test", "NO_PROXY": "nohost.test"}


def test_host_that_does_not_resolve_is_dropped_not_parked(tmp_path):
    # A name without DNS answer: its pages cannot load either, so they are dropped at once
    # instead of holding the crawl open for WACKY_ROBOTS_MAX_DEFERRALS x RETRY_SECONDS.
    with NoProxyWeb() as web:
        add_pages(web, "ok.test", 1)
        settings = {**NO_PIPELINES, "WACKY_ROBOTS_RETRY_SECONDS": "600",
                    "TWISTED_DNS_RESOLVER": "tests.fixeddns.FixedResolver",
                    "FIXED_DNS": '{"nohost.test": ""}'}
        result = run_crawl(web, pages("nohost.test", 3) + pages("ok.test", 1), tmp_path, settings,
                           timeout=60)
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats.get("finish_reason") == "finished"
    assert result.stat("wacky/robots/unreachable_network") == 1
    assert result.stat("wacky/robots/dropped_dns") == 3
    assert result.stat("wacky/robots/deferred") == 0
    assert paths(web, "ok.test") == ["/robots.txt", "/p0.html"]


def test_robots_txt_redirected_to_another_path_is_read_and_obeyed(tmp_path):
    """RFC 9309 2.3.1.2: redirects are followed. A robots.txt moved to another path used to be
    judged as a page by the size window (drop ``not_html``) and the host counted unreachable."""
    with LocalWeb() as web:
        web.add("http://moved.test/robots.txt", status=301,
                headers={"Location": "http://moved.test/meta/robots.txt"})
        web.add("http://moved.test/meta/robots.txt", "User-agent: *\nDisallow: /private/\n",
                content_type=TXT)
        web.add("http://moved.test/p.html", PAGE)
        web.add("http://moved.test/private/x.html", PAGE)
        result = run_crawl(web, ["http://moved.test/p.html", "http://moved.test/private/x.html"],
                           tmp_path, NO_PIPELINES, timeout=60)
        seen = paths(web, "moved.test")
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("wacky/robots/ok") == 1 and result.stat("wacky/robots/forbidden") == 1
    assert result.stat("wacky/robots/unreachable_network") == 0
    assert "Dropped: not_html" not in result.log
    assert seen[:2] == ["/robots.txt", "/meta/robots.txt"] and "/p.html" in seen
    assert "/private/x.html" not in seen


def test_robots_txt_behind_a_redirect_loop_or_too_many_redirects_is_unavailable(tmp_path):
    """RFC 9309 2.3.1.2: past five redirects (REDIRECT_MAX_TIMES) or in a loop the robots.txt
    is taken as unavailable (2.3.1.3: allow all), not unreachable (disallow all), and its
    URLs are no page drops (too_many_redirects, redirect_loop)."""
    with LocalWeb() as web:
        web.add("http://hops.test/robots.txt", status=301, headers={"Location": "/r1"})
        for k in range(1, 6):
            web.add(f"http://hops.test/r{k}", status=301, headers={"Location": f"/r{k + 1}"})
        web.add("http://hops.test/r6", "User-agent: *\nDisallow: /\n", content_type=TXT)
        web.add("http://loop.test/robots.txt", status=302, headers={"Location": "/robots2.txt"})
        web.add("http://loop.test/robots2.txt", status=302, headers={"Location": "/robots.txt"})
        for host in ("hops.test", "loop.test"):
            add_pages(web, host, 2)
        settings = {**NO_PIPELINES, "WACKY_ROBOTS_RETRY_SECONDS": "600",
                    "WACKY_IDLE_CLOSE_SECONDS": "5"}
        result = run_crawl(web, pages("hops.test", 2) + pages("loop.test", 2), tmp_path,
                           settings, timeout=60)
        hops, loop = paths(web, "hops.test"), paths(web, "loop.test")
    assert result.returncode == 0, result.log[-3000:]
    assert hops[:6] == ["/robots.txt", "/r1", "/r2", "/r3", "/r4", "/r5"] and "/r6" not in hops
    assert sorted(hops[6:]) == ["/p0.html", "/p1.html"]
    assert loop[:2] == ["/robots.txt", "/robots2.txt"]
    assert sorted(loop[2:]) == ["/p0.html", "/p1.html"]
    assert result.stat("wacky/robots/unavailable_redirects") == 2
    assert result.stat("wacky/robots/unreachable_network") == 0
    assert result.stat("wacky/robots/deferred") == 0
    for reason in ("too_many_redirects", "redirect_loop", "robots_unreachable"):
        assert result.stat(f"wacky/drop/{reason}") == 0, reason
    assert result.stat("wacky/redirect/loop") == 0
    assert "Dropped: too_many_redirects" not in result.log
    assert "robots.txt http://loop.test/robots.txt not reached through its redirects " \
           "(redirect_loop" in result.log


def test_robots_txt_redirected_to_a_name_that_does_not_resolve_is_unreachable(tmp_path):
    """A failure at a redirect target is the robots.txt fetch's (RFC 9309 2.3.1.4: network
    error, unreachable: complete disallow, fetched again after WACKY_ROBOTS_RETRY_SECONDS),
    not "host name does not resolve" for the original host, whose pages load."""
    with LocalWeb() as web:  # direct connections: the crawl resolves both names itself
        fine = f"fine.test:{web.port}"
        web.add(f"http://{fine}/robots.txt", status=301,
                headers={"Location": f"http://nohost.test:{web.port}/robots.txt"})
        add_pages(web, fine, 2)
        settings = {**NO_PIPELINES, "WACKY_ROBOTS_RETRY_SECONDS": "2",
                    "WACKY_ROBOTS_MAX_DEFERRALS": "1", "WACKY_IDLE_CLOSE_SECONDS": "5",
                    "HTTPPROXY_ENABLED": "False",
                    "TWISTED_DNS_RESOLVER": "tests.fixeddns.FixedResolver",
                    "FIXED_DNS": '{"nohost.test": "", "fine.test": "127.0.0.1"}'}
        result = run_crawl(web, pages(fine, 2), tmp_path, settings, timeout=60)
        seen = paths(web, fine)
    assert result.stat("wacky/robots/dropped_dns") == 0
    assert result.stat("wacky/robots/unreachable_network") == 2  # fetched again after 2 s
    assert result.stat("wacky/robots/deferred") == 2
    assert result.stat("wacky/robots/dropped_unreachable") == 2
    assert seen == ["/robots.txt", "/robots.txt"]
    assert "at its redirect target http://nohost.test:" in result.log


def crawl_obeying(tmp_path, robots: dict):
    """Crawl hosts each with a page and a page under ``/private/``, whose robots.txt
    (``robots``: host -> (body, LocalWeb.add keyword arguments)) disallows ``/private/``;
    asserts each host's robots.txt was parsed and obeyed (robots.txt, then the page only) and
    no network failure counted. Returns the crawl's result."""
    with LocalWeb() as web:
        for host, (body, kw) in robots.items():
            web.add(f"http://{host}/robots.txt", body, content_type=TXT, **kw)
            web.add(f"http://{host}/p.html", PAGE)
            web.add(f"http://{host}/private/x.html", PAGE)
        seeds = [f"http://{h}/{p}" for h in robots for p in ("p.html", "private/x.html")]
        settings = {**NO_PIPELINES, "WACKY_ROBOTS_RETRY_SECONDS": "1",
                    "WACKY_ROBOTS_MAX_DEFERRALS": "1"}
        result = run_crawl(web, seeds, tmp_path, settings, timeout=60)
        seen = {h: paths(web, h) for h in robots}
    assert result.returncode == 0, result.log[-3000:]
    for host, got in seen.items():
        assert got == ["/robots.txt", "/p.html"], host
    n = len(robots)
    assert result.stat("wacky/robots/ok") == n and result.stat("wacky/robots/forbidden") == n
    assert result.stat("wacky/robots/unreachable_network") == 0
    return result


def test_large_gzip_robots_txt_with_content_length_is_cut_and_parsed(tmp_path):
    """RFC 9309 2.5: a robots.txt over WACKY_ROBOTS_MAX_BYTES is read up to it and parsed.
    A gzip one with a Content-Length over the decoded bound used to be cancelled at the headers
    by Scrapy's wire check (DownloadCancelledError: unreachable_network, host disallowed),
    while the same file sent chunked was cut and parsed."""
    import gzip
    import random

    rng = random.Random(1)
    pad = b"".join(b"# " + bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789")
                                 for _ in range(70)) + b"\n" for _ in range(9000))
    body = gzip.compress(b"User-agent: *\nDisallow: /private/\n" + pad, 0)
    assert len(body) > 512000 + 64 * 1024
    result = crawl_obeying(tmp_path, {
        host: (body, {"chunked": chunked, "chunk_size": 32768,
                      "headers": {"Content-Encoding": "gzip"}})
        for host, chunked in (("length.test", False), ("chunked.test", True))})
    assert result.stat("wacky/robots/cut_off") == 2
    assert "expected response size" not in result.log


def test_plain_robots_txt_labelled_gzip_or_br_is_read_as_sent(tmp_path):
    """A plain robots.txt sent with ``Content-Encoding: gzip`` or ``br`` failed in
    HttpCompressionMiddleware (BadGzipFile, brotli.error) and counted as a network failure
    (host disallowed). The answer arrived (RFC 9309 2.3.1.1): its bytes are parsed as sent and
    the parseable rules used (2.3.1.5), counted as ``bad_encoding``."""
    result = crawl_obeying(tmp_path, {
        host: ("User-agent: *\nDisallow: /private/\n", {"headers": {"Content-Encoding": coding}})
        for host, coding in (("fakegz.test", "gzip"), ("fakebr.test", "br"))})
    assert result.stat("wacky/robots/bad_encoding") == 2
    assert "robots.txt http://fakegz.test/robots.txt: body is not gzip" in result.log


def test_a_host_name_no_name_can_have_is_robots_dns_at_once_not_parked(tmp_path):
    """A link or redirect to ``http://exa mple.test/`` (a space, ``|`` in the host): Twisted
    refused its robots.txt URL ("Invalid URI"), which counted as unreachable: the page parked
    and retried every WACKY_ROBOTS_RETRY_SECONDS until the deferrals ran out or the crawl
    closed idle, then dropped as robots_unreachable."""
    with LocalWeb() as web:
        web.add("http://names.test/", '<html><body><a href="http://exa mple.test/">x</a>'
                '<a href="/next.html">next</a></body></html>')
        web.add("http://names.test/next.html", status=302,
                headers={"Location": "http://bad|host.test/page.html"})
        result = run_crawl(web, ["http://names.test/"], tmp_path,
                           {"ITEM_PIPELINES": "{}", "DEPTH_LIMIT": "2"}, timeout=60)
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log
    assert result.stat("wacky/drop/robots_dns") == 2
    assert result.stat("wacky/robots/dropped_dns") == 2
    assert result.stat("wacky/robots/unreachable_network") == 0
    assert result.stat("wacky/drop/robots_unreachable") == 0
    assert "host name 'exa mple.test' holds ' ', which no host name has" in result.log
    assert result.stat("finish_reason") == "finished"
