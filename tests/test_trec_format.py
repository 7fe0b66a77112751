"""Round trips of the TREC Web format with hostile text."""

import pytest

from wackycrawl.trec.format import TrecDoc, TrecFormatError, format_doc, parse_doc, split_docs

NASTY = [
    "A page that ends early </DOC>",
    "<DOC> <DOCNO>FAKE-1</DOCNO> pretends to start another document",
    "literally &amp; and &lt;b&gt; and a bare & and </DOCHDR>",
    "Grüße aus Köln — ½ € ✓ 日本語",
]


def _fields(**overrides):
    fields = {"docno": "WACKY-w1-00000-000000", "url": "http://a.example.test/x?a=1&b=<2>",
              "ip": "192.0.2.7", "fetched": "20261130101502",
              "content_type": "text/html; charset=utf-8", "raw_length": 18231,
              "status_line": "HTTP/1.1 200 OK",
              "headers": [("Content-Type", "text/html; charset=utf-8"), ("Server", "nginx")],
              "meta": {"Language": "de", "Raw-Bytes": "18231"}, "paragraphs": list(NASTY)}
    fields.update(overrides)
    return fields


def test_round_trip_nasty_text():
    data = format_doc(**_fields())
    assert data.count(b"</DOC>\n") == 1 and data.endswith(b"</DOC>\n")
    assert data.count(b"<DOCNO>") == 1
    doc = parse_doc(data)
    assert doc == TrecDoc(**_fields(content_type="text/html;charset=utf-8"))
    assert doc.text == "\n".join(NASTY)


def test_first_dochdr_line_follows_trec_web():
    lines = format_doc(**_fields()).decode().split("\n")
    assert lines[3] == ("http://a.example.test/x?a=1&amp;b=&lt;2&gt; 192.0.2.7 20261130101502 "
                        "text/html;charset=utf-8 18231")
    assert lines[4] == "HTTP/1.1 200 OK"
    assert "X-Wacky-Language: de" in lines


def test_header_values_with_newlines_and_markup_are_sanitised():
    headers = [("X-Evil", "a\r\n</DOCHDR>\r\n<DOC>"), ("Bad Name:", "v")]
    data = format_doc(**_fields(headers=headers, paragraphs=["one\ntwo", "  ", ""]))
    doc = parse_doc(data)
    assert doc.headers == [("X-Evil", "a </DOCHDR> <DOC>"), ("Bad-Name-", "v")]
    assert doc.paragraphs == ["one two"]


def test_server_cannot_forge_crawl_metadata():
    doc = parse_doc(format_doc(**_fields(headers=[("X-Wacky-Language", "xx")])))
    assert doc.meta == {"Language": "de", "Raw-Bytes": "18231"}
    assert doc.headers == [("X-Upstream-X-Wacky-Language", "xx")]


def test_unknown_fields_and_spaces_in_url():
    data = format_doc(**_fields(url="http://a.test/a b", ip="", raw_length=None, headers=[],
                                status_line="", meta={}, paragraphs=[]))
    doc = parse_doc(data)
    assert (doc.url, doc.ip, doc.raw_length, doc.paragraphs) == ("http://a.test/a%20b", "-",
                                                                  None, [])


def test_lone_surrogate_does_not_crash():
    doc = parse_doc(format_doc(**_fields(paragraphs=["bad \udcff byte"])))
    assert doc.paragraphs == ["bad ? byte"]


def test_url_only_first_line_is_accepted():
    data = (b"<DOC>\n<DOCNO>D1</DOCNO>\n<DOCHDR>\nhttp://a.test/\nHTTP/1.1 200 OK\n"
            b"Content-Type: text/html\n</DOCHDR>\nText.\n</DOC>\n")
    doc = parse_doc(data)
    assert (doc.docno, doc.url, doc.ip, doc.paragraphs) == ("D1", "http://a.test/", "-", ["Text."])


@pytest.mark.parametrize("data", [
    b"",
    b"<DOC>\n<DOCNO>D1</DOCNO>\n</DOC>\n",
    b"<DOC>\n<DOCNO>D1</DOCNO>\n<DOCHDR>\nhttp://a 1.2.3.4\n</DOCHDR>\nx\n</DOC>\n",
    b"<DOC>\n<DOCNO>D1</DOCNO>\n<DOCHDR>\nu ip d t notanumber\n</DOCHDR>\nx\n</DOC>\n",
    b"<DOC>\n<DOCNO>D1</DOCNO>\n<DOCHDR>\nhttp://a\nno colon\n</DOCHDR>\nx\n</DOC>\n",
    b"<DOC>\n<DOCNO>D1</DOCNO>\n<DOCHDR>\nhttp://a\n</DOCHDR>\n<b>x\n</DOC>\n",
    b"<DOC>\n<DOCNO>D1</DOCNO>\n<DOCHDR>\nhttp://a\n</DOCHDR>\n\xff\n</DOC>\n",
])
def test_malformed_documents_raise(data):
    with pytest.raises(TrecFormatError):
        parse_doc(data)


def test_split_docs():
    one = format_doc(**_fields())
    two = format_doc(**_fields(docno="D2"))
    assert split_docs(one + two) == [one, two]
    with pytest.raises(TrecFormatError):
        split_docs(one + b"<DOC>\n<DOCNO>cut")


@pytest.mark.parametrize("value", ["30% of 7 words < 50%", "literal %20 stays", "100%",
                                   "%zz and %2", "a%25b", "tab\there", "caf\u00e9 50%"])
def test_a_literal_percent_in_a_value_is_encoded_and_read_back(value):
    data = format_doc(**_fields(meta={"Rejected-Detail": value}, ip=value,
                                content_type=f"text/html;x={value}"))
    stored = data.decode().split("\n")
    line = next(x for x in stored if x.startswith("X-Wacky-Rejected-Detail: "))
    assert "%" not in line.replace("%25", "").replace("%20", "").replace("%09", "")
    assert len(stored[3].split(" ")) == 5
    doc = parse_doc(data)
    assert doc.meta["Rejected-Detail"] == value and doc.ip == value
    assert doc.content_type == f"text/html;x={value}"
    # read and written again (wackycrawl filter does): the same bytes, nothing encoded twice
    again = {k: v for k, v in vars(doc).items()}
    assert format_doc(**again) == data


def test_the_url_keeps_its_percent_and_old_values_still_read():
    data = format_doc(**_fields(url="http://a.test/stra%C3%9Fe x.html"))
    assert data.decode().split("\n")[3].startswith("http://a.test/stra%C3%9Fe%20x.html ")
    assert parse_doc(data).url == "http://a.test/stra%C3%9Fe%20x.html"
    # written before "%" was encoded: "de by funcwords" and "30% off" stored as below
    old = format_doc(**_fields(meta={}))
    old = old.replace(b"</DOCHDR>", b"X-Wacky-Rejected-Detail: de%20by%20funcwords\n"
                                    b"X-Wacky-Note: 30%%20off\n</DOCHDR>")
    assert parse_doc(old).meta == {"Rejected-Detail": "de by funcwords", "Note": "30% off"}
