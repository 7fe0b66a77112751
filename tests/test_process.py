"""``wackycrawl process`` over WARC and ARC files written here: outputs, settings, resuming."""

from __future__ import annotations

import collections
import gzip
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.crawlrun import ROOT
from tests.test_archive import arc_file
from tests.webpages import page, prose, word_list
from wackycrawl.archive.writer import Exchange, WarcWriter
from wackycrawl.crawl.drops import read_drops
from wackycrawl.trec.reader import iter_docs

CLI = "import sys; from wackycrawl.cli import main; sys.exit(main())"


def wackycrawl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CLI, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)


def write_warc(directory: Path, worker: str, pages: dict[str, str | bytes], gzipped=()) -> Path:
    with WarcWriter(str(directory), worker=worker) as w:
        for url, html in pages.items():
            body = html.encode() if isinstance(html, str) else html
            headers = [("Content-Type", "text/html; charset=utf-8")]
            if url in gzipped:
                body, headers = gzip.compress(body), [*headers, ("Content-Encoding", "gzip")]
            w.write_exchange(Exchange(url, "HTTP/1.1 200 OK", headers, body))
        return Path(w.path)


def texts(corpus: Path, pattern: str = "*.trec.gz") -> collections.Counter:
    return collections.Counter("\n".join(doc.paragraphs) for f in sorted(corpus.glob(pattern))
                               for _, doc in iter_docs(str(f)))


def urls(corpus: Path) -> set[str]:
    return {doc.url for f in corpus.glob("*.trec.gz") for _, doc in iter_docs(str(f))}


def test_warc_and_arc_through_the_stages(tmp_path):
    en = {f"http://a.test/{n}": page(f"A{n}", prose(n)) for n in range(3)}
    warc = write_warc(tmp_path / "in", "a", {
        **en, "http://a.test/de": page("De", prose(9, lang="de")),
        "http://a.test/list": word_list(3), "http://a.test/copy": en["http://a.test/0"],
        "http://a.test/tiny": "<html><body>tiny</body></html>"}, gzipped={"http://a.test/1"})
    arc = tmp_path / "in" / "old.arc.gz"
    arc_file(arc, {"http://old.test/": page("Old", prose(20)).encode()})
    out = tmp_path / "out"
    proc = wackycrawl("process", str(warc), str(arc), "-o", str(out), "-s", "WACKY_LANGUAGES=en")
    assert proc.returncode == 0, proc.stderr
    assert urls(out) == {*en, "http://old.test/"}
    (drops,) = out.glob("drops-*.tsv")
    reasons = {url: reason for _, url, reason, _ in read_drops(str(drops))}
    assert reasons == {"http://a.test/de": "wrong_language", "http://a.test/list": "not_prose",
                       "http://a.test/copy": "exact_duplicate", "http://a.test/tiny": "too_small"}
    assert "docs kept 4; drops:" in proc.stderr
    done = (out / "process-done.tsv").read_text().splitlines()
    assert [line.split("\t")[0] for line in done] == [str(warc), str(arc)]
    # a changed threshold, and the rejects stream of the same drops
    strict = tmp_path / "strict"
    proc = wackycrawl("process", str(warc), str(arc), "-o", str(strict), "-s", "WACKY_LANGUAGES=en",
                      "-s", "WACKY_MIN_CLEAN_WORDS=100000", "-s", "WACKY_KEEP_REJECTS=True")
    assert proc.returncode == 0, proc.stderr
    assert not urls(strict)
    rejected = {doc.url: doc.meta.get("Rejected") for f in (strict / "rejects").glob("*.trec.gz")
                for _, doc in iter_docs(str(f))}
    assert set(rejected.values()) == {"too_short"}
    assert set(rejected) == {*en, "http://old.test/", "http://a.test/de", "http://a.test/list",
                             "http://a.test/copy"}


