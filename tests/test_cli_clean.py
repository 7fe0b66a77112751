"""``wackycrawl clean -o OUTDIR FILE.html...``: output files, messages and exit codes."""

import os
import subprocess
import sys
from pathlib import Path

from wackycrawl.cli import main

ARTICLE = Path(__file__).parent / "fixtures" / "boilerplate" / "article_lists.html"


def test_writes_one_paragraph_per_line(tmp_path):
    assert main(["clean", "-o", str(tmp_path / "out"), str(ARTICLE)]) == 0
    lines = (tmp_path / "out" / "article_lists.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "Repotting a Boston fern"
    assert "Six: water it again" in lines and "Winter care for orchids" not in lines
    assert all(line.strip() == line and line for line in lines)


def test_legacy_encoding_is_decoded_and_written_as_utf8(tmp_path):
    page = tmp_path / "latin.html"
    page.write_bytes('<meta charset="iso-8859-1"><p>Stra\xdfe und Caf\xe9 in K\xf6ln, '
                     "ein langer Satz mit vielen W\xf6rtern.</p>".encode("latin-1"))
    assert main(["clean", "-o", str(tmp_path), str(page)]) == 0
    assert (tmp_path / "latin.txt").read_text(encoding="utf-8") == (
        "Straße und Café in Köln, ein langer Satz mit vielen Wörtern.\n")


def test_extractor_option(tmp_path):
    assert main(["clean", "--extractor", "bte", "-o", str(tmp_path), str(ARTICLE)]) == 0
    text = (tmp_path / "article_lists.txt").read_text(encoding="utf-8")
    assert "Repotting a Boston fern" in text and "Six: water it again" not in text


def test_bad_files_are_reported_and_the_rest_is_cleaned(tmp_path, capsys):
    png = tmp_path / "image.html"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"<html><body><img src=a.png></body></html>")
    missing = tmp_path / "missing.html"
    out = tmp_path / "out"
    status = main(["clean", "-o", str(out), str(png), str(missing), str(empty), str(ARTICLE)])
    err = capsys.readouterr().err
    assert status == 1
    assert f"wackycrawl clean: {png}: not cleaned:" in err
    assert f"wackycrawl clean: {missing}: not cleaned:" in err
    assert "Traceback" not in err
    assert f"{empty}: no text left" in err
    assert (out / "empty.txt").read_text() == ""
    assert "Six: water it again" in (out / "article_lists.txt").read_text(encoding="utf-8")
    assert sorted(p.name for p in out.iterdir()) == ["article_lists.txt", "empty.txt"]


def test_inputs_of_one_name_keep_their_folders_and_a_repeated_input_is_cleaned_once(tmp_path,
                                                                                   capsys):
    pages = {}
    for lang, words in (("de", "Ein ganz anderer Text mit anderen Wörtern."),
                        ("en", "A different page with other words.")):
        pages[lang] = tmp_path / "site" / lang / "p1.html"
        pages[lang].parent.mkdir(parents=True)
        pages[lang].write_text(f"<p>{words}</p>", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["clean", "-o", str(out), str(ARTICLE), str(pages["de"]), str(pages["en"])]) == 0
    # names collide: every input goes below a folder named after its own, this one's too
    assert "Boston fern" in (out / "boilerplate" / "article_lists.txt").read_text(
        encoding="utf-8")
    assert "anderer Text" in (out / "de" / "p1.txt").read_text(encoding="utf-8")
    assert "different page" in (out / "en" / "p1.txt").read_text(encoding="utf-8")
    assert sorted(p.name for p in out.iterdir()) == ["boilerplate", "de", "en"]
    # the same input twice (two spellings of its path): cleaned once, the repeat named, no error
    again, relative = tmp_path / "again", Path(os.path.relpath(ARTICLE))
    assert main(["clean", "-o", str(again), str(ARTICLE), str(relative), str(ARTICLE)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"wackycrawl clean: {name}: given more than once, cleaned once into "
                   f"{again / 'article_lists.txt'}" for name in (relative, ARTICLE)]
    assert [p.name for p in again.iterdir()] == ["article_lists.txt"]


def test_when_names_collide_every_input_keeps_its_folder(tmp_path):
    """``clean -o OUT a/*.html b/p5.html``: not only the colliding p5 goes below its folder,
    a/p1 does too (OUT/a/p1.txt, OUT/a/p5.txt, OUT/b/p5.txt); folders of the same name are
    told apart by theirs (OUT/x/de/p1.txt, OUT/y/de/p1.txt)."""
    def page(rel: str) -> str:
        path = tmp_path / "in" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<p>The page {rel} has a few words of its own here.</p>",
                        encoding="utf-8")
        return str(path)

    out = tmp_path / "out"
    files = [page("a/p1.html"), page("a/p5.html"), page("b/p5.html")]
    assert main(["clean", "--no-templates", "-o", str(out), *files]) == 0
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*.txt"))
    assert written == ["a/p1.txt", "a/p5.txt", "b/p5.txt"]
    assert "a/p1.html" in (out / "a" / "p1.txt").read_text(encoding="utf-8")
    out = tmp_path / "deeper"
    files = [page("x/de/p1.html"), page("y/de/p1.html"), page("x/en/p2.html")]
    assert main(["clean", "--no-templates", "-o", str(out), *files]) == 0
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*.txt"))
    assert written == ["x/de/p1.txt", "x/en/p2.txt", "y/de/p1.txt"]
    out = tmp_path / "apart"  # no collision: flat, as before
    assert main(["clean", "--no-templates", "-o", str(out), files[0], files[2]]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["p1.txt", "p2.txt"]


def test_console_entry_point(tmp_path):
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from wackycrawl.cli import main; sys.exit(main())",
         "clean", "-o", str(tmp_path), str(ARTICLE), str(tmp_path / "nope.html")],
        check=False, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 1
    assert "nope.html: not cleaned" in run.stderr and "Traceback" not in run.stderr
    assert (tmp_path / "article_lists.txt").exists()


