"""``wackycrawl trec cat|get|check|index|recover``: output and exit codes."""

import argparse
import os
from pathlib import Path

import pytest

from tests.test_trec_writer import leave_open_file
from wackycrawl.cli import trec
from wackycrawl.trec import reader
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter


def run(*argv) -> int:
    parser = argparse.ArgumentParser(prog="wackycrawl")
    trec.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["trec", *argv])
    return args.func(args)


@pytest.fixture
def corpus(tmp_path):
    with TrecWriter(str(tmp_path), worker="c1", rotate_bytes=600) as w:
        docnos = [w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=[f"Text {i} </DOC>"] * 9))
                  .docno for i in range(6)]
    files = sorted(str(tmp_path / n) for n in os.listdir(tmp_path) if n.endswith(".trec.gz"))
    assert len(files) > 1
    return tmp_path, files, docnos


def test_cat_prints_every_document(corpus, capsysbinary):
    _, files, docnos = corpus
    assert run("cat", *files) == 0
    out = capsysbinary.readouterr().out
    assert out.count(b"<DOC>\n") == 6 and all(d.encode() in out for d in docnos)
    assert b"Text 0 &lt;/DOC&gt;" in out


def test_get_by_docno(corpus, capsysbinary):
    directory, _, docnos = corpus
    assert run("get", docnos[3], "--dir", str(directory)) == 0
    out = capsysbinary.readouterr().out
    assert out.startswith(f"<DOC>\n<DOCNO>{docnos[3]}</DOCNO>".encode()) and out.count(b"<DOC>") == 1
    assert run("get", "WACKY-none", "--dir", str(directory)) == 1


def test_check_and_cat_report_truncation(corpus, capsys):
    _, files, _ = corpus
    assert run("check", *files) == 0
    with open(files[0], "r+b") as f:
        f.truncate(os.path.getsize(files[0]) - 25)
    assert run("check", *files) == 1
    out = capsys.readouterr().out
    assert f"DAMAGED {files[0]}" in out and "truncated gzip member" in out
    assert f"OK {files[1]}" in out
    assert run("cat", files[0]) == 1
    assert "truncated" in capsys.readouterr().err


def test_check_names_a_page_written_twice_across_files_and_workers(tmp_path, capsys):
    # Two writers (two workers of one crawl) wrote the same page, once under another form of
    # its URL: every file is sound, but the corpus breaks write-once; rejects are not counted.
    with TrecWriter(str(tmp_path), worker="w1") as w:
        first = w.write(TrecDoc(url="http://a.test/x", paragraphs=["Text one"])).docno
        w.write(TrecDoc(url="http://a.test/y", paragraphs=["Text two"]))
    with TrecWriter(str(tmp_path), worker="w2") as w:
        second = w.write(TrecDoc(url="http://A.test:80/x#top", paragraphs=["Text one"])).docno
    with TrecWriter(str(tmp_path / "rejects"), worker="w1") as w:
        w.write(TrecDoc(url="http://a.test/y", paragraphs=["Text two again"]))
    assert run("check", str(tmp_path)) == 1
    out = capsys.readouterr().out.splitlines()
    assert all(line.startswith("OK ") for line in out[:-1])
    assert out[-1].startswith("REPEATED URL http://a.test/x: written 2 times: ")
    assert first in out[-1] and second in out[-1]
    assert run("check", *[str(p) for p in sorted(tmp_path.glob("*w1*.trec.gz"))]) == 0


def test_check_names_a_missing_and_an_empty_file(corpus, capsys):
    directory, files, _ = corpus
    (directory / "empty.trec.gz").write_bytes(b"")
    assert run("check", files[0], str(directory / "nope.trec.gz"),
               str(directory / "empty.trec.gz")) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"OK {files[0]}")
    assert out[1:] == [f"MISSING {directory / 'nope.trec.gz'}: no such file",
                       f"DAMAGED {directory / 'empty.trec.gz'}: empty file (0 bytes), no document"]
    os.mkfifo(directory / "pipe.trec.gz")  # exists, but no file: never opened (no writer)
    assert run("check", str(directory / "pipe.trec.gz")) == 1
    assert capsys.readouterr().out == f"DAMAGED {directory / 'pipe.trec.gz'}: not a regular file\n"


