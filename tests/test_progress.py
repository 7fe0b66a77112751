"""Progress: the yield table, the progress line and the extension's close report."""

from __future__ import annotations

import csv
import logging

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from wackycrawl.crawl.progress import YieldTable, progress_line
from wackycrawl.extensions.progress import Progress


def table() -> YieldTable:
    t = YieldTable()
    t.fetched("good.test", 500_000)
    t.kept("good.test", 1000)
    t.fetched("poor.test", 1_000_000)
    t.kept("poor.test", 100)
    t.fetched("empty.test", 10_000)
    t.fetched("costly.test", 3_000_000)
    return t


def test_yield_in_words_per_mb_and_ranking():
    t = table()
    assert t.rows["good.test"].words_per_mb == 2000
    assert [h for h, _ in t.ranked()] == ["good.test", "poor.test", "empty.test", "costly.test"]
    top, bottom = t.top_bottom(1)
    assert [h for h, _ in top] == ["good.test"] and [h for h, _ in bottom] == ["costly.test"]
    top, bottom = t.top_bottom(3)  # no host twice
    assert len(top) == 3 and [h for h, _ in bottom] == ["costly.test"]


def test_tsv(tmp_path):
    path = tmp_path / "y.tsv"
    assert table().write_tsv(str(path)) == 4
    rows = list(csv.DictReader(path.open(encoding="utf-8"), delimiter="\t"))
    assert rows[0] == {"host": "good.test", "pages": "1", "mb_fetched": "0.500", "docs": "1",
                       "words": "1000", "words_per_mb": "2000"}


def test_progress_line():
    stats = {"response_received_count": 120, "wacky/kept": 7, "wacky/words_kept": 9000,
             "wacky/trec/bytes_written": 2_500_000, "scheduler/enqueued": 300,
             "scheduler/dequeued": 120}
    line = progress_line(stats, 59.6, 4, {"too_small": 9, "not_prose": 3, "a": 1, "b": 1})
    assert line == ("wacky progress: 60 pages/min, pages 120, docs kept 7, words 9000, "
                    "MB written 2.50, queue 180, hosts active 4; top drops: too_small 9, "
                    "not_prose 3, a 1")


def test_extension_close_report(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    crawler = get_crawler(settings_dict={"WACKY_PROGRESS_INTERVAL": 0, "WACKY_YIELD_TOP": 1,
                                         "WACKY_YIELD_FILE": "hosts.tsv",
                                         "WACKY_OUTPUT_DIR": str(tmp_path / "out")})
    crawler.stats.open_spider()
    ext = Progress.from_crawler(crawler)
    for host, size in (("a.test", 100_000), ("b.test", 200_000), ("c.test", 50_000)):
        req = Request(f"http://{host}/")
        ext.response_received(HtmlResponse(req.url, body=b"x" * size, request=req), req)
    robots = Request("http://a.test/robots.txt", meta={"dont_obey_robotstxt": True})
    ext.response_received(HtmlResponse(robots.url, body=b"x" * 10**6, request=robots), robots)
    ext.item_scraped({"url": "http://a.test/", "paragraphs": ["one two three", "four"]})
    ext.spider_closed(reason="finished")
    stats = crawler.stats.get_stats()
    assert stats["wacky/yield/a.test"] == 40  # 4 words / 0.1 MB
    assert stats["wacky/yield/b.test"] == 0  # the bottom host: most MB for nothing
    assert "wacky/yield/c.test" not in stats  # only top and bottom N in the stats
    assert stats["wacky/yield/hosts"] == 3
    assert (tmp_path / "out" / "hosts.tsv").read_text().count("\n") == 4
    assert "top: a.test 40; bottom: b.test 0" in caplog.text


def test_progress_line_prefers_the_schedulers_length():
    stats = {"scheduler/enqueued": 10, "scheduler/dequeued": 10}
    assert "queue 1747," in progress_line(stats, 1.0, 0, {}, queue=1747)  # resumed frontier
    assert "queue 0," in progress_line(stats, 1.0, 0, {})


def test_progress_line_says_what_is_parked():
    stats = {"response_received_count": 4, "wacky/frontier/parked_now": 0}
    assert "parked" not in progress_line(stats, 0.0, 0, {}, queue=0)
    stats.update({"wacky/frontier/parked_now": 3, "wacky/frontier/parked_hosts": 2,
                  "wacky/frontier/parked_next": 41.6})
    assert progress_line(stats, 0.0, 0, {}, queue=0).endswith(
        "; parked 3 on 2 hosts, next retry in 42 s")


def test_kept_words_are_the_trec_writers_count_when_the_item_has_one():
    crawler = get_crawler(settings_dict={"WACKY_PROGRESS_INTERVAL": 0})
    ext = Progress.from_crawler(crawler)
    ext.item_scraped({"url": "http://a.test/1", "paragraphs": ["one two three", "four"]})
    ext.item_scraped({"url": "http://a.test/2", "paragraphs": ["one two"], "words": 5})
    row = ext.table.rows["a.test"]
    assert (row.docs, row.words) == (2, 9)
