"""The WARC writer and the WARC/ARC reader, checked by third-party readers (warcio, FastWARC)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from wackycrawl.archive.reader import ArchiveError, capture_item, iter_records
from wackycrawl.archive.writer import Exchange, WarcWriter, recover_dir

HTML = ("<html><body>" + "<p>Some words of a page.</p>" * 300 + "</body></html>").encode()


def exchange(n: int, body: bytes = HTML, **kw) -> Exchange:
    return Exchange(url=f"http://a.test/{n}.html", status_line="HTTP/1.1 200 OK",
                    response_headers=[("Content-Type", "text/html; charset=utf-8"), *kw.pop(
                        "headers", [])], body=body, target=f"/{n}.html",
                    request_headers=[("Host", "a.test"), ("User-Agent", "test")],
                    ip="127.0.0.1", **kw)


def records(path: Path) -> list:
    with open(path, "rb") as f:
        return [(r.rec_type, r.rec_headers, r.content_stream().read())
                for r in ArchiveIterator(f)]


def warcio_check(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warcio.cli", "check", "-v", *map(str, paths)],
                          capture_output=True, text=True, check=False)


def test_records_digests_and_links(tmp_path):
    gz = gzip.compress(HTML)
    with WarcWriter(str(tmp_path), worker="w1", info={"software": "test"}) as w:
        rid = w.write_exchange(exchange(1, gz, headers=[("Content-Encoding", "gzip"),
                                                         ("Transfer-Encoding", "chunked")]))
        assert os.path.exists(w.path + ".open") and not os.path.exists(w.path)
        mid = w.write_metadata("http://a.test/1.html", rid, [("Verdict", "kept"),
                                                             ("X-Wacky-Language", "en")])
    (path,) = tmp_path.glob("*.warc.gz")
    assert path.name == "WACKY-w1-00000.warc.gz"
    check = warcio_check(path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("digest pass") == 4
    kinds = records(path)
    assert [k for k, _, _ in kinds] == ["warcinfo", "response", "request", "metadata"]
    _, response, body = kinds[1]
    assert response.get_header("WARC-Record-ID") == rid
    assert response.protocol == "WARC/1.1"
    assert response.get_header("WARC-IP-Address") == "127.0.0.1"
    assert body == HTML  # stored gzip-encoded as received, decoded by the reader
    assert kinds[2][1].get_header("WARC-Concurrent-To") == rid
    meta = kinds[3][1]
    assert meta.get_header("WARC-Record-ID") == mid
    assert meta.get_header("WARC-Refers-To") == rid == meta.get_header("WARC-Concurrent-To")
    assert kinds[3][2] == b"Verdict: kept\r\nX-Wacky-Language: en\r\n"
    with open(path, "rb") as f:  # the payload as stored is the gzip body; chunking renamed
        for r in ArchiveIterator(f):
            if r.rec_type == "response":
                assert r.http_headers.get_header("Content-Encoding") == "gzip"
                assert r.http_headers.get_header("Transfer-Encoding") is None
                assert r.http_headers.get_header("X-Crawler-Transfer-Encoding") == "chunked"
                assert r.raw_stream.read() == gz


def test_fastwarc_reads_and_verifies(tmp_path):
    fastwarc = pytest.importorskip("fastwarc.warc")
    with WarcWriter(str(tmp_path), worker="w1") as w:
        for n in range(3):
            w.write_metadata(f"http://a.test/{n}.html", w.write_exchange(exchange(n)),
                             [("Verdict", "kept")])
    (path,) = tmp_path.glob("*.warc.gz")
    blocks = [(str(r.record_type), r.verify_block_digest())
              for r in fastwarc.ArchiveIterator(str(path), parse_http=False, fsspec_args=False)]
    assert len(blocks) == 10 and all(ok for _, ok in blocks)
    responses = [r for r in fastwarc.ArchiveIterator(str(path), parse_http=True,
                                                     fsspec_args=False,
                                                     record_types=fastwarc.WarcRecordType.response)]
    assert len(responses) == 3
    assert all(r.http_headers.status_code == 200 for r in responses)


def test_rotation_keeps_pairs_together(tmp_path):
    with WarcWriter(str(tmp_path), worker="w1", rotate_bytes=1) as w:  # each pair a file of its own
        for n in range(6):
            w.write_exchange(exchange(n))
    files = sorted(tmp_path.glob("*.warc.gz"))
    assert len(files) == 6
    assert warcio_check(*files).returncode == 0
    for path in files:
        kinds = [k for k, _, _ in records(path)]
        assert kinds[0] == "warcinfo"
        assert kinds[1:].count("response") == kinds[1:].count("request") >= 1


def test_torn_file_is_readable_and_recovered(tmp_path):
    w = WarcWriter(str(tmp_path), worker="w1")
    for n in range(4):
        w.write_exchange(exchange(n))
    open_path = Path(w.path + ".open")
    size = open_path.stat().st_size
    os.close(w._fd)  # the process dies: no close, no rename; then the last record is torn
    with open(open_path, "r+b") as f:
        f.truncate(size - 100)
    (rec,) = recover_dir(str(tmp_path))
    assert rec.final == w.path and rec.records == 8 and rec.cut_bytes > 0  # warcinfo + 3 pairs + request
    assert not open_path.exists()
    assert warcio_check(Path(w.path)).returncode == 0
    assert [k for k, _, _ in records(Path(w.path))].count("response") == 4
    # the next writer continues with a new file number and never appends to the old one
    with WarcWriter(str(tmp_path), worker="w1") as w2:
        w2.write_exchange(exchange(9))
    assert sorted(p.name for p in tmp_path.glob("*.warc.gz")) == [
        "WACKY-w1-00000.warc.gz", "WACKY-w1-00001.warc.gz"]


def test_empty_torn_file_is_removed(tmp_path):
    (tmp_path / "WACKY-x-00000.warc.gz.open").write_bytes(gzip.compress(b"WARC/1.1\r\n")[:10])
    (rec,) = recover_dir(str(tmp_path))
    assert rec.final is None and not list(tmp_path.glob("*.open"))


def test_reader_captures_our_file(tmp_path):
    with WarcWriter(str(tmp_path), worker="w1") as w:
        w.write_exchange(exchange(1, gzip.compress(HTML), headers=[("Content-Encoding", "gzip")]))
        w.write_exchange(exchange(2, HTML * 100))
    counts: dict = {}
    (first, second) = iter_records(str(next(tmp_path.glob("*.warc.gz"))), 200_000, counts)
    assert counts == {"warcinfo": 1, "response": 2, "request": 2}
    assert first.body == HTML and not first.over and first.status == 200
    assert first.offset > 0 and second.over and len(second.body) == 200_001
    item = capture_item(first)
    assert item["url"] == "http://a.test/1.html" and item["ip"] == "127.0.0.1"
    assert item["content_type"] == "text/html; charset=utf-8" and len(item["fetched"]) == 14
    assert item["meta"] == {"Raw-Bytes": str(len(HTML))}


def arc_file(path: Path, pages: dict[str, bytes]) -> None:
    """An ARC v1 file (Internet Archive ARC format, as Heritrix wrote them), gzip per record."""
    head = b"1 0 wackycrawl-test\nURL IP-address Archive-date Content-type Archive-length\n"
    out = [gzip.compress(b"filedesc://test.arc 0.0.0.0 20091101000000 text/plain %d\n%s\n"
                         % (len(head), head))]
    for url, body in pages.items():
        http = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (
            len(body), body)
        out.append(gzip.compress(b"%s 10.0.0.1 20091101120000 text/html %d\n%s\n"
                                 % (url.encode(), len(http), http)))
    path.write_bytes(b"".join(out))


def test_reader_reads_arc(tmp_path):
    arc = tmp_path / "old.arc.gz"
    arc_file(arc, {"http://old.test/": HTML, "http://old.test/2": HTML + b"<!-- 2 -->"})
    captures = list(iter_records(str(arc), 200_000))
    assert [c.url for c in captures] == ["http://old.test/", "http://old.test/2"]
    assert captures[0].body == HTML and captures[0].fetched == "20091101120000"
    assert captures[0].ip == "10.0.0.1"


def test_reader_rejects_non_archive(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not an archive\n" * 10)
    with pytest.raises(ArchiveError):
        list(iter_records(str(bad), 1000))
    # one line, a binary file, an empty file, gzip'ed text: warcio reads the first line of
    # each as an ARC header and yields nothing, without an error of its own
    cases = {"line.txt": b"hello world this is text\n", "ls.bin": b"\x7fELF\x02\x01\x00" * 400,
             "empty.warc": b"", "text.gz": gzip.compress(b"hello world\n")}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ArchiveError, match="empty file|not a WARC or ARC file"):
            list(iter_records(str(tmp_path / name), 1000))


def test_reader_reports_a_torn_file(tmp_path):
    with WarcWriter(str(tmp_path), worker="w1") as w:
        for n in range(3):
            w.write_exchange(exchange(n))
    path = next(tmp_path.glob("*.warc.gz"))
    path.write_bytes(path.read_bytes()[:-200])  # the last request record cut short
    seen = []
    with pytest.raises(ArchiveError, match="torn"):
        seen.extend(c.url for c in iter_records(str(path), 200_000))
    assert seen == [f"http://a.test/{n}.html" for n in range(3)]
