"""Charset labels that the WHATWG Encoding Standard does not have (Python's ``undefined``,
``idna``, ``punycode``, ``unicode_escape``, ``palmos``) are ignored, as browsers ignore them:
the page is decoded as an undeclared one, counted, and kept."""

from __future__ import annotations

import pytest

from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.text.encoding import (
    WEB_CODECS,
    declarations,
    decode_html,
    unknown_declared,
    unknown_labels,
)
from wackycrawl.trec.reader import iter_docs

BODY = "<html><body><p>Le café \\u0041 est ouvert \\ud800 à midi.</p></body></html>".encode()


@pytest.mark.parametrize("label", ["undefined", "idna", "punycode", "unicode_escape",
                                   "palmos", "rot13", "base64"])
def test_unknown_label_in_header_is_ignored(label):
    decoded = decode_html(BODY, f"text/html; charset={label}")
    assert decoded.text == BODY.decode("utf-8")  # \u0041 stays as written
    assert decoded.encoding == "utf-8"
    assert decoded.evidence.startswith("guess:")
    assert [source for source, _ in decoded.ignored] == ["header"]


@pytest.mark.parametrize("label", ["undefined", "idna", "palmos"])
def test_unknown_label_in_meta_is_ignored(label):
    body = f'<html><head><meta charset="{label}"></head>'.encode() + BODY
    decoded = decode_html(body)
    assert decoded.encoding == "utf-8"
    assert "\\u0041" in decoded.text
    assert [source for source, _ in decoded.ignored] == ["body"]
    assert declarations(body, None) == []
    assert unknown_labels(body, None)[0][0] == "body"


def test_unknown_header_label_gives_way_to_the_meta_label():
    body = '<meta charset="windows-1252"><p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>'.encode("cp1252")
    decoded = decode_html(body, "text/html; charset=idna")
    assert (decoded.encoding, decoded.evidence) == ("cp1252", "declared:meta")
    assert "café crème brûlée" in decoded.text


def test_whatwg_labels_still_count():
    assert decode_html(BODY, "text/html; charset=ISO-8859-1").ignored == ()
    assert {"utf-8", "cp1252", "cp1251", "cp932", "gb18030", "utf-16-le"} <= WEB_CODECS
    assert not {"undefined", "idna", "punycode", "unicode-escape", "palmos"} & WEB_CODECS


def test_unknown_declared_names_the_codec_to_read_with():
    assert unknown_declared(BODY, "text/html; charset=utf-8") is None
    assert unknown_declared(BODY, "text/html") is None
    assert unknown_declared(BODY, "text/html; charset=nonsense") is None  # w3lib ignores it
    assert unknown_declared(BODY, "text/html; charset=undefined") == "utf-8"
    latin = '<meta charset="palmos"><p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>'.encode("cp1252")
    assert unknown_declared(latin, None) == "cp1252"


def test_cli_encoding_with_unknown_label(tmp_path, capsys):
    from wackycrawl.cli import main

    path = tmp_path / "page.html"
    path.write_bytes(b'<meta charset="undefined">' + BODY)
    assert main(["encoding", "--content-type", "text/html; charset=idna", str(path)]) == 0
    assert "\tutf-8\tguess:utf-8" in capsys.readouterr().out


H = "http://www.labels.test"


@pytest.mark.crawl
def test_crawl_keeps_pages_with_unknown_labels(tmp_path):
    pages = {"/undefined.html": ("text/html; charset=undefined", ""),
             "/idna.html": ("text/html", '<meta charset="idna">'),
             "/escape.html": ("text/html; charset=unicode_escape", ""),
             "/refresh.html": ("text/html; charset=punycode",
                               '<meta http-equiv="refresh" content="0; url=/target.html">')}
    with LocalWeb() as web:
        web.add(f"{H}/", page("Start", prose(0), links=list(pages), nav_links=0))
        for i, (path, (ctype, head)) in enumerate(pages.items(), 1):
            paras = prose(i)
            paras[1] += " Escapes such as \\u0041 stay as written."
            web.add(H + path, page(path, paras, links=[f"/next{i}.html"], nav_links=0,
                                   head=head), content_type=ctype)
            web.add(f"{H}/next{i}.html", page(f"Next {i}", prose(10 + i), nav_links=0))
        web.add(f"{H}/target.html", page("Target", prose(20), nav_links=0))
        result = run_crawl(web, [f"{H}/"], tmp_path)
    assert "Traceback" not in result.log
    urls = {doc.url: doc for f in result.outdir.glob("*.trec.gz") for _, doc in iter_docs(str(f))}
    for path in ("/undefined.html", "/idna.html", "/escape.html"):
        assert H + path in urls, path
        assert "\\u0041 stay as written" in urls[H + path].text
    # the links of those pages were read, and the meta refresh followed
    assert {f"{H}/next1.html", f"{H}/next2.html", f"{H}/next3.html", f"{H}/target.html"} <= set(urls)
    assert result.stat("wacky/encoding/unknown_label") == 3
    assert result.stat("wacky/charset/unknown_label") == 4
    assert result.stat("wacky/drop/download_error") == 0
