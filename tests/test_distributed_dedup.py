"""The shared exact/near-duplicate index on a real redis-server: the same verdicts as the
in-memory DuplicateDetector, one decision for near-identical documents added at once by many
clients, a URL's own copy kept again after a crash, DedupPipeline's switch on REDIS_URL, and
two worker processes keeping one document of pages copied across hosts."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from tests.clirun import python_words
from tests.crawlrun import finish, start_crawl
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.test_crawl_e2e import SETTINGS, corpus_docs
from tests.webpages import page, prose
from wackycrawl import settings as project_settings
from wackycrawl.dedup.detector import MAX_CONFIRM, DuplicateDetector, Fingerprint, K
from wackycrawl.dedup.shingles import shingle_hashes, sketch
from wackycrawl.dedup.simhash import checksum
from wackycrawl.distributed.fingerprint import url_fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.pipeline import WrittenOncePipeline
from wackycrawl.distributed.simhash import BLOCKS, MAX_K, RedisDedupIndex, join, split
from wackycrawl.pipelines.dedup import DECIDED_KEY, SHINGLES_KEY, DedupPipeline, set_fingerprint
from wackycrawl.pipelines.stages import StagesPipeline


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


def index(srv, crawl: str, **kw) -> RedisDedupIndex:
    return RedisDedupIndex(srv.client(), CrawlKeys(crawl), **kw)


def flip(value: int, bits) -> int:
    for b in bits:
        value ^= 1 << b
    return value


def test_split_and_join_are_inverse():
    rng = random.Random(1)
    for start, width in BLOCKS:
        for _ in range(200):
            value = rng.getrandbits(64)
            block, rest = split(value, start, width)
            assert block < 1 << width and rest < 1 << (64 - width) and 64 - width <= 53
            assert join(block, rest, start, width) == value


def test_k_beyond_the_probes_is_refused(redis_server):
    with pytest.raises(ValueError, match=f"k in 0..{MAX_K}"):
        index(redis_server, "k16", k=MAX_K + 1)


VOCAB = [f"w{i}" for i in range(400)]


def words(rng: random.Random, n: int = 150) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def fingerprint(simhash: int, text: str, n: int = 60, digest: int | None = None) -> Fingerprint:
    return Fingerprint(checksum(text) if digest is None else digest, simhash, n,
                       sketch(shingle_hashes(text)))


def test_same_verdicts_as_the_in_memory_detector(redis_server):
    """Random documents with planted exact copies, near copies (up to k + 1 bits flipped
    anywhere, also in one block; the text with one word changed) and near fingerprints of
    other texts (candidates that the shingles reject), added to both indexes."""
    rng = random.Random(7)
    shared, local = index(redis_server, "same"), DuplicateDetector(stopwords=frozenset())
    kept: list[tuple[Fingerprint, str]] = []
    verdicts = set()
    for i in range(400):
        kind = rng.random()
        if kept and kind < 0.15:
            fp, text = rng.choice(kept)  # exact copy
        elif kept and kind < 0.6:
            base, text = rng.choice(kept)
            block = 16 * rng.randrange(4)
            bits = rng.sample(range(64) if kind < 0.5 else range(block, block + 16),
                              rng.randint(1, K + 1))
            if kind < 0.4:  # one word changed; a text of its own (its own checksum), since
                # equal texts always share their simhash: an exact copy is a candidate at 0
                text = text.replace(" ", f" changed{i} ", 1)
            else:
                text = words(rng)
            fp = fingerprint(flip(base.simhash, bits), text)
        else:
            text = words(rng)
            fp = fingerprint(rng.getrandbits(64), text, rng.choice((10, 60, 200)))
        got = shared.check_and_add(fp, f"http://h{i}.test/", text)
        want = local.check(fp, text)
        local.add(want)
        assert got == want, (i, got, want)
        verdicts.add((got.verdict, got.distance is None))
        if got.verdict == "new":
            kept.append((fp, text))
    assert 50 < len(kept) < 350
    assert {("new", False), ("near_duplicate", False), ("exact_duplicate", False)} <= verdicts


def test_more_candidates_than_are_compared_give_the_same_verdicts(redis_server):
    """Fingerprints crowded around one simhash (each a candidate of the others, with ties in
    distance) and texts of their own: the index returns the nearest MAX_CONFIRM of them, as
    the in-memory detector compares, and near copies among them are found as there."""
    rng = random.Random(5)
    shared, local = index(redis_server, "crowd"), DuplicateDetector(stopwords=frozenset())
    base, kept, simhashes = rng.getrandbits(64), [], set()
    for i in range(120):
        simhash = base
        while simhash in simhashes:  # one record per simhash in Redis: all distinct here
            simhash = flip(base, rng.sample(range(64), rng.randint(1, 4)))
        simhashes.add(simhash)
        if kept and i % 4 == 0:  # a near copy of an earlier text
            text = rng.choice(kept)[1].replace(" ", f" changed{i} ", 1)
        else:
            text = words(rng)
        fp = fingerprint(simhash, text)
        got = shared.check_and_add(fp, f"http://h{i}.test/", text)
        want = local.check(fp, text)
        local.add(want)
        assert got == want, (i, got, want)
        if got.verdict == "new":
            kept.append((fp, text))
    assert 40 < len(kept) < 110 and len(kept) > MAX_CONFIRM


def test_exact_copy_on_another_worker_and_own_copy_after_a_crash(redis_server):
    w0, w1 = index(redis_server, "exact"), index(redis_server, "exact")
    text = words(random.Random(3))
    fp = fingerprint(0x0FED_CBA9_8765_4321, text, 120, 0x1234_5678_9ABC_DEF0)
    assert w0.check_and_add(fp, "http://a.test/x", text).verdict == "new"
    dup = w1.check_and_add(fp, "http://b.test/x", text)
    assert (dup.verdict, dup.match, dup.distance) == ("exact_duplicate", fp.checksum, 0)
    # w0 died before writing a.test/x; its request was leased again to w1
    assert w1.check_and_add(fp, "http://a.test/x", text).verdict == "refetched"
    changed_text = text.replace(" ", " new ", 1)  # same URL, page changed a bit
    changed = fingerprint(flip(fp.simhash, [0, 40, 41, 42, 43, 60, 61]), changed_text, 120, 1)
    again = w1.check_and_add(changed, "http://a.test/x", changed_text)
    assert (again.verdict, again.distance, again.near_of) == ("refetched", 7, fp.checksum)
    near = w1.check_and_add(fingerprint(flip(fp.simhash, [63]), changed_text, 120, 2),
                            "http://c.test/", changed_text)
    assert (near.verdict, near.match, near.distance) == ("near_duplicate", fp.simhash, 1)
    assert near.resemblance > 0.9 and near.near_of == fp.checksum


def test_short_and_empty_texts(redis_server):
    w = index(redis_server, "short", min_features=50)
    short = Fingerprint(5, 0xFFFF_0000_FFFF_0000, 10)
    assert w.check_and_add(short, "http://a.test/").verdict == "too_few_features"
    assert w.check_and_add(short, "http://b.test/").verdict == "exact_duplicate"
    long_near = Fingerprint(6, flip(short.simhash, [1]), 80)
    assert w.check_and_add(long_near, "http://c.test/").verdict == "new"  # short not indexed
    empty = Fingerprint(7, 0, 0)
    assert [w.check_and_add(empty, f"http://e{i}.test/").verdict for i in (1, 2)] == ["empty"] * 2


def test_near_identical_documents_added_at_once_keep_one(redis_server):
    base, text = 0xA5A5_5A5A_0F0F_F0F0, words(random.Random(8))
    verdicts, start = [], threading.Barrier(8)

    def worker(n: int) -> None:
        w = index(redis_server, "race")
        start.wait()
        fp = fingerprint(flip(base, [n * 7, n * 7 + 1]), text, 100, 1000 + n)
        verdicts.append(w.check_and_add(fp, f"http://w{n}.test/", text).verdict)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(verdicts) == ["near_duplicate"] * 7 + ["new"]


def test_a_document_added_between_the_two_calls_is_seen(redis_server):
    """w1 finds an unconfirmed candidate; before it calls again to store its document, w2
    stores a near copy of it: the tables' version moved, so w1 probes again and drops its
    document. Without another worker in between, the second call stores at once."""
    rng = random.Random(11)
    w1, w2 = index(redis_server, "between"), index(redis_server, "between")
    other, text = words(rng), words(rng)
    base = 0x1234_5678_9ABC_DEF0
    assert w1.check_and_add(fingerprint(base, other), "http://a.test/", other).verdict == "new"
    script, calls = w1._script, []

    def first_call_then_w2(*args, **kwargs):
        answer = script(*args, **kwargs)
        calls.append(answer[0])
        if len(calls) == 1:
            copy = fingerprint(flip(base, [3, 30]), text, digest=77)
            assert w2.check_and_add(copy, "http://c.test/", text).verdict == "new"
        return answer

    w1._script = first_call_then_w2
    got = w1.check_and_add(fingerprint(flip(base, [5]), text), "http://b.test/", text)
    assert (got.verdict, got.distance) == ("near_duplicate", 3)
    assert calls == [b"candidates", b"candidates"]
    w1._script = script
    def mgets() -> int:
        return redis_server.client().info("commandstats")["cmdstat_mget"]["calls"]

    before, unrelated = mgets(), words(rng)  # an unconfirmed candidate, nobody in between
    got = w1.check_and_add(fingerprint(flip(base, [40]), unrelated), "http://d.test/", unrelated)
    assert got.verdict == "new" and got.distance is not None
    assert mgets() - before == 1  # probed once, stored without a second probe

def test_dedup_pipeline_uses_the_shared_index_with_redis_url(redis_server):
    settings = {"REDIS_URL": redis_server.url, "WACKY_CRAWL_NAME": "pipe"}
    pipes = [DedupPipeline.from_crawler(get_crawler(settings_dict=settings)) for _ in range(2)]
    assert all(p.shared is not None and p.state_dir is None for p in pipes)
    fp = fingerprint(0x1111_2222_3333_4444, "x", 80, 42)
    items = [{"url": f"http://h{i}.test/", "paragraphs": ["x"]} for i in range(2)]
    for item in items:
        set_fingerprint(item, fp)
    loop = asyncio.new_event_loop()  # with Redis, process_item gives a coroutine
    assert loop.run_until_complete(pipes[0].process_item(items[0])) is items[0]
    with pytest.raises(Exception, match="exact_duplicate: http://h1.test/"):
        loop.run_until_complete(pipes[1].process_item(items[1]))
    assert pipes[1].stats.get_value("wacky/drop/exact_duplicate") == 1
    assert not pipes[1].detector.checksums  # nothing kept in memory
    for pipe in pipes:
        loop.run_until_complete(pipe.close_spider())
    loop.close()
    local = DedupPipeline.from_crawler(get_crawler(settings_dict={}))
    assert local.shared is None


def test_the_written_set_is_looked_up_with_the_index(redis_server):
    """With the written SET's key the script drops a URL written before (also an empty text,
    which never reaches the script) and stores nothing of it; the pipelines agree that the
    dedup stage does the lookup only when both are on with Redis."""
    keys = CrawlKeys("written")
    r = redis_server.client()
    w = RedisDedupIndex(r, keys, written=keys.written)
    text = words(random.Random(4))
    fp = fingerprint(0x0123_4567_89AB_CDEF, text, 120, 99)
    r.sadd(keys.written, url_fingerprint("http://a.test/done"))
    assert w.check_and_add(fp, "http://a.test/done", text).verdict == "already_written"
    assert w.check_and_add(Fingerprint(1, 0, 0), "http://a.test/done").verdict == "already_written"
    assert not r.exists(keys.near_bucket_prefix + "version")  # nothing stored
    assert w.check_and_add(fp, "http://a.test/new", text).verdict == "new"
    assert w.check_and_add(fp, "http://b.test/", text).verdict == "exact_duplicate"
    on = {"REDIS_URL": redis_server.url, "WACKY_CRAWL_NAME": "written", "WACKY_OUTPUT_DIR": "c",
          "ITEM_PIPELINES": project_settings.ITEM_PIPELINES}
    for settings, delegated in ((on, True), ({**on, "WACKY_DEDUP_ENABLED": "False"}, False),
                                ({**on, "REDIS_URL": "", "JOBDIR": "j"}, False)):
        crawler = get_crawler(settings_dict=settings)
        assert WrittenOncePipeline.from_crawler(crawler).check is not delegated
        if delegated:
            pipe = DedupPipeline.from_crawler(crawler)
            assert pipe.shared.written == keys.written
            item = {"url": "http://a.test/done", "paragraphs": [text]}
            set_fingerprint(item, fp)

            async def process_and_close():
                try:
                    await pipe.process_item(item)
                finally:
                    await pipe.close_spider()

            with pytest.raises(Exception, match="already_written: http://a.test/done"):
                asyncio.run(process_and_close())


def test_async_check_hands_an_outage_to_the_blocking_client(caplog):
    """The asyncio client does not retry: a check sent while redis-server is down goes on
    through the blocking client, which waits until the server is back (one WARNING each
    way), and gives the same decision."""
    import logging
    import threading

    from scrapy.settings import Settings

    from wackycrawl.distributed.connection import async_from_settings, from_settings

    with RedisServer() as srv:  # no AOF: a restart answers at once
        settings = Settings({"REDIS_URL": srv.url, "WACKY_REDIS_OUTAGE_SECONDS": "20"})
        w = RedisDedupIndex(from_settings(settings), CrawlKeys("outage"),
                            aserver=async_from_settings(settings))
        text = words(random.Random(6))
        fp = fingerprint(0x0F0F_0F0F_0F0F_0F0F, text, 120, 5)

        async def main() -> list[str]:
            verdicts = [(await w.check_and_add_async(fp, "http://a.test/", text)).verdict]
            srv.kill()
            restart = threading.Timer(1.0, srv.start)
            restart.start()
            verdicts.append((await w.check_and_add_async(fp, "http://b.test/", text)).verdict)
            await asyncio.to_thread(restart.join)
            await w.aserver.aclose()
            return verdicts

        with caplog.at_level(logging.WARNING, "wackycrawl.distributed.connection"):
            verdicts = asyncio.run(main())
    assert verdicts == ["new", "new"]  # the server restarted empty (no AOF)
    messages = [r.getMessage() for r in caplog.records]
    assert [m.split(" ", 2)[:2] for m in messages] == [["Redis", "unreachable"],
                                                       ["Redis", "answers"]]


# --- two worker processes -------------------------------------------------------------------

@pytest.mark.crawl
def test_two_workers_write_one_copy_of_pages_copied_across_hosts(redis_server, tmp_path):
    """Six hosts, each with a page of its own, an exact copy of one page and a near copy
    (another title, first word changed) of another: the union of both workers' TREC files
    holds each copied text once."""
    hosts = [f"c{i}.copies.test" for i in range(6)]
    near = prose(51)
    with LocalWeb() as web:
        seeds = []
        for i, host in enumerate(hosts):
            variant = list(near)
            variant[0] = variant[0].replace(" ", f" {'ABCDEF'[i]}x ", 1)
            pages = {"own.html": page(f"Own {i}", prose(60 + i)),
                     "exact.html": page("Exact", prose(50)),
                     "near.html": page(f"Near {i}", variant)}
            for path, body in pages.items():
                # slow answers: the crawl outlasts the second worker's start-up
                web.add(f"http://{host}/{path}", body, delay=0.5)
                seeds.append(f"http://{host}/{path}")
        corpus = tmp_path / "corpus"
        settings = {**SETTINGS, "REDIS_URL": redis_server.url, "WACKY_CRAWL_NAME": "copies",
                    "WACKY_OUTPUT_DIR": str(corpus), "DOWNLOAD_DELAY": "0.05",
                    "CONCURRENT_REQUESTS": "2", "WACKY_FOLLOW_LINKS": "False",
                    "WACKY_IDLE_CLOSE_SECONDS": "1", "WACKY_LEASE_RENEW_SECONDS": "0.5"}
        procs = [start_crawl(web, seeds, tmp_path / w, {**settings, "WACKY_WORKER_ID": w})
                 for w in ("w0", "w1")]
        results = [finish(p, tmp_path / w, stats, timeout=120)
                   for (p, stats), w in zip(procs, ("w0", "w1"), strict=True)]
    for result in results:
        assert result.returncode == 0, result.log[-3000:]
    assert all(r.stat("response_received_count") >= 1 for r in results), "both workers worked"
    paths = sorted(d.url.rsplit("/", 1)[1] for d in corpus_docs(corpus))
    assert paths == ["exact.html", "near.html"] + ["own.html"] * 6
    drops = {r: sum(res.stat(f"wacky/drop/{r}") for res in results)
             for r in ("exact_duplicate", "near_duplicate")}
    assert drops == {"exact_duplicate": 5, "near_duplicate": 5}


def test_the_shared_index_loads_the_confirmations_loops_when_the_spider_opens(redis_server):
    # with Redis the crawl process still confirms candidates (numba's resemblance loop):
    # loaded at open_spider, not on the first document, inside the crawl's time
    out = python_words(
        "import sys",
        "from scrapy.utils.test import get_crawler",
        "from wackycrawl.pipelines.dedup import DedupPipeline",
        f"s = {{'REDIS_URL': {redis_server.url!r}, 'WACKY_CRAWL_NAME': 'loops'}}",
        "pipe = DedupPipeline.from_crawler(get_crawler(settings_dict=s))",
        "print(pipe.shared is not None, 'numba' in sys.modules)",
        "pipe.open_spider()",
        "import wackycrawl.dedup.index as index",
        "print(index._loops is not None)")
    assert out == ["True", "False", "True"]


class _Crawl(Spider):
    name = "valleycrawl"


def test_in_a_stage_worker_the_shared_index_is_checked_there(redis_server):
    """With Redis and a stage worker, the worker checks: a copy is dropped by the stage runner
    itself, a kept item comes back marked and without its shingle hashes, and the crawl
    process's DedupPipeline passes it on; the keys are the crawl's (its spider's name without
    WACKY_CRAWL_NAME). With the stages in the crawl process the stage is off."""
    settings = {"REDIS_URL": redis_server.url, "WACKY_STAGE_WORKERS": 1,
                "WACKY_STAGES": ["wackycrawl.pipelines.dedup.FingerprintPipeline",
                                 "wackycrawl.pipelines.dedup.SharedDedupStage"]}
    crawler = get_crawler(_Crawl, settings_dict=settings)
    stages, dedup = StagesPipeline.from_crawler(crawler), DedupPipeline.from_crawler(crawler)
    text = words(random.Random(7))
    items = [{"url": f"http://h{i}.test/", "paragraphs": [text], "meta": {}} for i in range(2)]

    async def main():
        await stages.open_spider()
        try:
            kept = await stages.process_item(items[0])
            with pytest.raises(DropItem, match="exact_duplicate: http://h1.test/"):
                await stages.process_item(items[1])
            return kept
        finally:
            await stages.close_spider()

    kept = asyncio.run(main())
    assert kept[DECIDED_KEY] is True and SHINGLES_KEY not in kept
    assert kept["meta"]["Near-Distance"] == "-"
    assert crawler.stats.get_value("wacky/dedup/new") == 1
    assert crawler.stats.get_value("wacky/drop/exact_duplicate") == 1
    assert redis_server.client().exists(CrawlKeys("valleycrawl").near_bucket_prefix + "version")
    assert dedup.process_item(kept) is kept and DECIDED_KEY not in kept
    here = StagesPipeline.from_crawler(
        get_crawler(_Crawl, settings_dict={**settings, "WACKY_STAGE_WORKERS": 0}))
    assert [type(s).__name__ for s in here.stages] == ["FingerprintPipeline"]
