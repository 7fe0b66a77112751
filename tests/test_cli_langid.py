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
    first, second = [line.split("\t") for line in out.splitlines()]
    assert first[:2] == ["-:1", "en"] and first[3] == "funcwords"
    assert first[4].startswith("en:") and len(first[4].split(",")) == 2
    assert second[:2] == ["-:2", "und"] and second[3] in ("uncertain", "no-evidence")


def test_prose_columns():
    _, out = run(["--prose"], EN.encode())
    name, lang, _score, method, top2, types, tokens, ratio, prose = out.strip().split("\t")
    assert (name, lang, method, prose) == ("-", "en", "funcwords", "yes")
    assert top2.startswith("en:")
    assert int(types) >= 10 and int(tokens) >= 30 and float(ratio) > 0.25


def test_short_text_says_its_length_and_the_option(capsys):
    text = "A sentence of fifty-six characters is short, isn't it?"
    status, out = run([], text.encode())
    assert status == 0 and out.split("\t")[1:4] == ["und", "0.000", "short"]
    err = capsys.readouterr().err
    assert f"{len(text)} characters" in err and "--min-chars 200" in err


PAGE = ("<!DOCTYPE html><html><head><title>Gemeinde</title></head><body>"
        "<ul><li><a href='/'>Home</a></li><li><a href='/k'>Kontakt</a></li></ul>"
        f"<div><p>{DE}</p><p>{DE}</p></div><footer>&copy; 2026</footer></body></html>")


def test_html_is_extracted_before_identification(tmp_path, capsys):
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    status, out = run(["--prose", str(tmp_path / "page.html")])
    cols = out.strip().split("\t")
    assert status == 0 and cols[1] == "de" and cols[-1] == "yes"
    assert float(cols[7]) > 0.3  # function-word share of the text, not of the markup
    assert "HTML" in capsys.readouterr().err
    _, raw = run(["--prose", "--html", "no", str(tmp_path / "page.html")])
    assert float(raw.strip().split("\t")[7]) < float(cols[7])


def test_html_with_lines_is_refused(tmp_path, capsys):
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    status, out = run(["--lines", str(tmp_path / "page.html")])
    assert status == 1 and out == ""
    assert "--lines reads plain text only" in capsys.readouterr().err


def test_markup_detection():
    assert langid.looks_like_html(PAGE.encode())
    assert langid.looks_like_html(b"\xef\xbb\xbf <html lang=de>")
    assert langid.looks_like_html(b"Text <p>one</p> and <br> two")
    assert not langid.looks_like_html(EN.encode() + b" 3 < 4 and a <b> tag")


def test_missing_file_reported_and_others_processed(tmp_path):
    (tmp_path / "en.txt").write_text(EN, encoding="utf-8")
    status, out = run([str(tmp_path / "nope.txt"), str(tmp_path / "en.txt")])
    assert status == 1
    assert out.count("\n") == 1 and "\ten\t" in out


def test_binary_file_refused_and_latin1_text_read_with_a_note(tmp_path, capsys):
    (tmp_path / "prog").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    (tmp_path / "de.txt").write_bytes(DE.encode("latin-1"))
    status, out = run([str(tmp_path / "prog"), str(tmp_path / "de.txt")])
    assert status == 1
    assert [row.split("\t")[1] for row in out.splitlines()] == ["de"]
    err = capsys.readouterr().err
    assert "prog: not text: ELF executable" in err
    assert "de.txt: not UTF-8 (byte" in err


def test_empty_file_is_und_short(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    status, out = run([str(tmp_path / "empty.txt")])
    assert status == 0 and out.split("\t")[1:4] == ["und", "0.000", "short"]


def test_lines_split_at_newlines_only():
    """U+2028, U+2029, U+0085, form feed and a lone CR are text of their line: one output
    row per input line; a CRLF line loses its CR."""
    text = ("first line\u2028still the first\u2029and\x85more\x0cand\rmore\r\n"
            "second line\n\nfourth\u2028line")
    status, out = run(["--lines", "--min-chars", "0"], text.encode())
    assert status == 0
    assert [row.split("\t")[0] for row in out.split("\n")[:-1]] == ["-:1", "-:2", "-:3", "-:4"]
    assert langid.split_lines(text)[0] == (
        "first line\u2028still the first\u2029and\x85more\x0cand\rmore")
    assert langid.split_lines("a\r\nb\n") == ["a", "b"] and langid.split_lines("") == []


def test_utf16_and_utf32_files_with_a_byte_order_mark_are_read(tmp_path, capsys):
    """Text or HTML saved as "Unicode" (UTF-16 with BOM, Windows Notepad's) or UTF-32 is read
    in its encoding, as the crawl and ``clean`` read it, not refused as binary for its NULs."""
    names = []
    for codec in ("utf-16", "utf-16-be", "utf-32"):
        bom = {"utf-16-be": b"\xfe\xff"}.get(codec, b"")
        (tmp_path / f"{codec}.txt").write_bytes(bom + DE.encode(codec))
        (tmp_path / f"{codec}.html").write_bytes(bom + PAGE.encode(codec))
        names += [str(tmp_path / f"{codec}.txt"), str(tmp_path / f"{codec}.html")]
    status, out = run(names)
    assert status == 0, capsys.readouterr().err
    assert [row.split("\t")[1] for row in out.splitlines()] == ["de"] * 6
    assert capsys.readouterr().err.count("HTML: ") == 3  # the pages' text, not their markup
    status, out = run(["--lines", "--min-chars", "10", "-"],
                      stdin=("\n".join([DE, EN]) + "\n").encode("utf-16"))
    assert status == 0 and [r.split("\t")[1] for r in out.splitlines()] == ["de", "en"]
