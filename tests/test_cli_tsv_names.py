"""File names with a TAB, a line break or a leading quote in the TSV outputs of ``langid``,
``dedup`` and ``encoding``: written as JSON strings, so every row keeps its columns and the
name reads back (:func:`wackycrawl.cli.split_tsv_name`, as ``process-done.tsv`` is read)."""

from __future__ import annotations

import json
import os

from tests.neardup_texts import ARTICLE, text
from tests.test_funcwords import EN
from wackycrawl.cli import main, split_tsv_name, tsv_name

ODD = ["tab\there.txt", "line\nbreak.txt", "cr\rhere.txt", "sep\u2028here.txt",
       '"quoted.txt', "plain name.txt"]


def _files(tmp_path, text: str) -> list[str]:
    names = []
    for odd in ODD:
        path = tmp_path / odd
        path.write_text(text, encoding="utf-8")
        names.append(str(path))
    return names


def _rows(out: str, columns: int) -> list[tuple[str, list[str]]]:
    """Each output line: its first field read back as a name, and its other fields."""
    assert out.endswith("\n")
    rows = []
    for line in out[:-1].split("\n"):
        name, rest = split_tsv_name(line)
        fields = rest.split("\t")
        assert len(fields) == columns - 1, line
        rows.append((name, fields))
    return rows


def test_tsv_name_rule():
    assert tsv_name("a b.txt") == "a b.txt"
    assert tsv_name("a\tb.txt") == '"a\\tb.txt"'
    assert tsv_name('"q') == '"\\"q"'
    assert tsv_name("x\udcff.txt") == '"x\\udcff.txt"'  # bytes that are no UTF-8
    for name in [*ODD, "x\udcff.txt"]:
        assert split_tsv_name(tsv_name(name) + "\trest\tmore") == (name, "rest\tmore")


def test_langid_rows_keep_their_columns(tmp_path, capsys):
    names = _files(tmp_path, EN)
    assert main(["langid", *names]) == 0
    rows = _rows(capsys.readouterr().out, 5)
    assert [name for name, _ in rows] == names
    assert {fields[0] for _, fields in rows} == {"en"}
    assert main(["langid", "--lines", "--min-chars", "0", names[0]]) == 0
    rows = _rows(capsys.readouterr().out, 5)
    assert rows[0][0] == f"{names[0]}:1"


def test_encoding_rows_keep_their_columns(tmp_path, capsys):
    names = _files(tmp_path, f"<html><body><p>{EN}</p></body></html>")
    assert main(["encoding", *names]) == 0
    rows = _rows(capsys.readouterr().out, 3)
    assert [name for name, _ in rows] == names
    assert all(fields[0] == "utf-8" for _, fields in rows)


def test_dedup_rows_and_clusters_keep_their_columns(tmp_path, capsys):
    names = _files(tmp_path, text(ARTICLE))
    assert main(["dedup", *names]) == 0
    rows = _rows(capsys.readouterr().out, 6)
    assert [name for name, _ in rows] == names
    assert [json.loads(f[0]) if f[0].startswith('"') else f[0] for _, f in rows] == [names[0]] * 6
    assert [f[1] for _, f in rows] == ["new"] + ["exact_duplicate"] * 5
    assert main(["dedup", "--clusters", *names]) == 0
    (line,) = capsys.readouterr().out.splitlines()  # one line: no name breaks it
    assert [json.loads(f) if f.startswith('"') else f for f in line.split("\t")] == names
    assert os.path.exists(names[1])
