"""``wackycrawl trec recover DIR``: the folder's .open files and its damaged closed files."""

import gzip
import os
import random
import re
from pathlib import Path

from tests.clirun import wackycrawl
from tests.test_trec_writer import leave_open_file
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.reader import check, get_doc, index_path, iter_docs, read_index
from wackycrawl.trec.writer import TrecWriter


def test_a_folder_recover_cuts_back_its_damaged_closed_files_too(tmp_path):
    with TrecWriter(str(tmp_path), worker="c1", rotate_bytes=600) as w:
        for i in range(6):  # other pages than the crashed writer's (http://a.test/N)
            w.write(TrecDoc(url=f"http://b.test/{i}", paragraphs=[f"Text {i} </DOC>"] * 9))
    files = sorted(str(tmp_path / n) for n in os.listdir(tmp_path) if n.endswith(".trec.gz"))
    assert len(files) > 1
    intact = open(files[1], "rb").read()
    with open(files[0], "r+b") as f:
        f.truncate(os.path.getsize(files[0]) - 25)
    left = leave_open_file(tmp_path, "k9", 2)
    assert wackycrawl("trec", "check", tmp_path).returncode == 1
    run = wackycrawl("trec", "recover", tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"{files[0]}: damaged (" in run.stdout and f"{left} -> " in run.stdout
    assert os.path.exists(files[0] + ".damaged") and open(files[1], "rb").read() == intact
    check = wackycrawl("trec", "check", tmp_path)
    assert check.returncode == 0 and "still open" not in check.stderr, check.stdout
    again = wackycrawl("trec", "recover", tmp_path)
    assert again.returncode == 0 and "no .open or damaged file to recover" in again.stdout


# A closed file damaged in the middle: recovery keeps every intact member after the damage.

def _corpus(directory, docs: int = 8) -> tuple[str, list]:
    """One closed file of ``docs`` documents (members of some hundred bytes each, varied
    text): its path and index."""
    rng = random.Random(7)
    words = [f"w{n}" for n in range(500)]
    with TrecWriter(str(directory), worker="m1") as w:
        for i in range(docs):
            w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=[
                " ".join(rng.choice(words) for _ in range(40)) for _ in range(12)]))
    path = str(directory / "WACKY-m1-00000.trec.gz")
    return path, read_index(path)


