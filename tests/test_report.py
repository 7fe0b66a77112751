"""``wackycrawl report``: its counts against an independent count over the exported vertical
file, valid PNGs (read by Pillow), an offline HTML page, freq.tsv read by ``tuples``, and
the Zipf and Heaps fits on data with known parameters."""

from __future__ import annotations

import json
import statistics
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser

import numpy as np
import pytest
from PIL import Image

from tests.corpusdocs import corpus_docs, write_corpus
from wackycrawl.cli import main
from wackycrawl.corpus.report import PLOTS
from wackycrawl.corpus.stats import CorpusStats, Paragraph, heaps_fit, zipf_fit


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    corpus = write_corpus(base / "corpus", corpus_docs(9))
    stats_file = base / "stats.json"
    stats_file.write_text(json.dumps({"wacky/drop/too_short": 4, "wacky/kept": 9,
                                      "wacky/drop/too_small": 2}))
    assert main(["report", str(corpus), "-o", str(base / "out"), "--stats",
                 str(stats_file)]) == 0
    assert main(["export", str(corpus), "-o", str(base / "c.vrt")]) == 0
    summary = json.loads((base / "out" / "report.json").read_text(encoding="utf-8"))
    return base, summary


def test_counts_equal_an_independent_count_over_the_vertical_file(reported):
    base, summary = reported
    root = ET.fromstring("<corpus>" + (base / "c.vrt").read_text(encoding="utf-8") + "</corpus>")
    words = Counter()
    for s in root.iter("s"):
        for chunk in [s.text or ""] + [g.tail or "" for g in s.iter("g")]:
            words.update(line for line in chunk.split("\n") if line)
    assert summary["tokens"] == sum(words.values()) > 2000
    assert summary["types"] == len(words)
    assert summary["hapax_legomena"] == sum(1 for c in words.values() if c == 1)
    assert summary["documents"] == len(root.findall("text")) == 9
    assert summary["paragraphs"] == len(list(root.iter("p")))
    assert summary["type_token_ratio"] == round(len(words) / sum(words.values()), 6)


def test_report_of_the_vertical_file_gives_the_same_numbers(reported):
    base, summary = reported
    assert main(["report", str(base / "c.vrt"), "-o", str(base / "from-vrt")]) == 0
    again = json.loads((base / "from-vrt" / "report.json").read_text(encoding="utf-8"))
    for key in ("documents", "paragraphs", "sentences", "tokens", "types", "hapax_legomena",
                "zipf", "heaps", "tlds", "hosts", "languages", "document_tokens"):
        assert again[key] == summary[key], key


def test_plots_are_png_images_and_the_page_references_them(reported):
    base, summary = reported
    out = base / "out"
    for name in PLOTS:
        with Image.open(out / name) as img:
            assert img.format == "PNG" and img.size[0] > 200 and img.size[1] > 100
            img.verify()

    class Images(HTMLParser):
        srcs: list = []

        def handle_starttag(self, tag, attrs):
            if tag == "img":
                self.srcs.append(dict(attrs)["src"])

    page = (out / "report.html").read_text(encoding="utf-8")
    parser = Images()
    parser.feed(page)
    assert sorted(parser.srcs) == sorted(PLOTS)
    assert "<script" not in page and "<link" not in page and 'src="http' not in page
    assert str(summary["tokens"]) in page and "too_short" in page
    d = summary["document_tokens"]  # the length figures of report.json, quartiles and p95
    row = ", ".join(str(d[k]) for k in ("min", "p25", "median", "p75", "p95", "mean", "max"))
    assert "95th percentile" in page and row in page


def test_tables_and_drops(reported):
    _, summary = reported
    assert set(summary["tlds"]) == {"uk", "de", "-"}
    assert summary["hosts_total"] == 3 and summary["languages"]["documents"]["de"] == 3
    assert summary["languages"]["tokens_by_paragraph"]["de"] > 0
    assert summary["drops"] == {"too_short": 4, "too_small": 2}
    d = summary["document_tokens"]
    assert d["min"] <= d["p25"] <= d["median"] <= d["p75"] <= d["max"]


