"""``wackycrawl dedup``: texts in, clusters out (real files, and a separate process)."""

import argparse
import subprocess
import sys

import pytest

from tests.neardup_texts import ARTICLE, SAME_TOPIC, edited, retemplated, text, truncated
from wackycrawl.cli import dedup

# the subcommand alone, as ``wackycrawl dedup`` builds it (see test_cli_langid)
RUN = """
import argparse, sys
from wackycrawl.cli import dedup
parser = argparse.ArgumentParser(prog="wackycrawl")
dedup.register(parser.add_subparsers(dest="command", required=True))
args = parser.parse_args(sys.argv[1:])
sys.exit(args.func(args))
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="wackycrawl")
    dedup.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def write(tmp_path):
    files = {"a.txt": text(ARTICLE), "topic1.txt": text(SAME_TOPIC[0]),
             "a-edited.txt": edited(), "a-copy.txt": "  " + text(ARTICLE).replace("\n", "\n\n"),
             "topic2.txt": text(SAME_TOPIC[1]), "a-retemplated.txt": retemplated(),
             "a-truncated.txt": truncated(), "short.txt": "Home | Contact", "blank.txt": " \n"}
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    return [str(tmp_path / name) for name in files]


def rows(out: str, tmp_path) -> list[list[str]]:
    return [[c.replace(f"{tmp_path}/", "") for c in line.split("\t")] for line in out.splitlines()]


def test_one_line_per_file_in_the_order_given(tmp_path, capsys):
    assert main(["dedup", *write(tmp_path)]) == 0
    got = rows(capsys.readouterr().out, tmp_path)
    assert [r[:3] for r in got] == [
        ["a.txt", "a.txt", "new"],
        ["topic1.txt", "topic1.txt", "new"],
        ["a-edited.txt", "a.txt", "near_duplicate"],
        ["a-copy.txt", "a.txt", "exact_duplicate"],
        ["topic2.txt", "topic2.txt", "new"],
        ["a-retemplated.txt", "a.txt", "near_duplicate"],
        ["a-truncated.txt", "a.txt", "near_duplicate"],
        ["short.txt", "short.txt", "too_few_features"],
        ["blank.txt", "blank.txt", "empty"],
    ]
    by_name = {r[0]: r for r in got}
    assert by_name["a-copy.txt"][3:] == ["0", "1.00", "a.txt"]
    for name in ("a-edited.txt", "a-retemplated.txt", "a-truncated.txt"):
        distance, resemblance, of = by_name[name][3:]
        assert 4 <= int(distance) <= 11 and float(resemblance) >= 0.5 and of == "a.txt"
    assert by_name["topic1.txt"][3:] == ["-", "-", "-"]


def test_clusters_and_manku_k_3(tmp_path, capsys):
    files = write(tmp_path)
    assert main(["dedup", "--clusters", *files]) == 0
    assert rows(capsys.readouterr().out, tmp_path) == [
        ["a.txt", "a-edited.txt", "a-copy.txt", "a-retemplated.txt", "a-truncated.txt"]]
    assert main(["dedup", "--clusters", "--k", "3", *files]) == 0
    assert rows(capsys.readouterr().out, tmp_path) == [["a.txt", "a-copy.txt"]]


def test_unreadable_and_non_utf8_files_are_reported_and_skipped(tmp_path):
    files = write(tmp_path)
    (tmp_path / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    run = subprocess.run(
        [sys.executable, "-c", RUN, "dedup", str(tmp_path / "missing.txt"), str(tmp_path / "latin1.txt"), *files[:3]],
        check=False, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "missing.txt: No such file" in run.stderr and "latin1.txt: not UTF-8" in run.stderr
    assert [r[2] for r in rows(run.stdout, tmp_path)] == ["new", "new", "near_duplicate"]


def test_bad_settings_are_an_error(tmp_path, capsys):
    assert main(["dedup", "--k", "16", *write(tmp_path)[:1]]) == 2
    assert "k must be in 0..15" in capsys.readouterr().err
    for option, value, message in (("--shingle-size", "0", "shingle size must be in 1..10"),
                                   ("--sketch-size", "0", "sketch size must be >= 1"),
                                   ("--threshold", "2", "threshold must be in 0..1")):
        assert main(["dedup", option, value, *write(tmp_path)[:1]]) == 2
        assert message in capsys.readouterr().err


def test_a_shingle_size_out_of_range_stops_the_stage_when_it_is_built():
    from scrapy.settings import Settings

    from wackycrawl.pipelines.dedup import shingle_settings

    with pytest.raises(ValueError, match="WACKY_SHINGLE_SIZE"):
        shingle_settings(Settings({"WACKY_SHINGLE_SIZE": 11}))
    assert shingle_settings(Settings({})) == {"shingle_size": 5, "sketch_size": 40}
