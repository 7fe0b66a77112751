"""A real crawl over loopback with the raw archive on; its WARC files checked by warcio and
FastWARC, re-processed by ``wackycrawl process`` (also a ``wget --warc-file`` archive), and
the verdicts of ``wackycrawl judge`` compared with the crawl's."""

from __future__ import annotations

import collections
import gzip
import io
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from tests.crawlrun import ROOT, finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.webpages import page, prose, word_list
from wackycrawl.crawl.drops import read_drops
from wackycrawl.trec.reader import TruncatedFileError, iter_docs, iter_members

pytestmark = pytest.mark.crawl

SETTINGS = {"WACKY_LANGUAGES": "en", "WACKY_SCOPE_FROM_SEEDS": "domain"}
ENGLISH = [f"/en{n}.html" for n in range(6)]


def build_site(web: LocalWeb, host: str = "http://site.test") -> dict[str, str]:
    """English pages (kept), one gzip-encoded, one chunked; German, word-list, exact-copy and
    tiny pages. Returns the HTML of each page by URL."""
    pages = {host + path: page(f"Page {n}", prose(100 + n)) for n, path in enumerate(ENGLISH)}
    pages[host + "/de.html"] = page("Deutsch", prose(120, lang="de"))
    pages[host + "/words.html"] = word_list(121)
    pages[host + "/copy.html"] = pages[host + ENGLISH[0]]
    links = [*ENGLISH, "/de.html", "/words.html", "/copy.html", "/tiny.html", "/gone.html"]
    pages[host + "/"] = page("Home", prose(99), links=links, nav_links=0)
    for url, html in pages.items():
        if url.endswith("en1.html"):
            web.add(url, gzip.compress(html.encode()), headers={"Content-Encoding": "gzip"})
        else:
            web.add(url, html, chunked=url.endswith("en2.html"))
    web.add(host + "/tiny.html", '<html><body><a href="/en5.html">x</a></body></html>')
    web.add(host + "/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    return pages


def warc_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.warc.gz"))


def read_warc(path: Path) -> list[tuple[str, dict, bytes]]:
    out = []
    with open(path, "rb") as f:
        for r in ArchiveIterator(f):
            out.append((r.rec_type, dict(r.rec_headers.headers), r.content_stream().read()))
    return out


def texts(corpus: Path) -> collections.Counter:
    return collections.Counter("\n".join(doc.paragraphs) for f in sorted(corpus.glob("*.trec.gz"))
                               for _, doc in iter_docs(str(f)))


def wackycrawl(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    cli = "import sys; from wackycrawl.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", cli, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=env, check=False)


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("warc-crawl")
    with LocalWeb() as web:
        pages = build_site(web)
        result = run_crawl(web, ["http://site.test/"], out,
                           {**SETTINGS, "WACKY_WARC_DIR": str(out / "warc")}, timeout=180)
    assert result.returncode == 0, result.log[-3000:]
    return result, out, pages


def test_crawl_writes_valid_warc(crawl):
    result, out, _ = crawl
    files = warc_files(out / "warc")
    assert files and not list((out / "warc").glob("*.open"))
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", "-v", *map(str, files)],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "digest fail" not in check.stdout and check.stdout.count("digest pass") > 20
    records = [r for f in files for r in read_warc(f)]
    responses = {h["WARC-Target-URI"]: (h, body) for kind, h, body in records
                 if kind == "response"}
    # the size window's pages, not the tiny page, robots.txt or the 404
    expected = {f"http://site.test{p}" for p in [*ENGLISH, "/", "/de.html", "/words.html",
                                                  "/copy.html"]}
    assert set(responses) == expected
    assert result.stat("wacky/warc/responses") == len(expected)
    ids = {h["WARC-Record-ID"]: url for url, (h, _) in responses.items()}
    requests = [h for kind, h, _ in records if kind == "request"]
    assert sorted(ids) == sorted(h["WARC-Concurrent-To"] for h in requests)
    # one metadata record per item: the crawl's decision, linked to its response
    decisions = {}
    for kind, h, body in records:
        if kind == "metadata":
            assert h["WARC-Refers-To"] in ids and h["WARC-Concurrent-To"] == h["WARC-Refers-To"]
            fields = dict(line.split(": ", 1) for line in body.decode().splitlines())
            decisions[ids[h["WARC-Refers-To"]]] = fields
    assert set(decisions) == expected
    docnos = {doc.docno for f in (out / "corpus").glob("*.trec.gz") for _, doc in iter_docs(str(f))}
    assert {d["DOCNO"] for d in decisions.values() if d["Verdict"] == "kept"} == docnos
    assert decisions["http://site.test/de.html"]["Rejected"] == "wrong_language"
    assert decisions["http://site.test/words.html"]["Verdict"] == "dropped"
    assert decisions["http://site.test/en3.html"]["X-Wacky-Language"] == "en"


def test_response_is_as_received(crawl):
    _, out, pages = crawl
    with open(warc_files(out / "warc")[0], "rb") as f:
        for r in ArchiveIterator(f):
            if r.rec_type != "response":
                continue
            url = r.rec_headers.get_header("WARC-Target-URI")
            raw = r.raw_stream.read()
            if url.endswith("en1.html"):  # gzip on the wire: stored as it came
                assert r.http_headers.get_header("Content-Encoding") == "gzip"
                assert gzip.decompress(raw).decode() == pages[url]
            elif url in pages:
                assert raw.decode() == pages[url]


def test_fastwarc_reads_crawl_warc(crawl):
    fastwarc = pytest.importorskip("fastwarc.warc")
    _, out, _ = crawl
    for path in warc_files(out / "warc"):
        blocks = [r.verify_block_digest() for r in fastwarc.ArchiveIterator(
            str(path), parse_http=False, fsspec_args=False)]  # read while iterating
        assert len(blocks) > 20 and all(blocks)
        responses = [(r.verify_payload_digest(), r.http_headers.status_code)
                     for r in fastwarc.ArchiveIterator(
                         str(path), parse_http=True, fsspec_args=False,
                         record_types=fastwarc.WarcRecordType.response)]
        assert len(responses) == 10 and set(responses) == {(True, 200)}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_process_gives_the_crawls_documents(crawl, tmp_path, jobs):
    _, out, _ = crawl
    proc = wackycrawl("process", *map(str, warc_files(out / "warc")), "-o", str(tmp_path),
                      "-j", jobs, "-s", "WACKY_LANGUAGES=en")
    assert proc.returncode == 0, proc.stderr
    crawled = texts(out / "corpus")
    assert len(crawled) >= 6
    assert texts(tmp_path) == crawled
    (drops,) = tmp_path.glob("drops-*.tsv")
    reasons = {url: reason for _, url, reason, _ in read_drops(str(drops))}
    assert reasons["http://site.test/de.html"] == "wrong_language"
    # copy.html is en0.html's text: whichever of the two the crawl fetched second is the
    # exact duplicate (arrival order), the other is kept
    pair = [reasons.get(f"http://site.test/{p}") for p in ("en0.html", "copy.html")]
    assert pair.count("exact_duplicate") == 1 and pair.count(None) == 1, pair


def test_process_with_a_changed_threshold(crawl, tmp_path):
    _, out, _ = crawl
    proc = wackycrawl("process", *map(str, warc_files(out / "warc")), "-o", str(tmp_path),
                      "-s", "WACKY_LANGUAGES=en,de", "-s", "WACKY_MIN_CLEAN_WORDS=0")
    assert proc.returncode == 0, proc.stderr
    assert len(texts(tmp_path)) == len(texts(out / "corpus")) + 1  # the German page too


def test_judge_agrees_with_the_crawl(crawl, tmp_path):
    _, out, pages = crawl
    for url, verdict in (("http://site.test/en3.html", "verdict: kept"),
                         ("http://site.test/de.html",
                          "verdict: dropped at language: wrong_language"),
                         ("http://site.test/words.html", "verdict: dropped at ")):
        path = tmp_path / url.rsplit("/", 1)[1]
        path.write_text(pages[url], encoding="utf-8")
        proc = wackycrawl("judge", str(path), "--url", url, "--content-type",
                          "text/html; charset=utf-8", "-s", "WACKY_LANGUAGES=en")
        assert proc.returncode == (0 if verdict.endswith("kept") else 1), proc.stderr
        assert verdict in proc.stdout, proc.stdout
        for line in ("text: kept", "Encoding: utf-8", "Language: "):
            assert line in proc.stdout
    # the word list: the same reason as the crawl's metadata record gives
    log = (out / "crawl.log").read_text()
    crawl_reason = next(line.split("Dropped: ", 1)[1].split(":", 1)[0] for line in
                        log.splitlines() if "Dropped: " in line and "words.html" in line)
    assert f"dropped at language: {crawl_reason}" in proc.stdout or \
        f": {crawl_reason} (" in proc.stdout.splitlines()[-1]


def test_warc_all_archives_every_response(tmp_path):
    with LocalWeb() as web:
        build_site(web)
        result = run_crawl(web, ["http://site.test/"], tmp_path,
                           {**SETTINGS, "WACKY_WARC_DIR": str(tmp_path / "warc"),
                            "WACKY_WARC_ALL": "True"}, timeout=180)
    assert result.returncode == 0
    files = warc_files(tmp_path / "warc")
    assert subprocess.run([sys.executable, "-m", "warcio.cli", "check", *map(str, files)],
                          check=False).returncode == 0
    statuses = {}
    for f in files:
        with open(f, "rb") as fh:
            for r in ArchiveIterator(fh):
                if r.rec_type == "response":
                    statuses[r.rec_headers.get_header("WARC-Target-URI")] = \
                        r.http_headers.get_statuscode()
    assert statuses["http://site.test/robots.txt"] == "200"
    assert statuses["http://site.test/tiny.html"] == "200"
    assert statuses["http://site.test/gone.html"] == "404"
    assert statuses["http://site.test/en1.html"] == "200"


def test_kill_9_leaves_readable_warc(tmp_path):
    with LocalWeb() as web:
        links = [f"/p{n}.html" for n in range(1, 300)]
        web.add("http://slow.test/p0.html", page("P0", prose(300), links=links))
        for n in range(1, 300):
            web.add(f"http://slow.test/p{n}.html", page(f"P{n}", prose(300 + n)), delay=0.2)
        warc = tmp_path / "warc"
        settings = {**SETTINGS, "WACKY_WARC_DIR": str(warc), "WACKY_LANGUAGES": "",
                    "JOBDIR": str(tmp_path / "job")}
        proc, stats_file = start_crawl(web, ["http://slow.test/p0.html"], tmp_path, settings)
        assert wait_for(lambda: any(p.stat().st_size > 30_000 for p in warc.glob("*.open")),
                        timeout=120), (tmp_path / "crawl.log").read_text()[-2000:]
        proc.send_signal(signal.SIGKILL)
        finish(proc, tmp_path, stats_file)
        (torn,) = warc.glob("*.warc.gz.open")
        complete = []
        with open(torn, "rb") as f:
            try:
                complete.extend(iter_members(f, str(torn)))
            except TruncatedFileError:
                pass
        assert len(complete) >= 5
        for member in complete:  # every complete member is one whole WARC record
            (record,) = ArchiveIterator(io.BytesIO(member.data))
            assert record.rec_type in ("warcinfo", "response", "request", "metadata")
        # the crawl resumed (a new crawl refuses a folder holding WARC files) recovers the
        # file and starts a new one
        again = run_crawl(web, ["http://slow.test/p0.html"], tmp_path,
                          {**settings, "CLOSESPIDER_PAGECOUNT": "3"})
    assert again.returncode == 0
    assert again.stat("wacky/warc/recovered_files") == 1
    assert not list(warc.glob("*.open"))
    files = warc_files(warc)
    assert len(files) == 2
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", *map(str, files)],
                           check=False)
    assert check.returncode == 0


