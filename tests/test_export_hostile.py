"""``wackycrawl export`` and ``report`` on hostile documents and vertical files: what a
document's text, URL or metadata holds must not break the vertical file's lines, and a
vertical file of another tool is counted as it stands."""

from __future__ import annotations

import json
import logging
import xml.etree.ElementTree as ET

from vrt.vrt import parse_regions

from tests.corpusdocs import write_corpus
from wackycrawl.cli import main
from wackycrawl.trec.format import TrecDoc

HOSTILE = [
    'Tab\there </DOC> <s> </text> & "q" <g/> end.',
    "Line\u2028sep and\u2029para.",
    "Zero\u200bwidth \ufeff and \u202e RLO \U0001F468\u200d\U0001F469 \u4e2d\u6587\u3002",
]


def hostile_doc(**meta) -> TrecDoc:
    return TrecDoc(url='http://h\u00f6st.test/a b"c<d>&e\tf\u2028g', ip="127.0.0.1",
                   fetched="20261201120000", content_type="text/html", raw_length=100,
                   status_line="HTTP/1.1 200 OK", meta={"Language": "en", **meta},
                   paragraphs=list(HOSTILE))


def test_attribute_values_with_tabs_and_line_breaks_stay_on_the_tag_line(tmp_path, capsys):
    seed = 'b\u00fcro\ttab\nnewline\rcr\u2028ls\u2029ps "quoted" <x> & y'
    corpus = write_corpus(tmp_path / "corpus", [hostile_doc(**{"Seed-Query": seed})])
    out = tmp_path / "c.vrt"
    assert main(["export", str(corpus), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()  # str.splitlines: also at U+2028, U+2029
    assert lines == text.split("\n")[:-1]
    assert not any("\t" in line for line in lines)
    tag = lines[0]
    assert tag.startswith("<text ") and tag.endswith(">")
    # an XML parser and cwb-vrt's reader read the attribute back
    root = ET.fromstring(f"<corpus>{text}</corpus>")
    assert root[0].get("seed_query") == 'b\u00fcro tab newline cr ls ps "quoted" <x> & y'
    logging.getLogger("vrt.vrt").setLevel(logging.CRITICAL)
    tokens, regions = parse_regions(lines)
    err = capsys.readouterr().err
    assert len(tokens) == int(err.split(" tokens")[0].rsplit(" ", 1)[1])
    assert len(regions["text"]) == 1
    assert regions["text"][0]["seed_query"].startswith("b\u00fcro tab newline")


def report_of(tmp_path, vertical: str, name: str = "v") -> dict:
    path = tmp_path / f"{name}.vrt"
    path.write_text(vertical, encoding="utf-8")
    assert main(["report", str(path), "-o", str(tmp_path / f"{name}-report")]) == 0
    return json.loads((tmp_path / f"{name}-report" / "report.json").read_text())


def test_report_counts_each_doc_of_a_vertical_without_s_or_p(tmp_path):
    # a Sketch Engine vertical of <doc> elements holding tokens (word, tag, lemma) only
    vertical = ('<doc id="1" url="http://a.test/" lang="en">\nHello\tUH\thello\n<g/>\n!\t.\t!\n'
                "</doc>\n"
                '<doc id="2" url="http://b.test/" lang="en">\nGood\tJJ\tgood\nbye\tNN\tbye\n'
                " padded \n</doc>\n")
    summary = report_of(tmp_path, vertical)
    assert summary["documents"] == 2 and summary["tokens"] == 5
    assert summary["hosts"]["b.test"]["tokens"] == 3
    assert summary["document_tokens"]["min"] == 2
    freq = (tmp_path / "v-report" / "freq.tsv").read_text(encoding="utf-8").splitlines()
    assert "padded\t1" in freq


def test_report_reads_pb_and_sub_tags_as_unknown_tags(tmp_path):
    vertical = ('<text id="1" url="http://a.test/" lang="de">\n<p lang="de">\n<s>\nEins\n'
                '<sub>\nzwei\n</sub>\n</s>\n<pb n="2"/>\n<s>\ndrei\n</s>\n</p>\n</text>\n')
    summary = report_of(tmp_path, vertical)
    assert (summary["paragraphs"], summary["sentences"], summary["tokens"]) == (1, 2, 3)


def test_report_plots_labels_with_dollar_signs_literally(tmp_path):
    # labels from the data are no matplotlib math: "$\foo{$" used to fail the whole report
    vertical = ('<text id="1" url="http://a.test/" tld="$\\foo{$" lang="$^^$">\n'
                '<p lang="$x_{$">\n<s>\nHello\n</s>\n</p>\n</text>\n')
    summary = report_of(tmp_path, vertical)
    assert summary["tlds"] == {"$\\foo{$": {"documents": 1, "tokens": 1}}
    assert (tmp_path / "v-report" / "languages.png").stat().st_size > 0


def test_a_metadata_key_starting_with_a_digit_is_a_valid_attribute_name(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus", [hostile_doc(**{"2nd-Pass": "yes"})])
    out = tmp_path / "c.vrt"
    assert main(["export", str(corpus), "-o", str(out)]) == 0
    root = ET.fromstring(f"<corpus>{out.read_text(encoding='utf-8')}</corpus>")
    assert root[0].get("_2nd_pass") == "yes"
    assert "+_2nd_pass" in capsys.readouterr().err  # declared to cwb-encode as written


def test_two_metadata_keys_with_one_attribute_name_are_both_kept(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus",
                          [hostile_doc(**{"Weird-Key!": "one", "Weird-Key?": "two"})])
    out = tmp_path / "c.vrt"
    assert main(["export", str(corpus), "-o", str(out)]) == 0
    root = ET.fromstring(f"<corpus>{out.read_text(encoding='utf-8')}</corpus>")
    assert (root[0].get("weird_key_"), root[0].get("weird_key__2")) == ("one", "two")
    assert "+weird_key__2" in capsys.readouterr().err  # declared to cwb-encode too
