"""Corpus readers (export, report, filter) leave ``.open`` files out and say so on stderr."""

from tests.clirun import wackycrawl
from tests.corpusdocs import corpus_docs, write_corpus
from tests.test_trec_writer import leave_open_file


def test_export_report_and_filter_name_the_open_files_they_leave_out(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", corpus_docs(3))
    left = leave_open_file(corpus, "k9", 2)  # a worker killed with kill -9
    runs = {"export": wackycrawl("export", corpus, "--format", "jsonl", "-o", tmp_path / "x.jsonl"),
            "report": wackycrawl("report", corpus, "-o", tmp_path / "report"),
            "filter": wackycrawl("filter", corpus, "-o", tmp_path / "filtered")}
    for command, run in runs.items():
        assert run.returncode == 0, run.stderr
        note = [line for line in run.stderr.splitlines() if "still open" in line]
        assert note and note[0].startswith(f"wackycrawl {command}: left out 1 file(s)"), run.stderr
        assert note[0].endswith(left) and f"'wackycrawl trec recover {corpus}'" in note[0]
    assert "3 documents" in runs["export"].stderr
    assert "read 3 documents" in runs["filter"].stderr
    # what the note says includes them
    assert wackycrawl("trec", "recover", corpus).returncode == 0
    run = wackycrawl("export", corpus, "--format", "jsonl", "-o", tmp_path / "y.jsonl")
    assert "still open" not in run.stderr and "5 documents" in run.stderr
