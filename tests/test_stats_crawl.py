"""``wackycrawl stats``: a crawl stopped and resumed (JOBDIR) has the corpus totals of an
uninterrupted one, and its summary line gives this run and the corpus total."""

from __future__ import annotations

import re
import signal

import pytest

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb
from tests.test_crawl_e2e import SETTINGS, build_chain_web
from wackycrawl.cli import main
from wackycrawl.crawl.totals import corpus_totals

pytestmark = pytest.mark.crawl


def _docs_written(corpus) -> int:
    return sum(len(p.read_text().splitlines()) for p in corpus.glob("*.idx.tsv"))


def test_resumed_crawl_has_the_totals_of_an_uninterrupted_one(tmp_path, capsys):
    settings = {**SETTINGS, "DOWNLOAD_DELAY": "0.25", "DEPTH_LIMIT": "0"}
    seeds = ["http://h0.chain.test/p0.html"]
    with LocalWeb() as web:
        build_chain_web(web)
        full = run_crawl(web, seeds, tmp_path / "full", settings)
        assert full.returncode == 0, full.log[-3000:]

        out = tmp_path / "resumed"
        job = {**settings, "JOBDIR": str(out / "job")}
        proc, stats_file = start_crawl(web, seeds, out, job)
        assert wait_for(lambda: (out / "corpus").is_dir() and _docs_written(out / "corpus") >= 6,
                        timeout=90)
        proc.send_signal(signal.SIGTERM)
        first = finish(proc, out, stats_file)
        assert first.stats.get("finish_reason") == "shutdown"
        second = run_crawl(web, seeds, out, job)
    assert second.returncode == 0, second.log[-3000:]

    whole, resumed = corpus_totals(str(full.outdir)), corpus_totals(str(out / "corpus"))
    assert whole.documents == full.stat("wacky/kept") > 0
    assert whole.words == full.stat("wacky/words_kept")
    assert len(whole.writers) == 1 and len(resumed.writers) == 2
    for field in ("documents", "words", "characters", "languages", "drops"):
        assert getattr(resumed, field) == getattr(whole, field), field
    assert resumed.documents == first.stat("wacky/kept") + second.stat("wacky/kept")
    assert resumed.drops["http_404"] > 0  # the pages' navigation links

    line = re.findall(r"wacky summary: .*", second.log)[-1]  # the log holds both runs
    assert f"docs kept {second.stat('wacky/kept')}, " in line
    assert f"(this run); corpus total: docs {whole.documents} in " in line
    assert "from 2 crawl processes" in line

    assert main(["stats", str(out / "corpus")]) == 0
    printed = capsys.readouterr().out
    assert f"documents {whole.documents}\n" in printed and f"words {whole.words}\n" in printed
    assert "crawl processes 2\n" in printed and "languages en " in printed
