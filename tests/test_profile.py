"""``-s WACKY_PROFILE=local`` and the progress line's time-left estimate."""

from __future__ import annotations

import re

import pytest
from scrapy.settings import Settings

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl import settings as project
from wackycrawl.crawl.profiles import profile
from wackycrawl.crawl.progress import time_left
from wackycrawl.spiders.seeds import SeedsSpider


def test_local_profile_over_the_defaults_under_the_command_line():
    s = Settings()
    s.setmodule(project, priority="project")
    s.set("WACKY_PROFILE", "local", priority="cmdline")
    s.set("CONCURRENT_REQUESTS_PER_DOMAIN", 2, priority="cmdline")
    SeedsSpider.update_settings(s)
    assert s.getfloat("DOWNLOAD_DELAY") == 0 and not s.getbool("AUTOTHROTTLE_ENABLED")
    assert s.get("WACKY_SCOPE_FROM_SEEDS") == "domain"
    assert s.getbool("WACKY_ALLOW_PRIVATE_ADDRESSES") and s.getbool("ROBOTSTXT_OBEY")
    assert s.getint("CONCURRENT_REQUESTS_PER_DOMAIN") == 2  # -s wins


def test_no_profile_changes_nothing_and_an_unknown_one_is_an_error():
    assert profile("") == {}
    with pytest.raises(ValueError, match="local"):
        profile("fast")


@pytest.mark.parametrize("queue, rate, shrinking, text", [
    (600, 60, True, "about 10 min left"), (30, 120, True, "about 15 s left"),
    (36000, 100, True, "about 6.0 h left"), (600, 60, False, None), (0, 60, True, None),
    (None, 60, True, None), (600, 0, True, None)])
def test_time_left(queue, rate, shrinking, text):
    assert time_left(queue, rate, shrinking) == text


@pytest.mark.crawl
def test_local_profile_crawls_without_delay_in_scope(tmp_path):
    """The default settings (1 s delay, AutoThrottle) but WACKY_PROFILE=local: 20 pages of
    one host come without the delay and a link out of the seeds' domain is not followed."""
    urls = [f"http://own.site.test/p{i}.html" for i in range(20)]
    with LocalWeb() as web:
        for i, url in enumerate(urls):
            web.add(url, page(f"Page {i}", prose(i), links=["http://other.test/"], nav_links=0))
        web.add("http://other.test/", page("Other", prose(99)))
        result = run_crawl(web, urls, tmp_path, {
            "WACKY_PROFILE": "local", "TELNETCONSOLE_ENABLED": "False",
            "DEPTH_LIMIT": "1", "LOG_LEVEL": "INFO",
            "WACKY_OUTPUT_DIR": str(tmp_path / "corpus"),
            "WACKY_STATS_FILE": str(tmp_path / "stats.json")}, fast=False, timeout=120)
        hits = sorted(h.time for h in web.hits_for("own.site.test") if re.fullmatch(r"/p\d+\.html", h.path))
    assert result.returncode == 0, result.log[-3000:]
    assert "WACKY_PROFILE=local: DOWNLOAD_DELAY=0.0" in result.log
    assert len(hits) == 20
    # 20 pages at the default 1 s delay take >= 19 s; allow a loaded machine a lot
    assert hits[-1] - hits[0] < 12, hits[-1] - hits[0]
    assert not web.hits_for("other.test")
    assert result.stat("wacky/drop/out_of_scope") == 1


@pytest.mark.crawl
def test_progress_line_estimates_the_time_left_of_a_fixed_seed_list(tmp_path):
    urls = [f"http://slowsite.test/p{i}.html" for i in range(40)]
    with LocalWeb() as web:
        for i, url in enumerate(urls):
            web.add(url, page(f"Page {i}", prose(i), nav_links=0), delay=0.3)
        result = run_crawl(web, urls, tmp_path, {
            "WACKY_FOLLOW_LINKS": "False", "WACKY_PROGRESS_INTERVAL": "1",
            "CONCURRENT_REQUESTS_PER_DOMAIN": "1"}, timeout=120)
    assert result.returncode == 0, result.log[-3000:]
    lines = re.findall(r"wacky progress: .*", result.log)
    assert any(re.search(r"queue [1-9]\d*, .*; about \d+ (s|min) left$", line)
               for line in lines), lines
