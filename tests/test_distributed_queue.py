"""The Redis side of the frontier with a real redis-server: lease queue, seen sets, keys,
status, and the project fingerprint (C18 golden values)."""

from __future__ import annotations

import time

import pytest

from scrapy.settings import Settings

from tests.redisserver import RedisServer
from wackycrawl.distributed import status
from wackycrawl.distributed.fingerprint import fingerprint
from wackycrawl.distributed.keys import CrawlKeys, redis_url
from wackycrawl.distributed.leasequeue import (
    SEED_PREFIX, LeaseQueue, StartKeyTypeError, leases_per_worker, start_urls_size)
from wackycrawl.distributed.scheduler import close_wait
from wackycrawl.distributed.seen import RedisBloom, RedisSeenSet, bloom_positions, bloom_size


@pytest.fixture(scope="module")
def server():
    with RedisServer() as srv:
        yield srv


@pytest.fixture
def r(server):
    client = server.client()
    client.flushall()
    return client


KEYS = CrawlKeys("t")


def test_key_layout_has_one_prefix_per_crawl():
    k = CrawlKeys("de-2026")
    names = [k.start_urls, k.queue, k.requests, k.inflight, k.leases, k.seq, k.seen,
             k.written, k.workers, k.bloom_count, k.worker("w1"), k.bloom_shard(0)]
    assert all(n.startswith("wacky:de-2026:") for n in names)
    assert k.start_urls == "wacky:de-2026:start_urls" and len(set(names)) == len(names)
    with pytest.raises(ValueError):
        CrawlKeys("a:b")