def test_frequency_list_feeds_tuples(reported, capsys):
    base, summary = reported
    lines = (base / "out" / "freq.tsv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == summary["types"]
    counts = [int(line.split("\t")[1]) for line in lines]
    assert counts == sorted(counts, reverse=True) and sum(counts) == summary["tokens"]
    capsys.readouterr()
    assert main(["tuples", str(base / "out" / "freq.tsv"), "-n", "5", "--seed", "1",
                 "--skip-top", "10"]) == 0
    tuples = capsys.readouterr().out.splitlines()
    assert len(tuples) == 5 and all(len(t.split()) == 3 for t in tuples)


def test_zipf_and_heaps_fits_recover_known_parameters():
    ranks = np.arange(1, 5001)
    freqs = np.round(1e6 / ranks ** 1.2).astype(np.int64)
    fit = zipf_fit(freqs, int(freqs.sum()))
    assert fit["exponent"] == pytest.approx(1.2, abs=0.02)
    n = np.geomspace(100, 1e7, 40)
    fit = heaps_fit([(int(x), int(30 * x ** 0.5)) for x in n])
    assert fit["beta"] == pytest.approx(0.5, abs=0.01) and fit["K"] == pytest.approx(30, rel=0.05)


def test_median_document_length_is_the_usual_median():
    """Even counts: the mean of the two middle lengths (statistics.median), not the lower
    one (nearest rank); odd counts: the middle length."""
    rng = np.random.default_rng(7)
    for count in (1, 2, 3, 22, 23, 100, 101):
        lengths = [int(x) for x in rng.integers(1, 5000, count)]
        stats = CorpusStats()
        for n in lengths:
            stats.add({"host": "h", "tld": "t", "lang": "en"},
                      [Paragraph("en", [[f"w{i}" for i in range(n)]])])
        d = stats.summary()["document_tokens"]
        assert d["median"] == statistics.median(lengths), (count, lengths)
        assert d["min"] <= d["p25"] <= d["median"] <= d["p75"] <= d["p95"] <= d["max"]
    stats = CorpusStats()
    for n in (2300, 2302, 2305, 2400):  # the two middle lengths 2302 and 2305
        stats.add({}, [Paragraph("en", [["w"] * n])])
    assert stats.summary()["document_tokens"]["median"] == 2303.5


def test_heaps_curve_is_sampled_not_stored():
    stats = CorpusStats()
    rng = np.random.default_rng(1)
    for _ in range(200):
        words = [f"w{x}" for x in rng.zipf(1.5, 500)]
        stats.add({"host": "h", "tld": "t", "lang": "en"}, [Paragraph("en", [words])])
    curve = stats.heaps_curve()
    assert curve[-1] == (100_000, len(stats.freq)) and len(curve) < 150
    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(curve, curve[1:]))


