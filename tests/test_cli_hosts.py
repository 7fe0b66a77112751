"""The ``host`` of export and report keeps the URL's port: two sites on one address differ."""

import json

from tests.clirun import wackycrawl
from tests.corpusdocs import corpus_docs, write_corpus


def test_export_and_report_keep_the_port_of_a_host(tmp_path):
    docs = corpus_docs(3)
    for doc, netloc in zip(docs, ["127.0.0.1:8101", "127.0.0.1:8103", "WWW.Example.DE"]):
        doc.url = f"http://{netloc}/page.html"
    corpus = write_corpus(tmp_path / "corpus", docs)
    run = wackycrawl("export", corpus, "--format", "jsonl", "-o", tmp_path / "x.jsonl")
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert [(r["host"], r["tld"]) for r in rows] == [
        ("127.0.0.1:8101", "-"), ("127.0.0.1:8103", "-"), ("www.example.de", "de")]
    run = wackycrawl("report", corpus, "-o", tmp_path / "report")
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["hosts_total"] == 3
    assert {"127.0.0.1:8101", "127.0.0.1:8103"} <= set(report["hosts"])
