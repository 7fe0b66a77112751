"""A FIFO named like a corpus file (a writer's ``.open`` file, an index, a drops file, a
WARC file being written) is never read: every reader and every writer that resumes says so
and goes on or stops, instead of waiting forever for a writer that never comes."""

from __future__ import annotations

import os
from pathlib import Path

from tests.clirun import wackycrawl
from tests.webpages import page, prose
from wackycrawl.archive.writer import Exchange, WarcWriter
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.reader import NotRegularFile, open_regular, read_index
from wackycrawl.trec.writer import TrecWriter

TIMEOUT = 60  # a hang is a TimeoutExpired: the test fails instead of blocking


def _corpus(folder: Path) -> None:
    with TrecWriter(str(folder), worker="w1") as w:
        w.write(TrecDoc(url="http://a.test/1", paragraphs=["One paragraph of text."]))


def test_open_regular_refuses_a_fifo_without_waiting(tmp_path):
    fifo = tmp_path / "x.trec.gz.open"
    os.mkfifo(fifo)
    for mode in ("rb", "r+b", "a", "wb"):
        try:
            open_regular(fifo, mode).close()
        except NotRegularFile as exc:
            assert str(exc) == f"{fifo}: not a regular file"
            assert isinstance(exc, OSError)
        else:
            raise AssertionError(f"{mode}: a FIFO was opened")
    os.mkfifo(tmp_path / "x.trec.gz.idx.tsv")
    try:
        read_index(str(tmp_path / "x.trec.gz"))
    except NotRegularFile:
        pass
    else:
        raise AssertionError("a FIFO index was read")


def test_fifos_in_a_corpus_folder_are_never_opened(tmp_path):
    folder = tmp_path / "c"
    _corpus(folder)
    fifo = folder / "zz-1-00000.trec.gz.open"
    os.mkfifo(fifo)
    os.mkfifo(folder / "zz-1-00000.trec.gz.idx.tsv")  # the index of that .open file
    os.mkfifo(folder / "drops-zz.tsv")
    done = wackycrawl("trec", "recover", folder, timeout=TIMEOUT)
    assert done.returncode == 1
    assert f"wackycrawl trec: {fifo}: not a regular file; not read" in done.stderr
    assert "Traceback" not in done.stderr and fifo.exists()
    done = wackycrawl("trec", "get", "zz-1-00000-000000", "--dir", folder, timeout=TIMEOUT)
    assert done.returncode == 1 and "zz-1-00000.trec.gz.idx.tsv: not a regular file" in done.stderr
    done = wackycrawl("stats", folder, timeout=TIMEOUT)
    assert done.returncode == 1
    assert f"{fifo}: not a regular file" in done.stderr
    assert f"{folder / 'drops-zz.tsv'}: not a regular file" in done.stderr
    assert "documents 1" in done.stdout
    # a writer resuming in the folder leaves the FIFO alone and writes its own files
    done = wackycrawl("filter", folder / "WACKY-w1-00000.trec.gz", "-o", tmp_path / "f",
                      "-s", "WACKY_MIN_CLEAN_WORDS=1", "--languages", "", timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    with TrecWriter(str(folder), worker="w1") as w:
        assert w.recovered == []
        w.write(TrecDoc(url="http://a.test/2", paragraphs=["Two."]))
    assert fifo.exists() and (folder / "WACKY-w1-00001.trec.gz").is_file()


def test_process_leaves_a_fifo_warc_open_file_and_a_fifo_in_its_outdir(tmp_path):
    warcs = tmp_path / "warc"
    with WarcWriter(str(warcs), worker="a") as w:
        w.write_exchange(Exchange("http://a.test/", "HTTP/1.1 200 OK",
                                  [("Content-Type", "text/html; charset=utf-8")],
                                  page("A", prose(1)).encode()))
    fifo = warcs / "WARC-b-00000.warc.gz.open"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    done = wackycrawl("process", warcs, "-o", out, "--no-progress", timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert f"{fifo}: not a regular file (a FIFO, a device...); left out, not read" in done.stderr
    assert "1 file(s) done" in done.stderr
    # a resumed run whose OUTDIR holds a FIFO named as a TREC file being written
    os.mkfifo(out / "WACKY-x-00000.trec.gz.open")
    done = wackycrawl("process", warcs, "-o", out, "--no-progress", timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert "not a regular file" in done.stderr and "Traceback" not in done.stderr


def test_files_the_writers_create_are_not_executable(tmp_path):
    """Indexes, drops and lock files get the permissions ``open`` gives (0o666 less the
    umask), not ``os.open``'s default 0o777."""
    old = os.umask(0o022)
    try:
        _corpus(tmp_path / "c")
        with open_regular(tmp_path / "new.tsv", "a") as f:
            f.write("x\n")
    finally:
        os.umask(old)
    made = [p for p in (tmp_path / "c").iterdir() if p.is_file()] + [tmp_path / "new.tsv"]
    assert any(p.name.endswith(".idx.tsv") for p in made)
    for p in made:
        assert p.stat().st_mode & 0o777 == 0o644, (p.name, oct(p.stat().st_mode))
