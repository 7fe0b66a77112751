"""``wackycrawl process``: arguments refused as the other commands refuse them, and records
the crawl would not keep."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from wackycrawl.cli import main


def process_responses(warc: Path, bodies: dict) -> Path:
    """Write ``bodies`` (``url -> (Content-Encoding, body bytes)``) as 200 responses of a
    WARC file and run ``wackycrawl process`` over it (exit 0 asserted); returns OUTDIR."""
    with open(warc, "wb") as f:
        w = WARCWriter(f, gzip=True)
        for url, (coding, body) in bodies.items():
            headers = StatusAndHeaders("200 OK", [
                ("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", coding),
                ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                http_headers=headers))
    out = warc.parent / "out"
    assert main(["process", str(warc), "-o", str(out), "--no-progress"]) == 0
    return out

def kept_docs(out: Path) -> dict:
    """URL -> document of every TREC file in ``out``."""
    from wackycrawl.trec.reader import iter_docs

    return {doc.url: doc for f in out.glob("*.trec.gz") for _, doc in iter_docs(str(f))}


def drop_rows(out: Path) -> list[list[str]]:
    """The rows (time, URL, reason, detail) of the drops file in ``out``, header left out."""
    return [line.split("\t") for line in
            next(out.glob("drops-*.tsv")).read_text(encoding="utf-8").splitlines()[1:]]



@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_below_one_is_a_usage_error(tmp_path, capsys, jobs):
    (tmp_path / "a.warc.gz").write_bytes(b"")
    with pytest.raises(SystemExit) as exc:
        main(["process", str(tmp_path / "a.warc.gz"), "-o", str(tmp_path / "out"), "-j", jobs])
    assert exc.value.code == 2
    assert "argument -j/--jobs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_body_its_content_encoding_lies_about_is_bad_encoding_as_in_the_crawl(tmp_path):
    """warcio hands a body that is not what its Content-Encoding says on as it is; the
    crawl's decoder fails on it (``bad_encoding``): so does ``process``, also for deflate,
    while a body that is what it says is kept."""
    import gzip
    import zlib

    from tests.webpages import page, prose

    bodies = {"http://plain.test/": ("gzip", page("P", prose(1)).encode()),
              "http://deflate.test/": ("deflate", page("D", prose(2)).encode()),
              "http://good.test/": ("gzip", gzip.compress(page("G", prose(3)).encode())),
              "http://zlib.test/": ("deflate", zlib.compress(page("Z", prose(4)).encode()))}
    out = process_responses(tmp_path / "lies.warc.gz", bodies)
    kept = set(kept_docs(out))
    assert kept == {"http://good.test/", "http://zlib.test/"}
    drops = drop_rows(out)
    assert sorted((row[1], row[2]) for row in drops) == [
        ("http://deflate.test/", "bad_encoding"), ("http://plain.test/", "bad_encoding")]
    assert "Content-Encoding lies" in drops[0][3]


def test_a_body_cut_inside_its_compressed_stream_is_truncated_as_in_the_crawl(tmp_path):
    """A complete record whose gzip or deflate body ends inside its compressed stream (the
    server's own cut, Content-Length matching the bytes sent): warcio hands on the part it
    decoded without a word; the crawl's size window drops such a page as ``truncated``, and
    so does ``process``."""
    import gzip
    import zlib

    from tests.webpages import page, prose

    def cut(data: bytes) -> bytes:
        return data[: len(data) * 2 // 3]

    text = [page(f"T{n}", prose(n, min_chars=12000)).encode() for n in range(4)]
    bodies = {"http://cutgzip.test/": ("gzip", cut(gzip.compress(text[0]))),
              "http://cutzlib.test/": ("deflate", cut(zlib.compress(text[1]))),
              "http://gzip.test/": ("gzip", gzip.compress(text[2])),
              "http://zlib.test/": ("deflate", zlib.compress(text[3]))}
    out = process_responses(tmp_path / "cut.warc.gz", bodies)
    kept = set(kept_docs(out))
    assert kept == {"http://gzip.test/", "http://zlib.test/"}
    drops = drop_rows(out)
    assert sorted((row[1], row[2]) for row in drops) == [
        ("http://cutgzip.test/", "truncated"), ("http://cutzlib.test/", "truncated")]
    assert all("stream ends early" in row[3] for row in drops)


def test_every_content_coding_the_crawl_decodes_is_decoded_by_process(tmp_path):
    """The crawl asks for gzip, deflate, br and zstd and archives the body as sent; warcio
    decodes one coding per body and fails on the brotli module's API (``'Decompressor' object
    has no attribute 'unused_data'``): ``process`` took every br page for ``bad_encoding`` and
    measured zstd, x-gzip and stacked bodies compressed (``too_small``). They are decoded as
    the crawl decodes them, and a bomb in any of them stops at the bound."""
    import gzip

    import brotli

    from tests.webpages import page, prose
    from wackycrawl.crawl.sizewindow import zstd

    text = [page(f"T{n}", prose(n)).encode() for n in range(6)]
    bomb = text[0] + b" " * 5_000_000
    bodies = {"http://br.test/": ("br", brotli.compress(text[0])),
              "http://zstd.test/": ("zstd", zstd.compress(text[1])),
              "http://xgzip.test/": ("x-gzip", gzip.compress(text[2])),
              "http://gzipbr.test/": ("gzip, br", brotli.compress(gzip.compress(text[3]))),
              "http://gzipgzip.test/": ("gzip, gzip", gzip.compress(gzip.compress(text[4]))),
              "http://zstdgzip.test/": ("zstd, gzip", gzip.compress(zstd.compress(text[5]))),
              "http://bombbr.test/": ("br", brotli.compress(bomb)),
              "http://bombzstd.test/": ("zstd", zstd.compress(bomb)),
              "http://bombstack.test/": ("gzip, br", brotli.compress(gzip.compress(bomb))),
              "http://liebr.test/": ("br", text[1])}
    out = process_responses(tmp_path / "codings.warc.gz", bodies)
    kept = kept_docs(out)
    assert set(kept) == {"http://br.test/", "http://zstd.test/", "http://xgzip.test/",
                         "http://gzipbr.test/", "http://gzipgzip.test/", "http://zstdgzip.test/"}
    drops = {row[1]: row[2] for row in drop_rows(out)}
    assert drops == {"http://bombbr.test/": "too_large_decoded",
                     "http://bombzstd.test/": "too_large_decoded",
                     "http://bombstack.test/": "too_large_decoded",
                     "http://liebr.test/": "bad_encoding"}


def test_max_doc_bytes_zero_is_no_upper_bound_as_in_the_crawl(tmp_path):
    """``WACKY_MAX_DOC_BYTES=0`` turns the crawl's upper bound off; ``process`` read
    ``0 + 1`` byte of every body and dropped each page as ``too_small`` (1 B decoded)."""
    import gzip

    from tests.webpages import page, prose

    big = page("Big", prose(7, min_chars=260_000)).encode()
    bodies = {"http://plain.test/": ("identity", page("P", prose(1)).encode()),
              "http://gzip.test/": ("gzip", gzip.compress(page("G", prose(2)).encode())),
              "http://big.test/": ("gzip", gzip.compress(big))}
    warc = tmp_path / "unbounded.warc.gz"
    process_responses(warc, bodies)  # default bound: the big page is too large
    out = tmp_path / "out0"
    assert main(["process", str(warc), "-o", str(out), "--no-progress",
                 "-s", "WACKY_MAX_DOC_BYTES=0"]) == 0
    kept = set(kept_docs(out))
    assert kept == set(bodies)
