"""StagesPipeline: the stateless stages in this process and in a worker process give the same
items, drops, stats and log lines; a dead worker drops its items visibly and is replaced;
workers ignore SIGINT/SIGTERM and exit with their parent. Real Crawlers (get_crawler), real
worker processes, pages from tests.webpages."""

import asyncio
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler

from tests.webpages import page, prose, word_list
from wackycrawl import settings as project
from wackycrawl.pipelines.stages import (_HEADER, StagesPipeline, WorkerDied, default_workers,
                                         worker_main)

ROOT = Path(__file__).resolve().parent.parent
WACKY_STAGES = project.WACKY_STAGES
SETTINGS = {**{k: v for k, v in vars(project).items() if k.startswith("WACKY_")},
            "WACKY_LANGUAGES": "en", "LOG_LEVEL": "DEBUG"}


def item(url: str, body: bytes | str, content_type: str = "text/html") -> dict:
    body = body.encode("utf-8") if isinstance(body, str) else body
    return {"url": url, "ip": "127.0.0.1", "fetched": "20260101000000", "status": 200,
            "protocol": "HTTP/1.1", "headers": [("Content-Type", content_type)],
            "content_type": content_type, "body": body,
            "meta": {"Raw-Bytes": str(len(body)), "Depth": "0"}}


def pages() -> list[dict]:
    latin = page("Latin", prose(8) + ["Price: \u20ac10 \u2013 \u201cspecial\u201d offer."])
    return [
        item("http://en.test/1", page("One", prose(1))),
        item("http://en.test/2", page("Two", prose(2))),
        item("http://en.test/copy", page("One", prose(1))),  # dedup is not a stage: kept here
        item("http://latin.test/", latin.encode("cp1252"), "text/html; charset=ISO-8859-1"),
        item("http://de.test/", page("Fremd", prose(9, lang="de"))),
        item("http://words.test/", word_list(10)),
        item("http://tiny.test/", "<html><body><p>Too short.</p></body></html>"),
        item("http://binary.test/", bytes(range(256)) * 40),
        item("http://menu.test/", "<html><body><ul>" + "<li><a href=/x>x</a></li>" * 300
             + "</ul></body></html>"),
    ]


def run(pipe: StagesPipeline, items: list[dict]) -> list:
    """Open, process all items concurrently, close; returns item dicts or DropItems."""
    async def main():
        await pipe.open_spider()
        try:
            return await asyncio.gather(*(pipe.process_item(i) for i in items),
                                        return_exceptions=True)
        finally:
            await pipe.close_spider()
    return asyncio.run(main())


def pipeline(**settings) -> tuple:
    crawler = get_crawler(settings_dict={**SETTINGS, **settings})
    return crawler, StagesPipeline.from_crawler(crawler)


def outcome(results: list) -> list:
    return [r if isinstance(r, dict) else (type(r).__name__, str(r)) for r in results]


def wacky_stats(crawler) -> dict:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("wacky/")}


def stage_lines(caplog) -> list:
    return [(r.name, r.levelno, r.getMessage()) for r in caplog.records
            if r.name.startswith("wackycrawl.") and r.name != "wackycrawl.pipelines.stages"]


def test_worker_gives_the_same_items_drops_stats_and_log_lines(caplog):
    caplog.set_level(logging.DEBUG)
    results = {}
    for workers in (0, 1):
        caplog.clear()
        crawler, pipe = pipeline(WACKY_STAGE_WORKERS=workers)
        results[workers] = (outcome(run(pipe, pages())), wacky_stats(crawler), stage_lines(caplog))
    (items0, stats0, lines0), (items1, stats1, lines1) = results[0], results[1]
    assert items1 == items0
    assert stats1 == stats0
    assert sorted(lines1) == sorted(lines0)  # same lines; order across items may differ
    assert any(m.startswith("binary body served as") for _, _, m in lines1)
    kept = [r for r in items1 if isinstance(r, dict)]
    assert [r["url"] for r in kept] == ["http://en.test/1", "http://en.test/2",
                                        "http://en.test/copy", "http://latin.test/"]
    assert all(len(r["meta"]["Simhash"]) == 16 and r["simhash_features"] > 50 for r in kept)
    assert "body" not in kept[0] and "html" not in kept[0]
    drops = {msg.split(":")[0] for kind, msg in (r for r in items1 if isinstance(r, tuple))}
    assert drops == {"wrong_language", "not_prose", "too_short", "binary", "no_text"}
    for reason in drops:
        assert stats1[f"wacky/drop/{reason}"] == 1, reason
    assert stats1["wacky/language/en"] >= 4


