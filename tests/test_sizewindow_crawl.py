"""The size window in a real ``scrapy crawl seeds`` over the local web (C08 and friends).

One crawl serves every case from its own host; item pipelines are off and the spider's items
are exported (URL only), so what is asserted is the size window alone: which pages reach
the spider as storable, which counters move, what the log says and when the server saw the
connection closed.
"""

from __future__ import annotations

import gzip
import json
import random
import re

import pytest

from tests.crawlrun import run_crawl, wait_for
from tests.localweb import LocalWeb

pytestmark = pytest.mark.crawl

MAX = 200 * 1024
WORDS = ["the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with",
         "be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but",
         "have", "an", "they", "you", "were", "her", "she", "there", "been", "one", "all", "we",
         "their", "corpus", "crawler", "linguistic", "page", "window", "size", "text", "web",
         "document"]


def page(size: int, seed: int = 0, links: tuple[str, ...] = (), repetitive: bool = False) -> bytes:
    """An HTML page of exactly ``size`` bytes of prose-like words."""
    head = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Page</title></head><body>"
            + "".join(f'<a href="{u}">link</a> ' for u in links) + "<p>").encode()
    tail = b"</p></body></html>"
    rng = random.Random(seed)
    need = size - len(head) - len(tail)
    if repetitive:
        text = (b"the same sentence of a page again and again. " * (need // 40 + 1))[:need]
    else:
        text = " ".join(rng.choice(WORDS) for _ in range(need // 3)).encode()[:need]
    body = head + text + tail
    assert len(body) == size
    return body


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("sizewindow")
    web = LocalWeb().start()
    try:
        routes = build(web)
        items = out / "items.jl"
        settings = {"ITEM_PIPELINES": "{}",
                    "FEEDS": json.dumps({str(items): {"format": "jsonlines", "fields": ["url"]}})}
        result = run_crawl(web, sorted(routes["seeds"]), out, settings, timeout=90)
        stored = {json.loads(line)["url"] for line in items.read_text().splitlines()}
        yield result, stored, routes, web
    finally:
        web.stop()


def build(web: LocalWeb) -> dict:
    gz = {"Content-Encoding": "gzip"}
    r = {}
    # C08 row 1: 236 B on the wire in C08, 20820 B decoded: a wire check would call it small
    r["gz20k"] = gzip.compress(page(20820, repetitive=True))
    assert len(r["gz20k"]) < 5120
    web.add("http://gz20k.test/", r["gz20k"], headers=gz)
    web.add("http://gz20k.test/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    # row 2: 3929 B plain -> too_small, but its link is followed
    web.add("http://small.test/", page(3929, links=("http://smallchild.test/",)))
    web.add("http://smallchild.test/", page(9000, seed=2))
    # row 3: 189458 B decoded, gzip -> kept
    web.add("http://gz180k.test/", gzip.compress(page(189458, seed=3)), headers=gz)
    # row 4: 631505 B decoded, gzip (well under 200 KB on the wire) -> too_large_decoded
    r["gz600k"] = gzip.compress(page(631505, seed=4))
    assert len(r["gz600k"]) < MAX
    web.add("http://gz600k.test/", r["gz600k"], headers=gz)
    # row 5: the same page decoded, chunked without Content-Length, 4 KB every 40 ms (the
    # whole page takes the server 6 s: a loaded machine's crawl still cancels well before)
    r["stream600k"] = web.add("http://stream600k.test/", page(631505, seed=4), chunked=True,
                              chunk_size=4096, chunk_interval=0.04)
    # row 6: 189458 B chunked without Content-Length -> kept
    web.add("http://stream180k.test/", page(189458, seed=6), chunked=True)
    # row 7: Content-Length 100000 but 3929 B sent, then close -> truncated, not too_small
    web.add("http://lying.test/", page(3929, seed=7), content_length=100_000)
    # a gzip bomb: 10 MB of zeros in ~10 KB
    web.add("http://bomb.test/", gzip.compress(b"<html><body>" + b"\0" * 10_000_000), headers=gz)
    # Content-Length over the window: refused at the headers
    web.add("http://bigcl.test/", page(300_000, seed=8))
    # not HTML: cut off at the headers, the server sees the connection closed
    r["pdf"] = web.add("http://pdf.test/download?id=1", b"%PDF-1.4\n" + b"\xe2" * 300_000,
                       content_type="application/pdf", chunked=True, chunk_interval=0.01)
    # no Content-Type: sniffed; binary refused, text kept
    web.add("http://notype.test/", b"PK\x03\x04" + bytes(range(256)) * 40, content_type=None)
    web.add("http://notypehtml.test/", page(9000, seed=9), content_type=None)
    # a redirect with a text/plain body is cut at the headers yet still followed
    web.add("http://redir.test/", "Moved to /final", status=301, content_type="text/plain",
            headers={"Location": "http://redir.test/final"})
    web.add("http://redir.test/final", page(12000, seed=10))
    hosts = ["gz20k", "small", "gz180k", "gz600k", "stream600k", "stream180k", "lying", "bomb",
             "bigcl", "notype", "notypehtml", "redir"]
    r["seeds"] = [f"http://{h}.test/" for h in hosts] + ["http://pdf.test/download?id=1"]
    return r


def test_c08_rows_are_kept_or_refused_on_the_decoded_size(crawl):
    result, stored, _, _ = crawl
    assert result.returncode == 0, result.log[-3000:]
    assert stored == {"http://gz20k.test/", "http://gz180k.test/", "http://stream180k.test/",
                      "http://smallchild.test/", "http://notypehtml.test/",
                      "http://redir.test/final"}
    size = {k.removeprefix("wacky/size/"): v for k, v in result.stats.items()
            if k.startswith("wacky/size/")}
    assert size == {"in_window": 6, "too_small": 1, "too_large_decoded": 2,
                    "too_large_wire": 2, "truncated": 1, "not_html": 2}


def test_undersize_page_is_not_stored_but_its_links_are_followed(crawl):
    result, stored, _, web = crawl
    assert "http://small.test/" not in stored
    assert web.hits_for("smallchild.test") and "http://smallchild.test/" in stored
    assert "too_small: http://small.test/ (3929 B < 5120 B" in result.log


def test_truncated_body_is_refused_once_and_not_retried(crawl):
    result, stored, _, web = crawl
    assert "truncated: http://lying.test/ (3929 B received, Content-Length 100000)" in result.log
    assert "http://lying.test/" not in stored
    assert [h.path for h in web.hits_for("lying.test")] == ["/robots.txt", "/"]
    assert "Got data loss" not in result.log


def test_gzip_bomb_and_gzip_600k_are_cut_while_downloading(crawl):
    result, _, routes, _ = crawl
    for host, wire in (("bomb", 20_000), ("gz600k", len(routes["gz600k"]))):
        m = re.search(rf"too_large_decoded: http://{host}\.test/ \((\d+) B > \d+ B decoded "
                      r"from the first (\d+) B",
                      result.log)
        assert m, host
        assert int(m[1]) == MAX + 1 and int(m[2]) < wire  # never more than the limit decoded
    # Scrapy's HttpCompressionMiddleware decoded only the two kept gzip pages
    assert result.stat("httpcompression/response_bytes") == 20820 + 189458


def test_stream_without_length_is_cancelled_early(crawl):
    result, _, routes, _ = crawl
    assert "too_large_wire: http://stream600k.test/" in result.log
    assert "download cancelled" in result.log
    # the server sees the close at its next write after the crawl's cancel
    assert wait_for(lambda: routes["stream600k"].cut_off_at is not None, timeout=10)
    cut = routes["stream600k"].cut_off_at
    assert MAX < cut < 631505 // 2  # server saw the close after ~50 chunks


def test_oversize_content_length_is_refused_at_the_headers(crawl):
    result, _, _, _ = crawl
    assert "too_large_wire: http://bigcl.test/ (Content-Length 300000 B > 204800 B, body not " \
           "downloaded)" in result.log


def test_non_html_is_cut_off_at_the_headers(crawl):
    result, _, routes, _ = crawl
    assert "not_html: http://pdf.test/download?id=1 (Content-Type application/pdf" in result.log
    assert routes["pdf"].cut_off_at is not None and routes["pdf"].cut_off_at < 100_000
    assert "not_html: http://notype.test/ (no Content-Type" in result.log
    assert "robots.txt" not in "".join(re.findall(r"Dropped: .*", result.log))


def test_rejections_are_logged_once_and_never_as_errors(crawl):
    result, _, _, _ = crawl
    lines = re.findall(r"Dropped: (\w+): (\S+)", result.log)
    assert len(lines) == len(set(lines)) == 8  # every rejection once (too_small included)
    assert " ERROR: " not in result.log
    assert "larger than download max size" not in result.log  # Scrapy's own limit never fired
    assert "Ignored response" not in result.log  # nor HttpCompressionMiddleware's


def test_untyped_utf16_html_is_kept_and_an_unasked_206_is_dropped(tmp_path):
    """An untyped UTF-16 page with its BOM was counted in_window, then dropped by the spider
    as not_html (Scrapy took its NULs for binary); a 206 answer to a request without Range
    was stored as if it were the whole page."""
    from tests.webpages import page as prose_page
    from tests.webpages import prose
    from wackycrawl.trec.reader import iter_docs

    whole = prose_page("Partial", prose(1413), nav_links=0).encode()
    with LocalWeb() as web:
        web.add("http://utf16.test/",
                b"\xff\xfe" + prose_page("Wide", prose(802), nav_links=0).encode("utf-16-le"),
                content_type=None)
        web.add("http://p206.test/", whole[:6000], status=206,
                headers={"Content-Range": f"bytes 0-5999/{len(whole)}"})
        result = run_crawl(web, ["http://utf16.test/", "http://p206.test/"], tmp_path,
                           {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False"})
    assert result.returncode == 0, result.log[-3000:]
    docs = {doc.url: doc for f in sorted(result.outdir.glob("*.trec.gz"))
            for _, doc in iter_docs(str(f))}
    assert set(docs) == {"http://utf16.test/"}
    assert not result.stat("wacky/drop/not_html") and not result.stat("wacky/spider/not_html")
    assert result.stat("wacky/drop/partial_content") == 1
    assert "Dropped: partial_content: http://p206.test/ (206 Partial Content" in result.log