def test_index_of_a_folder_without_trec_files_says_so(tmp_path, capsys):
    assert run("index", str(tmp_path)) == 1
    assert "no .trec.gz file in" in capsys.readouterr().err


def test_index_rebuilds_a_lost_index(corpus):
    _, files, _ = corpus
    index = Path(reader.index_path(files[0]))
    before = index.read_text()
    index.unlink()
    assert run("check", files[0]) == 1
    assert run("index", files[0]) == 0
    assert index.read_text() == before
    with open(files[0], "ab") as f:
        f.write(b"\x1f\x8b\x08")
    assert run("index", files[0]) == 1


def test_recover_closes_open_files(tmp_path, capsys):
    leave_open_file(tmp_path, "c2", 1)
    assert run("recover", str(tmp_path)) == 0
    assert "1 documents kept" in capsys.readouterr().out
    assert run("check", str(tmp_path / "WACKY-c2-00000.trec.gz")) == 0
    assert run("recover", str(tmp_path / "missing")) == 1
    assert run("recover", str(tmp_path)) == 0
    assert "no .open or damaged file to recover" in capsys.readouterr().out


def test_recover_cuts_a_damaged_closed_file_back_and_keeps_the_original(corpus, capsys):
    _, files, docnos = corpus
    kept = len(list(reader.iter_docs(files[0])))
    size = os.path.getsize(files[0])
    with open(files[0], "ab") as f:
        f.write(b"\x1f\x8b\x08\x00torn")
    assert run("check", files[0]) == 1
    assert run("recover", files[0]) == 0
    out = capsys.readouterr().out
    assert f"{kept} documents kept" in out and f"{files[0]}.damaged" in out
    assert run("check", files[0]) == 0 and os.path.getsize(files[0]) == size
    assert os.path.getsize(files[0] + ".damaged") == size + 8
    assert run("recover", files[1]) == 0
    assert "not damaged" in capsys.readouterr().out


def test_usage_errors_exit_2():
    with pytest.raises(SystemExit) as info:
        run("cat")
    assert info.value.code == 2


def test_index_has_the_url_and_get_by_url(corpus, capsysbinary):
    directory, files, docnos = corpus
    lines = Path(reader.index_path(files[0])).read_text().splitlines()
    assert lines[0] == "# docno\turl\tmember_offset\tmember_length"
    assert lines[1].split("\t")[:2] == [docnos[0], "http://a.test/0"]
    assert run("get", "--url", "http://a.test/4", "--dir", str(directory)) == 0
    out = capsysbinary.readouterr().out
    assert out.count(b"<DOC>\n") == 1 and f"<DOCNO>{docnos[4]}</DOCNO>".encode() in out
    assert b"\nhttp://a.test/4 " in out
    assert run("get", "--url", "http://a.test/404", "--dir", str(directory)) == 1
    assert b"is in no index" in capsysbinary.readouterr().err


def test_get_by_checksum_finds_the_document_a_duplicate_drop_names(tmp_path, capsysbinary):
    with TrecWriter(str(tmp_path), worker="c1") as w:
        for i, checksum in enumerate(["00000000000000aa", "0123456789ABCDEF", "00000000000000bb"]):
            w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=[f"Text {i}"] * 9,
                            meta={"Checksum": checksum.lower()}))
    assert run("get", "--checksum", "0123456789abcdef", "--dir", str(tmp_path)) == 0
    out = capsysbinary.readouterr().out
    assert out.count(b"<DOC>\n") == 1 and b"\nhttp://a.test/1 " in out
    assert run("get", "--checksum", "0123456789ABCDEF", "--dir", str(tmp_path)) == 0
    assert run("get", "--checksum", "ffffffffffffffff", "--dir", str(tmp_path)) == 1
    assert b"checksum ffffffffffffffff is in no document" in capsysbinary.readouterr().err


