"""HTML bytes to Unicode: the C09/C10 cases, binary rejection, repairs, the TextPipeline."""

import gzip
import re
import struct
import zlib

import pytest
from scrapy.exceptions import DropItem

from tests.wackysettings import crawler
from wackycrawl.pipelines.text import TextPipeline
from wackycrawl.text import charsets
from wackycrawl.text.encoding import (
    BinaryContentError,
    Decoded,
    EncodingError,
    decode_html,
    sniff_binary,
)

UNCLEAN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}<title>t</title></head><body><p>{body}</p></body></html>"


def assert_clean(decoded: Decoded, fragment: str) -> None:
    assert fragment in decoded.text
    assert not UNCLEAN.search(decoded.text)


# --- C09: BOM vs header, malformed meta, late meta, UTF-16 ----------------------------------

def test_c09_utf8_bom_beats_header_cp1251():
    text = "Городской совет утвердил новый бюджет на ремонт школы."
    body = b"\xef\xbb\xbf" + page(text).encode("utf-8")
    decoded = decode_html(body, "text/html; charset=windows-1251")
    assert decoded.encoding == "utf-8"
    assert decoded.repairs == 0
    assert_clean(decoded, "Городской совет утвердил новый бюджет")
    assert not decoded.text.startswith("\ufeff")


def test_c09_malformed_meta_still_names_gbk():
    head = '<meta httpequiv="ContentType" content="text/html; charset=gbk">'
    body = page("本市图书馆周末照常开放，欢迎读者前来借阅。", head).encode("gbk")
    decoded = decode_html(body, "text/html")
    assert decoded.encoding in {"gbk", "gb18030"}
    assert_clean(decoded, "本市图书馆周末照常开放")


def test_c09_meta_beyond_1024_bytes():
    filler = "<div class='" + "layout-block " * 200 + "'></div>"
    head = filler + '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
    body = page("Завтра ожидается сильный дождь и ветер.", head).encode("cp1251")
    assert body.index(b"charset") > 1024
    decoded = decode_html(body, "text/html")
    assert decoded.encoding == "cp1251"
    assert_clean(decoded, "Завтра ожидается сильный дождь")


def test_c09_utf16le_bom_without_header():
    text = "Grüße aus Köln – das Wetter ist schön."
    body = b"\xff\xfe" + page(text).encode("utf-16-le")
    decoded = decode_html(body, "text/html")
    assert decoded.encoding == "utf-16-le"
    assert_clean(decoded, text)


# --- C10: header UTF-8 on cp1252, the ISO-8859-1 label, one stray byte ------------------------

def test_c10_header_utf8_body_cp1252_uses_meta():
    text = "The café – a naïve “bistro” – sells coffee for €2.50 and crème brûlée."
    head = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
    body = page(text, head).encode("cp1252")
    decoded = decode_html(body, "text/html; charset=utf-8")
    assert decoded.encoding == "cp1252"
    assert decoded.repairs == 0
    assert_clean(decoded, text)


def test_c10_iso_8859_1_label_means_cp1252():
    text = "Price: €10 – “special” offer … don’t miss it."
    decoded = decode_html(page(text).encode("cp1252"), "text/html; charset=ISO-8859-1")
    assert decoded.encoding == "cp1252"
    assert_clean(decoded, text)


def test_c10_one_stray_byte_keeps_utf8_and_counts_the_repair():
    german = "Grüße aus München. Das Stadtfest beginnt am Samstag und dauert bis Montag."
    body = page(german, '<meta charset="utf-8">').encode("utf-8").replace(
        b"</p>", b"</p><p>It\x92s open to everyone.</p>", 1)
    decoded = decode_html(body, "text/html; charset=UTF-8")
    assert decoded.encoding == "utf-8"
    assert decoded.repairs == 1
    assert_clean(decoded, german)
    assert "It’s open to everyone." in decoded.text


# --- repairs and rejection ----------------------------------------------------------------

