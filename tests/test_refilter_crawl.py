"""Real loopback crawls: the rejects stream, and ``wackycrawl filter`` reproducing a
stricter crawl from a looser one with its rejects, without crawling again."""

from __future__ import annotations

import pytest

from tests.corpusweb import build_corpus_web
from tests.crawlrun import run_crawl
from tests.localweb import LocalWeb
from wackycrawl.cli import main
from wackycrawl.corpus.source import corpus_files, iter_corpus
from wackycrawl.pipelines.rejects import QUALITY_REASONS
from wackycrawl.trec.reader import check

pytestmark = pytest.mark.crawl

SEEDS = ["http://hub.test/"]


def docs(path, rejects=False):
    return list(iter_corpus(corpus_files([str(path)], rejects=rejects)))


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    out = tmp_path_factory.mktemp("refilter")
    with LocalWeb() as web:
        groups = build_corpus_web(web)
        loose = run_crawl(web, SEEDS, out / "en-de", {"WACKY_LANGUAGES": "en,de",
                                                      "WACKY_KEEP_REJECTS": "True"}, timeout=240)
        # the stages in the crawl process this time: drops reach the rejects stream directly
        strict = run_crawl(web, SEEDS, out / "en", {"WACKY_LANGUAGES": "en",
                                                    "WACKY_KEEP_REJECTS": "True",
                                                    "WACKY_STAGE_WORKERS": "0"}, timeout=240)
    for result in (loose, strict):
        assert result.returncode == 0, result.log[-3000:]
    return loose, strict, groups, out


def test_rejects_stream_holds_every_quality_drop_with_reason_and_scores(crawls):
    loose, _, groups, _ = crawls
    rejects_dir = loose.outdir / "rejects"
    files = sorted(rejects_dir.glob("*.trec.gz"))
    assert files and all("-rejects-" in f.name for f in files)
    assert all(check(str(f)).ok for f in files)
    rejected = docs(rejects_dir)
    by_url = {d.url: d for d in rejected}
    expected = sum(loose.stat(f"wacky/drop/{r}") for r in QUALITY_REASONS)
    assert len(rejected) == expected == loose.stat("wacky/rejects/docs") >= 4
    assert by_url["http://short.test/"].meta["Rejected"] == "too_short"
    assert by_url["http://words.test/"].meta["Rejected"] == "not_prose"
    assert "Language" in by_url["http://words.test/"].meta  # the scores it had
    cross = by_url["http://cross.test/"]
    assert cross.meta["Rejected"] == "near_duplicate"
    assert cross.meta["Language"] == "en" and "Simhash" in cross.meta
    assert len(set(by_url) & groups["copies"]) == 1
    for d in rejected:
        assert d.meta["Rejected"] in QUALITY_REASONS and d.paragraphs
        assert d.meta["Rejected-Detail"]  # stored without whitespace: check() above
    kept = docs(loose.outdir)
    assert groups["german"] <= {d.url for d in kept}
    assert not {d.docno for d in kept} & {d.docno for d in rejected}


def test_rejects_without_stage_workers(crawls):
    _, strict, groups, _ = crawls
    rejected = {d.url: d for d in docs(strict.outdir / "rejects")}
    for url in groups["german"]:
        assert rejected[url].meta["Rejected"] == "wrong_language"
        assert rejected[url].meta["Language"] == "de"
        assert rejected[url].meta["Rejected-Detail"] == "de by funcwords"
    assert "http://cross.test/" not in rejected


def test_filter_to_english_gives_the_english_crawl(crawls):
    loose, strict, groups, out = crawls
    target = out / "filtered"
    assert main(["filter", str(loose.outdir), "-o", str(target), "--languages", "en"]) == 0
    filtered, english = docs(target), docs(strict.outdir)
    assert len(english) == 4
    assert sorted(d.text for d in filtered) == sorted(d.text for d in english)
    urls = {d.url for d in filtered}
    assert groups["english"] <= urls and len(urls & groups["copies"]) == 1
    assert not urls & groups["german"]
    new_rejects = {d.url: d.meta["Rejected"] for d in docs(target / "rejects")}
    assert new_rejects["http://de1.test/"] == new_rejects["http://de2.test/"] == "wrong_language"
    assert all(d.meta["Source-Docno"] for d in filtered)


def test_filter_with_the_loose_settings_keeps_the_loose_corpus(crawls):
    loose, _, _, out = crawls
    target = out / "same"
    assert main(["filter", str(loose.outdir), "-o", str(target), "--languages", "en,de"]) == 0
    assert sorted(d.text for d in docs(target)) == sorted(d.text for d in docs(loose.outdir))