def _patch(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def _assert_recovered(directory, path: str, original: bytes, docnos: list[str],
                      urls: list[str]) -> None:
    """``path`` holds exactly ``docnos`` in order (own reader, index, gzip alone), ``check``
    passes and the damaged original is kept byte for byte."""
    assert [doc.docno for _, doc in iter_docs(path)] == docnos
    assert [doc.url for _, doc in iter_docs(path)] == urls
    assert [e.docno for e in read_index(path)] == docnos
    for entry in read_index(path):
        assert f"<DOCNO>{entry.docno}</DOCNO>".encode() in get_doc(path, entry)
    with gzip.open(path, "rb") as f:  # gzip alone reads the rewritten file to its end
        whole = f.read()
    assert re.findall(rb"<DOCNO>(.*?)</DOCNO>", whole) == [d.encode() for d in docnos]
    assert check(path).ok
    run = wackycrawl("trec", "check", directory)
    assert run.returncode == 0 and "OK " in run.stdout, run.stdout
    assert Path(path + ".damaged").read_bytes() == original


def test_recover_skips_a_corrupt_member_in_the_middle_and_keeps_the_rest(tmp_path):
    path, index = _corpus(tmp_path)
    bad = index[3]
    _patch(path, bad.offset + bad.length // 2, bytes(10))
    original = Path(path).read_bytes()
    run = wackycrawl("trec", "recover", tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "7 documents kept" in run.stdout and f"lost: {bad.docno}" in run.stdout, run.stdout
    assert f"lost 1: {bad.docno}" in run.stderr  # the log line names it too
    keep = [e for e in index if e is not bad]
    _assert_recovered(tmp_path, path, original, [e.docno for e in keep], [e.url for e in keep])


def test_recover_skips_a_member_whose_crc_fails(tmp_path):
    path, index = _corpus(tmp_path)
    bad = index[4]
    crc_at = bad.offset + bad.length - 8  # CRC-32, then ISIZE (RFC 1952)
    crc = Path(path).read_bytes()[crc_at:crc_at + 4]
    _patch(path, crc_at, bytes(b ^ 0xFF for b in crc))
    original = Path(path).read_bytes()
    assert "incorrect data check" in check(path).problems[0]
    run = wackycrawl("trec", "recover", path)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert "7 documents kept" in run.stdout and f"lost: {bad.docno}" in run.stdout, run.stdout
    keep = [e for e in index if e is not bad]
    _assert_recovered(tmp_path, path, original, [e.docno for e in keep], [e.url for e in keep])


def test_recover_drops_garbage_between_members_and_loses_no_document(tmp_path):
    path, index = _corpus(tmp_path)
    data = Path(path).read_bytes()
    at = index[5].offset  # garbage (with a false gzip magic) inserted: later offsets shift
    garbage = b"junk\x1f\x8b\x08\x00 not a member" + bytes(30)
    original = data[:at] + garbage + data[at:]
    Path(path).write_bytes(original)
    run = wackycrawl("trec", "recover", tmp_path)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert "8 documents kept" in run.stdout and f"{len(garbage)} bytes cut" in run.stdout
    assert "lost" not in run.stdout, run.stdout
    _assert_recovered(tmp_path, path, original, [e.docno for e in index],
                      [e.url for e in index])


def test_recover_without_an_index_names_the_lost_document_by_offset(tmp_path):
    path, index = _corpus(tmp_path)
    bad = index[2]
    _patch(path, bad.offset + bad.length // 2, bytes(10))
    os.remove(index_path(path))
    original = Path(path).read_bytes()
    run = wackycrawl("trec", "recover", tmp_path)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert f"lost: document at byte {bad.offset}" in run.stdout, run.stdout
    keep = [e for e in index if e is not bad]
    _assert_recovered(tmp_path, path, original, [e.docno for e in keep], [e.url for e in keep])


def test_recover_still_cuts_a_member_cut_short_at_the_end(tmp_path):
    path, index = _corpus(tmp_path)
    with open(path, "r+b") as f:
        f.truncate(index[-1].offset + index[-1].length // 2)
    original = Path(path).read_bytes()
    run = wackycrawl("trec", "recover", tmp_path)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert "7 documents kept" in run.stdout and "truncated gzip member" in run.stdout
    assert "skipped" not in run.stdout and f"lost: {index[-1].docno}" in run.stdout
    assert os.path.getsize(path) == index[-1].offset
    _assert_recovered(tmp_path, path, original, [e.docno for e in index[:-1]],
                      [e.url for e in index[:-1]])


def test_readers_of_a_damaged_folder_say_to_run_trec_recover(tmp_path):
    corpus = tmp_path / "corpus"
    path, index = _corpus(corpus)
    _patch(path, index[3].offset + index[3].length // 2, bytes(10))
    runs = {"export": wackycrawl("export", corpus, "--format", "txt", "-o", tmp_path / "x.txt"),
            "filter": wackycrawl("filter", corpus, "-o", tmp_path / "f"),
            "report": wackycrawl("report", corpus, "-o", tmp_path / "r"),
            "stats": wackycrawl("stats", corpus)}
    for name, run in runs.items():
        assert run.returncode == 1, (name, run.stderr)
        assert "Traceback" not in run.stderr, (name, run.stderr)
        assert f"wackycrawl {name}: " in run.stderr, (name, run.stderr)
        assert f"run 'wackycrawl trec recover {path}'" in run.stderr, (name, run.stderr)


def test_recover_closes_a_warc_file_left_open_by_a_killed_crawl(tmp_path):
    from tests.test_process import leave_open
    from tests.webpages import page, prose

    pages = {f"http://a.test/{n}": page(f"P{n}", prose(n)) for n in range(3)}
    left = leave_open(tmp_path / "warc", "k9", pages)
    run = wackycrawl("trec", "recover", tmp_path / "warc")
    assert run.returncode == 0, run.stderr
    closed = str(left).removesuffix(".open")
    assert run.stdout.startswith(f"{left} -> {closed}: 5 WARC records kept, "), run.stdout
    assert os.path.exists(closed) and not left.exists()
    again = wackycrawl("trec", "recover", tmp_path / "warc")
    assert "no .open or damaged file to recover" in again.stdout
    one = leave_open(tmp_path / "one", "k9", pages)  # the .open file named
    run = wackycrawl("trec", "recover", one)
    assert run.returncode == 0 and f"{one} -> " in run.stdout, run.stderr