def test_damaged_and_missing_inputs(tmp_path):
    good = write_warc(tmp_path, "g", {"http://a.test/": page("A", prose(1))})
    data = good.read_bytes()
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(data + b"WARC/1.1\r\nthis is not a record\r\n")
    out = tmp_path / "out"
    proc = wackycrawl("process", str(bad), "-o", str(out), "--no-progress")
    assert proc.returncode == 1
    assert "bad.warc.gz" in proc.stderr
    assert urls(out) == {"http://a.test/"}  # the record before the damage counts
    assert wackycrawl("process", str(good), "-o", str(tmp_path / "x"), "-s", "NOEQUALS"
                      ).returncode == 2


def test_an_input_that_failed_is_not_marked_done_and_a_rerun_reads_it(tmp_path):
    good = write_warc(tmp_path, "g", {"http://a.test/": page("A", prose(1))})
    data = good.read_bytes()
    binary, bad = tmp_path / "ls.bin", tmp_path / "bad.warc.gz"
    binary.write_bytes(Path("/bin/ls").read_bytes())
    bad.write_bytes(data + b"WARC/1.1\r\nthis is not a record\r\n")
    later = tmp_path / "later.warc.gz"
    out = tmp_path / "out"
    proc = wackycrawl("process", str(binary), str(bad), "-o", str(out), "--no-progress")
    assert proc.returncode == 1
    assert "0 file(s) done, 2 failed (not marked done" in proc.stderr
    assert (out / "process-done.tsv").read_text() == ""
    assert urls(out) == {"http://a.test/"}  # the record before the damage counts
    bad.write_bytes(data)  # repaired: the next run reads it again, its old output removed
    later.write_bytes(data)
    proc = wackycrawl("process", str(binary), str(bad), str(later), "-o", str(out),
                      "--no-progress")
    assert proc.returncode == 1 and "2 file(s) done, 1 failed" in proc.stderr, proc.stderr
    assert "removing " in proc.stderr and "ls.bin: not a WARC or ARC file" in proc.stderr
    done = [line.split("\t")[0] for line in (out / "process-done.tsv").read_text().splitlines()]
    assert done == [str(bad), str(later)]
    kept = [doc.url for f in sorted(out.glob("*.trec.gz")) for _, doc in iter_docs(str(f))]
    assert kept == ["http://a.test/"]  # once: the copy in later.warc.gz is a duplicate