@pytest.mark.skipif(shutil.which("wget") is None and not os.environ.get("CI"),
                    reason="wget not installed (.ci/run installs it)")
def test_process_reads_wget_warc(tmp_path):
    with LocalWeb() as web:
        pages = build_site(web)
        env = {**os.environ, **web.env()}
        subprocess.run(["wget", "--quiet", "--recursive", "--level=1", "-e", "robots=off",
                        "--warc-file", str(tmp_path / "site"), "--no-warc-keep-log",
                        "--directory-prefix", str(tmp_path / "mirror"), "http://site.test/"],
                       env=env, timeout=120, cwd=tmp_path, check=False)  # exits 8 for the 404
    archive = tmp_path / "site.warc.gz"
    assert archive.exists()
    out = tmp_path / "corpus"
    proc = wackycrawl("process", str(archive), "-o", str(out), "-s", "WACKY_LANGUAGES=en",
                      "--no-progress")
    assert proc.returncode == 0, proc.stderr
    kept = {doc.url for f in out.glob("*.trec.gz") for _, doc in iter_docs(str(f))}
    english = {f"http://site.test{p}" for p in ENGLISH} | {"http://site.test/"}
    # copy.html is the same text as en0.html: one of the two is kept
    assert kept - {"http://site.test/copy.html"} | {"http://site.test/en0.html"} == english
    expected_texts = collections.Counter(texts(out))
    assert len(expected_texts) == len(english) and len(pages) == len(english) + 3


