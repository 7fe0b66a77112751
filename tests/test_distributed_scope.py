"""Scope derived from the seeds (``WACKY_SCOPE_FROM_SEEDS``) in a Redis crawl: a seed pushed to
the start-URL key with ``redis-cli lpush`` reaches the frontier without passing through a
worker's engine, yet its domain is the crawl's scope; the derived prefixes are shared in Redis,
so a worker that never saw a seed judges links by the same scope; a resumed JOBDIR crawl, whose
seeds the dupefilter drops as already seen, gets its scope back from them."""

from __future__ import annotations

import pytest
from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.test import get_crawler

from tests.crawlrun import finish, start_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_distributed_crawl import page_hits, worker_settings
from tests.test_distributed_scrapy_redis import redis_cli
from tests.webpages import page, prose
from wackycrawl.middlewares.scope import ScopeMiddleware
from wackycrawl.spiders.seeds import SeedsSpider

SITE = [f"http://www.site.test/p{i}.html" for i in range(3)]
AWAY = ["http://other.test/x.html", "http://elsewhere.test/y.html"]


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


def middleware(settings: dict) -> tuple[ScopeMiddleware, object]:
    crawler = get_crawler(SeedsSpider, {"WACKY_SCOPE_FROM_SEEDS": "domain", **settings})
    crawler.stats.open_spider()
    return ScopeMiddleware.from_crawler(crawler), crawler


def test_a_worker_judges_links_by_the_seeds_another_worker_fetched(redis_server):
    redis = {"REDIS_URL": redis_server.url, "WACKY_CRAWL_NAME": "scopeshare"}
    seen_seed, _ = middleware(redis)
    other, crawler = middleware(redis)
    link = {"depth": 1}
    seen_seed.process_request(Request("http://www.uni-bonn.de/"))  # the seed, fetched by one
    assert redis_server.client().smembers("wacky:scopeshare:scope") == {b"http://(de,uni-bonn,"}
    assert other.process_request(Request("http://fb.uni-bonn.de/a", meta=link)) is None
    with pytest.raises(IgnoreRequest):
        other.process_request(Request("http://www.uni-koeln.de/", meta=link))
    assert crawler.stats.get_value("wacky/scope/out") == 1
    alone, _ = middleware({})  # no Redis: only its own seeds count
    alone.process_request(Request("http://www.uni-koeln.de/"))
    with pytest.raises(IgnoreRequest):
        alone.process_request(Request("http://fb.uni-bonn.de/a", meta=link))


def test_a_seed_the_dupefilter_drops_still_gives_its_scope():
    mw, crawler = middleware({})
    seed = Request("http://www.uni-bonn.de/")
    crawler.signals.send_catch_log(signals.request_dropped, request=seed, spider=None)
    assert mw.process_request(Request("http://fb.uni-bonn.de/a", meta={"depth": 1})) is None
    with pytest.raises(IgnoreRequest):
        mw.process_request(Request("http://www.uni-koeln.de/", meta={"depth": 1}))


def test_seeds_pushed_with_lpush_keep_the_crawl_on_their_domain(redis_server, tmp_path):
    redis_cli(redis_server, "lpush", "wacky:lpscope:start_urls", SITE[0])
    settings = {**worker_settings(redis_server, "lpscope", tmp_path / "corpus", "w"),
                "WACKY_SCOPE_FROM_SEEDS": "domain"}
    with LocalWeb() as web:
        for n, url in enumerate(SITE):
            web.add(url, page(f"Page {n}", prose(120 + n), links=[SITE[(n + 1) % 3], AWAY[n % 2]]))
        for url in AWAY:
            web.add(url, page("Away", prose(130)))
        proc, stats = start_crawl(web, ["# seeds come from Redis"], tmp_path / "w", settings)
        result = finish(proc, tmp_path / "w", stats, timeout=120)
        hosts = {host for host, _ in page_hits(web)}
    assert result.returncode == 0, result.log[-3000:]
    assert hosts == {"www.site.test"}
    assert result.stat("wacky/scope/out") == 2
    assert result.stat("wacky/drop/out_of_scope") == 2


HOSTS = [f"http://www.site{h}.test" for h in range(4)]
LINKED = [f"{host}/p{i}.html" for host in HOSTS for i in range(8)]
FIND = "http://find.test/html/?q={query}"  # a template engine: result links in HTML


def stopped_and_resumed(tmp_path, seeds: list[str], settings: dict):
    """Crawl the linked hosts with JOBDIR, SIGTERM after 6 documents, resume; returns the
    resumed run's out_of_scope drop lines and the corpus's URLs."""
    import signal

    from tests.crawlrun import run_crawl, wait_for
    from tests.test_crawl_e2e import corpus_docs

    settings = {"WACKY_LANGUAGES": "en", "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
                "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0",
                "WACKY_SCOPE_FROM_SEEDS": "domain", **settings}
    out = tmp_path / "resumed"
    job = {**settings, "JOBDIR": str(out / "job")}
    with LocalWeb() as web:
        for n, url in enumerate(LINKED):  # every page links to the later pages and away
            web.add(url, page(f"Page {n}", prose(100 + n), links=LINKED[n + 1:] + AWAY[:1]),
                    delay=0.05)
        web.add(AWAY[0], page("Away", prose(130)))
        links = "".join(f'<a href="/l/?uddg={host}/p0.html&amp;rut=x">r</a>' for host in HOSTS)
        web.add(FIND.format(query="four+sites"), f"<html><body>{links}</body></html>")
        proc, stats_file = start_crawl(web, seeds, out, job)
        corpus = out / "corpus"
        assert wait_for(lambda: sum(len(p.read_text().splitlines())
                                    for p in corpus.glob("*.idx.tsv")) >= 6, timeout=60)
        proc.send_signal(signal.SIGTERM)
        first = finish(proc, out, stats_file)
        assert first.stats.get("finish_reason") == "shutdown"
        second = run_crawl(web, seeds, out, job)
    assert second.returncode == 0, second.log[-3000:]
    dropped = [line for line in second.log.splitlines() if "Dropped: out_of_scope" in line]
    return dropped, {d.url for d in corpus_docs(corpus)}


@pytest.mark.crawl
def test_a_resumed_jobdir_crawl_judges_scope_as_the_uninterrupted_one(tmp_path):
    """A crawl stopped with requests queued on the seeds' hosts: on resume the first requests
    the frontier hands out are judged by the seeds' scope, not dropped out_of_scope before
    the seed list is read again."""
    dropped, urls = stopped_and_resumed(tmp_path, [f"{host}/p0.html" for host in HOSTS], {})
    assert all(AWAY[0] in line for line in dropped), dropped[:3]
    assert urls == set(LINKED)


@pytest.mark.crawl
def test_a_resumed_jobdir_crawl_keeps_the_scope_of_search_results(tmp_path):
    """Seeds from a search query: their links queued when the crawl stopped are in scope on
    resume, although the result page is fetched again only after them."""
    dropped, urls = stopped_and_resumed(tmp_path, [FIND.format(query="four+sites")],
                                        {"WACKY_SERP_TEMPLATE": FIND})
    assert all(AWAY[0] in line for line in dropped), dropped[:3]
    assert urls == set(LINKED)