def test_pages_of_one_site_lose_their_shared_template(tmp_path):
    from tests.test_templates import TEMPLATE_TEXTS, site_page

    site = tmp_path / "site"
    site.mkdir()
    for i in range(4):
        (site / f"p{i}.html").write_text(site_page(i), encoding="utf-8")
    files = [str(p) for p in sorted(site.iterdir())]
    assert main(["clean", "-o", str(tmp_path / "on"), *files]) == 0
    assert main(["clean", "--no-templates", "-o", str(tmp_path / "off"), *files]) == 0
    for i in range(4):
        on = (tmp_path / "on" / f"p{i}.txt").read_text(encoding="utf-8")
        off = (tmp_path / "off" / f"p{i}.txt").read_text(encoding="utf-8")
        assert f"Story {i}, part 2" in on and f"Story {i}, part 2" in off
        assert not any(t in on for t in TEMPLATE_TEXTS)
        assert all(t in off for t in TEMPLATE_TEXTS)
    # fewer pages than --template-min-pages: nothing is template
    assert main(["clean", "--template-min-pages", "5", "-o", str(tmp_path / "few"), *files]) == 0
    assert TEMPLATE_TEXTS[0] in (tmp_path / "few" / "p0.txt").read_text(encoding="utf-8")


def test_site_is_the_canonical_host_else_the_folder(tmp_path):
    from wackycrawl.cli.clean import site_of

    assert site_of('<link rel="canonical" href="https://www.a.test/x">', tmp_path / "f") == "a.test"
    assert site_of('<meta content="http://b.test/" property="og:url">', tmp_path / "f") == "b.test"
    assert site_of('<link rel="stylesheet" href="http://c.test/s.css">', tmp_path / "f") == (
        str(tmp_path.resolve()))


def test_undecodable_page_is_reported_and_the_others_are_cleaned(tmp_path, capsys):
    # UTF-8 declared, but most of the body is bytes no codec reads as text: EncodingError.
    garbled = tmp_path / "garbled.html"
    garbled.write_bytes(b'<meta charset="utf-8"><p>' + b"\xff\xfe\x80\xc3" * 400 + b"</p>")
    first, last = tmp_path / "a.html", tmp_path / "z.html"
    for p in (first, last):
        p.write_bytes(ARTICLE.read_bytes())
    out = tmp_path / "out"
    status = main(["clean", "-o", str(out), str(first), str(garbled), str(last)])
    err = capsys.readouterr().err
    assert status == 1
    assert f"{garbled}: not cleaned:" in err and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "z.txt"]
    assert "Six: water it again" in (out / "z.txt").read_text(encoding="utf-8")


def test_an_empty_input_is_named_as_such(tmp_path, capsys):
    from wackycrawl.cli import main

    (tmp_path / "blank.html").write_bytes(b"")
    assert main(["clean", "-o", str(tmp_path / "out"), str(tmp_path / "blank.html")]) == 0
    assert "blank.html: empty file (" in capsys.readouterr().err
    assert (tmp_path / "out" / "blank.txt").read_text() == ""
