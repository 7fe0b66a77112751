"""Hostile input to the pure modules: each test is a fault found by attacking them.

Bad input must give a clear error the callers handle (or a clean result), never an
unexpected exception type, a crash or silently garbled text.
"""

from __future__ import annotations

import gzip
import time
import zlib

import pytest
from scrapy import Request

from wackycrawl.crawl import politeness, robots
from wackycrawl.crawl.sizewindow import DecodedMeter
from wackycrawl.pipelines.trec import status_line
from wackycrawl.seeding.seedfile import read_seeds
from wackycrawl.text.encoding import decode_html
from wackycrawl.trec.format import TrecDoc, TrecFormatError, format_doc, parse_doc
from wackycrawl.trec.reader import TrecFileError, check, iter_docs, read_index
from wackycrawl.trec.writer import OPEN_SUFFIX, TrecWriter


# -- Retry-After / numbers: str.isdigit() is True for "\xb3" ("³"), which float()/int() refuse.
# A header decoded as latin-1 turns the byte 0xB3 into that character.
@pytest.mark.parametrize("value", ["\u00b3", b"\xb2", "\u00b9\u00b2", "\u0663", "\uff13"])
def test_retry_after_with_non_ascii_digits_is_unparsable_not_an_exception(value):
    assert politeness.retry_after_seconds(value, time.time()) is None
    assert robots.retry_after_seconds(value) is None


@pytest.mark.parametrize("value", ["01 Jan 99999999999999999999 00:00:00",
                                   "Wed, 21 Oct 99999 07:28:00 GMT"])
def test_retry_after_date_beyond_any_calendar_is_unparsable_not_an_exception(value):
    assert politeness.retry_after_seconds(value, time.time()) is None


def test_retry_after_ascii_digits_still_read():
    assert politeness.retry_after_seconds(b"120", 0.0) == 120.0
    assert robots.retry_after_seconds(" 60 ") == 60.0


def _doc(length: str) -> bytes:
    good = format_doc("D-1", "http://a.test/", "-", "-", "text/html", 10, "HTTP/1.1 200 OK",
                      [], {}, ["text"])
    return good.replace(b"text/html 10\n", f"text/html {length}\n".encode())


def test_dochdr_length_with_superscript_digit_is_a_format_error():
    with pytest.raises(TrecFormatError):
        parse_doc(_doc("\u00b2"))


def test_index_line_with_superscript_digit_is_a_file_error(tmp_path):
    path = tmp_path / "x.trec.gz"
    path.write_bytes(b"")
    (tmp_path / "x.trec.gz.idx.tsv").write_text("D-1\t\u00b3\t10\n", encoding="utf-8")
    with pytest.raises(TrecFileError):
        read_index(str(path))


def test_writer_recovers_a_left_over_file_with_a_corrupt_length(tmp_path):
    """A crashed or tampered ``.open`` file must not stop the next writer from starting."""
    good = format_doc("W-a-00000-000000", "http://a.test/", "-", "-", "text/html", 10, "",
                      [], {}, ["first"])
    left = tmp_path / f"W-a-00000.trec.gz{OPEN_SUFFIX}"
    left.write_bytes(gzip.compress(good) + gzip.compress(_doc("\u00b2")))
    with TrecWriter(str(tmp_path), prefix="W", worker="b") as w:
        (rec,) = w.recovered
    assert rec.docs == 1 and rec.cut_bytes > 0


# -- seed files: a line Scrapy cannot make a Request of ended the spider's start() and lost
# every later seed.
def test_seed_file_with_binary_junk_bad_ports_and_ipv6_keeps_the_good_lines(tmp_path):
    junk = bytes(range(256)) * 4
    lines = [b"http://[::1/", b"http://a.test:99999/", b"http://a.test:-1/", b"http://a.test:8a/",
             b"http://\x16", b"http://\\x", b"http://\xff\xfe/", junk, b"http://good.test/p"]
    f = tmp_path / "seeds.txt"
    f.write_bytes(b"\n".join(lines) + b"\nhttps://good.test:8443/q\n")
    urls, bad = read_seeds(f)
    assert urls == ["http://good.test/p", "https://good.test:8443/q"]
    assert [n for n, _ in bad][:7] == [1, 2, 3, 4, 5, 6, 7]
    for url in urls:
        Request(url)


# -- a UTF-16 label on an 8-bit page decoded it to CJK-looking junk (clean to the checks, so
# it reached language ID as "zh") instead of the text.
PAGE = "<html><body><p>The caf\u00e9 \u2013 a na\u00efve \u201cbistro\u201d.</p></body></html>" * 40


@pytest.mark.parametrize("body, content_type", [
    (PAGE.replace("<html>", '<html><meta charset="utf-16">', 1).encode(), "text/html"),
    (PAGE.encode(), "text/html; charset=utf-16"),
    (PAGE.encode(), "text/html; charset=UTF-16LE"),
    (PAGE.encode(), "text/html; charset=utf-32"),
])
def test_utf16_label_on_a_page_without_nul_bytes_is_not_believed(body, content_type):
    decoded = decode_html(body, content_type)
    assert decoded.encoding == "utf-8" and decoded.text == body.decode("utf-8")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_real_utf16_without_bom_still_follows_its_label(codec):
    decoded = decode_html(PAGE.encode(codec), f"text/html; charset={codec}")
    assert decoded.text == PAGE


# -- Content-Encoding lies: the meter must call a stream broken exactly when Scrapy's decoder
# would fail on it (zlib data labelled gzip used to pass the meter and then raise).
@pytest.mark.parametrize("encoding, body", [
    ("gzip", b"<html><body>plain</body></html>" * 100),
    ("gzip", zlib.compress(b"<p>zlib, not gzip</p>" * 100)),
    ("deflate", b"<html><body>plain</body></html>" * 100),
])
def test_meter_calls_a_body_its_content_encoding_does_not_decode_broken(encoding, body):
    meter = DecodedMeter(encoding, 200 * 1024)
    meter.feed(body)
    assert meter.broken


# -- TREC: a status line not starting with "HTTP/" (Scrapy's HTTP/2 handler: protocol "h2")
# was read back as a malformed header, so the document, and after a crash every later one of
# its file, was unreadable.
MARKUP = ["<DOC>", "</DOC>", "<DOCNO>", "</DOCNO>", "<DOCHDR>", "</DOCHDR>", "&amp;", "&lt;"]


@pytest.mark.parametrize("status", ["h2 200 OK", "200", " ", "X-Wacky-Language: xx",
                                    "</DOCHDR>\r\n<DOC>", "\ud800"])
def test_any_status_line_round_trips_through_writer_and_reader(tmp_path, status):
    text = " ".join(MARKUP) + " \ud800 end"
    doc = TrecDoc(url="http://a.test/</DOC>", status_line=status,
                  headers=[("X-Evil", "a\r\n</DOCHDR>\n<DOC>"), ("X-Wacky-Language", "xx")],
                  meta={"Language": "en"}, paragraphs=[text, "</DOC>", "\r\n"])
    with TrecWriter(str(tmp_path), prefix="W", worker="a") as w:
        written = w.write(doc)
    assert check(written.path).ok
    (_, back), = iter_docs(written.path)
    assert back.status_line.startswith("HTTP/")
    assert back.meta == {"Language": "en"}
    assert back.paragraphs == [text.replace("\ud800", "?"), "</DOC>"]
    assert ("X-Evil", "a </DOCHDR> <DOC>") in back.headers


def test_http2_status_line_names_http2():
    assert status_line("h2", 200) == "HTTP/2 200 OK"
