"""Host templates: blocks repeated on pages of one host are boilerplate on all its pages, in
one process (TemplateStore), through the boilerplate stage, and shared through a real Redis
(RedisTemplateStore)."""

import random
import pytest

from tests.redisserver import RedisServer
from tests.test_boilerplate_pipeline import crawler
from wackycrawl.dedup.detector import DuplicateDetector
from wackycrawl.distributed.templates import RedisTemplateStore
from wackycrawl.pipelines.boilerplate import BoilerplatePipeline
from wackycrawl.text import blocks
from wackycrawl.text.templates import TemplateStore, evict

# The site's template: a banner sentence and a sidebar of prose (not links, not cue words),
# which no single-page rule can tell from the article.
TEMPLATE = (
    "<html><head><title>Valley Post</title></head><body>"
    "<div><p>The Valley Post is written by people who live in the valley and love its "
    "towns.</p></div><div class='x'>{article}</div>"
    "<div><p>Our readers send us their stories of the valley every week, and we print the "
    "best of them in the Sunday paper for all to read, updated {n} times a day.</p></div>"
    "</body></html>"
)
TEMPLATE_TEXTS = ["The Valley Post is written by", "Our readers send us their stories"]


# one place per page: block hashes fold digits, so pages differing only in numbers are copies
PLACES = ["mill", "bridge", "school", "market", "church", "harbour", "station", "library",
          "theatre", "tower"]


def article(i: int) -> str:
    return "".join(
        f"<p>Story {i}, part {k}: the {PLACES[i % len(PLACES)]} of the "
        f"town number {i} was built again after the storm of that year, and the people came "
        "back to see it open with music and food on the square.</p>" for k in range(3))


def site_page(i: int) -> str:
    return TEMPLATE.format(article=article(i), n=i + 1)  # the counter differs: digits fold


def texts(paragraphs: list[str]) -> str:
    return "\n".join(paragraphs)


def run_pages(lookup_for, n: int = 5) -> list:
    return [blocks.analyse(site_page(i), lookup_for(i)) for i in range(n)]


def test_blocks_seen_on_min_pages_of_a_host_become_template():
    store = TemplateStore(min_pages=3)
    results = run_pages(lambda i: lambda h: store.learn("valley.test", h))
    for i, result in enumerate(results):
        text = texts(result.paragraphs)
        assert f"Story {i}, part 2" in text  # the article is always kept
        template_kept = [t in text for t in TEMPLATE_TEXTS]
        if i < 2:  # seen on fewer than 3 pages so far: kept
            assert template_kept == [True, True] and result.template_blocks == 0
        else:
            assert template_kept == [False, False] and result.template_blocks == 2
    # the same block on another host is that host's business
    other = blocks.analyse(site_page(9), lambda h: store.learn("other.test", h))
    assert all(t in texts(other.paragraphs) for t in TEMPLATE_TEXTS)
    assert store.count("valley.test", blocks.block_hash(
        blocks.extract(site_page(0))[0])) == 5


def test_text_hashes_are_block_hash_of_each_text():
    page = ("<p>Année 2026: 12&nbsp;cafés</p><p>x\u2028y &#10; z</p><div>日本語 テキスト</div>"
            "<p>1999</p><p>2000</p>")
    parts = blocks.segment(blocks.bte.pieces(page))[0]
    hashes = blocks.text_hashes(parts)
    assert hashes == [blocks.block_hash(b.text) for b in parts] == blocks.block_hashes(page)
    assert len(hashes) == 5 and hashes[3] == hashes[4]  # digits fold
    assert blocks.text_hashes([]) == []


def test_without_templates_the_template_is_kept():
    for i in range(5):
        assert all(t in texts(blocks.extract(site_page(i))) for t in TEMPLATE_TEXTS)


def test_a_page_counts_once_and_templates_does_not_count():
    store = TemplateStore(min_pages=2)
    store.observe("h", [1, 1, 1, 2])
    assert store.templates("h", [1, 2]) == set()
    assert store.templates("h", [1]) == set()  # no counting
    assert store.learn("h", [1, 3]) == {1}
    assert store.templates("unknown", [1]) == set()


def test_a_copy_of_a_page_is_not_counted_again():
    """The same article under three URLs of a host does not make its paragraphs template; a
    menu shared by three different pages does."""
    for store in (TemplateStore(min_pages=3),):
        article = [1, 2, 3, 99]
        assert [store.learn("h", article) for _ in range(3)] == [set()] * 3
        assert store.count("h", 1) == 1
        assert store.learn("h", [3, 2, 99, 1, 1]) == set()  # same set, other order
        assert store.learn("h", [99, 10]) == set() and store.learn("h", [99, 11]) == {99}