def test_old_three_column_indexes_still_read(corpus, capsysbinary):
    directory, files, docnos = corpus
    for path in files:
        entries = reader.read_index(path)
        Path(reader.index_path(path)).write_text(
            "# docno\tmember_offset\tmember_length\n"
            + "".join(f"{e.docno}\t{e.offset}\t{e.length}\n" for e in entries))
        assert [e.url for e in reader.read_index(path)] == ["-"] * len(entries)
    assert run("check", str(directory)) == 0
    assert run("get", docnos[2], "--dir", str(directory)) == 0
    assert run("get", "--url", "http://a.test/5", "--dir", str(directory)) == 0
    assert f"<DOCNO>{docnos[5]}</DOCNO>".encode() in capsysbinary.readouterr().out
    assert run("index", str(directory)) == 0  # rebuilt with the URL column
    assert reader.read_index(files[0])[0].url == "http://a.test/0"


def test_every_subcommand_takes_a_folder(corpus, capsysbinary, tmp_path):
    directory, files, docnos = corpus
    assert run("cat", str(directory)) == 0
    out = capsysbinary.readouterr().out
    assert out.count(b"<DOC>\n") == 6 and all(d.encode() in out for d in docnos)
    assert run("check", str(directory)) == 0
    assert capsysbinary.readouterr().out.count(b"OK ") == len(files)
    leave_open_file(directory, "c9", 1)  # a file still being written is left out, with a note
    assert run("cat", str(directory)) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"<DOC>\n") == 6 and b"still open" in captured.err
    for path in files:
        Path(reader.index_path(path)).unlink()
    assert run("check", str(directory)) == 1
    assert run("index", str(directory)) == 0 and run("check", str(directory)) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run("check", str(empty)) == 1
    assert run("get", "--url", "http://a.test/1", "--dir", str(directory / "nope")) == 1


def test_cat_of_a_folder_without_trec_files_and_index_of_a_missing_file(tmp_path, capsys):
    assert run("cat", str(tmp_path)) == 1
    assert f"no .trec.gz file in {tmp_path}" in capsys.readouterr().err
    assert run("index", str(tmp_path / "nope.trec.gz")) == 1
    err = capsys.readouterr().err
    assert err.strip().endswith("nope.trec.gz: no such file") and "recover" not in err


def test_a_file_or_folder_given_twice_is_read_once_with_a_note(corpus, capsysbinary):
    directory, files, _ = corpus
    again = f"{directory}/./"
    assert run("cat", str(directory), again) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"<DOC>\n") == 6
    assert (f"wackycrawl trec: {again} names {len(files)} file(s) already given as "
            f"{directory}: each file is read once").encode() in captured.err
    assert run("cat", files[0], files[0]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"<DOC>\n") == len(reader.read_index(files[0]))
    assert b"read once" in captured.err
    assert run("check", str(directory), again) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"OK ") == len(files) and b"read once" in captured.err
    assert run("index", str(directory), files[0]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"entries") == len(files) and b"read once" in captured.err
    with open(files[0], "r+b") as f:  # damaged: recovered once, one .damaged copy
        f.truncate(os.path.getsize(files[0]) - 5)
    assert run("recover", str(directory), again, files[0]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.count(b"damaged (") == 1 and b"recovered once" in captured.err
    assert captured.out.count(b"no .open or damaged file") == 0


def test_an_empty_trec_file_is_damaged_for_every_subcommand(corpus, capsys):
    directory, files, _ = corpus
    empty = directory / "WACKY-c1-99999.trec.gz"
    empty.write_bytes(b"")
    hint = f"run 'wackycrawl trec recover {empty}'"
    assert run("cat", str(empty)) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"wackycrawl trec: {empty}: empty file (0 bytes), no document; {hint} to rewrite it "
        "with its intact documents (the original is kept as .damaged)\n")
    assert run("index", str(empty)) == 1
    assert "empty file (0 bytes)" in capsys.readouterr().err
    assert not Path(reader.index_path(str(empty))).exists()
    assert run("check", str(directory)) == 1
    assert f"DAMAGED {empty}: empty file" in capsys.readouterr().out
    assert run("recover", str(empty)) == 0
    out = capsys.readouterr().out
    assert "not damaged" not in out and f"original kept as {empty}.damaged" in out
    assert f"{empty}.open -> removed: 0 documents kept, 0 bytes cut (empty file" in out
    assert not empty.exists() and Path(f"{empty}.damaged").exists()
    assert run("check", str(directory)) == 0
    capsys.readouterr()
    empty.write_bytes(b"")  # a folder's recover removes it too
    assert run("recover", str(directory)) == 0
    assert "-> removed" in capsys.readouterr().out and not empty.exists()