def test_redis_url_switch(monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert redis_url({}) is None
    monkeypatch.setenv("REDIS_URL", "redis://env")
    assert redis_url({}) == "redis://env"
    assert redis_url({"REDIS_URL": "redis://setting"}) == "redis://setting"


def test_fifo_within_priority_and_priority_first(r):
    q = LeaseQueue(r, KEYS, "w1")
    for i, prio in enumerate([0, 0, 1, -1, 0]):
        assert q.push(f"id{i}", prio, f"p{i}".encode())
    order = [q.pop().id for _ in range(5)]
    assert order == ["id2", "id0", "id1", "id4", "id3"]
    assert q.pop() is None


def test_ack_and_pop_acknowledges_then_leases_in_one_step(r):
    q = LeaseQueue(r, KEYS, "w1")
    for rid in "abc":
        q.push(rid, 0, rid.encode())
    a, b = q.pop(), q.pop()
    acked, c = q.ack_and_pop([(a.id, a.token), (b.id, "w2#0")])  # b's token is not w1's
    assert acked == [True, False] and (c.id, c.payload) == ("c", b"c")
    assert q.in_flight() == 2 and not r.hexists(KEYS.requests, "a")
    assert q.ack_and_pop([(b.id, b.token), (a.id, a.token)]) == ([True, False], None)
    assert q.in_flight() == 1
    assert q.ack_and_pop([], KEYS.start_urls) == ([], None) and not q.seeds_waiting
    r.lpush(KEYS.start_urls, "http://s.test/")
    assert q.ack_and_pop([], KEYS.start_urls) == ([], None) and q.seeds_waiting


def test_push_of_a_queued_id_is_a_no_op(r):
    q = LeaseQueue(r, KEYS, "w1")
    assert q.push("a", 0, b"x")
    assert not q.push("a", 0, b"y")
    assert q.queued() == 1


def test_ack_forgets_only_with_the_lease_token(r):
    q = LeaseQueue(r, KEYS, "w1")
    q.push("a", 0, b"payload")
    leased = q.pop()
    assert leased.payload == b"payload" and q.in_flight() == 1 and q.queued() == 0
    assert not q.ack("a", "w2#0")
    assert q.ack("a", leased.token)
    assert q.in_flight() == 0 and r.hlen(KEYS.requests) == 0
    assert not q.ack("a", leased.token)  # twice: nothing left


def test_requeue_puts_back_at_the_old_place(r):
    q = LeaseQueue(r, KEYS, "w1")
    q.push("a", 0, b"1")
    q.push("b", 0, b"2")
    a = q.pop()
    assert q.ack("a", a.token, requeue=True)
    assert [q.pop().id, q.pop().id] == ["a", "b"]


def test_retry_of_a_leased_request_goes_back_to_the_queue(r):
    """A retry (dont_filter, same fingerprint) by the lease holder: queued again with its
    token; a duplicate from anyone else can never take a live lease away."""
    q, other = LeaseQueue(r, KEYS, "w1"), LeaseQueue(r, KEYS, "w2")
    q.push("a", 0, b"1")
    first = q.pop()
    assert not other.push("a", 0, b"duplicate") and not q.push("a", 0, b"duplicate")
    assert q.in_flight() == 1 and q.queued() == 0
    assert q.push("a", 0, b"retry", token=first.token)
    assert not q.ack("a", first.token)
    again = q.pop()
    assert again.payload == b"retry"


def test_parked_request_waits_in_redis_until_its_time(r):
    """A lease holder parks its request (robots.txt unreachable): no one can pop it before
    its not-before time, a duplicate push is a no-op, then it is queued with its priority."""
    q = LeaseQueue(r, KEYS, "w1")
    q.push("a", 0, b"1")
    q.push("b", 0, b"2")
    held = q.pop()
    assert q.push("a", 5, b"parked", token=held.token, delay=0.4, host="h.test")
    assert not q.push("a", 0, b"dup")
    assert q.in_flight() == 0 and q.queued() == 1
    n, hosts, wait = q.parked()
    assert (n, hosts) == (1, 1) and 0 < wait <= 0.41
    assert q.pop().id == "b" and q.pop() is None
    time.sleep(0.5)
    again = q.pop()
    assert (again.id, again.payload) == ("a", b"parked") and q.parked()[0] == 0


def test_dead_letter_keeps_the_entry(r):
    q = LeaseQueue(r, KEYS, "w1")
    q.push("a", 0, b"junk")
    leased = q.pop()
    assert q.ack(leased.id, leased.token, dead=b"corrupt\ta\tjunk")
    assert q.queued() == 0 and q.in_flight() == 0 and q.dead_letters() == 1
    assert r.lrange(KEYS.dead, 0, -1) == [b"corrupt\ta\tjunk"]


def test_expired_lease_of_a_dead_worker_is_reclaimed_by_another(r):
    dead = LeaseQueue(r, KEYS, "dead", lease_seconds=0.3)
    alive = LeaseQueue(r, KEYS, "alive", lease_seconds=30)
    for i in range(3):
        dead.push(f"id{i}", 0, b"x")
    held = [dead.pop() for _ in range(2)]
    assert leases_per_worker(r, KEYS) == {"dead": 2}
    assert alive.reclaim() == 0
    time.sleep(0.5)
    assert alive.reclaim() == 2
    assert alive.queued() == 3 and alive.in_flight() == 0
    assert [alive.pop().id for _ in range(3)] == ["id0", "id1", "id2"]  # old order kept
    assert not dead.ack(held[0].id, held[0].token)  # the dead worker's lease is gone


def test_renew_keeps_a_slow_request_leased(r):
    q = LeaseQueue(r, KEYS, "w1", lease_seconds=0.4)
    q.push("a", 0, b"x")
    leased = q.pop()
    for _ in range(4):
        time.sleep(0.2)
        assert q.renew([(leased.id, leased.token)]) == 1
        assert q.reclaim() == 0
    assert q.ack(leased.id, leased.token)


@pytest.mark.parametrize("kind", ["list", "set", "zset"])
def test_seeds_move_from_the_start_key_into_the_queue_in_one_step(r, kind):
    q = LeaseQueue(r, KEYS, "w1")
    key = KEYS.start_urls
    if kind == "list":  # read from the head, as scrapy-redis's LRANGE/LTRIM: newest first
        r.lpush(key, b"u1", b"u2", b"u3", b"u3")
    elif kind == "set":
        r.sadd(key, b"u1", b"u2", b"u3")
    else:  # highest score first
        r.zadd(key, {b"u1": 3, b"u2": 2, b"u3": 1})
    assert start_urls_size(r, key, kind) == (4 if kind == "list" else 3)
    moved, repeated, first = q.pull_seeds(key, kind, 3)
    if kind == "list":  # u3 pushed twice: queued once
        assert (moved, repeated, first) == (1 + 1, 1, b"u3") and r.llen(key) == 1
        assert q.pull_seeds(key, kind, 3)[:2] == (1, 0)
    else:
        assert (moved, repeated) == (3, 0)
    assert not r.exists(key) and q.queued() == 3
    leased = [q.pop() for _ in range(3)]
    assert all(x.id.startswith(SEED_PREFIX) for x in leased)
    payloads = [x.payload for x in leased]
    assert sorted(payloads) == [b"u1", b"u2", b"u3"]
    if kind != "set":
        assert payloads == ([b"u3", b"u2", b"u1"] if kind == "list" else [b"u1", b"u2", b"u3"])


def test_a_leased_seed_is_replaced_by_its_requests_or_a_dead_letter(r):
    q = LeaseQueue(r, KEYS, "w1", lease_seconds=0.2)
    r.lpush(KEYS.start_urls, b"good", b"bad", b"again")
    assert q.pull_seeds(KEYS.start_urls, "list", 10)[0] == 3
    again, bad, good = q.pop(), q.pop(), q.pop()
    assert q.queue_seed(good.id, good.token, [("r1", 0, b"p1"), ("r2", 1, b"p2")]) == [True, True]
    assert q.queue_seed(bad.id, bad.token, [], dead=b"bad_seed\t-\tbad") == []
    assert r.lrange(KEYS.dead, 0, -1) == [b"bad_seed\t-\tbad"]
    assert q.queue_seed(again.id, again.token, [("r1", 0, b"p1")]) == [False]  # queued already
    assert q.queued() == 2 and q.in_flight() == 0 and r.hlen(KEYS.requests) == 2
    popped = [q.pop() for _ in range(2)]
    assert [x.id for x in popped] == ["r2", "r1"] and all(q.ack(x.id, x.token) for x in popped)
    # a seed whose lease expired (its worker died) goes back and is queued by one worker only
    r.lpush(KEYS.start_urls, b"late")
    q.pull_seeds(KEYS.start_urls, "list", 10)
    lost = q.pop()
    time.sleep(0.3)
    other = LeaseQueue(r, KEYS, "w2")
    assert other.reclaim() == 1
    taken = other.pop()
    assert taken.id == lost.id and q.queue_seed(lost.id, lost.token, [("r3", 0, b"p3")]) is None
    assert other.queue_seed(taken.id, taken.token, [("r3", 0, b"p3")]) == [True]


def test_push_seen_records_and_queues_in_one_step(r):
    q = LeaseQueue(r, KEYS, "w1")
    assert q.push_seen("a1", 0, b"p", KEYS.seen, b"fp-a") == 1
    assert r.sismember(KEYS.seen, b"fp-a") and q.queued() == 1
    assert q.push_seen("a1", 0, b"p", KEYS.seen, b"fp-a") == -1  # seen: filtered
    assert q.push_seen("a1", 0, b"p", KEYS.seen, b"fp-a", dont_filter=True) == 0  # queued
    assert q.push_seen("b1", 0, b"p", KEYS.seen, b"fp-b", delay=30, host="h.test") == 1
    assert q.parked()[0] == 1 and q.queued() == 1


def test_a_start_key_of_another_type_is_left_alone(r):
    q = LeaseQueue(r, KEYS, "w1")
    r.sadd(KEYS.start_urls, b"u1")
    with pytest.raises(StartKeyTypeError, match="is a Redis set, not a list"):
        q.pull_seeds(KEYS.start_urls, "list", 10)
    assert r.scard(KEYS.start_urls) == 1 and q.queued() == 0
    assert start_urls_size(r, KEYS.start_urls, "list") == 0
    assert start_urls_size(r, KEYS.start_urls) == start_urls_size(r, KEYS.start_urls, "set") == 1
    assert status.collect(r, KEYS)["seeds_waiting"] == 1  # wackycrawl status reads a SET too


def test_close_wait_gives_scrapy_redis_idle_settings_their_meaning():
    def wait(max_idle_attr=None, **values):
        return close_wait(Settings({"WACKY_IDLE_CLOSE_SECONDS": 30, **values}), max_idle_attr)

    assert wait() == 30  # MAX_IDLE_TIME_BEFORE_CLOSE unset: the project's idle time
    assert wait(MAX_IDLE_TIME_BEFORE_CLOSE=5) == 5 and wait("5") == 5  # setting, spider attr
    assert wait(MAX_IDLE_TIME_BEFORE_CLOSE=0) is None  # never closes
    assert wait(MAX_IDLE_TIME_BEFORE_CLOSE=5, max_idle_attr=0) is None  # the attribute wins
    assert wait(MAX_IDLE_TIME_BEFORE_CLOSE=-1) == 0  # at once
    assert wait(SCHEDULER_IDLE_BEFORE_CLOSE=40) == 40  # a lower bound of the wait
    assert wait(MAX_IDLE_TIME_BEFORE_CLOSE=-1, SCHEDULER_IDLE_BEFORE_CLOSE=4) == 4


def test_seen_set_and_bloom(r):
    exact = RedisSeenSet(r, KEYS.seen)
    bloom = RedisBloom(r, KEYS, capacity=1000, error_rate=0.01)
    for store in (exact, bloom):
        fps = [fingerprint("GET", f"http://h.test/{i}") for i in range(500)]
        assert all(store.add(fp) for fp in fps)
        assert not any(store.add(fp) for fp in fps)
        assert len(store) == 500
    assert fingerprint("GET", "http://h.test/0") in exact
    # false positives stay near the configured rate at capacity
    new = [fingerprint("GET", f"http://other.test/{i}") for i in range(500)]
    false_pos = sum(not bloom.add(fp) for fp in new)
    assert false_pos <= 25
    assert 0.001 < bloom.error_rate(1000) < 0.02


def test_bloom_size_for_100m_urls():
    m, k = bloom_size(100_000_000, 0.001)
    assert k == 10 and 175e6 < m / 8 < 185e6  # 180 MB
    assert all(0 <= p < m for p in bloom_positions(b"\xff" * 20, m, k))
    with pytest.raises(ValueError):
        bloom_size(0, 0.01)


def test_status_collects_worker_counters(r):
    q = LeaseQueue(r, KEYS, "w1")
    q.push("a", 0, b"x")
    q.push("b", 0, b"x")
    q.pop()
    r.lpush(KEYS.start_urls, '{"url": "http://s.test/"}')
    status.publish(r, KEYS, "w1", {"started": time.time() - 60, "pages": 30, "kept": 10,
                                   "drop/too_small": 4, "state": "running",
                                   "waiting/h.test": 3, "waiting/g.test": 1})
    status.publish(r, KEYS, "w2", {"started": time.time() - 120, "pages": 30, "kept": 5,
                                   "last_page": time.time() - 60, "state": "closed: finished",
                                   "drop/too_small": 1, "drop/wrong_language": 2})
    q.push("c", 0, b"x", delay=30, host="p.test")
    s = status.collect(r, KEYS)
    assert s["queued"] == 1 and s["in_flight"] == 1 and s["seeds_waiting"] == 1
    assert (s["parked"], s["parked_hosts"], s["dead_letters"]) == (1, 1, 0)
    assert s["waiting"] == {"h.test": 3, "g.test": 1}
    assert s["leases"] == {"w1": 1}
    assert s["kept"] == 15 and s["drops"] == {"too_small": 5, "wrong_language": 2}
    assert 25 < s["pages_per_min"] < 35  # 60 pages from the first start to the last page
    # a closed crawl keeps its rate however long after its last page one asks (w1 closed
    # after idling 30 s: its 30 pages came in its first 30 s)
    status.publish(r, KEYS, "w1", {"started": time.time() - 60, "pages": 30,
                                   "last_page": time.time() - 30, "state": "closed: idle"})
    assert 38 < status.collect(r, KEYS)["pages_per_min"] < 42  # 60 pages in 90 s


# --- C18: one fingerprint, pinned -------------------------------------------------------------
C18 = "298aad5d5ef95a3806471c7490a66e9aa8f82945"


def test_c18_fragment_and_parameter_order_share_one_fingerprint():
    assert fingerprint("GET", "http://www.example.com/a?b=2&a=1#frag").hex() == C18
    assert fingerprint("GET", "http://www.example.com/a?a=1&b=2").hex() == C18


def test_c18_default_port_and_session_id_with_the_project_canonicalisation():
    pytest.importorskip("wackycrawl.crawl.urls")
    assert fingerprint("GET", "http://www.example.com:80/a?a=1&b=2").hex() == C18
    assert fingerprint("GET", "http://www.example.com/shop/;jsessionid=0A1B2C?item=7") == \
        fingerprint("GET", "http://www.example.com/shop/?item=7")


def test_c18_scheduler_and_dupefilter_share_the_fingerprint():
    from scrapy import Request

    from wackycrawl.distributed.dupefilter import FrontierDupeFilter
    req = Request("http://www.example.com/a?b=2&a=1#frag")
    assert FrontierDupeFilter.fingerprint(req).hex() == C18
    post = Request("http://www.example.com/a", method="POST", body=b"q=1")
    assert FrontierDupeFilter.fingerprint(post) != FrontierDupeFilter.fingerprint(
        Request("http://www.example.com/a"))


def test_queue_payload_leaves_out_defaults_and_round_trips():
    import pickle

    from scrapy import Request
    from scrapy.utils.request import request_from_dict

    from wackycrawl.distributed.queue import FORMAT, PayloadError, decode, encode
    req = Request("http://a.test/x", meta={"depth": 2}, priority=-2, dont_filter=True)
    payload = encode(req)
    assert payload[0] == FORMAT
    assert len(payload) < len(pickle.dumps(req.to_dict(), protocol=4)) / 2
    back = request_from_dict(pickle.loads(payload[1:]))
    assert decode(payload).url == req.url
    for bad, reason in ((b"", "missing"), (pickle.dumps({"url": "x"}), "version"),
                        (bytes([FORMAT]) + b"garbage", "corrupt"),
                        (bytes([FORMAT]) + pickle.dumps({"nourl": 1}), "request")):
        with pytest.raises(PayloadError) as err:
            decode(bad)
        assert err.value.reason == reason
    assert (back.url, back.meta, back.priority, back.dont_filter, back.method) == \
        (req.url, req.meta, -2, True, "GET")


def test_dupefilter_remembers_what_it_recorded(r):
    """A repeated link is answered from the worker's memory, without Redis (the key is gone
    here to prove it); with the cache off every check asks Redis."""
    from scrapy import Request

    from wackycrawl.distributed.dupefilter import FrontierDupeFilter
    cached = FrontierDupeFilter(RedisSeenSet(r, KEYS.seen), cache=2)
    plain = FrontierDupeFilter(RedisSeenSet(r, KEYS.seen), cache=0)
    a, b, c = (Request(f"http://h.test/{x}") for x in "abc")
    assert not cached.request_seen(a) and cached.request_seen(a)
    r.delete(KEYS.seen)
    assert cached.request_seen(a)  # from memory
    assert not plain.request_seen(a) and plain.request_seen(a)
    for req in (b, c):  # a falls out of a cache of 2
        cached.request_seen(req)
    r.delete(KEYS.seen)
    assert not cached.request_seen(a)



def test_dupefilter_refuses_an_unknown_seen_store(server):
    from scrapy.utils.test import get_crawler

    from wackycrawl.distributed.dupefilter import FrontierDupeFilter
    from wackycrawl.spiders.seeds import SeedsSpider
    for kind, ok in (("cuckoo", False), ("bloom", True), ("set", True)):
        crawler = get_crawler(SeedsSpider, {"REDIS_URL": server.url, "WACKY_DUPEFILTER": kind})
        spider = SeedsSpider.from_crawler(crawler, seeds=None)
        if ok:
            assert FrontierDupeFilter.from_spider(spider) is not None
        else:
            with pytest.raises(ValueError, match="WACKY_DUPEFILTER must be one of set, bloom, not 'cuckoo'"):
                FrontierDupeFilter.from_spider(spider)
