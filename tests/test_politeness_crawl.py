"""Real ``scrapy crawl seeds`` runs: Crawl-delay 3 (C04) and the per-IP interval.

Gaps are measured on the server's request log (arrival times), robots.txt included.
"""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb

pytestmark = pytest.mark.crawl

TXT = "text/plain"
PAGE = "<html><body><p>page</p></body></html>"
NO_PIPELINES = {"ITEM_PIPELINES": "{}", "WACKY_FOLLOW_LINKS": "False"}
TOLERANCE = 0.05  # seconds; arrival times are taken by the server, send times by the crawler


def arrivals(web: LocalWeb, *hosts: str) -> list[float]:
    return sorted(h.time for host in hosts for h in web.hits_for(host))


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in pairwise(times)]


def test_c04_host_with_crawl_delay_3_is_never_hit_twice_within_3_s(tmp_path):
    with LocalWeb() as web:
        web.add("http://a.example.test/robots.txt",
                "User-agent: *\nCrawl-delay: 10\n\nUser-agent: wackycrawl\nCrawl-delay: 3\n",
                content_type=TXT)
        urls = [f"http://a.example.test/p{i}.html" for i in range(3)]
        for url in urls:
            web.add(url, PAGE)
        settings = {**NO_PIPELINES, "DOWNLOAD_DELAY": "1.0", "AUTOTHROTTLE_ENABLED": "True",
                    "CONCURRENT_REQUESTS_PER_DOMAIN": "4"}
        result = run_crawl(web, urls, tmp_path, settings, timeout=60)

    assert result.returncode == 0, result.log[-3000:]
    g = gaps(arrivals(web, "a.example.test"))
    assert len(g) == 3 and min(g) >= 3.0 - TOLERANCE, g  # robots.txt -> first page included
    assert max(g) < 10  # our group's value, not the "*" one


def test_per_ip_delay_spaces_hostnames_of_one_server(tmp_path):
    shared = ("h1.test", "h2.test", "h3.test")
    dns = {**{h: "192.0.2.7" for h in shared}, "other.test": "192.0.2.8"}
    with LocalWeb() as web:
        seeds = []
        for host in (*shared, "other.test"):
            web.add(f"http://{host}/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT)
            for i in range(2 if host == "other.test" else 1):
                web.add(f"http://{host}/p{i}.html", PAGE)
                seeds.append(f"http://{host}/p{i}.html")
        settings = {**NO_PIPELINES, "WACKY_PER_IP_DELAY": "0.8",
                    "TWISTED_DNS_RESOLVER": "tests.fixeddns.FixedResolver",
                    "FIXED_DNS": json.dumps(dns)}
        result = run_crawl(web, seeds, tmp_path, settings, timeout=60)

    assert result.returncode == 0, result.log[-3000:]
    one_server = arrivals(web, *shared)
    assert len(one_server) == 6 and min(gaps(one_server)) >= 0.8 - TOLERANCE, gaps(one_server)
    other = arrivals(web, "other.test")
    assert len(other) == 3 and other[-1] < one_server[3]  # its own address: crawled alongside
    assert result.stat("wacky/politeness/ip_unresolved") == 0


def test_a_hosts_waiting_requests_go_in_depth_order(tmp_path):
    """Ten depth-1 pages wait for one host while their children (depth 2) arrive: every
    depth-1 page is fetched before any depth-2 one, so a page linked from the last depth-1
    page and from a depth-2 page gets its shortest link depth (2), and the page it links to
    (depth 3) is within DEPTH_LIMIT 3."""
    host = "http://bfs.test"

    def html(*links):
        return "<html><body>" + "".join(f'<a href="{u}">{u}</a> ' for u in links) + \
            "</body></html>"

    with LocalWeb() as web:
        firsts = [f"/a{i}.html" for i in range(10)]
        web.add(host + "/", html(*firsts))
        for i, path in enumerate(firsts):
            web.add(host + path, html(f"/b{i}.html", *(["/t.html"] if i == 9 else [])))
            web.add(host + f"/b{i}.html", html(f"/c{i}.html", *(["/t.html"] if i == 0 else [])))
            web.add(host + f"/c{i}.html", html())
        web.add(host + "/t.html", html("/u.html"))
        web.add(host + "/u.html", html())
        web.add(host + "/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
        result = run_crawl(web, [host + "/"], tmp_path,
                           {"DOWNLOAD_DELAY": "0.1", "DEPTH_LIMIT": "3"}, timeout=120)
        paths = [h.path for h in web.hits if h.path not in ("/robots.txt", "/")]
    assert result.returncode == 0, result.log[-3000:]
    depth = {p: 1 if p.startswith("/a") else 3 if p.startswith(("/c", "/u")) else 2
             for p in paths}
    order = [depth[p] for p in paths]
    assert order == sorted(order), paths
    assert "/u.html" in paths


@pytest.mark.parametrize("frontier", ["scrapy", "local"])
def test_a_link_found_later_by_a_shorter_path_gives_the_waiting_page_its_depth(tmp_path,
                                                                                frontier):
    """t.html is first linked at depth 3 (seed -> a -> c -> t) and waits for its host, busy
    with the slow b.html and x.html; b.html links it at depth 2 while it waits: t is fetched
    at depth 2, so its link u.html (depth 3) is within DEPTH_LIMIT 3."""

    def html(*links):
        return "<html><body>" + "".join(f'<a href="{u}">{u}</a> ' for u in links) + \
            "</body></html>"

    with LocalWeb() as web:
        web.add("http://s.test/", html("http://fast.test/a.html", "http://slow.test/b.html",
                                       "http://slow.test/x.html"))
        web.add("http://slow.test/x.html", html(), delay=2.0)
        web.add("http://fast.test/a.html", html("/c.html"))
        web.add("http://fast.test/c.html", html("http://slow.test/t.html"))
        web.add("http://slow.test/b.html", html("/t.html"), delay=2.0)
        web.add("http://slow.test/t.html", html("/u.html"))
        web.add("http://slow.test/u.html", html())
        for host in ("s.test", "fast.test", "slow.test"):
            web.add(f"http://{host}/robots.txt", "User-agent: *\n", content_type="text/plain")
        settings = {"DEPTH_LIMIT": "3", "DOWNLOAD_DELAY": "0.1"}  # one request per host
        if frontier == "local":
            settings["JOBDIR"] = str(tmp_path / "job")
        result = run_crawl(web, ["http://s.test/"], tmp_path, settings, timeout=120)
        paths = [(h.host, h.path) for h in web.hits]
    assert result.returncode == 0, result.log[-3000:]
    assert paths.index(("fast.test", "/c.html")) < paths.index(("slow.test", "/t.html"))
    assert ("slow.test", "/u.html") in paths
    assert result.stat("wacky/frontier/depth_promoted") >= 1
