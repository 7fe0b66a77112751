"""Reconciling a dead writer's TREC file with the crawl's written set (a real redis-server,
a real writer process that dies with its file ``.open``): a document another worker wrote
again is left out of the recovered file, one the dead writer recorded is kept, one nobody
recorded is recorded and kept; Redis not answering leaves the file ``.open``."""

from __future__ import annotations

import os
from collections import Counter

import pytest
import redis

from tests.redisserver import RedisServer
from tests.test_trec_writer import leave_open_file
from wackycrawl.distributed.fingerprint import url_fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.written import Reconciler, writer_of
from wackycrawl.trec import reader
from wackycrawl.trec.writer import TrecWriter


class Stats(Counter):
    def inc_value(self, key, n=1):
        self[key] += n


@pytest.fixture
def srv():
    with RedisServer() as server:
        yield server


def fp(i: int) -> bytes:
    return url_fingerprint(f"http://a.test/{i}")  # the URLs leave_open_file writes


def dead_writer(r, keys, directory, recorded=(), elsewhere=(), docs: int = 4) -> str:
    """A writer ``wa`` that died after writing ``docs`` documents, of which it recorded
    ``recorded``; ``elsewhere`` were written again and recorded by another worker."""
    path = leave_open_file(directory, "wa", docs)
    assert writer_of(path) == "WACKY-wa"
    unrecorded = [fp(i) for i in range(docs) if i not in recorded]
    r.sadd(keys.pending("WACKY-wa"), *unrecorded)
    if recorded or elsewhere:
        r.sadd(keys.written, *(fp(i) for i in (*recorded, *elsewhere)))
    return path


def reconcile(r, keys, directory, stats) -> TrecWriter:
    reconciler = Reconciler(r, keys, stats)
    w = TrecWriter(str(directory), worker="wc", reconcile=reconciler)
    reconciler.finish()
    return w


def urls(path: str) -> list[str]:
    return [doc.url for _, doc in reader.iter_docs(path)]


def test_what_another_worker_wrote_is_left_out_and_the_rest_kept(srv, tmp_path):
    r, keys, stats = srv.client(), CrawlKeys("rec"), Stats()
    path = dead_writer(r, keys, tmp_path, recorded=[0], elsewhere=[2])
    w = reconcile(r, keys, tmp_path, stats)
    [rec] = w.recovered
    final = path.removesuffix(".open")
    assert (rec.final, rec.docs, rec.removed, rec.lost) == (final, 3, 1, [])
    assert urls(final) == ["http://a.test/0", "http://a.test/1", "http://a.test/3"]
    assert reader.check(final).ok
    assert [e.url for e in reader.read_index(final)] == urls(final)
    assert r.smembers(keys.written) == {fp(i) for i in range(4)}
    assert not r.exists(keys.pending("WACKY-wa"))
    assert stats == {"wacky/frontier/reconciled": 2, "wacky/frontier/superseded": 1}


def test_a_reconciliation_done_twice_gives_the_same_file(srv, tmp_path):
    """A reconciler killed after its script and before the file got its final name: the
    next one finds the same documents to leave out."""
    r, keys, stats = srv.client(), CrawlKeys("twice"), Stats()
    path = dead_writer(r, keys, tmp_path, recorded=[1], elsewhere=[0, 3])
    first = Reconciler(r, keys, Stats())(path, reader.read_index(path))
    assert sorted(first) == ["WACKY-wa-00000-000000", "WACKY-wa-00000-000003"]
    w = reconcile(r, keys, tmp_path, stats)
    assert w.recovered[0].removed == 2
    assert urls(path.removesuffix(".open")) == ["http://a.test/1", "http://a.test/2"]
    assert stats == {"wacky/frontier/superseded": 2}  # 2 was recorded by the first one