def test_truncated_utf8_sequence_is_dropped_not_mapped():
    body = page("Größe und Länge: ok").encode("utf-8").replace(b"ok", b"o\xe2\x80k")
    decoded = decode_html(body, "text/html; charset=utf-8")
    assert decoded.repairs == 2
    assert_clean(decoded, "Größe und Länge: ok")


def test_c1_controls_from_double_decoding_are_read_as_cp1252():
    body = page("It\u0092s Müller’s").encode("utf-8")
    decoded = decode_html(body, "text/html; charset=utf-8")
    assert_clean(decoded, "It’s Müller’s")
    assert decoded.repairs == 1


def test_encoded_replacement_characters_are_dropped():
    decoded = decode_html(page("Straße \ufffd und Weg").encode("utf-8"), "text/html; charset=utf-8")
    assert_clean(decoded, "Straße  und Weg")
    assert decoded.repairs == 1


def test_too_many_repairs_is_an_encoding_error():
    body = page("Größe " + "x\x81 " * 40).encode("utf-8").replace(b"\xc2\x81", b"\x81")
    with pytest.raises(EncodingError) as info:
        decode_html(body, "text/html; charset=utf-8", max_repairs=10)
    assert not isinstance(info.value, BinaryContentError)
    assert decode_html(body, "text/html; charset=utf-8", max_repairs=100).repairs == 40


def test_empty_body_gives_empty_text():
    assert decode_html(b"", "text/html") == Decoded("", "utf-8", 0, "empty")
    assert sniff_binary(b"") is None


def test_plain_ascii_without_any_label():
    decoded = decode_html(page("plain text").encode("ascii"))
    assert_clean(decoded, "plain text")


# --- binary served as text/html ---------------------------------------------------------

def png_bytes() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b""))


