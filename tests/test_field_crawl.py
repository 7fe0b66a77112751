"""Field defects in one real ``scrapy crawl seeds`` over the local web.

* a meta-refresh stub too small to store leads to its target, which is judged (and stored)
  as a page of its own;
* decompression bombs in br, zstd, gzip-in-gzip and a second gzip member are stopped by the
  size window at WACKY_MAX_DOC_BYTES decoded (``wacky/size/too_large_decoded``, a drop
  reason), never by Scrapy's own DOWNLOAD_MAXSIZE backstop; normal br and zstd pages are kept;
* a query file written by ``wackycrawl queries --engine searxng --base URL`` is crawled with
  no WACKY_SERP_SEARXNG_URL: the file names its engine;
* a seed repeated in the seed file (also with a tracking parameter) is fetched once, counted in
  ``wacky/seeds/repeated`` and logged in one line.
"""

from __future__ import annotations

import gzip
import json
from urllib.parse import unquote

import brotli
import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.cli import main as wackycrawl
from wackycrawl.crawl.sizewindow import zstd
from wackycrawl.seeding import engines
from wackycrawl.trec.reader import iter_docs

pytestmark = pytest.mark.crawl

SEARX = "http://searx.test"
QUERIES = {"apple river stone": ["http://site-a.test/"],
           "cloud mirror garden": ["http://site-b.test/"]}
ZEROS = b"<html><body>" + b"\0" * 20_000_000
BOMBS = {"brbomb": ("br", brotli.compress(ZEROS)),
         "zstdbomb": ("zstd", zstd.compress(ZEROS)),
         "gzgzbomb": ("gzip, gzip", gzip.compress(gzip.compress(ZEROS))),
         # harmless first member, the bomb in the second (RFC 1952 2.2)
         "membersbomb": ("gzip", gzip.compress(b"<html>") + gzip.compress(ZEROS))}


def searxng_body(path: str) -> bytes:
    from urllib.parse import parse_qs, urlsplit

    q = parse_qs(urlsplit(path).query)["q"][0]
    return json.dumps({"results": [{"url": u} for u in QUERIES[q]]}).encode()


def build(web: LocalWeb, tmp) -> tuple[list[str], str]:
    # meta refresh: a 300-byte stub (too small to store) whose target is a full page
    web.add("http://stub.test/", '<html><head><meta http-equiv="refresh" content="0; '
            'url=http://target.test/article.html"></head><body>moved</body></html>')
    web.add("http://target.test/article.html", page("target", prose(1)))
    for host, (coding, data) in BOMBS.items():
        assert len(data) < 60_000
        web.add(f"http://{host}.test/", data, headers={"Content-Encoding": coding})
    web.add("http://br.test/", brotli.compress(page("br page", prose(2)).encode()),
            headers={"Content-Encoding": "br"})
    web.add("http://zstd.test/", zstd.compress(page("zstd page", prose(3)).encode()),
            headers={"Content-Encoding": "zstd"})
    web.add("http://rep.test/", page("repeated seed", prose(4)))
    searx = engines.searxng(SEARX)
    for q in QUERIES:
        web.add(searx.url(q.split()), searxng_body, content_type="application/json")
    for i, host in enumerate(("site-a.test", "site-b.test")):
        web.add(f"http://{host}/", page(host, prose(10 + i)))
    tuples = tmp / "tuples.txt"
    tuples.write_text("".join(q + "\n" for q in QUERIES))
    queries = tmp / "queries.txt"
    # the README's command: the base URL is given here and nowhere else
    assert wackycrawl(["queries", "--engine", "searxng", "--base", SEARX, str(tuples),
                       "-o", str(queries)]) == 0
    seeds = ["http://stub.test/", *(f"http://{h}.test/" for h in BOMBS), "http://br.test/",
             "http://zstd.test/", "http://rep.test/", "http://rep.test/",
             "http://rep.test/?utm_source=newsletter"]
    return seeds, str(queries)


@pytest.fixture(scope="module")
def field_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("field")
    with LocalWeb() as web:
        seeds, queries = build(web, out)
        result = run_crawl(web, seeds, out, {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False"},
                           timeout=180,
                           spider_args={"queries": queries})
        hits = list(web.hits)
    docs = {doc.url: doc for f in sorted(result.outdir.glob("*.trec.gz"))
            for _, doc in iter_docs(str(f))}
    return result, hits, docs


def test_crawl_finishes(field_crawl):
    result, _, _ = field_crawl
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("finish_reason") == "finished"


def test_meta_refresh_target_is_judged_as_a_page_of_its_own(field_crawl):
    result, hits, docs = field_crawl
    assert any(h.host == "target.test" for h in hits)
    assert "http://target.test/article.html" in docs
    assert "http://stub.test/" not in docs
    assert "Dropped: too_small: http://stub.test/" in result.log


@pytest.mark.parametrize("host", list(BOMBS))
def test_bombs_are_stopped_by_the_size_window(field_crawl, host):
    result, _, docs = field_crawl
    assert f"Dropped: too_large_decoded: http://{host}.test/ (" in result.log
    assert f"http://{host}.test/" not in docs


def test_bombs_are_counted_and_scrapy_backstop_never_fires(field_crawl):
    result, _, _ = field_crawl
    assert result.stat("wacky/size/too_large_decoded") == len(BOMBS)
    assert result.stat("wacky/drop/too_large_decoded") == len(BOMBS)
    assert "too_large_decoded" in result.log.split("wacky summary:")[-1]
    assert "DOWNLOAD_MAXSIZE" not in result.log and "Ignored response" not in result.log
    assert " ERROR: " not in result.log


def test_br_and_zstd_pages_are_kept(field_crawl):
    _, _, docs = field_crawl
    assert {"http://br.test/", "http://zstd.test/"} <= set(docs)


def test_query_file_names_its_engine(field_crawl):
    result, hits, docs = field_crawl
    assert result.stat("wacky/seeds/queries") == len(QUERIES)
    assert result.stat("wacky/seeds/not_a_query") == 0
    assert result.stat("wacky/serp/pages") == len(QUERIES)
    assert len([h for h in hits if h.host == "searx.test" and h.path.startswith("/search")]) \
        == len(QUERIES)
    # DOCHDR values hold no whitespace: the writer percent-encodes it
    assert unquote(docs["http://site-a.test/"].meta["Seed-Query"]) == "apple river stone"
    assert unquote(docs["http://site-b.test/"].meta["Seed-Query"]) == "cloud mirror garden"


def test_repeated_seeds_are_fetched_once_counted_and_logged_once(field_crawl):
    result, hits, _ = field_crawl
    assert [h.path for h in hits if h.host == "rep.test" and h.path != "/robots.txt"] == ["/"]
    assert result.stat("wacky/seeds/repeated") == 2
    assert result.log.count("repeated seeds are fetched once") == 1
