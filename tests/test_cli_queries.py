"""``wackycrawl queries``: tuples -> query URLs per engine; keys never printed."""

import pytest

from wackycrawl.cli import main
from wackycrawl.seeding import engines


def run(args, capsys):
    code = main(["queries", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


@pytest.fixture
def tuples(tmp_path):
    f = tmp_path / "tuples.txt"
    f.write_text("# tuples\nriver apple stone\n\nüber\tcafé  a&b\n", encoding="utf-8")
    return f


def test_searxng_urls_round_trip(tuples, capsys):
    code, lines, _ = run(["--engine", "searxng", "--base", "http://searx.test/", str(tuples)],
                         capsys)
    assert code == 0
    head, *urls = lines
    # the file remembers its engine: the spider needs no WACKY_SERP_SEARXNG_URL
    assert engines.declared([head]) == ([engines.searxng("http://searx.test")], [])
    assert urls == ["http://searx.test/search?q=river+apple+stone&format=json",
                    "http://searx.test/search?q=%C3%BCber+caf%C3%A9+a%26b&format=json"]
    found = engines.configured("http://searx.test")
    assert [engines.find(found, u)[1] for u in urls] == ["river apple stone", "über café a&b"]


def test_brave_key_is_noted_never_printed(tuples, capsys, monkeypatch):
    monkeypatch.delenv("WACKY_BRAVE_KEY", raising=False)
    code, urls, err = run(["--engine", "brave", "--count", "5", str(tuples)], capsys)
    assert code == 0 and urls[1].endswith("?q=river+apple+stone&count=5")
    assert "WACKY_BRAVE_KEY" in err
    monkeypatch.setenv("WACKY_BRAVE_KEY", "s3cret-value")
    code, urls, err = run(["--engine", "brave", str(tuples)], capsys)
    assert code == 0 and err == "" and "s3cret-value" not in "".join(urls)


def test_template_and_output_file(tuples, tmp_path, capsys):
    out = tmp_path / "q.txt"
    code, urls, _ = run(["--engine", "template", "--template", "https://se.example/?q={query}",
                         "-o", str(out), str(tuples)], capsys)
    assert code == 0 and urls == []
    head, first = out.read_text().splitlines()[:2]
    assert first == "https://se.example/?q=river+apple+stone"
    assert engines.declared([head])[0] == [engines.template("https://se.example/?q={query}")]


def test_a_directive_naming_no_engine_is_an_error_not_an_engine():
    found, errors = engines.declared(["# wackycrawl-engine: altavista http://a.test/?q={query}",
                                      "# wackycrawl-engine: template http://a.test/", "# x"])
    assert found == [] and len(errors) == 2


@pytest.mark.parametrize("args", [["--engine", "template", "--template", "https://x/{query}"],
                                  ["--engine", "searxng", "--base", ""]])
def test_bad_engine_options(tuples, capsys, args):
    code, urls, err = run([*args, str(tuples)], capsys)
    assert code == 2 and urls == [] and err


def test_empty_input(tmp_path, capsys):
    f = tmp_path / "empty.txt"
    f.write_text("# nothing\n\n")
    assert run(["--engine", "bing", str(f)], capsys)[0] == 1
    f.write_bytes(b"")  # no byte at all: the binary test must not divide by its length
    code, urls, err = run(["--engine", "bing", str(f)], capsys)
    assert code == 1 and urls == [] and "no tuples" in err


def test_binary_or_non_utf8_input_is_refused(tmp_path, capsys):
    for name, data in (("ls", b"\x7fELF\x02\x01\x01\x00" * 100), ("l1.txt", b"gr\xfc\xdfe aus\n")):
        (tmp_path / name).write_bytes(data)
        code, out, err = run(["--engine", "searxng", "--base", "http://x.test",
                              str(tmp_path / name)], capsys)
        assert code == 1 and out == [] and "not a UTF-8 tuple list" in err
