"""``wackycrawl langid``: files, stdin lines, output columns."""

import argparse
import io
import sys

from tests.test_funcwords import DE, EN
from wackycrawl.cli import langid


def run(argv, stdin=b""):
    parser = argparse.ArgumentParser(prog="wackycrawl")
    langid.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["langid", *argv])
    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(stdin)), io.StringIO()
    try:
        status = args.func(args)
        return status, sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = old_in, old_out


def test_files_one_document_each(tmp_path):
    (tmp_path / "en.txt").write_text(EN, encoding="utf-8")
    (tmp_path / "de.txt").write_bytes(DE.encode() + b"\xff")  # a stray byte is tolerated
    status, out = run([str(tmp_path / "en.txt"), str(tmp_path / "de.txt")])
    rows = [line.split("\t") for line in out.splitlines()]
    assert status == 0
    assert [(r[0].rsplit("/", 1)[1], r[1], r[3]) for r in rows] == [
        ("en.txt", "en", "funcwords"),
        ("de.txt", "de", "funcwords"),
    ]
    assert all(0 < float(r[2]) <= 1 for r in rows)


def test_stdin_lines_with_c12_and_c13_rows():
    text = "THE COUNCIL APPROVED THE NEW SCHOOL BUDGET ON MONDAY EVENING\nHello Lisbon\n"
    status, out = run(["--lines", "--min-chars", "0"], text.encode())
    assert status == 0
    assert out.splitlines() == [
        "-:1\ten\t0.300\tfuncwords",
        "-:2\tund\t0.000\tno-evidence",
    ]


def test_prose_columns():
    _, out = run(["--prose"], EN.encode())
    name, lang, _score, method, types, tokens, ratio, prose = out.strip().split("\t")
    assert (name, lang, method, prose) == ("-", "en", "funcwords", "yes")
    assert int(types) >= 10 and int(tokens) >= 30 and float(ratio) > 0.25


def test_missing_file_reported_and_others_processed(tmp_path):
    (tmp_path / "en.txt").write_text(EN, encoding="utf-8")
    status, out = run([str(tmp_path / "nope.txt"), str(tmp_path / "en.txt")])
    assert status == 1
    assert out.count("\n") == 1 and "\ten\t" in out
