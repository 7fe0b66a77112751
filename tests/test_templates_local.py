"""Host templates in a JOBDIR's SQLite file (LocalTemplateStore): the same answers as the
in-process TemplateStore, shared by two connections, and a damaged or locked file raises
sqlite3.Error without leaving the store unusable."""

import random
import sqlite3

import pytest

from tests.test_boilerplate_pipeline import crawler
from wackycrawl.distributed.localtemplates import FILENAME, LocalTemplateStore, pack, unpack
from wackycrawl.pipelines.boilerplate import BoilerplatePipeline
from wackycrawl.text.templates import TemplateStore

BIG = 2**64 - 1  # the largest block hash
EDGES = [0, 2**63 - 1, 2**63, BIG]  # the ends of the range, and around the sign bit


def random_pages(rng: random.Random, n: int) -> list[tuple[str, list[int]]]:
    """Pages of 5 hosts: hashes from a small pool (repeats, templates), some copies of an
    earlier page of the host in another order, a few empty pages and extreme hashes."""
    pages: list[tuple[str, list[int]]] = []
    for _ in range(n):
        host = f"h{rng.randrange(5)}.test"
        earlier = [p for h, p in pages if h == host]
        if earlier and rng.random() < 0.15:
            hashes = rng.choice(earlier)[:]
            rng.shuffle(hashes)
        elif rng.random() < 0.03:
            hashes = []
        else:
            hashes = [rng.choice([*EDGES, *range(1, 40)]) for _ in range(rng.randrange(1, 14))]
        pages.append((host, hashes))
    return pages


@pytest.mark.parametrize("seed", range(8))
def test_the_file_gives_the_same_answers_as_the_in_process_store(tmp_path, seed):
    """With one connection (its unpacked tables kept) or two taking turns (each reading what
    the other wrote)."""
    rng = random.Random(seed)
    params = {"min_pages": rng.choice([1, 2, 3]), "max_blocks": rng.choice([1, 5, 16, 64]),
              "max_hosts": rng.choice([1, 2, 3, 5])}
    local = TemplateStore(**params)
    stores = [LocalTemplateStore(str(tmp_path / FILENAME), **params) for _ in range(1 + seed % 2)]
    for n, (host, hashes) in enumerate(random_pages(rng, 400)):
        store = stores[n % len(stores)]
        if rng.random() < 0.1:
            store.observe(host, hashes)
            local.observe(host, hashes)
        else:
            assert store.learn(host, hashes) == local.learn(host, hashes), (n, params)
        probe = rng.sample(range(40), 5) + EDGES
        other = f"h{rng.randrange(6)}.test"
        assert store.templates(other, probe) == local.templates(other, probe), (n, params)
        assert len(store) == len(local)
    for h in range(6):
        for block in [*EDGES, *range(1, 40)]:
            assert stores[0].count(f"h{h}.test", block) == local.count(f"h{h}.test", block)
    rows = sqlite3.connect(tmp_path / FILENAME).execute("SELECT host, tab FROM hosts ORDER BY used")
    # the same tables, in the same order (eviction ties), the hosts in LRU order
    assert [(host, list(unpack(tab).items())) for host, tab in rows] == \
        [(host, list(table.items())) for host, table in local._hosts.items()]


def test_a_hash_outside_64_bits_raises(tmp_path):
    with pytest.raises(OverflowError):
        LocalTemplateStore(str(tmp_path / FILENAME)).learn("h", [2**64])


def test_eviction_keeps_template_blocks_and_is_bounded(tmp_path):
    store = LocalTemplateStore(str(tmp_path / FILENAME), min_pages=3, max_blocks=64)
    template = [10**6 + k for k in range(8)]
    for page in range(100):
        learnt = store.learn("h", template + [page * 1000 + k for k in range(40)])
    assert learnt == set(template)
    tab, = sqlite3.connect(tmp_path / FILENAME).execute("SELECT tab FROM hosts").fetchone()
    assert len(unpack(tab)) <= 64


def test_a_table_packs_and_a_damaged_one_raises():
    table = {("page", b"\xff" * 8): 2, 2**64 - 1: 7, 0: 1}
    assert list(unpack(pack(table)).items()) == list(table.items())
    for damaged in (pack(table)[:-1], b"\x02" + pack(table)[1:]):
        with pytest.raises(sqlite3.DatabaseError):
            unpack(damaged)


def test_a_damaged_row_raises_and_the_other_hosts_work(tmp_path):
    path = str(tmp_path / FILENAME)
    store = LocalTemplateStore(path, min_pages=1)
    store.learn("a", [1])
    store.learn("b", [1])
    with sqlite3.connect(path) as other:  # commits
        other.execute("UPDATE hosts SET tab = x'0102' WHERE host = 'a'")
    with pytest.raises(sqlite3.DatabaseError):
        store.learn("a", [1])
    assert store.learn("b", [1, 2]) == {1, 2}


def test_counts_survive_a_new_connection(tmp_path):
    path = str(tmp_path / FILENAME)
    first = LocalTemplateStore(path, min_pages=2)
    assert first.learn("h", [1, 2]) == set()
    del first  # never closed, as after kill -9: each page was committed
    assert LocalTemplateStore(path, min_pages=2).learn("h", [1, 3]) == {1}


def test_a_damaged_file_raises_and_a_repaired_one_works(tmp_path):
    path = tmp_path / FILENAME
    path.write_bytes(b"this is not an SQLite database\n" * 200)
    store = LocalTemplateStore(str(path), min_pages=1)
    for _ in range(2):
        with pytest.raises(sqlite3.DatabaseError):
            store.learn("h", [1])
    path.unlink()
    assert store.learn("h", [1]) == {1}


def test_a_locked_file_raises_after_the_busy_timeout(tmp_path):
    path = str(tmp_path / FILENAME)
    store = LocalTemplateStore(path, min_pages=1, busy_seconds=0.2)
    store.learn("h", [1])
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        store.learn("h", [2])
    holder.execute("ROLLBACK")
    assert store.learn("h", [2]) == {2} and store.count("h", 1) == 1


def test_the_stage_keeps_its_templates_in_the_jobdir_of_a_local_frontier(tmp_path):
    def store(**settings):
        return BoilerplatePipeline.from_crawler(crawler(**settings)).templates

    local = store(JOBDIR=str(tmp_path))
    assert isinstance(local, LocalTemplateStore) and local.path == str(tmp_path / FILENAME)
    assert not (tmp_path / FILENAME).exists()  # opened on first use, where the stage runs
    assert type(store()) is TemplateStore
    assert type(store(JOBDIR=str(tmp_path), WACKY_FRONTIER="scrapy")) is TemplateStore
