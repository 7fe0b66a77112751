"""Strict TREC: whitespace-free DOCHDR fields, a writer that refuses junk characters, and a
third-party reader (ir_datasets' GOV2 parser) reading what we write."""

import gzip
import os

import pytest
from ir_datasets.datasets.gov2 import Gov2Docs
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from wackycrawl.pipelines.trec import TrecWriterPipeline
from wackycrawl.trec import reader
from wackycrawl.trec.format import TrecContentError, TrecDoc, format_doc, parse_doc
from wackycrawl.trec.writer import TrecWriter, write_index


def _doc(i: int = 0, **overrides) -> TrecDoc:
    fields = {"url": f"http://a.test/page {i}.html", "ip": "192.0.2.1",
              "fetched": "20261201101502", "content_type": "text/html; charset=utf-8",
              "raw_length": 9000, "status_line": "HTTP/1.1 200 OK",
              "headers": [("Content-Type", "text/html; charset=utf-8")],
              "meta": {"Language": "de", "Note": "two words\there"},
              "paragraphs": [f"Grüße aus Köln, Seite {i}.", "Zweiter\tAbsatz."]}
    return TrecDoc(**{**fields, **overrides})


def test_first_line_has_five_fields_and_meta_values_no_whitespace():
    data = format_doc(docno="D-1", **{k: v for k, v in vars(_doc()).items() if k != "docno"})
    lines = data.decode().split("\n")
    assert lines[3].split(" ") == ["http://a.test/page%200.html", "192.0.2.1", "20261201101502",
                                   "text/html;charset=utf-8", "9000"]
    assert "Content-Type: text/html; charset=utf-8" in lines  # the header as received
    assert "X-Wacky-Note: two%20words%09here" in lines
    doc = parse_doc(data)
    assert doc.content_type == "text/html;charset=utf-8"
    assert doc.url == "http://a.test/page%200.html"


@pytest.mark.parametrize("ctype, token", [
    ("text/html ; charset = ISO-8859-1", "text/html;charset=ISO-8859-1"),
    ("  text/html  ", "text/html"), ("", "-"), ("text/html;\tcharset=\"a b\"",
                                               "text/html;charset=\"a%20b\""),
])
def test_content_types_become_one_field(ctype, token):
    data = format_doc("D", "http://a.test/", "-", "-", ctype, None, "", [], {}, ["x"])
    assert data.decode().split("\n")[3].split(" ")[3] == token.replace('"', '"')


def test_files_read_with_ir_datasets_gov2_parser(tmp_path):
    docs = [_doc(i) for i in range(3)]
    with TrecWriter(str(tmp_path), worker="g1") as w:
        written = [w.write(d) for d in docs]
    theirs = list(Gov2Docs(None, None)._docs_ctxt_iter_gov2(written[0].path))
    assert [d.doc_id for d in theirs] == [x.docno for x in written]
    for doc, mine in zip(theirs, docs):
        fields = doc.url.split()  # their "url" is the whole first DOCHDR line
        assert len(fields) == 5 and fields[0] == mine.url.replace(" ", "%20")
        assert doc.body_content_type == "text/html"
        assert doc.body.decode("utf-8").splitlines() == mine.paragraphs
    assert reader.check(written[0].path).ok


@pytest.mark.parametrize("junk", ["\ufffd", "\x00", "\x07", "\x1b[31m", "\x7f", "\x85", "\x9f"])
def test_writer_refuses_control_characters_and_replacement_char(tmp_path, junk):
    with TrecWriter(str(tmp_path), worker="r1") as w:
        first = w.write(_doc(0))
        size = os.path.getsize(first.path + ".open")
        index = open(reader.index_path(first.path)).read()
        with pytest.raises(TrecContentError, match=r"U\+00|U\+FFFD"):
            w.write(_doc(1, paragraphs=[f"bad {junk} text"]))
        with pytest.raises(TrecContentError):
            w.write(_doc(2, meta={"Language": "de"}, headers=[], paragraphs=["ok", f"a{junk}x"]))
        assert os.path.getsize(first.path + ".open") == size
        assert open(reader.index_path(first.path)).read() == index
        last = w.write(_doc(3))
    assert last.docno.endswith("-000001")  # no DOCNO was spent on the refused documents
    assert reader.check(first.path).ok
    assert [d.url for _, d in reader.iter_docs(first.path)] == [
        "http://a.test/page%200.html", "http://a.test/page%203.html"]


def test_tab_lf_and_junk_in_headers_and_meta_are_written_safely(tmp_path):
    doc = _doc(headers=[("X-Odd", "a\x07b\x85c")], meta={"Odd": "x\x1by"},
               paragraphs=["Tab\tinside.", "Line"])
    with TrecWriter(str(tmp_path), worker="h1") as w:
        path = w.write(doc).path
        with pytest.raises(TrecContentError):  # U+FFFD is no control: it is refused anywhere
            w.write(_doc(meta={"Odd": "\ufffd"}))
    (_, back), = reader.iter_docs(path)
    assert ("X-Odd", "a%07b%C2%85c") in back.headers and back.paragraphs == doc.paragraphs
    assert back.meta == {"Odd": "x\x1by"}  # stored x%1By, decoded when read
    assert reader.check(path).ok


def test_pipeline_drops_a_refused_document_with_reason_and_stat(tmp_path):
    crawler = get_crawler(settings_dict={"WACKY_OUTPUT_DIR": str(tmp_path),
                                         "WACKY_WORKER_ID": "p1"})
    pipe = TrecWriterPipeline.from_crawler(crawler)
    pipe.open_spider()
    item = {"url": "http://a.test/x", "paragraphs": ["broken \ufffd text"], "meta": {}}
    with pytest.raises(DropItem, match=r"^trec_bad_text: http://a.test/x \(.*U\+FFFD"):
        pipe.process_item(item)
    kept = pipe.process_item({"url": "http://a.test/y", "paragraphs": ["fine"], "meta": {}})
    pipe.close_spider()
    assert crawler.stats.get_value("wacky/drop/trec_bad_text") == 1
    assert crawler.stats.get_value("wacky/kept") == 1 and kept["docno"].endswith("-000000")


def _raw_file(tmp_path, docs: list[bytes]) -> str:
    """A compound file written by hand (as another tool or an older version would)."""
    path = str(tmp_path / "OLD-x-00000.trec.gz")
    entries, offset = [], 0
    with open(path, "wb") as f:
        for data in docs:
            member = gzip.compress(data)
            f.write(member)
            docno = parse_doc(data).docno
            entries.append((docno, offset, len(member)))
            offset += len(member)
    write_index(path, entries)
    return path


def test_check_rejects_six_fields_and_meta_whitespace(tmp_path):
    good = format_doc("OLD-x-00000-000000", "http://a.test/", "-", "-", "text/html", 10, "",
                      [], {"Language": "en"}, ["Fine text."])
    six = good.replace(b"text/html 10", b"text/html; charset=utf-8 10").replace(b"000000<", b"1<")
    spaced = good.replace(b"Language: en", b"Language: en de").replace(b"000000<", b"2<")
    assert reader.check(_raw_file(tmp_path, [good])).ok
    result = reader.check(_raw_file(tmp_path, [good, six, spaced]))
    assert not result.ok and result.docs == 3
    text = "; ".join(result.problems)
    assert "6 fields" in text and "(and 1 more)" in text
    assert parse_doc(six).content_type == "text/html; charset=utf-8"  # still readable
