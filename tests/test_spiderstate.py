"""``JOBDIR/spider.state`` (Scrapy's SpiderState, replaced by the project's): written whole or
not at all, and a file left empty by a full disk or a kill does not break the resume."""

from __future__ import annotations

import logging
import pickle

import pytest
from scrapy.utils.test import get_crawler

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web
from wackycrawl import settings as project_settings


def _state_extension(jobdir):
    from scrapy.utils.misc import build_from_crawler, load_object

    crawler = get_crawler(settings_dict={"JOBDIR": str(jobdir)})
    paths = {**crawler.settings.getwithbase("EXTENSIONS"), **project_settings.EXTENSIONS}
    [path] = [p for p, order in paths.items() if order is not None and "SpiderState" in p]
    return build_from_crawler(load_object(path), crawler)


class _Spider:
    pass


def test_a_state_that_cannot_be_saved_is_one_error_line_and_the_old_file_stays(tmp_path, caplog):
    (tmp_path / "spider.state").write_bytes(pickle.dumps({"n": 1}))
    ext, spider = _state_extension(tmp_path), _Spider()
    ext.spider_opened(spider)
    assert spider.state == {"n": 1}
    spider.state["n"] = 2
    (tmp_path / "spider.state.tmp").mkdir()  # the new file cannot be written
    with caplog.at_level(logging.WARNING):
        ext.spider_closed(spider)
    assert [r.levelname for r in caplog.records] == ["ERROR"]
    assert "spider state not saved" in caplog.text
    assert pickle.loads((tmp_path / "spider.state").read_bytes()) == {"n": 1}


@pytest.mark.crawl
def test_an_empty_spider_state_left_by_a_full_disk_does_not_break_the_resume(tmp_path):
    out = tmp_path / "out"
    job = out / "job"
    job.mkdir(parents=True)
    (job / "spider.state").write_bytes(b"")  # truncated, as a full disk leaves it
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=1, per_host=2)
        result = run_crawl(web, ["http://h0.chain.test/p0.html"], out,
                           {**SETTINGS, "JOBDIR": str(job), "DEPTH_LIMIT": "0"})
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats.get("finish_reason") == "finished"
    assert "Traceback" not in result.log and " ERROR: " not in result.log
    assert "spider.state unreadable" in result.log
    assert result.stat("wacky/kept") == len(expected)
    assert pickle.loads((job / "spider.state").read_bytes()) == {}