@pytest.mark.parametrize("body, kind", [
    (png_bytes(), "PNG"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n", "PDF"),
    (gzip.compress(page("zipped").encode()), "gzip"),
    (b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"word/document.xml", "zip"),
    (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "WebP"),
    (b"<html>\x00\x00\x00\x01</html>", "NUL"),
    (b"<html>" + bytes(range(1, 9)) * 10 + b"a" * 200 + b"</html>", "control bytes"),
])
def test_binary_is_rejected(body, kind):
    with pytest.raises(BinaryContentError, match=kind):
        decode_html(body, "text/html")


def test_few_control_bytes_are_tolerated_and_dropped():
    # a line tabulation (Word's line break) separates; a control that is no whitespace is
    # removed from the word it sits in; neither is a repair
    body = page("form\x0bfeed data\x01base " + "word " * 100).encode("ascii")
    sniff_binary(body)
    decoded = decode_html(body, "text/html")
    assert_clean(decoded, "form feed database word")
    assert decoded.repairs == 0 and decoded.controls == 2


def test_utf16_with_declared_charset_is_not_binary():
    body = page("Grüße").encode("utf-16-le")
    decoded = decode_html(body, "text/html; charset=utf-16le")
    assert_clean(decoded, "Grüße")


# --- TextPipeline adapter -----------------------------------------------------------------


def item(body: bytes, content_type: str = "text/html") -> dict:
    return {"url": "http://a.example.test/", "content_type": content_type, "body": body,
            "meta": {"Raw-Bytes": str(len(body))}}


def test_pipeline_sets_html_and_encoding_meta():
    c = crawler()
    pipeline = TextPipeline.from_crawler(c)
    out = pipeline.process_item(item(page("Grüße").encode("cp1252"),
                                     "text/html; charset=iso-8859-1"))
    assert "body" not in out
    assert "Grüße" in out["html"]
    assert out["meta"] == {"Raw-Bytes": out["meta"]["Raw-Bytes"], "Encoding": "cp1252",
                           "Encoding-Evidence": "declared:header"}
    assert c.stats.get_value("wacky/encoding/cp1252") == 1


def test_pipeline_records_repairs():
    c = crawler()
    body = page("Grüße aus München").encode("utf-8").replace(b"</p>", b" It\x92s</p>")
    out = TextPipeline.from_crawler(c).process_item(item(body, "text/html; charset=utf-8"))
    assert out["meta"]["Encoding-Repairs"] == "1"
    assert c.stats.get_value("wacky/encoding/repaired") == 1
    assert c.stats.get_value("wacky/encoding/repairs") == 1


@pytest.mark.parametrize("body, reason", [
    (png_bytes(), "binary"),
    (b"%PDF-1.4 fake", "binary"),
    (page("Größe " + "x\x81 " * 40).encode("utf-8").replace(b"\xc2\x81", b"\x81"), "encoding"),
    (b"", "empty"),
    (b"   \n ", "empty"),
])
def test_pipeline_drops_with_reason(body, reason):
    c = crawler()
    with pytest.raises(DropItem, match=f"^{reason}: "):
        TextPipeline.from_crawler(c).process_item(item(body, "text/html; charset=utf-8"))
    assert c.stats.get_value(f"wacky/drop/{reason}") == 1


def test_pipeline_repair_threshold_comes_from_settings():
    body = page("Größe " + "x\x81 " * 40).encode("utf-8").replace(b"\xc2\x81", b"\x81")
    c = crawler(WACKY_MAX_ENCODING_REPAIRS=50)
    out = TextPipeline.from_crawler(c).process_item(item(body, "text/html; charset=utf-8"))
    assert out["meta"]["Encoding-Repairs"] == "40"


def test_pipeline_counts_and_logs_double_encoded_utf8(caplog):
    c = crawler()
    text = "Grüße aus München, schöne Straße"
    mojibake = "".join(bytes([b]).decode("cp1252") for b in text.encode("utf-8"))
    with caplog.at_level("INFO", logger="wackycrawl.pipelines.text"):
        out = TextPipeline.from_crawler(c).process_item(
            item(page(mojibake).encode("utf-8"), "text/html; charset=utf-8"))
    assert text in out["html"] and out["meta"]["Encoding-Evidence"] == "declared:header+double-utf8"
    assert c.stats.get_value("wacky/encoding/double_utf8") == 1
    assert c.stats.get_value("wacky/encoding/double_utf8_chars") == 5
    assert "double-encoded UTF-8 decoded back (5 characters): http://a.example.test/" in caplog.text


CJK_PAGES = {"ja": "日本語のテキストです。東京は日本の首都です。",
             "zh": "北京是中国的首都，也是一座历史悠久的城市。",
             "ko": "서울은 한국의 수도입니다。"}


@pytest.mark.parametrize("lang", sorted(CJK_PAGES))
@pytest.mark.parametrize("codec, label", [("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be")])
def test_declared_utf16_cjk_page_without_bom(lang, codec, label):
    # CJK text in UTF-16 has no NUL byte: most of the body reads as C0 controls under a code
    # page, which rules out that code page, not the page
    text = CJK_PAGES[lang] * 100
    body = f"<html><body><p>{text}</p></body></html>".encode(codec)
    decoded = decode_html(body, f"text/html; charset={label}")
    assert (decoded.encoding, decoded.evidence) == (codec, "declared:header")
    assert decoded.text == body.decode(codec)


def test_cjk_sentence_punctuation_between_letters_is_no_junk():
    fit = charsets.fit("日本語のテキストです。東京は日本の首都です。" * 100)
    assert (fit.plausibility, fit.junk) == (1.0, 0)
    assert charsets.fit("caf\u00c3\u00a9 cr\u00c3\u00a8me").junk > 0  # mojibake still is


def test_code_page_ruled_out_by_controls_leaves_the_others():
    # the body is control characters under every single-byte code page; a page without any
    # decoding left is binary data, with the message of the control check
    body = b"<p>" + bytes(range(1, 9)) * 200 + b"</p>"
    with pytest.raises(BinaryContentError, match=r"^\d+ control characters in \d+ characters$"):
        decode_html(body, "text/html; charset=windows-1252", max_binary_share=1.0)
