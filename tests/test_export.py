"""``wackycrawl export``: the vertical file read back by independent readers (cwb-vrt's
region parser and an XML parser), plain text and JSON lines."""

from __future__ import annotations

import gzip
import json
import re
import logging
import xml.etree.ElementTree as ET
from html import unescape

import pytest
from vrt.vrt import parse_regions

from tests.corpusdocs import GERMAN, SPECIAL, corpus_docs, write_corpus
from wackycrawl.cli import main
from wackycrawl.corpus.export import paragraph_languages, text_attributes, tld


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("export") / "corpus", corpus_docs())


def export(corpus, out, *extra, capsys=None):
    code = main(["export", str(corpus), "-o", str(out), *extra])
    return code, capsys.readouterr().err if capsys else ""


def reported(err: str) -> dict:
    m = re.search(r"(\d+) texts, (\d+) paragraphs, (\d+) sentences, (\d+) tokens", err)
    return dict(zip(("text", "p", "s", "tokens"), map(int, m.groups())))


def test_vrt_is_read_by_cwb_vrt_with_the_counts_we_report(corpus, tmp_path, capsys):
    code, err = export(corpus, tmp_path / "c.vrt", capsys=capsys)
    assert code == 0
    counts = reported(err)
    lines = (tmp_path / "c.vrt").read_text(encoding="utf-8").splitlines()
    logging.getLogger("vrt.vrt").setLevel(logging.ERROR)  # it warns on every empty <g/>
    tokens, regions = parse_regions(lines)
    assert counts["text"] == len(regions["text"]) == 6
    assert counts["p"] == len(regions["p"]) and counts["s"] == len(regions["s"])
    assert counts["tokens"] == len(tokens) > 1000
    first = regions["text"][0]
    # cwb-vrt hands attribute values back XML-escaped
    assert unescape(first["url"]) == 'http://www.example.co.uk/page0.html?a=1&b="2"'
    assert (first["host"], first["tld"], first["crawl_date"], first["lang"]) == (
        "www.example.co.uk", "uk", "2026-11-10", "en")
    assert regions["text"][2]["tld"] == "-"  # 127.0.0.1
    assert regions["p"][0]["lang"] == "en"
    assert "cwb-encode -c utf8 -x -s -B -P word -S text:0+id+url+host+tld" in err
    assert err.rstrip().endswith(f"-S g:0 -d data -f {tmp_path / 'c.vrt'} -R registry/c")


def test_vrt_is_well_formed_xml_and_tokens_are_the_text(corpus, tmp_path, capsys):
    export(corpus, tmp_path / "c.vrt.gz", capsys=capsys)
    data = gzip.decompress((tmp_path / "c.vrt.gz").read_bytes()).decode("utf-8")
    root = ET.fromstring(f"<corpus>\n{data}</corpus>")
    texts = root.findall("text")
    assert len(texts) == 6
    paragraphs = texts[0].findall("p")
    assert paragraphs[-1].get("lang") == "de"  # the foreign paragraph of an English text

    def rebuilt(p) -> str:
        out = []
        for s in p.findall("s"):
            words = (s.text or "").split("\n")
            for g in s.findall("g"):  # glue elements: the next token joins without space
                words += ["\0"] + (g.tail or "").split("\n")
            out.append(" ".join(w for w in words if w).replace(" \0 ", ""))
        return " ".join(out)

    assert rebuilt(paragraphs[0]).replace(" ", "") == SPECIAL.replace(" ", "")
    assert rebuilt(paragraphs[-1]).replace(" ", "") == GERMAN.replace(" ", "").replace(
        "\u00a0", "")
    assert "don" in rebuilt(paragraphs[0]) and "&amp;" not in rebuilt(paragraphs[0])


def test_glue_marks_tokens_without_space(corpus, tmp_path, capsys):
    export(corpus, tmp_path / "c.vrt", capsys=capsys)
    lines = (tmp_path / "c.vrt").read_text(encoding="utf-8").splitlines()
    i = lines.index("Stra\u00dfe")
    assert lines[i + 1:i + 3] == ["<g/>", ","]
    assert "&quot;" in lines and "&amp;" in lines and "&lt;b&gt;" in lines


def test_txt_and_jsonl(corpus, tmp_path, capsys):
    docs = corpus_docs()
    assert export(corpus, tmp_path / "c.txt", "--format", "txt")[0] == 0
    blocks = (tmp_path / "c.txt").read_text(encoding="utf-8").split("\n\n")
    assert [b for b in blocks if b] == [d.text for d in docs]
    assert export(corpus, tmp_path / "c.jsonl", "--format", "jsonl")[0] == 0
    records = [json.loads(line) for line in (tmp_path / "c.jsonl").open(encoding="utf-8")]
    assert [r["text"] for r in records] == [d.text for d in docs]
    assert records[0]["meta"]["Language-Mix"] == "en:0.800,de:0.200"
    assert records[0]["paragraph_langs"][-1] == "de" and records[1]["lang"] == "en"
    assert main(["export", str(corpus), "--format", "txt", "--one-per-file",
                 "-o", str(tmp_path / "each")]) == 0
    assert len(list((tmp_path / "each").glob("*.txt"))) == 6


def test_two_workers_write_the_same_vertical(corpus, tmp_path, capsys):
    export(corpus, tmp_path / "one.vrt", capsys=capsys)
    export(corpus, tmp_path / "two.vrt", "--workers", "2", capsys=capsys)
    assert (tmp_path / "one.vrt").read_bytes() == (tmp_path / "two.vrt").read_bytes()


def test_metadata_helpers():
    doc = corpus_docs(1)[0]
    assert text_attributes(doc)["language_mix"] == "en:0.800,de:0.200"
    assert paragraph_languages(doc)[0] == "en" and paragraph_languages(doc)[-1] == "de"
    assert tld("[::1]") == tld("10.0.0.1") == tld("") == "-" and tld("a.example.DE.") == "de"


def test_rejects_are_exported_on_request_with_their_reason(tmp_path, capsys):
    docs = corpus_docs(2)
    corpus = write_corpus(tmp_path / "corpus", docs[:1])
    docs[1].meta.update(Rejected="near_duplicate", **{"Rejected-Detail": "matches_x"})
    write_corpus(corpus / "rejects", docs[1:], worker="test-rejects")
    assert main(["export", str(corpus), "-o", str(tmp_path / "kept.jsonl"),
                 "--format", "jsonl"]) == 0
    assert len((tmp_path / "kept.jsonl").read_text(encoding="utf-8").splitlines()) == 1
    code, err = export(corpus, tmp_path / "all.vrt", "--rejects", capsys=capsys)
    assert code == 0 and reported(err)["text"] == 2
    text = (tmp_path / "all.vrt").read_text(encoding="utf-8")
    assert 'rejected="near_duplicate" rejected_detail="matches_x"' in text


def test_an_existing_output_file_is_refused_without_force(corpus, tmp_path, capsys):
    out = tmp_path / "c.txt"
    out.write_text("mine\n", encoding="utf-8")
    code, err = export(corpus, out, "--format", "txt", capsys=capsys)
    assert code == 1
    assert err == (f"wackycrawl export: {out} exists: give --force to replace it, or another "
                   "-o (nothing written)\n")
    assert out.read_text(encoding="utf-8") == "mine\n"
    code, err = export(corpus, out, "--format", "txt", "--force", capsys=capsys)
    assert code == 0 and out.read_text(encoding="utf-8") != "mine\n"


def test_the_help_shows_the_default_format(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    assert "(default: vrt)" in " ".join(capsys.readouterr().out.split())
