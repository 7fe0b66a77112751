"""A graceful stop (SIGTERM, Ctrl-C, Scrapyd's cancel) that arrives while the spider opens
(its stage worker loads the language model): the crawl still closes with reason ``shutdown``,
its stats file and summary written, and resumes from its JOBDIR to every page once."""

from __future__ import annotations

import signal

import pytest

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web, corpus_docs

pytestmark = pytest.mark.crawl


def test_sigterm_while_the_spider_opens_closes_it_as_shutdown(tmp_path):
    out = tmp_path / "out"
    job = {**SETTINGS, "DEPTH_LIMIT": "0", "JOBDIR": str(out / "job"), "WACKY_STAGE_WORKERS": "1"}
    seeds = ["http://h0.chain.test/p0.html"]
    with LocalWeb() as web:
        expected = build_chain_web(web, hosts=2, per_host=3)
        proc, stats = start_crawl(web, seeds, out, job)
        log = out / "crawl.log"
        assert wait_for(lambda: "Spider opened" in log.read_text(errors="replace"),
                        timeout=60, interval=0.02)
        proc.send_signal(signal.SIGTERM)
        stopped = finish(proc, out, stats, timeout=60)
        assert proc.returncode == 0, stopped.log[-3000:]
        resumed = run_crawl(web, seeds, out, job)
    assert stopped.stats.get("finish_reason") == "shutdown", stopped.log[-3000:]
    assert "Task was destroyed" not in stopped.log and " ERROR: " not in stopped.log
    assert "(close reason: shutdown)" in stopped.log
    assert resumed.stats.get("finish_reason") == "finished", resumed.log[-3000:]
    urls = [d.url for d in corpus_docs(out / "corpus")]
    assert len(urls) == len(set(urls)) and set(urls) == expected
