"""A real ``scrapy crawl seeds`` seeded from search queries against fake engines on loopback.

Three engines answer on the local web: a SearXNG instance (JSON, with a robots.txt), the Brave
Search API host itself (JSON over HTTPS through the local proxy, API key in a header) and a
plain ``{query}`` template engine (HTML with click-tracking links). Result lists are built so
that domains repeat within and across queries, a result sits on a plain seed's domain, one on
the engine's own host, one page is not JSON, and one query asks more than
WACKY_SERP_MAX_RESULTS.
"""

from __future__ import annotations

import gzip
import json
from itertools import pairwise
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.seeding import engines
from wackycrawl.trec.reader import iter_docs

pytestmark = pytest.mark.crawl

KEY = "k3y-SECRET-4711-brave"
SEARX = "http://searx.test"
TEMPLATE = "http://find.test/html/?q={query}"
DELAY = 1.0  # seconds between two SearXNG requests (DOWNLOAD_DELAY is 0 in test crawls)

# query -> result URLs (in page order). Collisions: within one query (site-a, site-f), with
# the plain seed (plain.test), across two queries whose answers race (site-g: either wins).
RESULTS = {
    "apple river stone": ["http://www.site-a.co.uk/", "http://blog.site-a.co.uk/post.html",
                          "http://searx.test/preferences", "http://site-b.test/",
                          "http://site-c.test/"],
    "cloud mirror garden": ["http://plain.test/other.html", "http://site-d.test/",
                            "http://news.site-g.test/"],
    "paper window silver": ["http://site-e.test/", "http://www.site-g.test/"],
}
HTML_QUERY = ("lantern meadow copper", ["http://site-f.test/", "http://www.site-f.test/x"])
BAD_QUERY = "broken answer here"
SITES = ["www.site-a.co.uk", "site-b.test", "site-d.test", "site-e.test", "site-f.test",
         "plain.test"]
RACE = {"news.site-g.test", "www.site-g.test"}
NEVER = ["blog.site-a.co.uk", "site-c.test", "www.site-f.test"]


def _query(path: str) -> str:
    return parse_qs(urlsplit(path).query)["q"][0]


def searxng_body(path: str) -> bytes:
    q = _query(path)
    if q == BAD_QUERY:
        return b"<html>rate limited</html>"
    return json.dumps({"query": q, "results": [{"url": u, "title": "t"} for u in RESULTS[q]]}
                      ).encode()


def brave_body(path: str) -> bytes:
    return json.dumps({"web": {"results": [{"url": u} for u in RESULTS[_query(path)]]}}).encode()


def html_body(path: str) -> bytes:
    links = "".join(f'<a href="/l/?uddg={u}&amp;rut=x">r</a>' for u in HTML_QUERY[1])
    return f'<html><body><a href="/settings">settings</a>{links}</body></html>'.encode()


def build_web(web: LocalWeb) -> list[str]:
    """Register engines and sites; returns the seed file's lines."""
    searx = engines.searxng(SEARX)
    web.add(f"{SEARX}/robots.txt", "User-agent: *\nDisallow: /preferences\n",
            content_type="text/plain")
    seeds = ["# plain seed and queries", "http://plain.test/"]
    for q in ["apple river stone", "cloud mirror garden", BAD_QUERY]:
        url = searx.url(q.split())
        web.add(url, searxng_body, content_type="application/json")
        seeds.append(url)
    brave_url = engines.BRAVE.url(["paper", "window", "silver"], 10)
    web.add(brave_url, brave_body, content_type="application/json")
    seeds.append(brave_url)
    html_url = engines.template(TEMPLATE).url(HTML_QUERY[0].split())
    web.add(html_url, html_body)
    seeds.append(html_url)
    for i, host in enumerate(SITES + sorted(RACE) + NEVER):
        web.add(f"http://{host}/", page(host, prose(100 + i), links=["/more.html"]))
        web.add(f"http://{host}/more.html", page(host + " more", prose(200 + i)))
    return seeds


