"""Drops: the log line, the count, the TSV row (escaping, append, torn lines), the totals."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap

from scrapy.utils.test import get_crawler

from wackycrawl.cli import main
from wackycrawl.crawl import drops
from wackycrawl.crawl.totals import corpus_totals
from wackycrawl.extensions.drops import DropsLog
from wackycrawl.pipelines import drop


class Stats(dict):
    def inc_value(self, key, count=1, start=0):
        self[key] = self.get(key, start) + count


def test_fields_escape_and_unescape():
    nasty = "tab\there\nnew\rline \\ back\\t"
    escaped = drops.escape_field(nasty)
    assert "\t" not in escaped and "\n" not in escaped and "\r" not in escaped
    assert drops.unescape_field(escaped) == nasty


def test_recorder_logs_counts_and_writes_one_row_each(tmp_path, caplog):
    path = tmp_path / "out" / "drops-w1.tsv"
    stats = Stats()
    rec = drops.DropRecorder(stats, drops.DropsFile(str(path)))
    with caplog.at_level(logging.INFO):
        rec.record("http_404", "http://a.test/x", "HTTP 404")
        rec.record("too_small", "http://a.test/\ty", "3929 B < 5120 B,\nlinks followed")
    rec.close()
    assert stats == {"wacky/drop/http_404": 1, "wacky/drop/too_small": 1}
    assert [r.getMessage() for r in caplog.records] == [
        "Dropped: http_404: http://a.test/x (HTTP 404)",
        "Dropped: too_small: http://a.test/\ty (3929 B < 5120 B,\nlinks followed)"]
    lines = path.read_text().splitlines()
    assert lines[0] == "time\turl\treason\tdetail" and len(lines) == 3
    rows = list(drops.read_drops(str(path)))
    assert [r[1:] for r in rows] == [("http://a.test/x", "http_404", "HTTP 404"),
                                     ("http://a.test/\ty", "too_small",
                                      "3929 B < 5120 B,\nlinks followed")]
    assert rows[0][0].endswith("Z") and "T" in rows[0][0]


def test_a_resumed_run_appends_and_a_torn_line_is_skipped(tmp_path):
    path = tmp_path / "drops-w.tsv"
    first = drops.DropsFile(str(path))
    first.write("a", "http://x/1")
    first.close()
    with open(path, "a") as f:
        f.write("2026-12-01T00:00:00Z\thttp://x/")  # kill -9 in the middle of a row
    second = drops.DropsFile(str(path))
    second.write("b", "http://x/2")
    second.close()
    assert path.read_text().count("time\turl") == 1
    assert drops.count_reasons([str(path)]) == {"a": 1, "b": 1}


def test_a_row_the_disk_cannot_hold_is_cut_off_again(tmp_path):
    # A full disk (here: a file-size limit, SIGXFSZ ignored) in the middle of a row: the
    # write fails, and the file keeps its whole rows only, no torn one.
    path = tmp_path / "drops.tsv"
    code = textwrap.dedent(f"""
        import resource, signal
        from wackycrawl.crawl.drops import DropsFile
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (300, resource.RLIM_INFINITY))
        f = DropsFile({str(path)!r})
        for n in range(20):
            try:
                f.write("too_short", f"http://a.test/page-{{n}}.html", "12 words < 70")
            except OSError:
                print(n)
                break
        """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    failed_at = int(run.stdout)
    data = path.read_bytes()
    assert 0 < failed_at < 20 and data.endswith(b"\n") and len(data) <= 300
    assert [row[1] for row in drops.read_drops(str(path))] == [
        f"http://a.test/page-{n}.html" for n in range(failed_at)]
    assert data.count(b"\n") == failed_at + 1  # the header and the whole rows


def test_an_unwritable_drops_file_is_logged_once_and_the_crawl_goes_on(tmp_path, caplog):
    (tmp_path / "file").write_text("")
    stats = Stats()
    rec = drops.DropRecorder(stats, drops.DropsFile(str(tmp_path / "file" / "drops.tsv")))
    with caplog.at_level(logging.INFO):
        rec.record("x", "http://a/")
        rec.record("x", "http://b/")
    assert stats["wacky/drop/x"] == 2 and stats["wacky/drops_file/write_failed"] == 1
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 1


def test_item_drops_get_their_row(tmp_path):
    stats = Stats()
    exc = drop(stats, "not_prose", {"url": "http://a/"}, "3 types")
    assert str(exc) == "not_prose: http://a/ (3 types)"
    crawler = get_crawler(settings_dict={"WACKY_OUTPUT_DIR": str(tmp_path),
                                         "WACKY_WORKER_ID": "w9",
                                         "WACKY_DROPS_FILE": "drops-{worker}.tsv"})
    crawler.stats.open_spider()
    ext = DropsLog.from_crawler(crawler)
    ext.item_dropped({"url": "http://a/"}, exc)
    ext.spider_closed()
    assert [r[1:] for r in drops.read_drops(str(tmp_path / "drops-w9.tsv"))] == [
        ("http://a/", "not_prose", "3 types")]


def test_stats_command_counts_each_url_once_per_reason(tmp_path, capsys):
    f = drops.DropsFile(str(tmp_path / "drops-w1.tsv"))
    for url in ("http://a/", "http://a/", "http://b/"):  # a/ dropped again after a resume
        f.write("http_404", url)
    f.close()
    assert corpus_totals(str(tmp_path)).drops == {"http_404": 2}
    assert main(["stats", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "documents 0" in out and "http_404 2" in out
    assert main(["stats", "--json", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["drops"] == {"http_404": 2} and data["documents"] == 0 and data["writers"] == []
    assert main(["stats", str(tmp_path / "missing")]) == 1
    (tmp_path / "site").mkdir()  # a folder without crawl output: a wrong path, as for export
    (tmp_path / "site" / "index.html").write_text("<p>not a corpus</p>")
    assert main(["stats", str(tmp_path / "site")]) == 1
    assert "no crawl output in" in capsys.readouterr().err


def test_stats_counts_each_url_once_per_reason_across_drops_files(tmp_path, capsys):
    """Two runs into one folder (two crawl processes, or two ``wackycrawl process`` runs)
    write two drops files; a URL dropped for the same reason in both counts once."""
    for worker, urls in (("w1", ["http://a/", "http://b/", "http://c/"]),
                         ("w2", ["http://a/", "http://b/", "http://d/"])):
        f = drops.DropsFile(str(tmp_path / f"drops-{worker}.tsv"))
        for url in urls:
            f.write("exact_duplicate", url)
        f.write("near_duplicate", "http://a/")  # another reason for a URL: counted apart
        f.close()
    assert corpus_totals(str(tmp_path)).drops == {"exact_duplicate": 4, "near_duplicate": 1}
    assert main(["stats", str(tmp_path)]) == 0
    assert ("drops (2 drops files, distinct URLs) exact_duplicate 4, near_duplicate 1"
            in capsys.readouterr().out)


def test_stats_counts_the_rejects_stream_apart(tmp_path, capsys):
    from wackycrawl.trec.writer import TrecWriter

    rejects = tmp_path / "rejects"
    rejects.mkdir()
    writer = TrecWriter(str(rejects), prefix="WACKY", worker="w1-rejects")
    writer.write(_doc("http://a.test/"))
    writer.close()
    totals = corpus_totals(str(tmp_path))
    assert totals.rejected == 1 and totals.documents == 0
    assert main(["stats", str(tmp_path)]) == 0
    assert "rejected documents 1 (in rejects/)" in capsys.readouterr().out


def _doc(url):
    from wackycrawl.trec.format import TrecDoc

    return TrecDoc(url=url, paragraphs=["Some words of a rejected page."], meta={"Depth": "0"})


def test_no_output_dir_means_no_drops_or_yield_file_unless_the_path_is_absolute(tmp_path):
    from scrapy.utils.test import get_crawler

    from wackycrawl import settings
    from wackycrawl.crawl.worker import worker_file

    files = {"WACKY_DROPS_FILE": settings.WACKY_DROPS_FILE,  # the project's defaults
             "WACKY_YIELD_FILE": settings.WACKY_YIELD_FILE, "WACKY_WORKER_ID": "w1"}
    off = get_crawler(settings_dict={**files, "WACKY_OUTPUT_DIR": ""})
    assert worker_file(off, "WACKY_DROPS_FILE") == ""  # not ./drops-w1.tsv
    assert worker_file(off, "WACKY_YIELD_FILE") == ""
    absolute = get_crawler(settings_dict={**files, "WACKY_OUTPUT_DIR": "",
                                          "WACKY_DROPS_FILE": str(tmp_path / "d-{worker}.tsv")})
    assert worker_file(absolute, "WACKY_DROPS_FILE") == str(tmp_path / "d-w1.tsv")
    on = get_crawler(settings_dict={**files, "WACKY_OUTPUT_DIR": "out"})
    assert worker_file(on, "WACKY_DROPS_FILE") == os.path.join("out", "drops-w1.tsv")


def test_stats_counts_characters_as_clean_chars_does(tmp_path):
    """The newlines between paragraphs count, as in X-Wacky-Clean-Chars."""
    from wackycrawl.text.blocks import Extraction
    from wackycrawl.trec.format import TrecDoc
    from wackycrawl.trec.writer import TrecWriter

    texts = [["First paragraph.", "Second one, a bit longer.", "Third."], ["Alone."]]
    clean = [Extraction(p, 0).clean_chars for p in texts]  # what the boilerplate stage stores
    with TrecWriter(str(tmp_path), worker="w1") as w:
        for n, paragraphs in zip(clean, texts):
            w.write(TrecDoc(url="http://a.test/", paragraphs=paragraphs,
                            meta={"Clean-Chars": str(n)}))
    assert clean == [49, 6]
    assert corpus_totals(str(tmp_path)).characters == 55
