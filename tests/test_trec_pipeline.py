"""TrecWriterPipeline on a real Crawler: items in, files, DOCNOs and stats out."""

import gzip
import os

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler

from tests.test_trec_writer import leave_open_file
from wackycrawl.pipelines.trec import TrecWriterPipeline
from wackycrawl.trec import reader
from wackycrawl.trec.format import parse_doc


def _item(i: int) -> dict:
    return {"url": f"http://a.example.test/{i}", "ip": "192.0.2.1", "fetched": "20261130101502",
            "status": 200, "protocol": "HTTP/1.1",
            "headers": [("Content-Type", "text/html"), ("X-Note", "a\r\nb")],
            "content_type": "text/html", "meta": {"Raw-Bytes": "9000", "Language": "en"},
            "paragraphs": [f"Page {i} says </DOC> and more words here.", "Second paragraph."]}


def _pipeline(tmp_path, **settings):
    crawler = get_crawler(settings_dict={"WACKY_OUTPUT_DIR": str(tmp_path),
                                         "WACKY_WORKER_ID": "t1", **settings})
    return crawler.stats, TrecWriterPipeline.from_crawler(crawler)


def test_items_become_documents_with_stats(tmp_path):
    stats, pipe = _pipeline(tmp_path, WACKY_TREC_ROTATE_BYTES=700)
    pipe.open_spider()
    items = [pipe.process_item(_item(i)) for i in range(6)]
    pipe.close_spider()
    files = sorted(str(tmp_path / n) for n in os.listdir(tmp_path) if n.endswith(".trec.gz"))
    assert items[0]["docno"] == "WACKY-t1-00000-000000" and items[0]["paragraphs"]
    assert stats.get_value("wacky/trec/docs") == stats.get_value("wacky/kept") == 6
    assert stats.get_value("wacky/words_kept") == 6 * 10
    assert [item["words"] for item in items] == [10] * 6
    assert stats.get_value("wacky/trec/files") == len(files) > 1
    assert stats.get_value("wacky/trec/bytes_written") == sum(map(os.path.getsize, files))
    path, entry = reader.find_doc(str(tmp_path), items[4]["docno"])
    doc = parse_doc(reader.get_doc(path, entry))
    assert (doc.url, doc.raw_length, doc.status_line) == (_item(4)["url"], 9000, "HTTP/1.1 200 OK")
    assert doc.meta["Language"] == "en" and ("X-Note", "a b") in doc.headers
    assert doc.paragraphs == _item(4)["paragraphs"]


def test_bad_items_are_dropped_and_counted(tmp_path):
    stats, pipe = _pipeline(tmp_path)
    pipe.open_spider()
    bad = _item(0)
    bad["meta"]["Raw-Bytes"] = "lots"
    for item in (bad, {"url": "http://a.test/"}):
        with pytest.raises(DropItem, match="trec_bad_item"):
            pipe.process_item(item)
    pipe.close_spider()
    assert stats.get_value("wacky/drop/trec_bad_item") == 2
    assert stats.get_value("wacky/trec/docs") is None


def test_leftover_open_file_is_recovered_at_open(tmp_path):
    with open(leave_open_file(tmp_path, "t0", 1), "ab") as f:
        f.write(gzip.compress(b"<DOC>\n" * 9)[:-25])
    stats, again = _pipeline(tmp_path)
    again.open_spider()
    again.close_spider()
    assert stats.get_value("wacky/trec/recovered_files") == 1
    assert stats.get_value("wacky/trec/recovered_docs") == 1
    assert stats.get_value("wacky/trec/recovered_cut_bytes") > 0
    assert reader.check(str(tmp_path / "WACKY-t0-00000.trec.gz")).ok


def test_empty_output_dir_turns_the_writer_off(tmp_path):
    with pytest.raises(NotConfigured):
        _pipeline(tmp_path, WACKY_OUTPUT_DIR="")


def test_worker_id_is_one_per_crawler_and_names_the_files(tmp_path):
    from scrapy.utils.test import get_crawler

    from wackycrawl.pipelines import crawl_worker_id
    from wackycrawl.pipelines.trec import TrecWriterPipeline

    crawler = get_crawler(settings_dict={"WACKY_OUTPUT_DIR": str(tmp_path)})
    wid = crawl_worker_id(crawler)
    assert crawl_worker_id(crawler) == wid  # the frontier asks too: the same id
    pipe = TrecWriterPipeline.from_crawler(crawler)
    pipe.open_spider()
    pipe.close_spider()
    assert crawl_worker_id(get_crawler(settings_dict={"WACKY_WORKER_ID": "w7"})) == "w7"
    assert wid in pipe.writer.stem
