"""A rejects stream (WACKY_KEEP_REJECTS) that cannot be written (a full disk): the crawl closes
with reason ``rejects_write_error`` instead of going on losing rejects, its JOBDIR frontier
keeps their pages, and the resume writes every reject exactly once."""

from __future__ import annotations

import errno
import json
import os

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs
from wackycrawl.pipelines.rejects import RejectsWriter
from wackycrawl.settings import EXTENSIONS
from wackycrawl.trec import writer

pytestmark = pytest.mark.crawl


class _FullDiskWriter(writer.TrecWriter):
    """Every document after the first ``REJECTS_FULL_AFTER`` fails as on a full disk."""

    def write(self, *args, **kw):
        self._docs = getattr(self, "_docs", 0) + 1
        if self._docs > int(os.environ["REJECTS_FULL_AFTER"]):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(*args, **kw)


class FullDiskRejects(RejectsWriter):
    def spider_opened(self) -> None:
        super().spider_opened()
        self.writer.__class__ = _FullDiskWriter


def test_rejects_that_cannot_be_written_close_the_crawl_and_the_resume_writes_them_once(
        tmp_path, monkeypatch):
    monkeypatch.setenv("REJECTS_FULL_AFTER", "3")
    out = tmp_path / "out"
    job = {**SETTINGS, "DOWNLOAD_DELAY": "0.1", "DEPTH_LIMIT": "0", "JOBDIR": str(out / "job"),
           "WACKY_KEEP_REJECTS": "True", "WACKY_LANGUAGES": "de"}  # every page: wrong_language
    seeds = ["http://h0.chain.test/p0.html"]
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=6)
        extensions = {**EXTENSIONS, "wackycrawl.pipelines.rejects.RejectsWriter": None,
                      "tests.test_rejects_faults.FullDiskRejects": 950}
        failed = run_crawl(web, seeds, out, {**job, "EXTENSIONS": json.dumps(extensions)})
        assert failed.stats.get("finish_reason") == "rejects_write_error", failed.log[-3000:]
        assert failed.returncode == 1  # closed by a failure
        assert "Traceback" not in failed.log
        assert "closing the crawl: rejects cannot be written" in failed.log
        assert 0 < failed.stat("wacky/rejects/docs") < len(expected)
        resumed = run_crawl(web, seeds, out, job)
    assert resumed.stats.get("finish_reason") == "finished", resumed.log[-3000:]
    urls = [d.url for d in corpus_docs(out / "corpus" / "rejects")]
    assert len(urls) == len(set(urls)), "a reject was written twice"
    assert set(urls) == expected
