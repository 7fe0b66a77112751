"""Documents prepared in parts (the stage worker's deflate streams joined by the writer) read
back as the same bytes as documents formatted and compressed whole."""

import gzip
import os
import pickle
import zlib

import pytest
from ir_datasets.datasets.gov2 import Gov2Docs
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.pipelines.trec import PREPARED, TrecPrepareStage, TrecWriterPipeline
from wackycrawl.trec import reader
from wackycrawl.trec.format import TrecContentError, TrecDoc
from wackycrawl.trec.parts import crc32_combine
from wackycrawl.trec.writer import TrecWriter


def _item(i: int, text: str = "") -> dict:
    return {"url": f"http://a.example.test/{i} x", "ip": "192.0.2.1", "status": 200,
            "fetched": "20261130101502", "protocol": "h2", "content_type": "text/html; q=1",
            "headers": [("Content-Type", "text/html"), ("X-Wacky-Fake", "a\r\nb\x01")],
            "meta": {"Raw-Bytes": "9000", "Language": "en", "Empty": ""},
            "paragraphs": [f"Page {i} says </DOC> & <more> {text}", "", "  zweite Zeile ß ",
                           " ".join(f"w{n}" for n in range(i * 300))]}


def _write(tmp_path, name, items, prepare: bool, level: int = 6):
    """Items through the prepare stage (pickled, as to and from a worker) or not, then dedup
    metadata added, then the writer pipeline; returns (stats, files, DOCNOs or drop reasons)."""
    settings = {"WACKY_OUTPUT_DIR": str(tmp_path / name), "WACKY_WORKER_ID": "t1",
                "WACKY_TREC_COMPRESSLEVEL": level, "WACKY_TREC_ROTATE_BYTES": 3000}
    crawler = get_crawler(settings_dict=settings)
    stage, pipe = TrecPrepareStage.from_crawler(crawler), TrecWriterPipeline.from_crawler(crawler)
    pipe.open_spider()
    out = []
    for item in items:
        if prepare:
            item = pickle.loads(pickle.dumps(stage.process_item(item)))
            assert item[PREPARED].paragraphs is item["paragraphs"]
        item["meta"].update({"Near-Distance": "-", "Near-Of": "a b"})  # after the stage
        try:
            out.append(pipe.process_item(item)["docno"])
            assert PREPARED not in item
        except DropItem as exc:
            out.append(str(exc))
    pipe.close_spider()
    files = reader.corpus_files([str(tmp_path / name)])
    return crawler.stats, files, out


def _contents(files):
    return [gzip.open(f).read() for f in files]


@pytest.mark.parametrize("level", [1, 6, 9])
def test_prepared_documents_read_back_identically(tmp_path, level):
    items = [_item(i) for i in range(8)]
    _, whole, docnos = _write(tmp_path, "whole", [pickle.loads(pickle.dumps(i)) for i in items],
                              False, level)
    stats, parts, docnos2 = _write(tmp_path, "parts", items, True, level)
    assert docnos == docnos2 and len(whole) == len(parts) > 1  # rotation at 3000 bytes
    assert _contents(whole) == _contents(parts)
    for f in parts:
        raw = open(f, "rb").read()
        assert zlib.decompress(raw, 31)  # a decompressor stops at the end of the first member
        members = list(reader.iter_members(open(f, "rb"), f))
        entries = reader.read_index(f)
        assert members and sum(m.length for m in members) == len(raw)
        assert [(e.offset, e.length) for e in entries] == [(m.offset, m.length) for m in members]
        assert [reader.get_doc(f, e) for e in entries] == [m.data for m in members]
        assert reader.check(f).ok, reader.check(f)
    ours = [doc for f in parts for _, doc in reader.iter_docs(f)]
    assert [d.docno for d in ours] == docnos
    assert ours[3].meta == {"Raw-Bytes": "9000", "Language": "en", "Empty": "-",
                            "Near-Distance": "-", "Near-Of": "a b"}
    assert ours[3].headers[1] == ("X-Upstream-X-Wacky-Fake", "a b%01")
    assert ours[3].paragraphs[0] == "Page 3 says </DOC> & <more>"
    theirs = [d for f in parts for d in Gov2Docs(None, None)._docs_ctxt_iter_gov2(f)]
    assert [d.doc_id for d in theirs] == docnos
    assert stats.get_value("wacky/trec/bytes_written") == sum(map(os.path.getsize, parts))


@pytest.mark.parametrize("where", ["text", "header", "late meta"])
def test_bad_text_is_still_dropped_with_the_same_message(tmp_path, where):
    def items():
        bad = _item(1, "ok \ufffd" if where == "text" else "")
        if where == "header":
            bad["headers"].append(("X-Odd", "\ufffd"))  # header values keep U+FFFD
        if where == "late meta":
            bad["meta"]["Later"] = "\ufffd"
        return [_item(0), bad, _item(2)]
    results = {}
    for prepare in (False, True):
        stats, files, out = _write(tmp_path, str(prepare), items(), prepare)
        results[prepare] = out[1], _contents(files)
        assert stats.get_value("wacky/drop/trec_bad_text") == 1
        assert out[0].endswith("000000") and out[2].endswith("000001")
    assert results[True] == results[False], results
    assert results[True][0].startswith("trec_bad_text: http://a.example.test/1 x (http")
    assert " at byte " in results[True][0]


def test_crc32_combine():
    a, b = os.urandom(100), os.urandom(70_000)
    assert crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(a + b)
    assert crc32_combine(zlib.crc32(a), 0, 0) == zlib.crc32(a)


def test_a_stale_preparation_is_not_used(tmp_path):
    writer = TrecWriter(str(tmp_path), worker="t1")
    stage = TrecPrepareStage(6)
    item = stage.process_item(_item(1))
    doc = TrecDoc(url="http://other.test/", meta={"Language": "de"}, paragraphs=["x"])
    assert not writer.usable(doc, item[PREPARED])  # metadata changed since
    writer.write(doc, item[PREPARED])
    writer.close()
    [(_, got)] = list(reader.iter_docs(writer.path))
    assert got.url == "http://other.test/" and got.paragraphs == ["x"]
    with pytest.raises(TrecContentError):
        TrecWriter(str(tmp_path), worker="t2").write(TrecDoc(paragraphs=["\x01"]))


@pytest.mark.crawl
def test_in_process_and_worker_crawls_write_the_same_documents(tmp_path):
    docs = {}
    with LocalWeb() as web:
        web.add("http://one.test/", page("One", prose(21), links=["/two.html"]))
        web.add("http://one.test/two.html", page("Two", prose(22)))
        for workers in ("0", "1"):
            result = run_crawl(web, ["http://one.test/"], tmp_path / workers,
                               {"WACKY_STAGE_WORKERS": workers, "WACKY_WORKER_ID": "w"},
                               timeout=180)
            assert "TrecPrepareStage in " in result.log, result.log[-2000:]
            files = reader.corpus_files([str(result.outdir)])
            got = {}
            for f in files:
                for member in reader.iter_members(open(f, "rb"), f):
                    # all but the DOCNO line, the fetch time and the Date header
                    lines = member.data.split(b"\n")
                    first = lines[3].split(b" ")
                    first[2] = b"-"
                    got[first[0]] = b"\n".join([lines[0], lines[2], b" ".join(first)] + [
                        line for line in lines[4:] if not line.startswith(b"Date: ")])
            docs[workers] = got
    assert len(docs["0"]) == 2 and docs["0"] == docs["1"]