def test_a_page_repeating_another_of_its_host_keeps_its_text_for_the_duplicate_check():
    """An edited copy (one of three paragraphs changed) or a copy under another URL whose
    prose is mostly host template keeps all its text, so dedup sees a near or exact copy
    (not a fragment, not an empty page); the site's other pages still lose the template."""
    store = TemplateStore(min_pages=2)
    learn = lambda h: store.learn("valley.test", h)  # noqa: E731
    first = blocks.analyse(site_page(0), learn)
    edited = site_page(0).replace("part 1: the mill", "part 1: the old mill by the river")
    copy = blocks.analyse(edited, learn)
    assert copy.template_blocks == 0
    assert texts(copy.paragraphs).count("Story 0, part") == 3
    assert all(t in texts(copy.paragraphs) for t in TEMPLATE_TEXTS)
    detector = DuplicateDetector(min_features=10)
    detector.add(detector.check(texts(first.paragraphs)))
    assert detector.check(texts(copy.paragraphs)).verdict == "near_duplicate"
    same = blocks.analyse(site_page(0).replace("Valley Post</title>", "Valley Post | 2</title>"
                                               ).replace("<body>", "<body><p>x</p>"), learn)
    assert same.paragraphs == first.paragraphs and same.template_blocks == 0
    other = blocks.analyse(site_page(3), learn)  # a page of its own: the template goes
    assert other.template_blocks == 2
    assert not any(t in texts(other.paragraphs) for t in TEMPLATE_TEXTS)


def test_memory_is_bounded_and_template_blocks_survive_eviction():
    store = TemplateStore(min_pages=3, max_blocks=64, max_hosts=2)
    template = [10**6 + k for k in range(8)]
    for page in range(200):
        content = [page * 1000 + k for k in range(40)]  # 40 one-page blocks per page
        learnt = store.learn("h", template + content)
        assert len(store._hosts["h"]) <= 64
    assert learnt == set(template)
    store.learn("a", [1])
    store.learn("b", [1])  # third host: the least recently used ("h") goes
    assert len(store) == 2 and store.count("h", template[0]) == 0


def test_evict_takes_lowest_counts_oldest_first():
    assert evict({1: 5, 2: 1, 3: 1, 4: 2}, 2) == [2, 3]
    assert evict({1: 1}, 4) == []
    with pytest.raises(ValueError):
        TemplateStore(min_pages=0)


def item(i: int, host: str = "valley.test") -> dict:
    return {"url": f"http://{host}/story/{i}", "html": site_page(i), "meta": {}}


def test_stage_learns_as_the_crawl_goes_and_fills_the_dochdr_fields():
    c = crawler()
    stage = BoilerplatePipeline.from_crawler(c)
    out = [stage.process_item(item(i)) for i in range(4)]
    # WACKY_TEMPLATE_MIN_PAGES = 2: the first page of the host keeps its template blocks
    assert [o["meta"]["Template-Blocks"] for o in out] == ["0", "2", "2", "2"]
    assert all(t not in texts(out[3]["paragraphs"]) for t in TEMPLATE_TEXTS)
    shares = [float(o["meta"]["Boilerplate-Share"]) for o in out]
    assert shares[0] < shares[1] and all(0 <= s < 1 for s in shares)
    assert all(len(o["meta"]["Boilerplate-Share"].split(".")[1]) == 3 for o in out)
    assert c.stats.get_value("wacky/boilerplate/template_blocks") == 6


def test_stage_without_templates_has_no_template_field():
    stage = BoilerplatePipeline.from_crawler(crawler(WACKY_HOST_TEMPLATES=False))
    out = [stage.process_item(item(i)) for i in range(4)]
    assert all("Template-Blocks" not in o["meta"] for o in out)
    assert all(TEMPLATE_TEXTS[0] in texts(o["paragraphs"]) for o in out)


# --- Redis ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as srv:
        yield srv


def test_redis_store_is_shared_by_workers(redis_server):
    client = redis_server.client()
    one = RedisTemplateStore(client, "wacky:t1:", min_pages=3)
    two = RedisTemplateStore(redis_server.client(), "wacky:t1:", min_pages=3)
    # pages alternate between two workers; the third page (on worker one) sees the template
    results = run_pages(lambda i: lambda h: (one if i % 2 == 0 else two).learn("valley.test", h))
    assert [r.template_blocks for r in results] == [0, 0, 2, 2, 2]
    banner = blocks.block_hash(blocks.extract(site_page(0))[0])
    assert one.count("valley.test", banner) == two.count("valley.test", banner) == 5
    assert two.templates("valley.test", [banner, 12345]) == {banner}
    assert client.exists("wacky:t1:template:valley.test")
    assert not client.exists("wacky:t1:template:other.test")