def test_a_stale_index_is_named_stale_with_the_command_that_rebuilds_it(tmp_path, capsys):
    """The file was rewritten (other documents before the one looked up) and its index not:
    ``get`` and ``check`` say the index is stale and give ``trec index``, not a damaged file."""
    def write(texts):
        with TrecWriter(str(tmp_path), worker="s1") as w:
            return [w.write(TrecDoc(url=f"http://a.test/{t}", paragraphs=[f"Text {t}"] * 3))
                    .docno for t in texts]

    docnos = write(["a", "b", "c"])
    path = reader.corpus_files([str(tmp_path)])[0]
    index = Path(reader.index_path(path)).read_text()
    for name in os.listdir(tmp_path):
        os.remove(tmp_path / name)
    write(["a", "a longer first text " * 5, "b", "c"])  # same DOCNOs, members moved
    Path(reader.index_path(path)).write_text(index)
    assert reader.check(path).problems[0].endswith(
        f"(stale index: wackycrawl trec index {path} rebuilds it)")
    capsys.readouterr()
    for which in (docnos[1], docnos[2]):  # mid-member (no gzip header) and another document
        assert run("get", which, "--dir", str(tmp_path)) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"wackycrawl trec: {reader.index_path(path)} is stale: ") and \
            err.strip().endswith(f"but {path} itself is intact; rebuild the index with "
                                 f"'wackycrawl trec index {path}'"), err
        assert "corrupt" not in err
    assert run("index", path) == 0 and run("get", docnos[2], "--dir", str(tmp_path)) == 0


def test_get_by_url_compares_canonical_urls_and_searches_rejects(tmp_path, capsysbinary):
    kept = "http://a.test/stra%C3%9Fe.html"
    rejected = "http://b.test/caf%C3%A9.html?b=2&a=1"
    with TrecWriter(str(tmp_path), worker="k1") as w:
        w.write(TrecDoc(url=kept, paragraphs=["Kept text"]))
        w.write(TrecDoc(url="http://a.test/other.html", paragraphs=["Other text"]))
    with TrecWriter(str(tmp_path / "rejects"), worker="k1-rejects") as w:
        w.write(TrecDoc(url=rejected, paragraphs=["Rejected text"]))
    for url, text in ((kept, b"Kept text"), ("http://a.test/stra\u00dfe.html", b"Kept text"),
                      ("HTTP://A.TEST:80/stra\u00dfe.html#top", b"Kept text"),
                      (rejected, b"Rejected text"),
                      ("http://b.test/caf\u00e9.html?a=1&b=2&utm_source=x", b"Rejected text")):
        assert run("get", "--url", url, "--dir", str(tmp_path)) == 0, url
        out = capsysbinary.readouterr().out
        assert out.count(b"<DOC>\n") == 1 and text in out, url
    assert run("get", "--url", "http://a.test/strasse.html", "--dir", str(tmp_path)) == 1
    assert (f"is in no index in {tmp_path} or {tmp_path / 'rejects'}".encode()
            in capsysbinary.readouterr().err)
