"""Host templates of a JOBDIR crawl live in JOBDIR/wacky-templates.sqlite: a crawl stopped and
resumed removes the same template blocks as an uninterrupted one, two stage workers learn from
each other's pages, and a damaged file is reported while the crawl goes on without templates.
Real crawls over loopback (tests.localweb), real stage worker processes."""

from __future__ import annotations

import asyncio
import html
import signal

import pytest

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import corpus_docs
from tests.test_stages import item, pipeline
from tests.webpages import prose
from wackycrawl.distributed.localtemplates import FILENAME, LocalTemplateStore
from wackycrawl.text import blocks

# the site's template: a by-line and a sidebar of prose, which no single-page rule removes
BYLINE = "The Valley Post is written by people who live in the valley and love its towns."
SIDEBAR = ("Our readers send us their stories of the valley every week, and we print the best "
           "of them in the Sunday paper for all to read.")
N = 8
URLS = [f"http://www.valley.test/story{i}.html" for i in range(N)]
SETTINGS = {"WACKY_LANGUAGES": "en", "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
            "DEPTH_LIMIT": "0", "WACKY_SCOPE_FROM_SEEDS": "domain", "WACKY_STAGE_WORKERS": "1"}


def story(i: int) -> str:
    """Page ``i``: the template around an article of its own, linking to the next page only
    (so pages are fetched in order, one at a time)."""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in prose(300 + i))
    link = f'<p><a href="{URLS[i + 1]}">Next story</a></p>' if i + 1 < N else ""
    return (f"<html><head><title>Story {i}</title></head><body><div><p>{BYLINE}</p></div>"
            f"<div class='story'>{body}{link}</div><div><p>{SIDEBAR}</p></div></body></html>")


def site(delay: float = 0.0) -> LocalWeb:
    web = LocalWeb()
    for i, url in enumerate(URLS):
        web.add(url, story(i), delay=delay)
    return web


def texts(corpus) -> dict[str, str]:
    return {d.url: d.text for d in corpus_docs(corpus)}


def with_template(docs: dict[str, str]) -> list[str]:
    return sorted(url for url, text in docs.items() if BYLINE in text or SIDEBAR in text)


@pytest.mark.crawl
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_and_resumed_crawl_removes_the_template_as_an_uninterrupted_one(tmp_path, sig):
    """Stopped gracefully or by kill -9 after 4 documents: every page counted was committed
    (a page counted but not yet written is fetched again on resume and, as a copy of a page
    counted before, not counted again)."""
    with site(delay=0.3) as web:
        whole = run_crawl(web, [URLS[0]], tmp_path / "whole",
                          {**SETTINGS, "JOBDIR": str(tmp_path / "whole" / "job")})
        assert whole.returncode == 0, whole.log[-3000:]
        out = tmp_path / "resumed"
        job = {**SETTINGS, "JOBDIR": str(out / "job")}
        proc, stats_file = start_crawl(web, [URLS[0]], out, job)
        assert wait_for(lambda: sum(len(p.read_text().splitlines())
                                    for p in (out / "corpus").glob("*.idx.tsv")) >= 4, 60)
        proc.send_signal(sig)
        first = finish(proc, out, stats_file)
        assert sig == signal.SIGKILL or first.stats.get("finish_reason") == "shutdown"
        stopped_at = len(corpus_docs(out / "corpus"))
        second = run_crawl(web, [URLS[0]], out, job)
    assert second.returncode == 0, second.log[-3000:]
    expected = texts(whole.outdir)
    assert sorted(expected) == sorted(URLS) and 2 <= stopped_at < N
    assert with_template(expected) == URLS[:1]  # seen on 2 pages: template from page 2 on
    assert texts(out / "corpus") == expected


@pytest.mark.crawl
def test_a_damaged_templates_file_is_reported_and_the_crawl_goes_on(tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    (job / FILENAME).write_bytes(b"not a database, a damaged file\n" * 300)
    with site() as web:
        result = run_crawl(web, [URLS[0]], tmp_path, {**SETTINGS, "JOBDIR": str(job)})
    assert result.returncode == 0, result.log[-3000:]
    docs = texts(result.outdir)
    assert sorted(docs) == sorted(URLS) and with_template(docs) == sorted(URLS)
    assert result.stat("wacky/boilerplate/template_errors") == N
    warnings = [line for line in result.log.splitlines()
                if "WARNING" in line and "host templates unavailable" in line]
    assert len(warnings) == 1 and "not a database" in warnings[0], warnings


def test_two_stage_workers_share_one_store(tmp_path):
    """Pages go to both workers at once; the first page counted keeps the template and all
    others lose it (with a store per worker, each worker's first page would keep it)."""
    crawler, pipe = pipeline(WACKY_STAGE_WORKERS=2, JOBDIR=str(tmp_path), WACKY_MIN_CLEAN_WORDS=1)
    items = [item(url, story(i)) for i, url in enumerate(URLS)]

    async def main():
        await pipe.open_spider()
        try:
            return await asyncio.gather(*(pipe.process_item(i) for i in items))
        finally:
            await pipe.close_spider()

    out = asyncio.run(main())
    docs = {o["url"]: "\n".join(o["paragraphs"]) for o in out}
    assert len(with_template(docs)) == 1 and crawler.stats.get_value("wacky/boilerplate/pages") == N
    byline = blocks.block_hash(blocks.extract(story(0))[0])
    assert LocalTemplateStore.in_jobdir(str(tmp_path)).count("www.valley.test", byline) == N