class Probe:
    """A test stage: records its process, the process that warmed it up and its SIGTERM
    disposition; "kill" in the URL kills its process, "boom" raises."""

    @classmethod
    def from_crawler(cls, crawler):
        return cls()

    def warm_up(self):
        self.warmed_in = os.getpid()

    def process_item(self, item):
        if "kill" in item["url"]:
            os.kill(os.getpid(), signal.SIGKILL)
        if "boom" in item["url"]:
            raise ValueError("boom stage failure")
        if "slow" in item["url"]:
            time.sleep(1)
        item["pid"] = os.getpid()
        item["warmed_in"] = getattr(self, "warmed_in", None)
        item["sigterm_ignored"] = signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
        item["sigint_ignored"] = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        item["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
        item["policy"] = os.sched_getscheduler(0)
        return item


PROBE = ["tests.test_stages.Probe", *WACKY_STAGES]


class Stamp:
    """A test stage: the time the worker processed the item, and an answer of 40 KB (a page's
    text, shingle hashes and compressed record are about as large)."""

    @classmethod
    def from_crawler(cls, crawler):
        return cls()

    def process_item(self, item):
        item["done_at"] = time.monotonic()
        item["payload"] = os.urandom(40_000)
        return item


def test_the_worker_runs_ahead_while_the_crawl_process_is_busy():
    """The crawl process reads answers between its other work; meanwhile the worker goes on
    with the items it was sent (80 answers of 40 KB: 3.2 MB), instead of waiting until the
    crawl process reads the first few (a socket's default buffer holds about 200 KB)."""
    _, pipe = pipeline(WACKY_STAGE_WORKERS=1, WACKY_STAGES=["tests.test_stages.Stamp"])
    items = [item(f"http://en.test/{n}", "<p>x</p>") for n in range(80)]

    async def main():
        await pipe.open_spider()
        try:
            tasks = [asyncio.ensure_future(pipe.process_item(i)) for i in items]
            await asyncio.sleep(0)  # every item sent
            time.sleep(2)  # the crawl process busy with other work, not reading
            busy_until = time.monotonic()
            return busy_until, await asyncio.gather(*tasks)
        finally:
            await pipe.close_spider()

    busy_until, results = asyncio.run(main())
    assert len(results) == 80
    late = [r["url"] for r in results if r["done_at"] > busy_until]
    assert late == []


def test_worker_whose_crawl_process_died_mid_item_exits_quietly():
    # The crawl process is killed (kill -9) while its worker works on an item: the worker's
    # answer meets a closed socket; it exits with status 0, not with a BrokenPipeError
    # traceback in the crawl's log.
    ours, theirs = socket.socketpair()
    with theirs:
        process = multiprocessing.get_context("spawn").Process(
            target=worker_main, args=(theirs, PROBE, get_crawler(settings_dict=SETTINGS).settings
                                           .copy_to_dict(), logging.WARNING))
        process.start()
    with ours, ours.makefile("rwb") as stream:
        for seq, sent in enumerate([None, item("http://slow.test/", page("S", prose(5)))]):
            data = pickle.dumps((seq, sent))
            stream.write(len(data).to_bytes(_HEADER, "big") + data)
            stream.flush()
        header = stream.read(_HEADER)  # the answer to None: the stages are built
        stream.read(int.from_bytes(header, "big"))
    process.join(30)
    assert process.exitcode == 0


def test_dead_worker_drops_its_items_and_is_replaced(caplog):
    crawler, pipe = pipeline(WACKY_STAGE_WORKERS=1, WACKY_STAGES=PROBE)

    async def main():
        await pipe.open_spider()
        try:
            before = await pipe.process_item(item("http://en.test/1", page("One", prose(1))))
            with pytest.raises(DropItem, match="^stage_worker_died: http://kill.test/"):
                await pipe.process_item(item("http://kill.test/", page("K", prose(3))))
            after = await pipe.process_item(item("http://en.test/2", page("Two", prose(2))))
            with pytest.raises(DropItem, match="^stage_error: http://boom.test/ "
                               r"\(ValueError: boom stage failure\)"):
                await pipe.process_item(item("http://boom.test/", page("B", prose(4))))
            return before, after
        finally:
            await pipe.close_spider()

    before, after = asyncio.run(main())
    assert before["pid"] != os.getpid() and after["pid"] not in (before["pid"], os.getpid())
    # each worker warmed its stages up itself; the crawl process's copy is not warmed up
    assert (before["warmed_in"], after["warmed_in"]) == (before["pid"], after["pid"])
    assert not hasattr(pipe.stages[0], "warmed_in")
    assert before["sigterm_ignored"] and before["sigint_ignored"]
    # WACKY_STAGE_WORKER_NICE (5): on busy cores the crawl process keeps its own
    assert before["nice"] == after["nice"] == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5)
    assert crawler.stats.get_value("wacky/drop/stage_worker_died") == 1
    assert crawler.stats.get_value("wacky/stages/worker_restarts") == 1
    assert crawler.stats.get_value("wacky/drop/stage_error") == 1
    assert any(r.levelno == logging.ERROR and r.getMessage() == (
        "a stage failed on http://boom.test/: ValueError: boom stage failure (dropped as "
        "stage_error)") for r in caplog.records)
    assert any(r.levelno == logging.ERROR and "died; 1 item(s) in flight dropped" in r.getMessage()
               for r in caplog.records)