def crawl_all_into_warc(web, host: str, tmp_path) -> dict[str, str]:
    """Crawl ``host`` with every response archived (WACKY_WARC_ALL) into tmp_path/warc; the
    crawl's drops, URL -> reason."""
    result = run_crawl(web, [host + "/"], tmp_path / "crawl",
                       {**SETTINGS, "WACKY_WARC_DIR": str(tmp_path / "warc"),
                        "WACKY_WARC_ALL": "True"}, timeout=180)
    assert result.returncode == 0, result.log[-3000:]
    (crawl_drops,) = result.outdir.glob("drops-*.tsv")
    return {url: reason for _, url, reason, _ in read_drops(str(crawl_drops))}


def reprocessed_drops(tmp_path) -> dict[str, str]:
    """``wackycrawl process`` over tmp_path/warc into tmp_path/again; its drops, URL -> reason."""
    proc = wackycrawl("process", *map(str, warc_files(tmp_path / "warc")), "-o",
                      str(tmp_path / "again"), "-s", "WACKY_LANGUAGES=en", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    (drops,) = (tmp_path / "again").glob("drops-*.tsv")
    return {url: reason for _, url, reason, _ in read_drops(str(drops))}


def test_process_gives_the_crawls_drop_reasons_for_downloads_cut_short(tmp_path):
    """WACKY_WARC_ALL archives the downloads the size window stopped (at the headers, while
    streaming, a decompression bomb, a body shorter than its Content-Length) with
    WARC-Truncated; re-processing them gives each page the crawl's drop reason, not
    too_small for the empty or partial body."""
    host = "http://big.test"
    with LocalWeb() as web:
        huge = page("Huge", prose(99) * 60).encode()
        assert len(huge) > 300_000
        web.add(host + "/big.html", huge)  # Content-Length: stopped at the headers
        web.add(host + "/stream.html", huge, chunked=True, chunk_size=16384)  # while streaming
        web.add(host + "/bomb.html", gzip.compress(b"<html><body>" + b"a" * 3_000_000),
                headers={"Content-Encoding": "gzip"})
        web.add(host + "/picture", b"\x89PNG\r\n\x1a\n" + bytes(9000), content_type="image/png")
        web.add(host + "/short.html", page("Short", prose(98)), content_length=90_000)
        web.add(host + "/tiny.html", "<html><body>tiny</body></html>")
        links = ["/big.html", "/stream.html", "/bomb.html", "/picture", "/short.html",
                 "/tiny.html", "/gone.html"]
        web.add(host + "/", page("Home", prose(97), links=links, nav_links=0))
        web.add(host + "/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
        crawled = crawl_all_into_warc(web, host, tmp_path)
    assert {crawled.get(host + p) for p in ("/big.html", "/stream.html")} == {"too_large_wire"}
    assert crawled[host + "/bomb.html"] == "too_large_decoded"
    assert crawled[host + "/short.html"] == "truncated"
    truncated = {}
    for f in warc_files(tmp_path / "warc"):
        for kind, headers, body in read_warc(f):
            if kind == "response" and "WARC-Truncated" in headers:
                truncated[headers["WARC-Target-URI"]] = headers["WARC-Truncated"]
    assert truncated[host + "/big.html"] == "length"
    assert truncated[host + "/short.html"] == "disconnect"
    assert reprocessed_drops(tmp_path) == crawled
    assert crawled[host + "/picture"] == "not_html"
    assert host + "/robots.txt" not in crawled


def test_process_gives_the_crawls_drop_reasons_for_bombs_and_lying_codings(tmp_path):
    """Decompression bombs in stacked and non-gzip codings and a body that is not what its
    Content-Encoding says are stopped by the crawl while streaming (too_large_decoded,
    bad_encoding) and archived with WARC-Truncated: length and the wire bytes received;
    process replays the crawl's meter over those bytes and gives the same reasons."""
    import brotli

    from wackycrawl.crawl.sizewindow import zstd

    host = "http://bombs.test"
    zeros = b"<html><body>" + b"\0" * 20_000_000
    bodies = {"/gzgz.html": ("gzip, gzip", gzip.compress(gzip.compress(zeros))),
              "/gzbr.html": ("gzip, br", brotli.compress(gzip.compress(zeros))),
              "/zstd.html": ("zstd", zstd.compress(zeros)),
              "/br.html": ("br", brotli.compress(zeros)),
              "/lying.html": ("gzip", page("Lying", prose(96)).encode())}
    with LocalWeb() as web:
        for path, (coding, data) in bodies.items():
            web.add(host + path, data, headers={"Content-Encoding": coding})
        web.add(host + "/", page("Home", prose(97), links=list(bodies), nav_links=0))
        web.add(host + "/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
        crawled = crawl_all_into_warc(web, host, tmp_path)
    assert {p: crawled.get(host + p) for p in bodies} == {
        "/gzgz.html": "too_large_decoded", "/gzbr.html": "too_large_decoded",
        "/zstd.html": "too_large_decoded", "/br.html": "too_large_decoded",
        "/lying.html": "bad_encoding"}
    assert reprocessed_drops(tmp_path) == crawled