def test_an_empty_or_missing_corpus_is_an_error_and_writes_nothing(tmp_path, capsys):
    """As export, filter and ``trec check``: a folder without TREC files is exit status 1,
    one line, no report (with or without vertical files and --stats beside it)."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "stats.json").write_text('{"wacky/drop/too_short": 3}')
    vertical = tmp_path / "one.vrt"
    vertical.write_text('<doc url="http://a.test/">\n<p>\nWord\tNN\tword\n</p>\n</doc>\n')
    for extra in ([], ["--stats", str(tmp_path / "stats.json")], [str(vertical)]):
        assert main(["report", str(tmp_path / "empty"), *extra, "-o", str(tmp_path / "out")]) == 1
        assert capsys.readouterr().err == (f"wackycrawl report: no .trec.gz file in "
                                           f"{tmp_path / 'empty'}\n")
        assert not (tmp_path / "out").exists()
    assert main(["report", str(tmp_path / "missing"), "-o", str(tmp_path / "out2")]) == 1
    assert "no such corpus file or directory" in capsys.readouterr().err
    assert not (tmp_path / "out2").exists()


def test_a_report_of_no_document_still_draws_its_plots(tmp_path):
    """A corpus whose documents all lose their tokens counts 0 documents: the plots are drawn."""
    from wackycrawl.corpus.report import write_report

    summary = write_report(CorpusStats(), str(tmp_path / "out"))
    assert (summary["documents"], summary["tokens"], summary["zipf"]["exponent"]) == (0, 0, None)
    for name in PLOTS:
        with Image.open(tmp_path / "out" / name) as img:
            img.verify()


def test_unreadable_inputs_are_errors_naming_the_file(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    junk = tmp_path / "junk.vrt"
    junk.write_bytes(b"\x7fELF\x02\xd0\x01" * 50)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    for argv in ([str(junk)], [str(tmp_path / "empty"), "--stats", str(junk)],
                 [str(tmp_path / "empty"), "--stats", str(listed)]):
        assert main(["report", *argv, "-o", str(tmp_path / "out")]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"wackycrawl report: {argv[-1]}: ") and "Traceback" not in err


def test_a_stats_file_that_is_no_json_is_named_as_such(tmp_path, capsys):
    """A seed list or a binary file given as --stats is "not a stats file", not a bare
    JSON decoder message."""
    (tmp_path / "empty").mkdir()
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    binary = tmp_path / "stats.bin"
    binary.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe" * 20)
    for stats in (seeds, binary):
        assert main(["report", str(tmp_path / "empty"), "--stats", str(stats), "-o",
                     str(tmp_path / "out")]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"wackycrawl report: {stats}: not a stats file "
                              "(WACKY_STATS_FILE): not JSON (")
        assert len(err.splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_missing_stats_file_says_where_one_comes_from(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    missing = tmp_path / "stats.json"
    assert main(["report", str(tmp_path / "empty"), "--stats", str(missing), "-o",
                 str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"wackycrawl report: {missing}: no such file: ")
    assert "-s WACKY_STATS_FILE=" in err and not (tmp_path / "out").exists()


SKETCH_DOCS = [  # (url, paragraphs of sentences of word/tag/lemma lines)
    ("http://www.example.de/a.html", [[["Der\tART\tder", "Hund\tNN\tHund", "bellt\tVVFIN\tbellen",
                                        ".\t$.\t."]], [["Er\tPPER\ter", "schläft\tVVFIN\tschlafen"]]]),
    ("http://news.example.co.uk/b", [[["a\tDT\ta", "cat\tNN\tcat", "&amp;\tCC\t&amp;",
                                       "a\tDT\ta", "dog\tNN\tdog"]]]),
]


def _vertical(element: str) -> str:
    out = []
    for i, (url, paragraphs) in enumerate(SKETCH_DOCS):
        out.append(f'<{element} id="d{i}" url="{url}">')
        for sentences in paragraphs:
            out.append("<p>")
            for sentence in sentences:
                out += ["<s>", *sentence, "</s>"]
            out.append("</p>")
        out.append(f"</{element}>")
    return "\n".join(out) + "\n"


def test_doc_elements_are_read_as_text_elements(tmp_path):
    """Sketch Engine's usual structure, ``<doc>`` documents with word/tag/lemma columns, is
    read as ``<text>`` is: the same numbers, hosts and TLDs from the URLs."""
    summaries = {}
    for element in ("doc", "text"):
        path = tmp_path / f"{element}.vrt"
        path.write_text(_vertical(element), encoding="utf-8")
        assert main(["report", str(path), "-o", str(tmp_path / element)]) == 0
        summaries[element] = json.loads((tmp_path / element / "report.json").read_text())
    doc = summaries["doc"]
    assert doc["documents"] == 2 and doc["paragraphs"] == 3 and doc["sentences"] == 3
    assert doc["tokens"] == 11 and doc["types"] == 10  # "a" twice; "&amp;" read as "&"
    assert set(doc["hosts"]) == {"www.example.de", "news.example.co.uk"}
    assert set(doc["tlds"]) == {"de", "uk"}
    for key in ("documents", "paragraphs", "sentences", "tokens", "types", "hapax_legomena",
                "tlds", "hosts", "document_tokens"):
        assert summaries["text"][key] == doc[key], key
    freq = (tmp_path / "doc" / "freq.tsv").read_text(encoding="utf-8").splitlines()
    assert "a\t2" in freq and "&\t1" in freq


@pytest.mark.parametrize("content", [
    "Der\nHund\nbellt\n.\n",  # a bare token-per-line file
    "Der Hund bellt.\nEr schläft.\n\nA cat and a dog.\n\n",  # a txt export renamed
    "",  # an empty file
])
def test_a_vertical_file_without_documents_is_an_error_not_an_empty_report(tmp_path, capsys,
                                                                           content):
    path = tmp_path / "tokens.vrt"
    path.write_text(content, encoding="utf-8")
    assert main(["report", str(path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err == (f"wackycrawl report: {path}: no <text> or <doc> element: not a vertical "
                   "file (one token per line inside <text ...>...</text> or <doc ...>...</doc>, "
                   "as wackycrawl export writes)\n")
    assert not (tmp_path / "out").exists()


def test_a_damaged_input_or_a_failed_write_leaves_no_report(tmp_path, capsys, monkeypatch):
    """As export and filter: a damaged TREC file writes nothing (exit 1, the error names the
    file and ``trec recover``); a write that fails (a full disk) leaves no folder behind."""
    corpus = write_corpus(tmp_path / "corpus", corpus_docs(2))
    trunc = next(corpus.glob("*.trec.gz"))
    trunc.write_bytes(trunc.read_bytes()[:-20])
    assert main(["report", str(corpus), "-o", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err
    assert "report in" not in err and f"damaged {trunc}" in err and "trec recover" in err
    assert err.strip().endswith(f"nothing written to {tmp_path / 'r'}: an input file is damaged")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]
    good = write_corpus(tmp_path / "good", corpus_docs(2))

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("wackycrawl.corpus.report._save", full_disk)
    assert main(["report", str(good), "-o", str(tmp_path / "r")]) == 1
    assert capsys.readouterr().err == "wackycrawl report: [Errno 28] No space left on device\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "good"]


def test_a_folder_holding_an_earlier_report_is_refused_without_force(reported, capsys):
    base, _ = reported
    before = (base / "out" / "report.json").read_bytes()
    capsys.readouterr()
    assert main(["report", str(base / "c.vrt"), "-o", str(base / "out")]) == 1
    assert capsys.readouterr().err == (
        f"wackycrawl report: {base / 'out'} already holds files (an earlier report?): give "
        "--force to replace the report in it, or another -o (nothing written)\n")
    assert (base / "out" / "report.json").read_bytes() == before
    assert main(["report", str(base / "c.vrt"), "-o", str(base / "out"), "--force"]) == 0
    assert (base / "out" / "report.json").read_bytes() != before
