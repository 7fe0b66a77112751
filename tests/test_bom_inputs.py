"""Text files a user edits by hand (seed and query files, tuple and word lists, bad-word lists)
may start with a UTF-8 byte order mark (Windows Notepad and many editors write one): it is no
character of the first line. Texts given to ``langid`` and ``dedup`` drop it as text."""

from __future__ import annotations

import pytest

from wackycrawl.seeding.seedfile import read_seed_file

BOM = b"\xef\xbb\xbf"


def test_a_seed_file_with_a_bom_keeps_its_first_seed(tmp_path):
    f = tmp_path / "seeds.txt"
    f.write_bytes(BOM + b"http://first.test/\r\nhttp://second.test/\r\n")
    found = read_seed_file(f)
    assert found.urls == ["http://first.test/", "http://second.test/"] and found.bad == []
    one = tmp_path / "one.txt"
    one.write_bytes(BOM + b"http://first.test/\n")
    found = read_seed_file(one)
    assert found.urls == ["http://first.test/"] and not found.refusal


def test_a_query_file_with_a_bom_keeps_its_engine_line(tmp_path):
    """``wackycrawl queries`` writes the engine line first: behind a BOM it named no engine,
    so the spider knew no SearXNG and every query line was refused."""
    from tests.test_seeding_spider import start_requests
    from scrapy.utils.test import get_crawler

    from wackycrawl.seeding import engines
    from wackycrawl.spiders.seeds import SeedsSpider

    searx = engines.searxng("http://searx.test")
    q = tmp_path / "queries.txt"
    q.write_bytes(BOM + (engines.directive(searx) + "\n"
                         + "http://searx.test/search?q=a+b&format=json\n").encode())
    crawler = get_crawler(SeedsSpider, {})
    spider = SeedsSpider.from_crawler(crawler, queries=str(q))
    requests = start_requests(spider)
    assert [r.meta.get("wacky_seed_query") for r in requests] == ["a b"]


def _both(tmp_path, name: str, text: str):
    plain, marked = tmp_path / f"plain-{name}", tmp_path / f"bom-{name}"
    plain.write_text(text, encoding="utf-8")
    marked.write_bytes(BOM + text.encode())
    return plain, marked


def test_tuples_and_queries_read_a_bom_file_as_without(tmp_path, capsys):
    from wackycrawl.cli import main

    freq = "river\t600\napple\t500\nstone\t400\ncloud\t300\nmirror\t200\n"
    outs = []
    for f in _both(tmp_path, "freq.tsv", freq):
        assert main(["tuples", "-n", "5", "--skip-top", "0", "--seed", "3", str(f)]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "\ufeff" not in outs[1]
    outs = []
    for f in _both(tmp_path, "tuples.txt", "river apple stone\ncloud mirror\n"):
        assert main(["queries", "--engine", "searxng", "--base", "http://searx.test/",
                     str(f)]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "%EF%BB%BF" not in outs[1]


def test_a_badwords_file_with_a_bom_keeps_its_first_word(tmp_path):
    from wackycrawl.text.filters import load_badwords

    f = tmp_path / "bad.txt"
    f.write_bytes(BOM + b"spamword\nother\n")
    assert load_badwords(str(f)) == frozenset({"spamword", "other"})


@pytest.mark.parametrize("argv", [["--prose"], ["--prose", "--lines"]])
def test_langid_reads_a_bom_file_as_without(tmp_path, argv):
    """Held before: the text is read with U+FEFF, which the word and language models drop as
    an invisible character (``text/langmodel.py``); kept as a guard."""
    from tests.test_cli_langid import run
    from tests.test_funcwords import EN

    plain, marked = _both(tmp_path, "en.txt", "the " + EN)
    rows = []
    for f in (plain, marked):
        status, out = run([*argv, str(f)])
        assert status == 0
        rows.append([line.split("\t")[1:] for line in out.splitlines()])
    assert rows[0] == rows[1]


def test_dedup_reads_a_bom_file_as_the_same_text(tmp_path, capsys):
    """Held before (U+FEFF is dropped as an invisible character); kept as a guard."""
    from tests.neardup_texts import ARTICLE, text
    from tests.test_cli_dedup import main

    plain, marked = _both(tmp_path, "a.txt", text(ARTICLE))
    assert main(["dedup", str(plain), str(marked)]) == 0
    second = capsys.readouterr().out.splitlines()[1].split("\t")
    assert second[2] == "exact_duplicate", second
