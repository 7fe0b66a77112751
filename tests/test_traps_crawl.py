"""Real crawls over the local web: an endless calendar, a site that puts a fresh session id
into every link, links out of scope and a pathological path. Each ends within its budget, the
crawl stays in the scope derived from its seeds, and the per-host yield table is written."""

from __future__ import annotations

import csv
import random
import re

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb, Route
from tests.webpages import page, prose
from wackycrawl.crawl.urls import canonical_url

pytestmark = pytest.mark.crawl

BUDGET = 40
WINDOW = 10
SHOP_PAGES = 10


class GeneratedRoutes(dict):
    """Routes of LocalWeb plus generated ones: ``host -> fn(path) -> Route | None`` answers
    every path of that host (an infinite site)."""

    def __init__(self, generators):
        super().__init__()
        self.generators = generators

    def get(self, key, default=None):
        if key in self:
            return self[key]
        fn = self.generators.get(key[0])
        return (fn(key[1]) if fn else None) or default


def calendar(path: str) -> Route | None:
    """An events calendar without end: each month links to the previous and the next one."""
    m = re.fullmatch(r"/events/(\d+)", path)
    if not m:
        return None
    n = int(m[1])
    body = (f"<html><body><h1>Events of month {n}</h1><p>No events.</p>"
            f'<a href="/events/{n - 1}">previous</a> <a href="/events/{n + 1}">next</a>'
            "</body></html>")
    return Route(body=body.encode(), headers={"Content-Type": "text/html"})


_rng = random.Random(7)


def shop(path: str) -> Route | None:
    """A shop whose links all carry a fresh PHPSESSID (32 hex digits) and utm_ tracking."""
    m = re.fullmatch(r"/(?:item\.php\?(?:.*&)?page=(\d+).*)?", path)
    if not m:
        return None
    n = int(m[1] or 0)
    links = [f"/item.php?page={i}&PHPSESSID={_rng.getrandbits(128):032x}&utm_source=x"
             for i in range(SHOP_PAGES)]
    body = page(f"Shop page {n}", prose(100 + n), links=links).encode()
    return Route(body=body, headers={"Content-Type": "text/html; charset=utf-8"})


def build_web(web: LocalWeb) -> None:
    web.routes = GeneratedRoutes({"cal.alpha.test": calendar, "shop.beta.test": shop})
    web.add("http://www.alpha.test/", page("Alpha", prose(0), links=[
        "/a1.html", "http://cal.alpha.test/events/0", "http://www.gamma.test/",
        "http://shop.beta.test/", "/x/y/x/y/x/page.html", "/q?" + "&".join(
            f"f{i}=1" for i in range(12))]))
    web.add("http://www.alpha.test/a1.html", page("Alpha one", prose(1)))
    web.add("http://www.gamma.test/", page("Gamma", prose(2)))


@pytest.fixture(scope="module")
def trap_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("traps")
    settings = {"WACKY_LANGUAGES": "en", "WACKY_HOST_BUDGET": str(BUDGET),
                "WACKY_TRAP_WINDOW": str(WINDOW), "WACKY_SCOPE_FROM_SEEDS": "domain",
                "DEPTH_LIMIT": "0", "WACKY_PROGRESS_INTERVAL": "1"}
    with LocalWeb() as web:
        build_web(web)
        result = run_crawl(web, ["http://www.alpha.test/", "http://shop.beta.test/"], out,
                           settings, timeout=120)
        hits = list(web.hits)
    return result, hits


def pages_of(hits, host):
    return [h for h in hits if h.host == host and h.path != "/robots.txt"]


def test_crawl_finishes(trap_crawl):
    result, _ = trap_crawl
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats.get("finish_reason") == "finished"


def test_endless_calendar_ends_within_budget(trap_crawl):
    result, hits = trap_crawl
    cal = pages_of(hits, "cal.alpha.test")
    assert len(cal) <= BUDGET
    # the detector stops it after about one window, before the budget is spent
    assert result.stat("wacky/trap/patterns_tripped") == 1
    assert len(cal) <= 2 * WINDOW + 2
    assert "cal.alpha.test/events looks endless" in result.log


