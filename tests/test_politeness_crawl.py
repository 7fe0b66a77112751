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
