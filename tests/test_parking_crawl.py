"""Parked requests (robots.txt unreachable, C01) in real crawls over the local web: a crawl
whose last host answers robots.txt 503 says so in its progress line and closes with reason
``idle`` after WACKY_IDLE_CLOSE_SECONDS (parked requests dropped and counted without a
frontier, kept in the JOBDIR frontier with their not-before time); after ``kill -9`` a
resumed crawl fetches them once their time has come."""

from __future__ import annotations

import sqlite3
import time

import pytest

from tests.crawlrun import run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.test_robots_crawl import NO_PIPELINES, PAGE, TXT, add_pages, pages, paths
from wackycrawl.distributed.local import FILENAME

pytestmark = pytest.mark.crawl


def parked_rows(jobdir) -> int:
    path = jobdir / FILENAME
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT COUNT(*) FROM queue WHERE not_before IS NOT NULL "
                              "AND token IS NULL").fetchone()[0]
    except sqlite3.OperationalError:  # the crawl has created the file but not yet its table
        return 0


def down_web(web: LocalWeb) -> None:
    add_pages(web, "ok.test", 2)
    add_pages(web, "down.test", 2)
    web.add("http://down.test/robots.txt", "maintenance", status=503, content_type=TXT)


@pytest.mark.parametrize("frontier", ["memory", "jobdir"])
def test_last_host_with_robots_503_closes_as_idle(tmp_path, frontier):
    settings = {**NO_PIPELINES, "WACKY_ROBOTS_RETRY_SECONDS": "600",
                "WACKY_IDLE_CLOSE_SECONDS": "3", "WACKY_PROGRESS_INTERVAL": "1"}
    if frontier == "jobdir":
        settings["JOBDIR"] = str(tmp_path / "job")
    with LocalWeb() as web:
        down_web(web)
        t0 = time.monotonic()
        result = run_crawl(web, pages("ok.test", 2) + pages("down.test", 2), tmp_path, settings,
                           timeout=90)
        took = time.monotonic() - t0
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats.get("finish_reason") == "idle"
    assert took < 60
    assert "parked 2 on 1 hosts, next retry in" in result.log
    assert paths(web, "down.test") == ["/robots.txt"]
    if frontier == "memory":
        assert result.stat("wacky/robots/dropped_unreachable") == 2
    else:
        assert parked_rows(tmp_path / "job") == 2  # kept for a resume


def test_parked_requests_survive_kill_9_and_are_fetched_on_resume(tmp_path):
    job = tmp_path / "job"
    settings = {**NO_PIPELINES, "WACKY_ROBOTS_RETRY_SECONDS": "6", "JOBDIR": str(job)}
    seeds = pages("ok.test", 2) + pages("down.test", 2)
    with LocalWeb() as web:
        down_web(web)
        proc, _ = start_crawl(web, seeds, tmp_path / "first", settings)
        assert wait_for(lambda: parked_rows(job) == 2, timeout=60)
        proc.kill()
        proc.wait()
        web.add("http://down.test/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT)
        web.add("http://down.test/p0.html", PAGE)
        second = run_crawl(web, seeds, tmp_path / "second", {  # the crawl's own corpus folder
            **settings, "WACKY_OUTPUT_DIR": str(tmp_path / "first" / "corpus")}, timeout=90)
    assert second.returncode == 0, second.log[-3000:]
    assert second.stats.get("finish_reason") == "finished"
    assert sorted(paths(web, "down.test")) == ["/p0.html", "/p1.html", "/robots.txt",
                                               "/robots.txt"]
    assert parked_rows(job) == 0