def test_session_id_site_fetched_once_per_page(trap_crawl):
    result, hits = trap_crawl
    shop_hits = pages_of(hits, "shop.beta.test")
    keys = [canonical_url("http://shop.beta.test" + h.path) for h in shop_hits]
    assert len(keys) == len(set(keys)), "a page was fetched twice under another session id"
    items = [h for h in shop_hits if h.path.startswith("/item.php")]
    assert len(items) == SHOP_PAGES  # each of the ten pages once, whatever its session id
    assert result.stat("dupefilter/filtered") >= SHOP_PAGES


def test_crawl_stays_in_scope(trap_crawl):
    result, hits = trap_crawl
    assert not [h for h in hits if h.host == "www.gamma.test"]
    assert {h.host for h in hits} <= {"www.alpha.test", "cal.alpha.test", "shop.beta.test"}
    assert result.stat("wacky/scope/out") >= 1
    assert result.stat("wacky/scope/derived") == 2
    assert "Dropped: out_of_scope: http://www.gamma.test/" in result.log


def test_url_shape_rules_counted(trap_crawl):
    result, hits = trap_crawl
    assert result.stat("wacky/trap/repeated_segment") == 1
    assert result.stat("wacky/trap/query_params") == 1
    assert not [h for h in hits if h.path.startswith(("/x/", "/q?"))]


