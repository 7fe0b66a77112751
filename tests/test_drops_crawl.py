"""Every kind of drop in one real ``scrapy crawl seeds``: one ``Dropped:`` log line, one
``wacky/drop/<reason>`` count and one row of ``drops-<worker>.tsv`` per drop, whatever
middleware or stage (in the stage worker process) makes it."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose, word_list
from wackycrawl.crawl.drops import read_drops

pytestmark = pytest.mark.crawl

H = "http://www.drops.test"
#: reason -> URL that must be dropped for it
EXPECTED = {
    "http_404": f"{H}/missing.html",
    "too_small": f"{H}/tiny.html",
    "too_large_wire": f"{H}/big.html",
    "not_html": f"{H}/report",  # served as a PDF (a .pdf link is never followed)
    "robots_forbidden": f"{H}/private/secret.html",
    "out_of_scope": "http://elsewhere.example/",
    "trap_query_params": f"{H}/list?a=1&b=2&c=3",
    "unsafe_address": "http://127.0.0.1:9/",
    "download_error": "http://slow.drops.test/",
    "too_many_redirects": f"{H}/r0",
    "bad_redirect": f"{H}/badloc",
    "wrong_language": f"{H}/deutsch.html",
    "not_prose": f"{H}/words.html",
    "exact_duplicate": f"{H}/copy.html",
}


def build(web: LocalWeb) -> list[str]:
    web.add(f"{H}/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    links = [u for r, u in EXPECTED.items() if r not in ("unsafe_address", "download_error")]
    web.add(f"{H}/", page("Start", prose(0), links=links, nav_links=0))
    web.add(EXPECTED["too_small"], "<html><body>tiny</body></html>")
    web.add(EXPECTED["too_large_wire"], page("Big", prose(1, min_chars=300_000)))
    web.add(EXPECTED["not_html"], b"%PDF-1.4\n" + b"x" * 9000, content_type="application/pdf")
    web.add(EXPECTED["robots_forbidden"], page("Secret", prose(2)))
    web.add(EXPECTED["trap_query_params"], page("List", prose(3)))
    web.add("http://slow.drops.test/", page("Slow", prose(4)), delay=6)
    for i in range(8):  # a chain longer than REDIRECT_MAX_TIMES = 5
        web.add(f"{H}/r{i}", "", status=301, headers={"Location": f"{H}/r{i + 1}"})
    web.add(EXPECTED["bad_redirect"], "", status=302, headers={"Location": "http://a.test:99999/"})
    web.add(EXPECTED["wrong_language"], page("Deutsch", prose(5, lang="de")))
    web.add(EXPECTED["not_prose"], word_list(6))
    web.add(EXPECTED["exact_duplicate"], page("Start", prose(0), links=links, nav_links=0))
    return [f"{H}/", EXPECTED["unsafe_address"], "http://slow.drops.test/"]


@pytest.fixture(scope="module")
def drops_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("drops")
    settings = {"WACKY_LANGUAGES": "en", "WACKY_SCOPE_FROM_SEEDS": "domain",
                "WACKY_TRAP_MAX_QUERY_PARAMS": "2", "WACKY_ALLOW_PRIVATE_ADDRESSES": "False",
                "DOWNLOAD_TIMEOUT": "3", "RETRY_TIMES": "0", "WACKY_WORKER_ID": "w1"}
    with LocalWeb() as web:
        seeds = build(web)
        result = run_crawl(web, seeds, out, settings, timeout=180)
    rows = list(read_drops(str(result.outdir / "drops-w1.tsv")))
    return result, rows


def test_crawl_finishes(drops_crawl):
    result, _ = drops_crawl
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("finish_reason") == "finished"


@pytest.mark.parametrize("reason", list(EXPECTED))
def test_each_kind_of_drop_is_logged_counted_and_written(drops_crawl, reason):
    result, rows = drops_crawl
    url = EXPECTED[reason]
    assert f"Dropped: {reason}: {url}" in result.log
    assert any(r[1] == url and r[2] == reason for r in rows), [r for r in rows if r[2] == reason]
    assert result.stat(f"wacky/drop/{reason}") >= 1


def test_log_lines_counts_and_rows_agree(drops_crawl):
    result, rows = drops_crawl
    logged = Counter(re.findall(r"Dropped: (\w+): ", result.log))
    written = Counter(r[2] for r in rows)
    counted = {k.removeprefix("wacky/drop/"): v for k, v in result.stats.items()
               if k.startswith("wacky/drop/")}
    assert logged == written == counted
    assert "Ignoring response" not in result.log  # Scrapy's own 404 line: replaced
    assert " ERROR: " not in result.log  # nor Scrapy's "Gave up retrying" (RETRY_GIVE_UP_LOG_LEVEL)


def test_summary_names_every_reason(drops_crawl):
    result, _ = drops_crawl
    summary = result.log.split("wacky summary:")[-1].splitlines()[0]
    for reason in EXPECTED:
        assert f" {reason} " in summary, reason