@pytest.fixture(scope="module")
def serp_crawl(tmp_path_factory, monkeypatch_module):
    out = tmp_path_factory.mktemp("serp")
    monkeypatch_module.setenv(engines.BRAVE.key_env, KEY)
    settings = {"WACKY_LANGUAGES": "en", "WACKY_SERP_MAX_RESULTS": "2",
                "WACKY_SERP_SEARXNG_URL": SEARX, "WACKY_SERP_TEMPLATE": TEMPLATE,
                "WACKY_SERP_DELAYS": json.dumps({"searxng": DELAY, "brave": 0, "template": 0}),
                "LOG_LEVEL": "DEBUG"}
    with LocalWeb() as web:
        seeds = build_web(web)
        result = run_crawl(web, seeds, out, settings, timeout=120)
        hits = list(web.hits)
    docs = [doc for f in sorted(result.outdir.glob("*.trec.gz")) for _, doc in iter_docs(str(f))]
    return result, hits, docs


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_crawl_finishes(serp_crawl):
    result, _, _ = serp_crawl
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("finish_reason") == "finished"
    assert result.stat("wacky/seeds/queries") == 5
    assert result.stat("wacky/serp/pages") == 5


def test_one_seed_per_registered_domain(serp_crawl):
    result, hits, _ = serp_crawl
    hosts = {h.host for h in hits}
    assert set(SITES) <= hosts
    assert not hosts & set(NEVER), "a second seed of one registered domain was fetched"
    assert len(hosts & RACE) == 1
    assert result.stat("wacky/serp/max_per_domain") == 1
    assert result.stat("wacky/serp/domains") == 7  # 6 from queries + the plain seed's
    # site-c: third result of a query with WACKY_SERP_MAX_RESULTS = 2 (searx.test is dropped
    # before: a link to the engine itself)
    assert result.stat("wacky/serp/skipped/over_max") == 1
    assert result.stat("wacky/serp/skipped/domain_taken") == 4


def test_engine_robots_txt_read_before_results(serp_crawl):
    _, hits, _ = serp_crawl
    searx = [h.path for h in hits if h.host == "searx.test"]
    assert searx[0] == "/robots.txt" and len(searx) == 4
    assert "/preferences" not in searx


def test_per_engine_delay(serp_crawl):
    _, hits, _ = serp_crawl
    times = [h.time for h in hits if h.host == "searx.test" and h.path.startswith("/search")]
    gaps = [b - a for a, b in pairwise(times)]
    assert len(gaps) == 2 and min(gaps) >= DELAY - 0.05, gaps


def test_documents_carry_their_seed_query(serp_crawl):
    _, _, docs = serp_crawl
    # DOCHDR values hold no whitespace: the writer percent-encodes it
    by_url = {d.url: unquote(d.meta["Seed-Query"]) if "Seed-Query" in d.meta else None
              for d in docs}
    assert by_url["http://www.site-a.co.uk/"] == "apple river stone"
    assert by_url["http://www.site-a.co.uk/more.html"] == "apple river stone"  # followed link
    assert by_url["http://site-d.test/"] == "cloud mirror garden"
    assert by_url["http://site-e.test/more.html"] == "paper window silver"  # Brave
    assert by_url["http://site-f.test/"] == "lantern meadow copper"  # HTML template
    assert by_url["http://plain.test/"] is None


def test_result_pages_never_in_corpus(serp_crawl):
    _, _, docs = serp_crawl
    engine_hosts = {"searx.test", "api.search.brave.com", "find.test"}
    assert docs and not {urlsplit(d.url).hostname for d in docs} & engine_hosts


def test_unreadable_result_page_is_counted(serp_crawl):
    result, _, _ = serp_crawl
    assert result.stat("wacky/serp/bad_response") == 1
    assert "unreadable, no seeds" in result.log


def test_api_key_never_logged_or_written(serp_crawl):
    result, hits, _ = serp_crawl
    assert any(h.host == "api.search.brave.com" for h in hits)
    assert KEY not in result.log
    for f in Path(result.outdir).parent.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            if f.name.endswith(".gz"):
                data = gzip.decompress(data)
            assert KEY.encode() not in data, f
