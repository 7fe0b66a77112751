"""Outputs of ``export`` and ``filter`` appear only when complete; corpus folders' rejects
are checked and recovered; inputs of the wrong kind, inputs given twice and orphan indexes."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.clirun import MAIN, ROOT, wackycrawl
from tests.corpusdocs import corpus_docs, write_corpus
from tests.test_trec_writer import leave_open_file
from wackycrawl.cli import main
from wackycrawl.corpus import export
from wackycrawl.corpus.refilter import Refilter
from wackycrawl.trec import reader


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A corpus folder of 6 documents with a rejects folder of 2."""
    directory = write_corpus(tmp_path / "corpus", corpus_docs(6))
    write_corpus(directory / "rejects", corpus_docs(2), worker="test-rejects")
    return directory


def _only_entries(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def _interrupt_after(n: int, function):
    """``function`` that raises KeyboardInterrupt (as Ctrl-C does) on its call ``n + 1``."""
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) > n:
            raise KeyboardInterrupt
        return function(*args, **kwargs)
    return wrapped


def test_an_interrupted_export_leaves_no_output_and_says_so_in_one_line(
        corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(export, "txt", _interrupt_after(3, export.txt))
    before = _only_entries(tmp_path)
    assert main(["export", str(corpus), "--format", "txt", "-o", str(tmp_path / "c.txt")]) == 130
    assert capsys.readouterr().err == (f"wackycrawl export: interrupted (SIGINT); "
                                       f"{tmp_path / 'c.txt'} not written\n")
    assert _only_entries(tmp_path) == before
    (tmp_path / "d").mkdir()
    assert main(["export", str(corpus), "--format", "txt", "--one-per-file",
                 "-o", str(tmp_path / "d")]) == 130
    assert _only_entries(tmp_path) == before | {"d"} and not any((tmp_path / "d").iterdir())
    monkeypatch.undo()
    assert main(["export", str(corpus), "--format", "txt", "-o", str(tmp_path / "c.txt")]) == 0
    assert (tmp_path / "c.txt").read_text().count("\n\n") == 6


def test_an_interrupted_filter_leaves_nothing_and_runs_again(corpus, tmp_path, capsys,
                                                             monkeypatch):
    argv = ["filter", str(corpus), "-o", str(tmp_path / "out"), "--languages", ""]
    monkeypatch.setattr(Refilter, "decide", _interrupt_after(4, Refilter.decide))
    assert main(argv) == 130
    assert capsys.readouterr().err.endswith(
        f"wackycrawl filter: interrupted (SIGINT); nothing written to {tmp_path / 'out'}\n")
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()
    monkeypatch.undo()
    assert main(argv) == 0
    assert len(reader.corpus_files([str(tmp_path / "out")], rejects=True)) >= 1


def test_a_damaged_rejects_file_leaves_no_corpus_that_looks_complete(corpus, tmp_path, capsys):
    rejects = reader.corpus_files([str(corpus / "rejects")])[0]
    with open(rejects, "r+b") as f:
        f.truncate(os.path.getsize(rejects) - 30)
    argv = ["filter", str(corpus), "-o", str(tmp_path / "out")]
    assert main(argv) == 1
    assert "nothing written" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()
    assert main(["trec", "recover", str(corpus)]) == 0
    assert main(argv) == 0


# the console script, with a reader that waits on the input file ``late.trec.gz`` (as on a
# slow disk) until a signal comes
SLOW_MAIN = "\n".join([
    "import sys, time",
    "from wackycrawl.corpus import source",
    "read = source.iter_docs",
    "def slow(path):",
    "    if path.endswith('late.trec.gz'):",
    "        time.sleep(600)",
    "    yield from read(path)",
    "source.iter_docs = slow",
    MAIN])


def _start(argv, cwd) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", SLOW_MAIN, *argv], cwd=cwd, env=env,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_export_removes_the_partial_file(corpus, tmp_path, signum):
    """The export has written the documents of the corpus and waits for the next input (a
    read that does not end): the signal ends it with one line and no output file."""
    first = reader.corpus_files([str(corpus)])[0]
    (tmp_path / "late.trec.gz").write_bytes(Path(first).read_bytes())
    proc = _start(["export", str(corpus), "late.trec.gz", "--format", "txt", "-o", "c.txt"],
                  tmp_path)
    partial = tmp_path / "c.txt.partial"
    for _ in range(600):
        if partial.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    assert proc.poll() is None and partial.exists()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum
    assert err == (f"wackycrawl export: interrupted ({signal.Signals(signum).name}); "
                   "c.txt not written\n")
    assert not partial.exists() and not (tmp_path / "c.txt").exists()


def test_a_fifo_named_as_a_trec_file_is_refused_not_read(tmp_path):
    """A FIFO nobody writes, in a corpus folder or named: every reader refuses it with one
    line and exit 1 instead of waiting for it forever, and writes nothing."""
    from wackycrawl.trec.format import TrecDoc
    from wackycrawl.trec.writer import TrecWriter

    folder = tmp_path / "c"
    with TrecWriter(str(folder), worker="w1") as w:
        w.write(TrecDoc(url="http://a.test/1", paragraphs=["One paragraph of text."]))
    os.mkfifo(folder / "zz-1.trec.gz")
    fifo = str(folder / "zz-1.trec.gz")
    for argv in (["trec", "cat", folder], ["trec", "cat", fifo], ["trec", "index", folder],
                 ["trec", "recover", folder], ["trec", "recover", fifo],
                 ["export", folder, "-o", tmp_path / "e.txt"], ["export", fifo],
                 ["filter", "-o", tmp_path / "f", folder], ["report", folder, "-o", tmp_path / "r"],
                 ["stats", folder]):
        done = wackycrawl(*argv, cwd=tmp_path, timeout=60)
        assert done.returncode == 1, (argv, done.stderr)
        assert f"{fifo}: not a regular file" in done.stderr, (argv, done.stderr)
        assert "Traceback" not in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["c"]
    assert os.path.exists(folder / "WACKY-w1-00000.trec.gz")


def test_folder_commands_cover_the_rejects_folder(corpus, tmp_path, capsys):
    rejects = reader.corpus_files([str(corpus / "rejects")])[0]
    assert main(["trec", "check", str(corpus)]) == 0
    assert f"OK {rejects}: 2 documents" in capsys.readouterr().out
    with open(rejects, "r+b") as f:
        f.truncate(os.path.getsize(rejects) - 30)
    assert main(["trec", "check", str(corpus)]) == 1
    assert f"DAMAGED {rejects}" in capsys.readouterr().out
    assert main(["stats", "--json", str(corpus)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [p.split(": ")[0] for p in data["problems"]] == [
        f"rejects/{os.path.basename(rejects)}"]
    assert main(["trec", "recover", str(corpus)]) == 0
    assert f"{rejects}.damaged" in capsys.readouterr().out
    assert main(["trec", "check", str(corpus)]) == 0
    capsys.readouterr()
    still_open = leave_open_file(corpus / "rejects", "crashed-rejects", 1)
    assert main(["trec", "recover", str(corpus)]) == 0
    assert not os.path.exists(still_open)
    assert os.path.exists(still_open.removesuffix(reader.OPEN_SUFFIX))


@pytest.mark.parametrize("kind, data, said", [
    ("stats.json", b'{"wacky/drop/too_short": 3}\n', "it starts with '{'"),
    ("x.warc.gz", None, "a WARC file"),
    ("corpus.txt", b"", "(it is empty)"),
], ids=["json", "warc", "empty"])
def test_a_file_of_another_kind_is_named_so_and_nothing_is_written(tmp_path, kind, data,
                                                                   said):
    path = tmp_path / kind
    path.write_bytes(data if data is not None else gzip.compress(
        b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n"))
    for argv in (["report", kind, "-o", "r3"], ["export", kind, "--format", "txt", "-o", "e3.txt"],
                 ["filter", kind, "-o", "x3"], ["trec", "recover", kind],
                 ["trec", "check", kind]):
        result = wackycrawl(*argv, cwd=tmp_path)
        assert result.returncode == 1, argv
        text = result.stderr + result.stdout
        assert f"{kind} is not a TREC file" in text or "NOT-TREC" in text, argv
        assert said in text and "Traceback" not in text and "damaged" not in text
        assert "trec recover" not in text and "neither" not in text, text
        assert len(text.strip().splitlines()) == 1, text
    assert _only_entries(tmp_path) == {kind}


def test_a_corpus_given_twice_is_read_once(corpus, tmp_path, capsys):
    again = f"{corpus}/./"
    assert main(["export", str(corpus), again, "--format", "txt", "-o",
                 str(tmp_path / "c.txt")]) == 0
    err = capsys.readouterr().err
    assert f"{again} names 1 file(s) already given as {corpus}: each file is read once" in err
    assert (tmp_path / "c.txt").read_text().count("\n\n") == 6
    assert main(["filter", str(corpus), again, "-o", str(tmp_path / "f"),
                 "--languages", "", "--dedup", "off"]) == 0
    assert "read 8 documents" in capsys.readouterr().err


def test_an_orphan_index_is_skipped_with_a_warning_and_checked(corpus, capsysbinary):
    (corpus / "OLD-00000.trec.gz.idx.tsv").write_text(
        "# docno\turl\tmember_offset\tmember_length\nOLD-00000-000000\thttp://x/\t0\t10\n")
    url = reader.read_index(reader.corpus_files([str(corpus)])[0])[1].url
    assert main(["trec", "get", "--url", url, "--dir", str(corpus)]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"<DOC>\n") == 2  # the kept document and its copy in rejects/
    assert b"skipped " + str(corpus / "OLD-00000.trec.gz.idx.tsv").encode() in captured.err
    assert main(["trec", "check", str(corpus)]) == 1
    assert f"ORPHAN {corpus / 'OLD-00000.trec.gz.idx.tsv'}".encode() in \
        capsysbinary.readouterr().out


def test_trec_get_searches_rejects_points_to_trec_index_and_checks_checksums(
        corpus, tmp_path, capsysbinary):
    reject = reader.read_index(reader.corpus_files([str(corpus / "rejects")])[0])[0].docno
    assert main(["trec", "get", reject, "--dir", str(corpus)]) == 0
    assert f"<DOCNO>{reject}</DOCNO>".encode() in capsysbinary.readouterr().out
    Path(reader.index_path(reader.corpus_files([str(corpus)])[0])).unlink()
    assert main(["trec", "get", "WACKY-test-00000-000099", "--dir", str(corpus)]) == 1
    assert b"'wackycrawl trec index " in capsysbinary.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["trec", "get", "--checksum", "zzz", "--dir", str(corpus)])
    assert info.value.code == 2 and b"16 hex digits" in capsysbinary.readouterr().err
    (tmp_path / "emptydir").mkdir()
    assert main(["trec", "check", str(tmp_path / "emptydir")]) == 1
    assert capsysbinary.readouterr().err == (f"wackycrawl trec: no .trec.gz file in "
                                             f"{tmp_path / 'emptydir'}\n").encode()


def test_export_and_report_refuse_an_output_that_is_an_input_or_in_an_input_folder(
        corpus, tmp_path, capsys):
    first = reader.corpus_files([str(corpus)])[0]
    before = Path(first).read_bytes()
    entries = _only_entries(corpus)
    for argv in (["export", first, "--format", "txt", "-o", first],
                 ["export", str(corpus), "--format", "txt", "-o", str(corpus / "x.trec.gz")],
                 ["export", str(corpus), "--format", "txt", "--one-per-file",
                  "-o", str(corpus / "texts")],
                 ["export", str(corpus), "--rejects", "--format", "jsonl",
                  "-o", str(corpus / "rejects" / "r.jsonl")],
                 ["report", str(corpus), "-o", str(corpus)],
                 ["report", str(corpus), "-o", str(corpus / "report")]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"wackycrawl {argv[0]}: {argv[-1]} ") and "input" in err, err
        assert "nothing written" in err and len(err.splitlines()) == 1, err
    assert Path(first).read_bytes() == before
    assert _only_entries(corpus) == entries
    assert not (corpus / "rejects" / "r.jsonl").exists()


def test_export_creates_the_missing_folder_of_its_output_file(corpus, tmp_path, capsys):
    """``-o out/new/corpus.txt`` works as ``--one-per-file -o out/new/dir``, ``report`` and
    ``filter`` do with a missing folder, instead of failing on ``corpus.txt.partial``."""
    for fmt, name in (("txt", "corpus.txt"), ("vrt", "corpus.vrt.gz"), ("jsonl", "c.jsonl")):
        target = tmp_path / "out" / fmt / name
        assert main(["export", str(corpus), "--format", fmt, "-o", str(target)]) == 0
        assert target.is_file() and not Path(str(target) + ".partial").exists()
        assert "cannot write" not in capsys.readouterr().err
    assert (tmp_path / "out" / "txt" / "corpus.txt").read_text().count("\n\n") == 6
    blocker = tmp_path / "file"
    blocker.write_text("x\n")
    assert main(["export", str(corpus), "--format", "txt", "-o", str(blocker / "c.txt")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"wackycrawl export: cannot write {blocker / 'c.txt'}: ")
    assert "Traceback" not in err and blocker.read_text() == "x\n"


def test_export_refuses_an_existing_folder_as_its_output_file_before_any_work(
        corpus, tmp_path, capsys, monkeypatch):
    """``-o DIR`` without ``--one-per-file`` would fail only at the final rename, after the
    whole export (``Is a directory: 'DIR.partial' -> 'DIR'``): it is refused at once."""
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(tmp_path)
    for fmt in ("txt", "vrt", "jsonl"):
        for target in (str(out), "out/", "out"):
            assert main(["export", str(corpus), "--format", fmt, "-o", target]) == 2
            err = capsys.readouterr().err
            assert err == (f"wackycrawl export: {target} is a folder: give a file name for -o "
                           "(a folder of files is --format txt --one-per-file -o DIR; nothing "
                           "written)\n")
    assert set(tmp_path.iterdir()) == {corpus, out}
    assert not any(out.iterdir())


def test_report_and_filter_refuse_an_output_that_is_a_file_before_any_work(
        corpus, tmp_path, capsys):
    """``-o FILE`` (an existing file, not a folder) failed only when the finished output
    was moved into place (``Not a directory: 'FILE/.'``): it is refused at once."""
    target = tmp_path / "notes.txt"
    target.write_text("mine\n")
    for argv in (["report", str(corpus)], ["filter", str(corpus)]):
        assert main([*argv, "-o", str(target)]) == 2
        assert capsys.readouterr().err == (
            f"wackycrawl {argv[0]}: {target} exists and is not a folder: give a new folder "
            "for -o (nothing written)\n")
    assert target.read_text() == "mine\n"
    assert set(tmp_path.iterdir()) == {corpus, target}


def test_one_file_per_document_refuses_a_folder_that_holds_files(corpus, tmp_path, capsys):
    out = tmp_path / "texts"
    out.mkdir()
    assert main(["export", str(corpus), "--format", "txt", "--one-per-file", "-o",
                 str(out)]) == 0  # an empty folder is fine
    capsys.readouterr()
    written = _only_entries(out)
    assert len(written) == 6
    (out / "notes.txt").write_text("mine\n")
    for target in (out, out / "notes.txt"):
        assert main(["export", str(corpus), "--format", "txt", "--one-per-file", "-o",
                     str(target)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"wackycrawl export: {target} ") and "nothing written" in err
        assert len(err.splitlines()) == 1
    assert _only_entries(out) == written | {"notes.txt"}
    assert not (tmp_path / "texts.partial").exists()


def test_an_empty_trec_file_stops_export_filter_and_report(corpus, tmp_path, capsys):
    empty = corpus / "WACKY-test-99999.trec.gz"
    empty.write_bytes(b"")
    for argv in (["export", str(corpus), "--format", "txt", "-o", str(tmp_path / "x.txt")],
                 ["filter", str(corpus), "-o", str(tmp_path / "f")],
                 ["report", str(corpus), "-o", str(tmp_path / "r")]):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert f"damaged {empty}: {empty}: empty file (0 bytes), no document; run " \
               f"'wackycrawl trec recover {empty}'" in err, err
        assert "nothing written" in err
    assert _only_entries(tmp_path) == {"corpus"}


def test_the_cwb_encode_line_has_no_dangling_plus():
    assert "-S text:0 -S p:0+lang" in export.Counts().cwb_encode("c.vrt")
    counts = export.Counts(attributes={"id": None, "url": None})
    assert "-S text:0+id+url -S p:0+lang" in counts.cwb_encode("c.vrt")
