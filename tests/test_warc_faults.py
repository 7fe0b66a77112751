"""A raw archive (WACKY_WARC_DIR) that cannot be written (a full disk): the crawl closes with
reason ``warc_write_error`` instead of going on with pages missing from the archive, its
JOBDIR frontier keeps the pages not archived, and the resume archives and writes each page
exactly once."""

from __future__ import annotations

import errno
import glob
import os
from collections import Counter

import pytest
from warcio.archiveiterator import ArchiveIterator

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs
from wackycrawl.archive import writer
from wackycrawl.middlewares.warc import WarcMiddleware

pytestmark = pytest.mark.crawl


class _FullDiskWriter(writer.WarcWriter):
    """Every append after the first ``WARC_FULL_AFTER`` fails as on a full disk."""

    def _append(self, data: bytes) -> None:
        self._appends = getattr(self, "_appends", 0) + 1
        if self._appends > int(os.environ["WARC_FULL_AFTER"]):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        super()._append(data)


class FullDiskWarc(WarcMiddleware):
    def opened(self, spider=None) -> None:
        super().opened(spider)
        self.writer.__class__ = _FullDiskWriter


def archived(folder) -> Counter:
    urls = Counter()
    for path in sorted(glob.glob(os.path.join(folder, "*.warc.gz"))):
        with open(path, "rb") as f:
            for record in ArchiveIterator(f):
                if record.rec_type == "response":
                    urls[record.rec_headers.get_header("WARC-Target-URI")] += 1
    return urls


def test_an_archive_that_cannot_be_written_closes_the_crawl_and_the_resume_archives_the_rest(
        tmp_path, monkeypatch):
    monkeypatch.setenv("WARC_FULL_AFTER", "12")  # warcinfo, then a few pages' records
    out = tmp_path / "out"
    job = {**SETTINGS, "DOWNLOAD_DELAY": "0.1", "DEPTH_LIMIT": "0", "JOBDIR": str(out / "job"),
           "WACKY_WARC_DIR": str(out / "warc")}
    seeds = ["http://h0.chain.test/p0.html"]
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=6)
        failed = run_crawl(web, seeds, out, {**job, "DOWNLOADER_MIDDLEWARES": (
            '{"wackycrawl.middlewares.warc.WarcMiddleware": null, '
            '"tests.test_warc_faults.FullDiskWarc": 945}')})
        assert failed.stats.get("finish_reason") == "warc_write_error", failed.log[-3000:]
        assert failed.returncode == 1  # closed by a failure
        assert "Traceback" not in failed.log
        assert "closing the crawl: responses cannot be archived" in failed.log
        assert failed.stat("wacky/warc/responses") < len(expected)
        resumed = run_crawl(web, seeds, out, job)
    assert resumed.stats.get("finish_reason") == "finished", resumed.log[-3000:]
    urls = archived(out / "warc")
    assert set(urls) == expected and max(urls.values()) == 1, urls
    docs = [d.url for d in corpus_docs(out / "corpus")]
    assert len(docs) == len(set(docs)) and set(docs) == expected
