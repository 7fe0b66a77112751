"""The SQLite frontier of a JOBDIR when its file cannot be opened or written (a full disk, a
damaged file): the crawl closes with the reason ``frontier_error`` after one ERROR line, exit
status 1, no traceback, and the same command resumes it once the cause is gone, writing every
page exactly once."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs
from wackycrawl.distributed.local import FILENAME, LocalFrontier
from wackycrawl.distributed.queue import FrontierQueue


class _FullDisk:
    """An SQLite connection on a full disk: reads and rollbacks work, every write fails."""

    def __init__(self, db: sqlite3.Connection):
        self.real = db

    def execute(self, sql: str, *args):
        if sql.lstrip().upper().startswith(("SELECT", "PRAGMA", "ROLLBACK")):
            return self.real.execute(sql, *args)
        raise sqlite3.OperationalError("database or disk is full")

    @property
    def in_transaction(self) -> bool:
        return self.real.in_transaction

    def close(self) -> None:
        self.real.close()  # an open transaction is rolled back


class FullDiskFrontier(LocalFrontier):
    """The disk fills up at the ``FULL_DISK_AT_PUSH``-th push (after the request was
    recorded as seen in the same step); from then on no write succeeds."""

    pushes = 0

    def push(self, *args, **kw) -> bool:
        FullDiskFrontier.pushes += 1
        if FullDiskFrontier.pushes == int(os.environ.get("FULL_DISK_AT_PUSH", "0")):
            self.db = _FullDisk(self.db)
        return super().push(*args, **kw)


class FullDiskQueue(FrontierQueue):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.backend.__class__ = FullDiskFrontier


def test_a_request_recorded_as_seen_is_queued_in_the_same_transaction(tmp_path):
    frontier = LocalFrontier(str(tmp_path))
    frontier.open()
    real = frontier.db
    with pytest.raises(sqlite3.OperationalError):
        with frontier.transaction():
            assert frontier.add(b"fp-1")
            frontier.db = _FullDisk(real)
            frontier.push("r1", 0, b"payload")
    frontier.db = real
    assert not real.in_transaction
    assert len(frontier) == 0 and frontier.queued() == 0  # neither the one nor the other
    with frontier.transaction():
        assert frontier.add(b"fp-1")
        assert frontier.push("r1", 0, b"payload")
    frontier.close()
    frontier.open()
    assert len(frontier) == 1 and frontier.queued() == 1
    frontier.close()


@pytest.mark.crawl
def test_a_damaged_frontier_file_stops_the_crawl_in_one_error_line(tmp_path):
    out = tmp_path / "out"
    job = out / "job"
    job.mkdir(parents=True)
    (job / "wacky-frontier.sqlite").write_bytes(b"not an SQLite file\n" * 400)
    with LocalWeb() as web:
        build_chain_web(web, hosts=1, per_host=2)
        result = run_crawl(web, ["http://h0.chain.test/p0.html"], out,
                           {**SETTINGS, "JOBDIR": str(job)})
    assert result.returncode == 1, result.log[-3000:]
    assert result.stats.get("finish_reason") == "frontier_error"
    errors = [line for line in result.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1, errors
    assert "cannot start the crawl: the frontier of JOBDIR" in errors[0]
    assert "file is not a database" in errors[0]
    assert "Traceback" not in result.log
    assert result.log.rstrip().splitlines()[-1].endswith("Spider closed (frontier_error)")


@pytest.mark.crawl
def test_a_frontier_that_cannot_be_written_closes_the_crawl_and_the_resume_writes_each_page_once(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FULL_DISK_AT_PUSH", "12")
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.1", "DEPTH_LIMIT": "0"}
    seeds = ["http://h0.chain.test/p0.html"]
    out = tmp_path / "out"
    job = {**settings, "JOBDIR": str(out / "job")}
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=8)
        failed = run_crawl(web, seeds, out, {
            **job, "SCHEDULER_QUEUE_CLASS": "tests.test_frontier_faults.FullDiskQueue"})
        assert failed.returncode == 1, failed.log[-3000:]
        assert failed.stats.get("finish_reason") == "frontier_error", failed.log[-3000:]
        errors = [line for line in failed.log.splitlines() if " ERROR: " in line]
        assert len(errors) == 1 and "database or disk is full" in errors[0], errors
        assert "Traceback" not in failed.log
        assert len(corpus_docs(out / "corpus")) < len(expected)
        resumed = run_crawl(web, seeds, out, job)
    assert resumed.returncode == 0, resumed.log[-3000:]
    assert resumed.stats.get("finish_reason") == "finished"
    urls = [d.url for d in corpus_docs(out / "corpus")]
    assert len(urls) == len(set(urls)), "a document was written twice"
    assert set(urls) == expected


def test_a_frontier_file_that_cannot_be_made_is_not_left_behind(tmp_path):
    # A full disk at the start (here: a file-size limit of 0 bytes, SIGXFSZ ignored): the
    # frontier cannot be made, and the empty file it began is removed, so the next run is a
    # new crawl again, not a resume of one that never started (which would skip the check
    # that its output folder holds no other crawl's files).
    code = textwrap.dedent(f"""
        import resource, signal, sqlite3, sys
        from wackycrawl.distributed.local import LocalFrontier
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))
        try:
            LocalFrontier({str(tmp_path / "job")!r}).open()
        except (sqlite3.Error, OSError) as exc:
            sys.exit(f"refused: {{exc}}")
        """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1 and run.stderr.startswith("refused: "), run.stderr
    assert not (tmp_path / "job" / FILENAME).exists()
    assert LocalFrontier(str(tmp_path / "job")).open() == 0  # then a new crawl starts there
