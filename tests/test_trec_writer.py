"""Writer: rotation, unique names, kill -9 safety and recovery, write errors."""

import gzip
import os
import signal
import subprocess
import sys
import time

import pytest

from wackycrawl.trec import reader
from wackycrawl.trec.format import TrecDoc, format_doc
from wackycrawl.trec.writer import TrecWriter, default_worker_id, recover_dir

LOOP = """
import sys, time
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter
w = TrecWriter(sys.argv[1], worker="w1", rotate_bytes=4000)
i, last = 0, None
while sys.argv[2] == "forever" or not (last and last.path.endswith("3.trec.gz") and last.offset):
    last = w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=[f"Doc {i} </DOC> text " * 20]))
    i += 1
print("ready", flush=True)  # killed between writes; a torn write is appended by the test
time.sleep(60)
"""


CRASH = """
import os, sys
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter
w = TrecWriter(sys.argv[1], worker=sys.argv[2])
for i in range(int(sys.argv[3])):
    w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=["Kept."]))
os._exit(0)  # no close(): the .open file stays behind
"""


def leave_open_file(directory, worker: str, docs: int) -> str:
    """Run a writer that dies after ``docs`` documents; return its ``.open`` file."""
    subprocess.run([sys.executable, "-c", CRASH, str(directory), worker, str(docs)], check=True)
    return os.path.join(directory, f"WACKY-{worker}-00000.trec.gz.open")


def _doc(i: int) -> TrecDoc:
    return TrecDoc(url=f"http://a.test/{i}", paragraphs=[f"Paragraph {i} & <b>{i}</b> " * 30])


def _files(directory, suffix=".trec.gz"):
    return sorted(str(directory / n) for n in os.listdir(directory) if n.endswith(suffix))


def test_rotation_gives_unique_files_and_docnos(tmp_path):
    with TrecWriter(str(tmp_path), worker="w1", rotate_bytes=2000) as w:
        written = [w.write(_doc(i)) for i in range(40)]
    files = _files(tmp_path)
    assert len(files) >= 3 and not _files(tmp_path, ".open")
    assert all(os.path.getsize(f) <= 2000 for f in files)
    assert len({x.docno for x in written}) == 40
    assert written[0].docno == "WACKY-w1-00000-000000"
    assert {x.path for x in written} == set(files)
    for path in files:
        assert reader.check(path).ok
    with TrecWriter(str(tmp_path), worker="w1") as again:  # a resume continues the numbering
        assert again.write(_doc(0)).docno == f"WACKY-w1-{len(files):05d}-000000"


def test_random_access_through_the_writers_index(tmp_path):
    with TrecWriter(str(tmp_path), worker="w1") as w:
        written = [w.write(_doc(i)) for i in range(5)]
    path, entry = reader.find_doc(str(tmp_path), written[3].docno)
    expected = format_doc(**{**vars(_doc(3)), "docno": written[3].docno})
    assert reader.get_doc(path, entry) == expected
    assert (entry.offset, entry.length) == (written[3].offset, written[3].length)


def test_default_worker_ids_differ_and_bad_ids_are_refused(tmp_path):
    assert default_worker_id() != default_worker_id()
    with pytest.raises(ValueError):
        TrecWriter(str(tmp_path), worker="a/b")


def test_kill_9_leaves_readable_files_and_recovery_closes_them(tmp_path):
    with subprocess.Popen([sys.executable, "-c", LOOP, str(tmp_path), "ready"],
                          stdout=subprocess.PIPE) as proc:
        try:
            assert proc.stdout.readline() == b"ready\n"
        finally:
            proc.send_signal(signal.SIGKILL)
    assert len(_files(tmp_path)) >= 3
    (open_path,) = _files(tmp_path, ".open")
    for path in _files(tmp_path):
        assert reader.check(path).ok
    count = sum(1 for _ in reader.iter_docs(open_path))
    assert count >= 2
    torn = gzip.compress(b"<DOC>\n<DOCNO>x</DOCNO>\n" * 50)[:-25]  # a write cut short
    with open(open_path, "ab") as f:
        f.write(torn)
    finished = set(_files(tmp_path))

    with TrecWriter(str(tmp_path), worker="w1") as w:
        (rec,) = w.recovered
        assert (rec.path, rec.docs, rec.cut_bytes) == (open_path, count, len(torn))
        final = open_path.removesuffix(".open")
        size = os.path.getsize(final)
        new = w.write(_doc(0))
    assert os.path.getsize(final) == size  # never appended to
    assert new.path not in finished | {final}
    docnos = []
    for path in _files(tmp_path):
        result = reader.check(path)
        assert result.ok, result.problems
        docnos += [e.docno for e in reader.read_index(path)]
    assert len(docnos) == len(set(docnos))


def test_kill_9_at_any_moment_loses_at_most_the_document_being_written(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", LOOP, str(tmp_path), "forever"])
    try:
        deadline = time.monotonic() + 30
        while len(_files(tmp_path)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    for path in _files(tmp_path):
        assert reader.check(path).ok
    for path in _files(tmp_path, ".open"):
        try:
            list(reader.iter_docs(path))
        except reader.TruncatedFileError:
            pass  # killed inside a write: every member before it was read
    TrecWriter(str(tmp_path), worker="w1").close()
    assert not _files(tmp_path, ".open")
    docnos = [e.docno for p in _files(tmp_path) for e in reader.read_index(p)]
    assert all(reader.check(p).ok for p in _files(tmp_path))
    assert len(docnos) == len(set(docnos)) > 0


def test_live_writers_files_are_not_recovered(tmp_path):
    first = TrecWriter(str(tmp_path), worker="a")
    first.write(_doc(1))
    second = TrecWriter(str(tmp_path), worker="b")
    assert second.recovered == [] and recover_dir(str(tmp_path)) == []
    second.write(_doc(2))
    first.close()
    second.close()
    assert [reader.check(p).docs for p in _files(tmp_path)] == [1, 1]


def test_open_file_without_a_complete_document_is_removed(tmp_path):
    (tmp_path / "WACKY-x-00000.trec.gz.open").write_bytes(gzip.compress(b"<DOC>\n")[:-3])
    (rec,) = recover_dir(str(tmp_path))
    assert rec.final is None and rec.docs == 0
    assert not _files(tmp_path, ".open") and not _files(tmp_path, ".idx.tsv")


FULL_DISK = """
import resource, signal, sys
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
w = TrecWriter(sys.argv[1], worker="w1")
resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))
for i in range(100):
    try:
        w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=[f"Words {i} " * 200]))
    except OSError as exc:
        print("failed", i, exc.errno)
        break
w.close()
"""


def test_a_failed_write_is_cut_back(tmp_path):
    out = subprocess.run([sys.executable, "-c", FULL_DISK, str(tmp_path)], capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("failed")
    (path,) = _files(tmp_path)
    result = reader.check(path)
    assert result.ok and result.docs == int(out.split()[1])