def test_redis_store_does_not_count_a_copy_of_a_page(redis_server):
    store = RedisTemplateStore(redis_server.client(), "wacky:t6:", min_pages=3)
    local = TemplateStore(min_pages=3)
    for hashes in ([1, 2, 3, 99], [1, 2, 3, 99], [99, 3, 2, 1], [99, 10], [99, 11], [99, 11]):
        assert store.learn("h", hashes) == local.learn("h", hashes)
    assert store.count("h", 1) == local.count("h", 1) == 1
    assert store.count("h", 99) == local.count("h", 99) == 3


def test_redis_store_is_bounded(redis_server):
    store = RedisTemplateStore(redis_server.client(), "wacky:t2:", min_pages=3, max_blocks=64)
    template = [10**6 + k for k in range(8)]
    for page in range(60):
        learnt = store.learn("h", template + [page * 1000 + k for k in range(40)])
        assert redis_server.client().hlen("wacky:t2:template:h") <= 64
    assert learnt == set(template)
    assert store.learn("h", []) == set()


def test_redis_store_evicts_as_the_in_process_store(redis_server):
    """Pages sharing blocks with one another (counts 1 to 6 when the table overflows): after
    every page the Redis table holds the same blocks with the same counts as the in-process
    one, so eviction dropped the same lowest counts, ties in insertion order."""
    rng = random.Random(7)
    store = RedisTemplateStore(redis_server.client(), "wacky:t7:", min_pages=3, max_blocks=40)
    local = TemplateStore(min_pages=3, max_blocks=40)
    evictions = 0
    for page in range(80):
        hashes = rng.sample(range(60), 6) + [1000 + page * 10 + k for k in range(rng.randint(0, 9))]
        before = redis_server.client().hlen("wacky:t7:template:h")
        assert store.learn("h", hashes) == local.learn("h", hashes), page
        after = redis_server.client().hgetall("wacky:t7:template:h")
        evictions += len(after) < before
        blocks = {int.from_bytes(f, "big"): int(n) for f, n in after.items() if len(f) == 8}
        assert blocks == {h: n for h in range(2000) if (n := local.count("h", h))}, page
    assert evictions >= 5


def test_redis_store_counts_as_the_in_process_store(redis_server):
    """Pages of two hosts through two Redis clients and one TemplateStore: the same templates
    on every page and the same counts, also for a page of 4,500 distinct hashes (9,000 HSET
    values, more than Lua's unpack takes at once: the script goes in chunks)."""
    shared = [RedisTemplateStore(redis_server.client(), "wacky:t5:", min_pages=2,
                                 max_blocks=5000) for _ in range(2)]
    local = TemplateStore(min_pages=2, max_blocks=5000)
    pages = [("a", list(range(4500))), ("b", [7, 8, 9]), ("a", list(range(1200, 1300)) + [1]),
             ("a", [1, 1, 2, 10**9]), ("b", [9, 8])]
    for n, (host, hashes) in enumerate(pages):
        assert shared[n % 2].learn(host, hashes) == local.learn(host, hashes), n
    for host, block in [("a", 1), ("a", 2), ("a", 1250), ("a", 4499), ("a", 10**9), ("b", 9)]:
        assert shared[0].count(host, block) == local.count(host, block) > 0


def test_stage_uses_redis_with_redis_url(redis_server):
    settings = {"REDIS_URL": redis_server.url, "WACKY_CRAWL_NAME": "t3"}
    first, second = (BoilerplatePipeline.from_crawler(crawler(**settings)) for _ in range(2))
    assert isinstance(first.templates, RedisTemplateStore)
    out = [(first if i % 2 else second).process_item(item(i)) for i in range(4)]
    # WACKY_TEMPLATE_MIN_PAGES = 2: the first page of the host keeps its template blocks
    assert [o["meta"]["Template-Blocks"] for o in out] == ["0", "2", "2", "2"]
    assert redis_server.client().exists("wacky:t3:template:valley.test")


def test_stage_goes_on_without_templates_when_redis_is_down():
    """After an outage longer than WACKY_REDIS_OUTAGE_SECONDS (a pause until then)."""
    c = crawler(REDIS_URL="redis://127.0.0.1:1/0", WACKY_CRAWL_NAME="t4",
                WACKY_REDIS_OUTAGE_SECONDS="1")
    out = BoilerplatePipeline.from_crawler(c).process_item(item(0))
    assert out["meta"]["Template-Blocks"] == "0" and out["paragraphs"]
    assert c.stats.get_value("wacky/boilerplate/template_errors") == 1