def test_progress_lines_and_yield_table(trap_crawl):
    result, _ = trap_crawl
    assert "wacky progress:" in result.log and "pages/min" in result.log
    assert re.search(r"wacky yield .* over 3 hosts; top: .*shop\.beta\.test \d+", result.log)
    assert result.stat("wacky/yield/shop.beta.test") > 0
    assert result.stat("wacky/yield/cal.alpha.test") == 0  # fetched, nothing kept
    (yield_file,) = result.outdir.glob("host-yield-*.tsv")
    with open(yield_file, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert {r["host"] for r in rows} == {"www.alpha.test", "cal.alpha.test", "shop.beta.test"}
    assert int(rows[-1]["words"]) == 0 and float(rows[0]["words_per_mb"]) > 0


DOMAIN_HOSTS = 8
BLOGS = 30


def wild(host: str, path: str) -> Route | None:
    """Wildcard DNS: every host of wild.test answers its root with a small page linking to six
    new hosts, so no host ever sees a second page."""
    if path != "/":
        return None
    links = "".join(f'<a href="http://{host.split(".")[0]}x{i}.wild.test/">more {i}</a> '
                    for i in range(6))
    body = f"<html><body><p>Calendar of events</p>{links}</body></html>"
    return Route(body=body.encode(), headers={"Content-Type": "text/html"})


def blog(host: str, path: str) -> Route | None:
    """A hosting domain of real sites: bN.blogs.test holds a kept article linking to the next
    two blogs, BLOGS in all (a chain: DEPTH_LIMIT is raised for it)."""
    m = re.fullmatch(r"b(\d+)\.blogs\.test", host)
    if path != "/" or not m:
        return None
    n = int(m[1])
    links = [f"http://b{k}.blogs.test/" for k in (n + 1, n + 2) if k < BLOGS]
    return Route(body=page(f"Blog {n}", prose(300 + n), links, nav_links=0).encode(),
                 headers={"Content-Type": "text/html; charset=utf-8"})


class HostPatternRoutes(GeneratedRoutes):
    """Routes whose generator is chosen by the host's registered domain."""

    def get(self, key, default=None):
        if key in self:
            return self[key]
        host, path = key
        for domain, fn in self.generators.items():
            if host.endswith("." + domain) or host == domain:
                return fn(host, path) or default
        return default


@pytest.fixture(scope="module")
def subdomain_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("subdomains")
    with LocalWeb() as web:
        web.routes = HostPatternRoutes({"wild.test": wild, "blogs.test": blog})
        web.add("http://upper.test/", page("Upper", prose(400), [
            "/p1.html", "http://upper.test:80/p2.html", "http://Upper.test:80/p3.html"],
            nav_links=0))
        for n in (1, 2, 3):
            web.add(f"http://upper.test/p{n}.html", page(f"P{n}", prose(400 + n), nav_links=0))
            web.add(f"http://upper.test:80/p{n}.html", page(f"P{n}", prose(400 + n), nav_links=0))
        result = run_crawl(web, ["http://wild.test/", "http://b0.blogs.test/",
                                 "http://upper.test/"], out,
                           {"WACKY_LANGUAGES": "en", "WACKY_SCOPE_FROM_SEEDS": "domain",
                            "WACKY_DOMAIN_HOST_BUDGET": str(DOMAIN_HOSTS),
                            "WACKY_HOST_BUDGET": "3", "DEPTH_LIMIT": str(BLOGS)}, timeout=120)
        hits = list(web.hits)
    return result, hits


def test_a_link_generator_across_host_names_stops_at_the_domain_host_budget(subdomain_crawl):
    """Each page of *.wild.test links to six new hosts: neither the per-host budget nor the
    endless-links detector (host + first segment) ever saw more than one page of a host, so
    only DEPTH_LIMIT ended it (thousands of hosts)."""
    result, hits = subdomain_crawl
    assert result.returncode == 0, result.log[-3000:]
    wild_hosts = {h.host for h in hits if h.host.endswith("wild.test")}
    assert len(wild_hosts) == DOMAIN_HOSTS
    assert result.stat("wacky/trap/domains_over_budget") == 1
    assert result.stat("wacky/trap/domain_hosts") >= 6
    assert result.stat("wacky/drop/trap_domain_hosts") == result.stat("wacky/trap/domain_hosts")
    assert result.log.count(f"Trap: domain wild.test has {DOMAIN_HOSTS} hosts without a kept "
                            "document") == 1


def test_a_hosting_domain_whose_sites_yield_documents_is_not_cut(subdomain_crawl):
    result, hits = subdomain_crawl
    blogs = {h.host for h in hits if h.host.endswith("blogs.test") and h.path == "/"}
    assert len(blogs) == BLOGS > DOMAIN_HOSTS
    assert "domain blogs.test" not in result.log


def test_the_default_port_is_the_same_host_for_budget_and_yield(subdomain_crawl):
    """http://upper.test:80/ was a host of its own: its own budget, pattern and yield row."""
    result, hits = subdomain_crawl
    pages = [h for h in hits if h.host.startswith("upper.test") and h.path != "/robots.txt"]
    assert len(pages) == 3  # of /, p1, p2, p3, /imprint, /privacy: the budget of 3 is the host's
    assert result.log.count("Trap: host upper.test") == 1
    assert "Trap: host upper.test used its budget of 3 requests" in result.log
    assert not [k for k in result.stats if k.startswith("wacky/yield/upper.test:")]
    assert "wacky/yield/upper.test" in result.stats


def test_an_overlong_link_is_the_drop_trap_url_length_once_and_never_queued(tmp_path):
    """Scrapy's URLLENGTH_LIMIT (2083, as WACKY_TRAP_MAX_URL_LENGTH) ignored such a link before
    the trap rule saw it: no drop, no wacky/ counter, and a WACKY_TRAP_MAX_URL_LENGTH above
    2083 had no effect."""
    long1 = "/" + "x" * 10_000 + ".html"
    long2 = "/p?" + "&".join(f"k{i}=v" for i in range(3)) + "&pad=" + "y" * 3100
    mid = "/" + "m" * 2500 + ".html"  # over Scrapy's 2083, under the limit set below
    with LocalWeb() as web:
        web.add("http://long.test/", page("A", prose(70), links=[long1, long2, mid, "/b.html"]))
        web.add("http://long.test/b.html", page("B", prose(71), links=[long1]))
        web.add(f"http://long.test{mid}", page("M", prose(72)))
        result = run_crawl(web, ["http://long.test/"], tmp_path,
                           {"WACKY_LANGUAGES": "en", "DEPTH_LIMIT": "1",
                            "WACKY_TRAP_MAX_URL_LENGTH": "3000"})
        paths = [h.path for h in web.hits_for("long.test")]
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log
    assert result.stat("wacky/drop/trap_url_length") == 2
    assert result.stat("wacky/trap/url_length") == 2
    assert result.stat("urllength/request_ignored_count") == 0
    assert mid in paths and long1 not in paths and not any(len(p) > 3000 for p in paths)
    rows = [line.split("\t") for f in result.outdir.glob("drops-*.tsv")
            for line in f.read_text(encoding="utf-8").splitlines()[1:]]
    assert sorted(len(r[1]) for r in rows if r[2] == "trap_url_length") == sorted(
        [len("http://long.test" + long1), len("http://long.test" + long2)])