def test_a_stage_failing_in_the_crawl_process_drops_the_item_as_stage_error(caplog):
    crawler, pipe = pipeline(WACKY_STAGE_WORKERS=0, WACKY_STAGES=PROBE)
    results = run(pipe, [item("http://boom.test/", page("B", prose(4))),
                         item("http://en.test/1", page("One", prose(1)))])
    assert isinstance(results[0], DropItem) and str(results[0]).startswith(
        "stage_error: http://boom.test/ (ValueError: boom stage failure)")
    assert isinstance(results[1], dict)
    assert crawler.stats.get_value("wacky/drop/stage_error") == 1
    assert [r.levelno for r in caplog.records if "a stage failed" in r.getMessage()] == [
        logging.ERROR]


def test_workers_exit_when_the_crawl_process_is_killed():
    script = textwrap.dedent("""
        import asyncio, os, signal
        from scrapy.utils.test import get_crawler
        from wackycrawl.pipelines.stages import StagesPipeline
        crawler = get_crawler(settings_dict={"WACKY_STAGES": ["tests.test_stages.Probe"],
                                             "WACKY_STAGE_WORKERS": 1})
        pipe = StagesPipeline.from_crawler(crawler)
        async def main():
            await pipe.open_spider()
            out = await pipe.process_item({"url": "http://x.test/"})
            print(out["pid"], flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        asyncio.run(main())
    """)
    proc = subprocess.run([sys.executable, "-c", script], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    worker = int(proc.stdout.split()[0])

    def alive() -> bool:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return False
        return True

    deadline = time.monotonic() + 20
    while alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(), f"worker {worker} outlived its parent"


def test_in_process_mode_and_settings():
    _, pipe = pipeline(WACKY_STAGE_WORKERS=0, WACKY_STAGES=PROBE[:2])
    [out] = run(pipe, [item("http://en.test/1", page("One", prose(1)))])
    assert out["pid"] == out["warmed_in"] == os.getpid() and not pipe.pool
    _, auto = pipeline(WACKY_STAGE_WORKERS=None)
    assert auto.workers == default_workers() == (1 if os.cpu_count() >= 2 else 0)
    _, off = pipeline(WACKY_DEDUP_ENABLED=False, WACKY_STAGE_WORKERS=0)
    assert "FingerprintPipeline" not in [type(s).__name__ for s in off.stages]
    with pytest.raises(NotConfigured):
        pipeline(WACKY_STAGES=[])
    with pytest.raises(ValueError, match="WACKY_LANGUAGES"):  # at start-up, in both modes
        pipeline(WACKY_LANGUAGES="xx", WACKY_STAGE_WORKERS=1)


def test_a_crawl_process_ending_without_close_spider_exits():
    # workers ignore SIGTERM, which multiprocessing's exit handler sends before joining them
    script = textwrap.dedent("""
        import asyncio
        from scrapy.utils.test import get_crawler
        from wackycrawl.pipelines.stages import StagesPipeline
        if __name__ == "__main__":
            crawler = get_crawler(settings_dict={"WACKY_STAGES": ["tests.test_stages.Probe"],
                                                 "WACKY_STAGE_WORKERS": 2})
            pipe = StagesPipeline.from_crawler(crawler)
            async def main():
                await pipe.open_spider()
                await pipe.process_item({"url": "http://x.test/"})
            asyncio.run(main())
            print("done", flush=True)
    """)
    proc = subprocess.run([sys.executable, "-c", script], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr


class DieInWorker:
    """A test stage whose construction kills a worker process (and only a worker)."""

    @classmethod
    def from_crawler(cls, crawler):
        if multiprocessing.parent_process() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return cls()

    def process_item(self, item):
        return item


def test_a_worker_dying_at_start_up_fails_open_spider_without_restarts():
    crawler, pipe = pipeline(WACKY_STAGE_WORKERS=1, WACKY_STAGES=["tests.test_stages.DieInWorker"])

    async def main():
        with pytest.raises(WorkerDied):
            await pipe.open_spider()
        await asyncio.sleep(0.5)  # a restart would have been scheduled by now

    asyncio.run(main())
    assert crawler.stats.get_value("wacky/stages/worker_restarts") is None


def test_worker_niceness_follows_the_setting():
    _, pipe = pipeline(WACKY_STAGE_WORKERS=1, WACKY_STAGES=["tests.test_stages.Probe"],
                       WACKY_STAGE_WORKER_NICE=0)
    [probed] = run(pipe, [item("http://en.test/1", page("One", prose(1)))])
    assert probed["nice"] == os.getpriority(os.PRIO_PROCESS, 0)


@pytest.mark.parametrize("policy", ["other", "batch", "idle"])
def test_worker_scheduling_policy_follows_the_setting(policy):
    _, pipe = pipeline(WACKY_STAGE_WORKERS=1, WACKY_STAGES=["tests.test_stages.Probe"],
                       WACKY_STAGE_WORKER_POLICY=policy)
    [probed] = run(pipe, [item("http://en.test/1", page("One", prose(1)))])
    wanted = {"other": os.SCHED_OTHER, "batch": os.SCHED_BATCH, "idle": os.SCHED_IDLE}
    assert probed["policy"] == wanted[policy]
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the crawl process keeps its own


def test_an_unknown_scheduling_policy_stops_the_crawl_at_start_up():
    with pytest.raises(ValueError, match="WACKY_STAGE_WORKER_POLICY=fifo: must be one of"):
        pipeline(WACKY_STAGE_WORKERS=1, WACKY_STAGE_WORKER_POLICY="fifo")
