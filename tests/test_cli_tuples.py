"""``wackycrawl tuples``: frequency lists and texts in, reproducible tuples out, clear errors."""

import pytest

from wackycrawl.cli import main

FREQ = ("the\t900\nand\t800\n2024\t700\nriver\t600\napple\t500\nstone\t400\ncloud\t300\n"
        "mirror\t200\nx\t100\n")
TEXT = ("The river and the stone. The apple, the cloud; a mirror! " * 3
        + "Garden lantern meadow copper 42 e-mail\n")


def run(args, capsys):
    code = main(["tuples", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_frequency_list_to_tuples(tmp_path, capsys):
    f = tmp_path / "freq.tsv"
    f.write_text(FREQ, encoding="utf-8")
    code, lines, err = run(["-n", "5", "--skip-top", "0", "--seed", "3", str(f)], capsys)
    assert code == 0 and len(lines) == 5
    words = {w for line in lines for w in line.split()}
    assert words <= {"river", "apple", "stone", "cloud", "mirror"}  # no function/non-words
    assert len({frozenset(line.split()) for line in lines}) == 5
    assert "frequency list" in err
    assert run(["-n", "5", "--skip-top", "0", "--seed", "3", str(f)], capsys)[1] == lines


def test_text_is_counted_and_output_file_written(tmp_path, capsys):
    f = tmp_path / "corpus.txt"
    f.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "tuples.txt"
    code, lines, err = run(["-n", "4", "-k", "2", "--skip-top", "0", "-o", str(out), str(f)],
                           capsys)
    assert code == 0 and lines == [] and "text:" in err
    pairs = out.read_text(encoding="utf-8").splitlines()
    assert len(pairs) == 4 and all(len(p.split()) == 2 for p in pairs)
    assert not {w for p in pairs for w in p.split()} & {"the", "and", "42"}


def test_skip_top_removes_the_most_frequent_ranks(tmp_path, capsys):
    f = tmp_path / "freq.tsv"
    f.write_text(FREQ, encoding="utf-8")
    _, lines, _ = run(["-n", "1", "-k", "3", "--skip-top", "4", str(f)], capsys)
    # word ranks: the, and, river, apple | stone, cloud, mirror ("2024", "x" are no words)
    assert set(lines[0].split()) == {"stone", "cloud", "mirror"}


@pytest.mark.parametrize("content,message", [("", "no words"), ("123 456 !!!\n", "no words"),
                                             (FREQ, "distinct tuples")])
def test_clear_errors(tmp_path, capsys, content, message):
    f = tmp_path / "in.txt"
    f.write_text(content, encoding="utf-8")
    code, lines, err = run(["-n", "1000", "--skip-top", "0", str(f)], capsys)
    assert code == 1 and lines == [] and message in err


@pytest.mark.parametrize("option", [["-n", "-5"], ["-k", "0"], ["--skip-top", "-1"],
                                    ["--band", "0"]])
def test_a_bad_number_is_a_usage_error_naming_its_option(tmp_path, capsys, option):
    f = tmp_path / "freq.tsv"
    f.write_text(FREQ, encoding="utf-8")
    with pytest.raises(SystemExit) as raised:
        main(["tuples", *option, str(f)])
    err = capsys.readouterr().err
    assert raised.value.code == 2 and f"argument {option[0]}" in err
    assert "lower --skip-top" not in err


def test_without_seed_each_run_draws_a_fresh_seed_it_prints(tmp_path, capsys):
    f = tmp_path / "corpus.txt"
    f.write_text(TEXT, encoding="utf-8")
    runs = [run(["-n", "3", "-k", "2", "--skip-top", "0", str(f)], capsys) for _ in range(8)]
    assert {tuple(lines) for _, lines, _ in runs} != {tuple(runs[0][1])}
    code, lines, err = runs[0]
    seed = int(err.split("(seed ")[1].split(";")[0])
    assert f"give --seed {seed} to repeat" in err
    assert run(["-n", "3", "-k", "2", "--skip-top", "0", "--seed", str(seed), str(f)],
               capsys)[1] == lines


def test_missing_file(tmp_path, capsys):
    code, _, err = run([str(tmp_path / "nope.tsv")], capsys)
    assert code == 1 and "cannot read" in err
