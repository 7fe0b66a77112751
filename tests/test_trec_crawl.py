"""A real loopback crawl whose server sends ``Content-Type: text/html; charset=utf-8`` (with
its space): the corpus passes ``wackycrawl trec check`` and a strict third-party reader, and
its documents are found by URL. Pages in legacy encodings come out decoded right, with the
evidence in the DOCHDR."""

from __future__ import annotations

import html
import subprocess
import sys

import pytest
from ir_datasets.datasets.gov2 import Gov2Docs

from tests.crawlrun import ROOT, run_crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.trec.reader import corpus_files, iter_docs

pytestmark = pytest.mark.crawl

GERMAN = ("Die Straße führt über die Brücke zum Bahnhof, wo schöne Grüße aus München warten. "
          "Für die Gäste gibt es heiße Getränke und größere Portionen als üblich. ")


def _wacky(*argv) -> subprocess.CompletedProcess:
    code = "import sys; from wackycrawl.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_dochdr_fields_and_lookup_by_url_in_a_real_crawl(tmp_path):
    with LocalWeb() as web:
        links = ["/two.html", "http://legacy.test/"]
        web.add("http://www.spaced.test/", page("One", prose(11), links=links))
        web.add("http://www.spaced.test/two.html", page("Two", prose(12)))
        legacy = page("Alt", [GERMAN * 3] + prose(13, lang="de")).encode("cp1252")
        web.add("http://legacy.test/", legacy, content_type="text/html")  # no charset at all
        result = run_crawl(web, ["http://www.spaced.test/"], tmp_path,
                           {"WACKY_LANGUAGES": "en,de"}, timeout=180)
    corpus = result.outdir
    files = corpus_files([str(corpus)])
    docs = {d.url: d for f in files for _, d in iter_docs(f)}
    assert set(docs) == {"http://www.spaced.test/", "http://www.spaced.test/two.html",
                         "http://legacy.test/"}, result.log[-3000:]
    one = docs["http://www.spaced.test/"]
    assert ("Content-Type", "text/html; charset=utf-8") in one.headers  # the header as sent
    assert one.content_type == "text/html;charset=utf-8"
    assert one.meta["Encoding-Evidence"] == "declared:header"
    old = docs["http://legacy.test/"]
    assert old.meta["Encoding"] == "cp1252" and old.meta["Encoding-Evidence"].startswith(
        "guess:cp1252:")
    assert html.unescape(GERMAN.split(",")[0]) in old.text
    for doc in docs.values():
        assert all(v and not any(c.isspace() for c in v) for v in doc.meta.values()), doc.meta
    theirs = [d for f in files for d in Gov2Docs(None, None)._docs_ctxt_iter_gov2(f)]
    assert len(theirs) == 3
    for doc in theirs:
        url, ip, fetched, ctype, length = doc.url.split()  # exactly five fields
        assert ctype in ("text/html;charset=utf-8", "text/html") and int(length) > 5000
    check = _wacky("trec", "check", str(corpus))
    assert check.returncode == 0 and check.stdout.count("OK ") == len(files), check
    got = _wacky("trec", "get", "--url", "http://www.spaced.test/two.html", "--dir", str(corpus))
    assert got.returncode == 0 and got.stdout.count("<DOC>\n") == 1
    assert "\nhttp://www.spaced.test/two.html " in got.stdout
    cat = _wacky("trec", "cat", str(corpus))
    assert cat.returncode == 0 and cat.stdout.count("<DOC>\n") == 3