def test_a_file_whose_documents_were_all_written_again_is_removed(srv, tmp_path):
    r, keys, stats = srv.client(), CrawlKeys("all"), Stats()
    path = dead_writer(r, keys, tmp_path, elsewhere=[0, 1], docs=2)
    w = reconcile(r, keys, tmp_path, stats)
    assert (w.recovered[0].final, w.recovered[0].removed) == (None, 2)
    assert not os.path.exists(path) and not os.path.exists(reader.index_path(path))
    assert not os.path.exists(path.removesuffix(".open"))
    assert stats == {"wacky/frontier/superseded": 2}


def test_redis_not_answering_leaves_the_file_open_for_the_next_worker(srv, tmp_path):
    r, keys = srv.client(), CrawlKeys("later")
    path = dead_writer(r, keys, tmp_path, elsewhere=[1])
    down = redis.Redis(port=1, socket_connect_timeout=1)  # nothing listens there
    reconciler = Reconciler(down, keys, Stats())
    w = TrecWriter(str(tmp_path), worker="wc", reconcile=reconciler)
    w.close()
    assert w.recovered == [] and os.path.exists(path)
    w = reconcile(r, keys, tmp_path, Stats())
    assert urls(path.removesuffix(".open")) == [f"http://a.test/{i}" for i in (0, 2, 3)]


def test_trec_recover_with_the_crawls_redis_reconciles(srv, tmp_path, capsys):
    from tests.test_cli_trec import run

    r, keys = srv.client(), CrawlKeys("cli")
    path = dead_writer(r, keys, tmp_path, recorded=[3], elsewhere=[0])
    assert run("recover", "--redis", srv.url, "--crawl", "cli", str(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "3 documents kept" in out and "1 left out: written again by another worker" in out
    assert "crawl cli: 2 documents recorded as written now, 1 left out" in out
    assert urls(path.removesuffix(".open")) == [f"http://a.test/{i}" for i in (1, 2, 3)]
    assert not r.exists(keys.pending("WACKY-wa"))
    assert run("recover", "--redis", "nope://x", str(tmp_path)) == 2


def test_the_look_up_records_the_intent_and_the_record_clears_it(srv, tmp_path):
    """WrittenOncePipeline (the dedup stage off): the look-up puts the URL in the writer's
    pending SET; the record after the write moves it to written and takes the intent of a
    dropped item along; the close deletes the SET. A URL recorded twice is said."""
    import asyncio

    from scrapy.exceptions import DropItem
    from scrapy.utils.test import get_crawler

    from wackycrawl.distributed.pipeline import WrittenOncePipeline

    settings = {"REDIS_URL": srv.url, "WACKY_CRAWL_NAME": "intents", "WACKY_WORKER_ID": "w1",
                "WACKY_OUTPUT_DIR": str(tmp_path), "WACKY_DEDUP_ENABLED": False}
    crawler = get_crawler(settings_dict=settings)
    pipe = WrittenOncePipeline.from_crawler(crawler)
    r, keys = srv.client(), CrawlKeys("intents")
    pending = keys.pending("WACKY-w1")
    kept, dropped = {"url": "http://a.test/0"}, {"url": "http://a.test/1"}
    for item in (kept, dropped):
        pipe.process_item(item)
    assert r.smembers(pending) == {fp(0), fp(1)} and not r.exists(keys.written)
    pipe.item_dropped(dropped, None, None)

    async def write_and_close() -> set:
        await pipe.item_scraped({**kept, "docno": "WACKY-w1-00000-000000"}, None, None)
        left = r.smembers(pending)
        await pipe.item_scraped({**kept, "docno": "WACKY-w2-00000-000000"}, None, None)
        pipe.process_item({"url": "http://a.test/2"})
        await pipe.close_spider()
        return left

    assert asyncio.run(write_and_close()) == set()
    assert r.smembers(keys.written) == {fp(0)} and not r.exists(pending)
    assert crawler.stats.get_value("wacky/frontier/written_twice") == 1
    with pytest.raises(DropItem):
        pipe.process_item({"url": "http://a.test/0"})