def test_a_setting_a_stage_refuses_is_one_error_also_with_worker_processes(tmp_path):
    good = write_warc(tmp_path, "g", {"http://a.test/": page("A", prose(1))})
    for jobs in ("1", "2"):  # -j 2: the pool's workers refuse it (it used to respawn them forever)
        proc = subprocess.run(
            [sys.executable, "-c", CLI, "process", str(good), "-o", str(tmp_path / f"o{jobs}"),
             "-j", jobs, "-s", "WACKY_EXTRACTOR=nope", "--no-progress"],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert proc.stderr.strip() == ("wackycrawl process: unknown extractor 'nope'; "
                                       "choose one of blocks, article, bte")
        assert not (tmp_path / f"o{jobs}").exists()  # refused before anything was made
    judged = wackycrawl("judge", str(good), "-s", "WACKY_LANGUAGES=xx")
    assert judged.returncode == 2 and "Traceback" not in judged.stderr
    assert judged.stderr.startswith("wackycrawl judge: WACKY_LANGUAGES: unknown language code")


def test_a_docno_prefix_or_worker_id_the_writer_cannot_use_is_a_usage_error(tmp_path):
    good = write_warc(tmp_path, "g", {"http://a.test/": page("A", prose(1))})
    for setting in ("WACKY_DOCNO_PREFIX=A B", "WACKY_WORKER_ID=a/b"):
        name, value = setting.split("=")
        proc = wackycrawl("process", str(good), "-o", str(tmp_path / "o"), "--no-progress",
                          "-s", setting)
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert proc.stderr == (f"wackycrawl process: {setting}: not a valid DOCNO part: "
                               f"{value!r} (letters, digits, '.', '_' and '-', starting with a "
                               "letter or digit); nothing done\n")
        assert not (tmp_path / "o").exists()


def test_resume_after_kill_9(tmp_path):
    """Killed while processing, the same command finishes the job: every document once."""
    inputs = [write_warc(tmp_path / "in", f"w{i}",
                         {f"http://h{i}.test/{n}": page(f"P{n}", prose(1000 * i + n))
                          for n in range(25)}) for i in range(6)]
    # a document shared by two inputs: the resumed run must still see it as a duplicate
    inputs.append(write_warc(tmp_path / "in", "dup", {"http://dup.test/":
                                                      page("P0", prose(0))}))
    whole = tmp_path / "whole"
    assert wackycrawl("process", *map(str, inputs), "-o", str(whole)).returncode == 0
    out = tmp_path / "out"
    cmd = [sys.executable, "-c", CLI, "process", *map(str, inputs), "-o", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        done = out / "process-done.tsv"
        if done.exists() and len(done.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = len((out / "process-done.tsv").read_text().splitlines())
    again = wackycrawl("process", *map(str, inputs), "-o", str(out))
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("done in an earlier run, skipped") == finished
    assert texts(out) == texts(whole)
    assert max(texts(out).values()) == 1
    assert len(urls(out)) == 6 * 25
    assert len((out / "process-done.tsv").read_text().splitlines()) == len(inputs)


def prose_warc(n: int, gz: bool) -> tuple[bytes, list[int]]:
    """``n`` response records of English prose pages (``http://a.test/<i>.html``) as warcio
    writes them, and the offset of each record."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    writer, offsets = WARCWriter(out, gzip=gz), []
    for i in range(n):
        body = page(f"Page {i}", prose(100 + i)).encode()
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"),
                                           ("Content-Length", str(len(body)))],
                                protocol="HTTP/1.1")
        offsets.append(out.tell())
        writer.write_record(writer.create_warc_record(
            f"http://a.test/{i}.html", "response", payload=io.BytesIO(body), length=len(body),
            http_headers=http))
    return out.getvalue(), offsets


def change_length(record: bytes, delta: int) -> bytes:
    """The record (plain or one gzip member) with its WARC Content-Length off by ``delta``."""
    import re

    zipped = record[:2] == b"\x1f\x8b"
    data = gzip.decompress(record) if zipped else record
    m = re.search(rb"\r\nContent-Length: (\d+)\r\n", data)
    data = data[:m.start(1)] + str(int(m.group(1)) + delta).encode() + data[m.end(1):]
    return gzip.compress(data) if zipped else data


def damage(data: bytes, offsets: list[int], which: int, delta: int) -> bytes:
    ends = [*offsets[1:], len(data)]
    start, end = offsets[which], ends[which]
    return data[:start] + change_length(data[start:end], delta) + data[end:]


def run_damaged(tmp_path: Path, name: str, data: bytes, damaged: int | None = 1) -> tuple:
    """``process`` over ``data``: an input with ``damaged`` records skipped and the rest read
    is done, that count in its line of process-done.tsv; ``damaged`` None: damage at the end
    of the file, not done (read again by the next run)."""
    path, out = tmp_path / name, tmp_path / f"out-{name}"
    path.write_bytes(data)
    proc = wackycrawl("process", str(path), "-o", str(out), "-s", "WACKY_LANGUAGES=en",
                      "--no-progress")
    docs = [doc for f in sorted(out.glob("*.trec.gz")) for _, doc in iter_docs(str(f))]
    dropped = {url: (reason, detail) for drops in out.glob("drops-*.tsv")
               for _, url, reason, detail in read_drops(str(drops))}
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    if damaged is None:  # damaged at its end: not done, read again
        assert (out / "process-done.tsv").read_text() == ""
        assert "0 file(s) done, 1 failed" in proc.stderr, proc.stderr
    else:
        assert (out / "process-done.tsv").read_text().split("\t")[::2] == [
            str(path), f"{damaged}\n"]
        assert "1 file(s) done (1 with damaged records skipped)," in proc.stderr, proc.stderr
        assert f"; {damaged} damaged record(s) skipped, the others read: marked done" \
            in proc.stderr
    for doc in docs:  # no document holds another record
        assert "WARC/1." not in "\n".join(doc.paragraphs) and "WARC-Type" not in \
            "\n".join(doc.paragraphs)
    return proc, [doc.url for doc in docs], dropped


def test_a_record_whose_content_length_is_too_large_is_damaged(tmp_path):
    data, offsets = prose_warc(8, gz=False)
    proc, kept, dropped = run_damaged(tmp_path, "long.warc", damage(data, offsets, 0, 100_000))
    # it swallowed the records after it: they are read from the next WARC version line on
    assert kept == [f"http://a.test/{i}.html" for i in range(1, 8)]
    assert dropped["http://a.test/0.html"][0] == "truncated"
    assert f"{tmp_path / 'long.warc'}: damaged: record at byte 0" in proc.stderr
    # one gzip member per record: the records after the damaged one are read
    data, offsets = prose_warc(8, gz=True)
    proc, kept, dropped = run_damaged(tmp_path, "long.warc.gz",
                                      damage(data, offsets, 2, 100_000))
    assert kept == [f"http://a.test/{i}.html" for i in (0, 1, 3, 4, 5, 6, 7)]
    assert dropped["http://a.test/2.html"][0] == "truncated"
    assert f"record at byte {offsets[2]}" in proc.stderr


def test_a_warc_cut_inside_its_last_record_is_damaged(tmp_path):
    for gz in (False, True):
        data, offsets = prose_warc(8, gz=gz)
        name = "cut.warc.gz" if gz else "cut.warc"
        proc, kept, dropped = run_damaged(tmp_path, name, data[:-700], damaged=None)
        assert kept == [f"http://a.test/{i}.html" for i in range(7)]
        assert dropped["http://a.test/7.html"][0] == "truncated"
        assert f"{tmp_path / name}: damaged: record at byte {offsets[7]}" in proc.stderr


def test_a_record_whose_content_length_is_too_small_is_damaged(tmp_path):
    data, offsets = prose_warc(8, gz=False)
    proc, kept, dropped = run_damaged(tmp_path, "short.warc", damage(data, offsets, 0, -500))
    assert "Remainder" not in proc.stderr and "<p>" not in proc.stderr  # no raw bytes
    assert "digest failed" in proc.stderr and "record at byte 0" in proc.stderr
    assert dropped["http://a.test/0.html"][0] == "damaged_record"
    assert kept == [f"http://a.test/{i}.html" for i in range(1, 8)]
    data, offsets = prose_warc(8, gz=True)
    proc, kept, dropped = run_damaged(tmp_path, "short.warc.gz", damage(data, offsets, 5, -500))
    assert "Remainder" not in proc.stderr and "<p>" not in proc.stderr
    assert kept == [f"http://a.test/{i}.html" for i in (0, 1, 2, 3, 4, 6, 7)]
    assert dropped["http://a.test/5.html"][0] == "damaged_record"


def test_an_http_payload_longer_than_its_content_length_is_damaged(tmp_path):
    """A record whose digests match (the writer computed them) but whose HTTP payload runs
    past the HTTP Content-Length holds more than the response (another record, say)."""
    body = page("Page", prose(100)).encode()
    with WarcWriter(str(tmp_path), worker="p") as w:
        w.write_exchange(Exchange("http://a.test/long.html", "HTTP/1.1 200 OK",
                                  [("Content-Type", "text/html"),
                                   ("Content-Length", str(len(body) - 2000))], body))
        w.write_exchange(Exchange("http://a.test/ok.html", "HTTP/1.1 200 OK",
                                  [("Content-Type", "text/html")],
                                  page("Ok", prose(101)).encode()))
        path = Path(w.path)
    _, kept, dropped = run_damaged(tmp_path, path.name, path.read_bytes())
    assert kept == ["http://a.test/ok.html"]
    reason, detail = dropped["http://a.test/long.html"]
    assert reason == "damaged_record" and "longer than its Content-Length" in detail


def flip(data: bytes, start: int, n: int) -> bytes:
    """``data`` with ``n`` bytes from ``start`` XOR 0x55."""
    return data[:start] + bytes(b ^ 0x55 for b in data[start:start + n]) + data[start + n:]


def test_a_gzip_member_that_does_not_inflate_is_a_damaged_record(tmp_path):
    """Corrupt deflate data, a wrong CRC, a broken gzip header: the record is damaged at its
    member's offset and the records after it are read from the next gzip member."""
    data, offsets = prose_warc(8, gz=True)
    ends = [*offsets[1:], len(data)]
    cases = {"deflate": (3, flip(data, offsets[3] + 200, 30)),
             "crc": (4, flip(data, ends[4] - 8, 1)),
             "header": (5, flip(data, offsets[5], 3)),
             "first": (0, flip(data, 120, 30))}
    for name, (which, damaged) in cases.items():
        proc, kept, dropped = run_damaged(tmp_path, f"{name}.warc.gz", damaged)
        assert kept == [f"http://a.test/{i}.html" for i in range(8) if i != which], name
        assert f"{tmp_path / name}.warc.gz: damaged: record at byte {offsets[which]}" \
            in proc.stderr, proc.stderr
        assert "does not inflate" in proc.stderr and "\\x1f" not in proc.stderr
        assert "Unknown archive format" not in proc.stderr
        assert len(proc.stderr.splitlines()) == 2, proc.stderr  # the file's line, the summary
        assert set(dropped) <= {f"http://a.test/{which}.html"}
        assert all(reason == "damaged_record" for reason, _ in dropped.values())
    # damage in the last member: nothing after it to read
    proc, kept, _ = run_damaged(tmp_path, "last.warc.gz", flip(data, offsets[7] + 200, 30),
                                damaged=None)
    assert kept == [f"http://a.test/{i}.html" for i in range(7)]
    assert f"record at byte {offsets[7]}" in proc.stderr and "no record after it" in proc.stderr


def test_a_rerun_with_other_settings_is_refused(tmp_path):
    warc = write_warc(tmp_path / "in", "a", {"http://a.test/en": page("En", prose(1)),
                                             "http://a.test/de": page("De", prose(2, lang="de"))})
    out = tmp_path / "out"
    first = wackycrawl("process", str(warc), "-o", str(out), "-s", "WACKY_LANGUAGES=en,de",
                       "--no-progress")
    assert first.returncode == 0, first.stderr
    assert urls(out) == {"http://a.test/en", "http://a.test/de"}
    before = sorted(p.name for p in out.iterdir())
    other = wackycrawl("process", str(warc), "-o", str(out), "-s", "WACKY_LANGUAGES=de",
                       "--no-progress")
    assert other.returncode == 2
    assert other.stderr.strip().splitlines() == [
        f"wackycrawl process: {out} holds the corpus of a run with other settings "
        "(-s WACKY_LANGUAGES=en,de; this run: -s WACKY_LANGUAGES=de); the inputs done there "
        "would not be read again: give a new folder (-o), or the same -s settings to resume "
        "that run"]
    none = wackycrawl("process", str(warc), "-o", str(out), "--no-progress")
    assert none.returncode == 2 and "this run: no -s setting" in none.stderr
    assert sorted(p.name for p in out.iterdir()) == before
    assert urls(out) == {"http://a.test/en", "http://a.test/de"}
    same = wackycrawl("process", str(warc), "-o", str(out), "-s", "WACKY_LANGUAGES=en,de",
                      "-s", "LOG_LEVEL=INFO", "--no-progress")
    assert same.returncode == 0 and "done in an earlier run, skipped" in same.stderr


def test_a_missing_input_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "out"
    proc = wackycrawl("process", str(tmp_path / "nosuch.warc.gz"), "-o", str(out))
    assert proc.returncode == 1 and not out.exists()
    assert proc.stderr == (f"wackycrawl process: {tmp_path / 'nosuch.warc.gz'}: no such file "
                           "or folder; nothing done\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = wackycrawl("process", str(empty), "-o", str(out))
    assert proc.returncode == 1 and not out.exists() and "no .warc.gz" in proc.stderr


def leave_open(directory: Path, worker: str, pages: dict[str, str]) -> Path:
    """A WARC file as a crawl killed while writing leaves it: ``.open``, cut inside the
    response record of its last page."""
    from wackycrawl.trec.reader import iter_members

    closed = write_warc(directory, worker, pages)
    with open(closed, "rb") as f:
        members = list(iter_members(f, str(closed)))
    last = members[-2]  # the last page's response (its request record follows)
    left = closed.with_name(closed.name + ".open")
    left.write_bytes(closed.read_bytes()[:last.offset + last.length // 2])
    closed.unlink()
    return left


def test_a_warc_folder_left_open_by_a_killed_crawl(tmp_path):
    warc = tmp_path / "warc"
    pages = {f"http://a.test/{n}": page(f"P{n}", prose(n)) for n in range(4)}
    left = leave_open(warc, "k9", pages)
    out = tmp_path / "out"
    glob = wackycrawl("process", str(warc / "*.warc.gz"), "-o", str(out))  # the shell's
    assert glob.returncode == 1 and not out.exists()
    assert f"give the folder ('wackycrawl process {warc} ...'" in glob.stderr, glob.stderr
    proc = wackycrawl("process", str(warc), "-o", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    closed = Path(str(left).removesuffix(".open"))
    assert f"{left}: left open by a crawl that was stopped; closed as {closed}" in proc.stderr
    assert not left.exists() and closed.exists()
    assert urls(out) == {f"http://a.test/{n}" for n in range(3)}  # the last one was cut
    assert (out / "process-done.tsv").read_text().split("\t")[0] == str(closed)
    again = wackycrawl("process", str(closed), "-o", str(out), "--no-progress")  # the glob's
    assert again.returncode == 0 and "done in an earlier run, skipped" in again.stderr


def test_request_fields_of_the_crawls_metadata_records_are_carried(tmp_path):
    """Depth and Seed-Query from the metadata records (in the same file or, written after the
    file rotated, in the writer's next one); the stages' own fields are made again."""
    from wackycrawl.corpus.export import text_attributes

    def meta(depth: str, query: str = "") -> list[tuple[str, str]]:
        return [("Verdict", "kept"), ("DOCNO", "X-1"), ("X-Wacky-Raw-Bytes", "1"),
                ("X-Wacky-Depth", depth), *([("X-Wacky-Seed-Query", query)] if query else []),
                ("X-Wacky-Language", "xx")]

    html = {n: page(f"P{n}", prose(n)).encode() for n in range(4)}
    headers = [("Content-Type", "text/html; charset=utf-8")]
    with WarcWriter(str(tmp_path), worker="d") as w:
        ids = [w.write_exchange(Exchange(f"http://a.test/{n}", "HTTP/1.1 200 OK", headers,
                                         html[n])) for n in range(4)]
        w.write_metadata("http://a.test/0", ids[0], meta("0", "alpha beta"))
        w.write_metadata("http://a.test/1", ids[1], meta("2"))
        first = Path(w.path)
    with WarcWriter(str(tmp_path), worker="d") as w:  # after rotation: the next file
        w.write_metadata("http://a.test/2", ids[2], meta("3"))
        second = Path(w.path)
    assert second.name.endswith("-00001.warc.gz")
    out = tmp_path / "out"
    proc = wackycrawl("process", str(first), "-o", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    docs = {doc.url: doc for f in out.glob("*.trec.gz") for _, doc in iter_docs(str(f))}
    assert docs["http://a.test/0"].meta.get("Depth") == "0"
    assert docs["http://a.test/0"].meta.get("Seed-Query") == "alpha beta"  # read back decoded
    assert list(docs["http://a.test/0"].meta)[:4] == ["Raw-Bytes", "Depth", "Seed-Query",
                                                      "Encoding"]
    assert docs["http://a.test/1"].meta.get("Depth") == "2"
    assert docs["http://a.test/2"].meta.get("Depth") == "3"
    assert "Depth" not in docs["http://a.test/3"].meta  # no metadata record: absent
    assert {d.meta["Language"] for d in docs.values()} == {"en"}
    assert text_attributes(docs["http://a.test/1"])["depth"] == "2"  # the VRT <text> attribute


def test_an_input_whose_documents_could_not_be_written_is_not_marked_done(tmp_path):
    # A DOCNO prefix too long for a file name: every TREC write fails (as on a full disk).
    warc = write_warc(tmp_path, "g", {f"http://w{i}.test/": page("W", prose(i)) for i in range(3)})
    out = tmp_path / "out"
    proc = wackycrawl("process", str(warc), "-o", str(out), "--no-progress",
                      "-s", "WACKY_DOCNO_PREFIX=" + "x" * 250)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "3 document(s) could not be written" in proc.stderr
    assert "0 file(s) done, 1 failed (not marked done" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (out / "process-done.tsv").read_text() == ""
    proc = wackycrawl("process", str(warc), "-o", str(out), "--no-progress",
                      "-s", "WACKY_DOCNO_PREFIX=" + "x" * 250)
    assert "done in an earlier run" not in proc.stderr  # read again


def test_input_names_with_line_breaks_or_tabs_are_remembered_as_done(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for n, name in enumerate(["a\nb", "c\td", "e\u2028f", '"g', "plain"]):
        warc = write_warc(tmp_path, f"w{n}", {f"http://n{n}.test/": page("N", prose(40 + n))})
        warc.rename(src / f"{name}.warc.gz")
    out = tmp_path / "out"
    first = wackycrawl("process", str(src), "-o", str(out), "--no-progress",
                       "-s", "WACKY_DEDUP_ENABLED=False")
    assert first.returncode == 0 and "5 file(s) done" in first.stderr, first.stderr[-2000:]
    again = wackycrawl("process", str(src), "-o", str(out), "--no-progress",
                       "-s", "WACKY_DEDUP_ENABLED=False")
    assert again.returncode == 0 and "0 file(s) done" in again.stderr, again.stderr[-2000:]
    assert again.stderr.count("done in an earlier run, skipped") == 5
    assert "removing" not in again.stderr
    assert sum(texts(out).values()) == 5


def test_a_spool_cut_short_by_a_full_disk_is_a_failed_input_not_a_traceback(tmp_path):
    # RLIMIT_FSIZE makes every write past 24 KB fail as a full disk would (EFBIG): the
    # stage results' spool of this input is cut inside its second entry.
    import resource

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (24_000, 24_000))

    pages = {f"http://f{i}.test/": page("F", prose(60 + i, min_chars=15000)) for i in range(4)}
    warc = write_warc(tmp_path, "g", pages)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", CLI, "process", str(warc), "-o", str(out),
                           "--no-progress", "-s", "WACKY_LANGUAGE_ENABLED=False"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          preexec_fn=limit)  # (no language model: py3langid unpacks it to disk)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "failed (not marked done" in proc.stderr
    assert (out / "process-done.tsv").read_text() == ""


def test_an_outdir_in_an_input_folder_is_refused_before_anything_is_written(tmp_path):
    warc = tmp_path / "warc"
    write_warc(warc, "g", {"http://a.test/": page("A", prose(1))})
    before = sorted(p.name for p in warc.iterdir())
    for out in (warc, warc / "corpus"):
        proc = wackycrawl("process", str(warc), "-o", str(out), "--no-progress")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"wackycrawl process: {out} ") and "input folder" in \
            proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert sorted(p.name for p in warc.iterdir()) == before


def test_a_refused_setting_or_a_failed_run_leaves_no_folder_it_made(tmp_path):
    good = write_warc(tmp_path, "g", {"http://a.test/": page("A", prose(1))})
    for jobs in ("1", "2"):
        out = tmp_path / f"pxx{jobs}"
        proc = wackycrawl("process", str(good), "-o", str(out), "-j", jobs,
                          "-s", "WACKY_LANGUAGES=xx", "--no-progress")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("wackycrawl process: WACKY_LANGUAGES: unknown language")
        assert not out.exists()
    # a failure after OUTDIR was made (a full disk when the first input is marked done)
    # removes the folder this run made, no input being done
    out = tmp_path / "made"
    proc = subprocess.run(
        [sys.executable, "-c", "import os, sys; from wackycrawl.cli import main\n"
         "from wackycrawl.cli import process\n"
         "def fail(*a, **k): raise OSError(28, 'No space left on device')\n"
         "process._Run.mark_done = fail\n"
         "sys.exit(main())", "process", str(good), "-o", str(out), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stderr.strip().endswith("No space left on device") and not out.exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    proc = wackycrawl("process", str(good), "-o", str(existing), "-s", "WACKY_LANGUAGES=xx")
    assert proc.returncode == 2 and existing.is_dir()  # a folder it did not make stays


def test_an_input_with_a_damaged_record_is_done_once_and_not_read_again(tmp_path):
    """The damaged record is named and counted, the others processed; the input is done with
    its count, so a second run skips it; a file cut inside its last record is not done."""
    data, offsets = prose_warc(6, gz=True)
    warc = tmp_path / "in" / "one.warc.gz"
    warc.parent.mkdir()
    warc.write_bytes(flip(data, offsets[2] + 200, 30))
    out = tmp_path / "out"
    proc = wackycrawl("process", str(warc), "-o", str(out), "-s", "WACKY_LANGUAGES=en",
                      "--no-progress")
    assert proc.returncode == 1
    assert f"{warc}: damaged: record at byte {offsets[2]}" in proc.stderr
    assert "1 damaged record(s) skipped, the others read: marked done" in proc.stderr
    assert (out / "process-done.tsv").read_text().endswith("\t1\n")
    assert sorted(urls(out)) == [f"http://a.test/{i}.html" for i in (0, 1, 3, 4, 5)]
    again = wackycrawl("process", str(warc), "-o", str(out), "-s", "WACKY_LANGUAGES=en",
                       "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "done in an earlier run, skipped" in again.stderr and "removing" not in again.stderr
    assert "0 file(s) done" in again.stderr
    cut = tmp_path / "in" / "two.warc.gz"
    cut.write_bytes(data[:-700])
    proc = wackycrawl("process", str(warc), str(cut), "-o", str(out), "-s",
                      "WACKY_LANGUAGES=en", "--no-progress")
    assert proc.returncode == 1 and "0 file(s) done, 1 failed" in proc.stderr, proc.stderr
    assert str(cut) not in (out / "process-done.tsv").read_text()


def test_an_input_whose_pages_failed_in_a_stage_is_not_marked_done(tmp_path):
    """py3langid unpacks its model into a temporary file at first use: with a file size limit
    (as on a full disk) every page fails in the language stage; the input is then not done,
    and the next run, with room to write, reads it again."""
    import resource

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit: EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 20, 2 << 20))

    warc = write_warc(tmp_path / "in", "a", {f"http://a.test/{n}": page(f"A{n}", prose(n))
                                            for n in range(3)})
    out = tmp_path / "out"
    argv = [sys.executable, "-c", CLI, "process", str(warc), "-o", str(out), "--no-progress"]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          preexec_fn=small_files)
    assert proc.returncode == 1
    assert "3 page(s) failed in a stage (the drop stage_error, first: OSError(27" in proc.stderr
    assert "0 file(s) done, 1 failed" in proc.stderr and "stage_error 3" in proc.stderr
    assert (out / "process-done.tsv").read_text() == ""
    again = wackycrawl("process", str(warc), "-o", str(out), "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "1 file(s) done" in again.stderr and urls(out) == {f"http://a.test/{n}"
                                                              for n in range(3)}
