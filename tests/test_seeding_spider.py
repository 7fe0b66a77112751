"""The seeds spider's SERP requests (a real Crawler from scrapy.utils.test.get_crawler)."""

import asyncio

from scrapy.utils.test import get_crawler

from wackycrawl import settings as project_settings
from wackycrawl.seeding import engines
from wackycrawl.spiders.seeds import SeedsSpider

SEARX = "http://searx.test"


def make_spider(tmp_path, lines, **settings):
    f = tmp_path / "seeds.txt"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = {k: getattr(project_settings, k) for k in dir(project_settings) if k.startswith("WACKY_")}
    crawler = get_crawler(SeedsSpider, {**base, "WACKY_SERP_SEARXNG_URL": SEARX, **settings})
    spider = SeedsSpider.from_crawler(crawler, seeds=str(f))
    crawler.spider = spider
    return crawler, spider


def start_requests(spider):
    async def collect():
        return [r async for r in spider.start()]
    return asyncio.run(collect())


def test_query_lines_become_serp_requests_with_key_header(tmp_path, monkeypatch):
    monkeypatch.setenv("WACKY_BRAVE_KEY", "k-123")
    brave_url = engines.BRAVE.url(["a", "b"])
    crawler, spider = make_spider(tmp_path, ["http://plain.test/", f"{SEARX}/search?q=x+y&format=json",
                                             brave_url])
    plain, searx, brave = start_requests(spider)
    assert plain.callback == spider.parse and "wacky_serp" not in plain.meta
    assert searx.callback == spider.parse_serp and searx.meta["wacky_seed_query"] == "x y"
    assert searx.meta["wacky_min_interval"] == 2.0 and searx.meta["dont_redirect"]
    assert searx.meta["wacky_size_window"] is False and searx.meta["depth"] == -1
    assert brave.headers.get("X-Subscription-Token") == b"k-123"
    assert b"k-123" not in searx.headers.get("X-Subscription-Token", b"")
    assert "k-123" not in brave.url and "k-123" not in repr(brave.meta)
    assert crawler.stats.get_value("wacky/seeds/queries") == 2
    assert spider.quota.taken == {"plain.test": 1}


def test_missing_key_skips_the_query_with_an_error(tmp_path, monkeypatch, caplog):
    monkeypatch.delenv("WACKY_BING_KEY", raising=False)
    crawler, spider = make_spider(tmp_path, [engines.BING.url(["a", "b"]),
                                             engines.BING.url(["c", "d"])])
    assert start_requests(spider) == []
    assert crawler.stats.get_value("wacky/serp/no_key") == 2
    assert caplog.text.count("WACKY_BING_KEY") == 1  # one line, not one per query


def test_query_file_lines_must_be_query_urls(tmp_path):
    q = tmp_path / "queries.txt"
    q.write_text(f"{SEARX}/search?q=a&format=json\nhttp://not-an-engine.test/?q=a\n")
    crawler = get_crawler(SeedsSpider, {"WACKY_SERP_SEARXNG_URL": SEARX})
    spider = SeedsSpider.from_crawler(crawler, queries=str(q))
    requests = start_requests(spider)
    assert [r.meta.get("wacky_seed_query") for r in requests] == ["a"]
    assert crawler.stats.get_value("wacky/seeds/not_a_query") == 1
