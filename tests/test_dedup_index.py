"""Compact checksum set, permuted-table simhash index and the dedup decision."""

import io
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.clirun import python_words
from wackycrawl.dedup.detector import DuplicateDetector
from wackycrawl.dedup.index import ChecksumSet, Records, SimhashIndex
from wackycrawl.dedup.simhash import hamming

MASK = 2**64 - 1


def flip(value, n, rng):
    for bit in rng.sample(range(64), n):
        value ^= 1 << bit
    return value


def random_fps(n, seed=7):
    return np.random.default_rng(seed).integers(0, 2**64, size=n, dtype=np.uint64).tolist()


# --- SimhashIndex --------------------------------------------------------------------

@pytest.mark.parametrize("buffer_size", [8, 4096])  # merged tables and the buffer alone
@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_found_within_k_not_at_k_plus_1(k, buffer_size):
    rng = random.Random(k)
    stored = random_fps(300)
    index = SimhashIndex(k=k, buffer_size=buffer_size)
    for fp in stored:
        index.add(fp)
    assert len(index) == 300
    for fp in stored[::10]:
        for n in range(k + 1):
            assert index.find(flip(fp, n, rng)) == fp
        # k + 1 flipped bits: nothing this close to a random fingerprint among 300
        assert index.find(flip(fp, k + 1, rng)) is None


def test_flips_at_block_edges_and_extreme_values():
    index = SimhashIndex(k=3, buffer_size=2)
    for fp in (0, MASK, 1 << 63, 0x00FF00FF00FF00FF):
        index.add(fp)
    # flips in three of the four 16-bit blocks: only one table still has an exact block
    assert index.find(0 ^ (1 << 0) ^ (1 << 16) ^ (1 << 32)) == 0
    assert index.find(MASK ^ (1 << 15) ^ (1 << 31) ^ (1 << 47)) == MASK
    assert index.find(0x00FF00FF00FF00FF ^ (1 << 63) ^ (1 << 48)) == 0x00FF00FF00FF00FF
    assert index.find((1 << 63) | 0b111) == 1 << 63
    assert index.find((1 << 63) | 0b1111) is None  # distance 4 from 1 << 63, 5 from 0
    assert index.find(0b1111 | (1 << 20)) is None  # 5 bits from 0, far from the others


def test_nearest_match_wins():
    index = SimhashIndex(k=3, buffer_size=3)
    far, near = 0b111, 0b1
    index.add(far)
    index.add(near)
    assert index.find(0) == near


def test_random_queries_find_nothing():
    index = SimhashIndex(random_fps(20_000), k=3)
    queries = random_fps(2000, seed=99)
    assert all(index.find(q) is None for q in queries)


# k=7: radius 1 in every table; k=8, 10: radii 2 and 1 mixed; k=11: radius 2 everywhere
@pytest.mark.parametrize("k,n", [(3, 2000), (7, 20_000), (8, 5000), (10, 5000), (11, 20_000)])
def test_agrees_with_a_linear_scan(k, n):
    rng = random.Random(3)
    stored = random_fps(n, seed=5)
    stored[10:20] = [stored[3]] * 10  # the same fingerprint for several documents
    array = np.array(stored, dtype=np.uint64)
    index = SimhashIndex(stored[: n // 2], k=k, buffer_size=256)
    for fp in stored[n // 2 :]:  # many merges into the tables
        index.add(fp)
    for i in range(300):
        q = flip(rng.choice(stored[:30] if i % 5 == 0 else stored), i % (k + 3), rng)
        d = np.bitwise_count(array ^ np.uint64(q))
        near = np.flatnonzero(d <= k)
        assert index.candidates(q) == sorted(zip(d[near].tolist(), near.tolist(),
                                                 array[near].tolist()))
    assert index.values().tolist() == stored and index.capped == 0


def test_bad_k_raises():
    with pytest.raises(ValueError):
        SimhashIndex(k=16)


def test_compiled_loops_load_only_when_an_index_is_used():
    # the pipeline's stage workers import the dedup modules to fingerprint texts: numba
    # (about 0.3 s and 40 MiB to load) must not come with them
    out = python_words("import sys, wackycrawl.pipelines.dedup, wackycrawl.pipelines.stages",
                       "from wackycrawl.dedup.index import SimhashIndex",
                       "index = SimhashIndex(k=3)",
                       "print('numba' in sys.modules)",
                       "index.add(1); index.find(1)",
                       "print('numba' in sys.modules)")
    assert out == ["False", "True"]


def _zipped_egg(tmp_path: Path) -> Path:
    """The project's package as a zipped egg, as Scrapyd runs it."""
    egg = tmp_path / "1700000000.egg"
    package = Path(__file__).resolve().parent.parent / "wackycrawl"
    with zipfile.ZipFile(egg, "w") as zf:
        for path in package.rglob("*.py"):
            zf.write(path, path.relative_to(package.parent).as_posix())
    return egg


def test_compiled_loops_run_where_numba_cannot_cache_them(tmp_path):
    # a zipped egg (as Scrapyd runs a project) and no writable user cache directory: numba
    # finds no place for its cache; the loops are compiled in the process, with a warning
    egg = _zipped_egg(tmp_path)
    code = ("import logging, sys; logging.basicConfig(); sys.path.insert(0, sys.argv[1])\n"
            "from wackycrawl.dedup.index import ChecksumSet, SimhashIndex\n"
            "import wackycrawl; assert wackycrawl.__file__.startswith(sys.argv[1])\n"
            "index = SimhashIndex([5, 7], k=3, buffer_size=2); index.add(6); index.add(1)\n"
            "checksums = ChecksumSet(buffer_size=2); checksums.add(9); checksums.add(3)\n"
            "print(index.candidates(5), 3 in checksums)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    done = subprocess.run([sys.executable, "-c", code, str(egg)], capture_output=True,
                          text=True, env={**env, "HOME": os.devnull}, cwd=tmp_path,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "[(0, 0, 5), (1, 1, 7), (1, 3, 1), (2, 2, 6)] True\n"
    assert done.stderr.count("WARNING") == 1 and "compiled in this process" in done.stderr


def test_compiled_loops_run_from_an_egg_are_cached_in_the_user_cache_directory(tmp_path):
    # Scrapyd runs a project from its egg: numba caches no module inside an egg itself, so
    # each job compiled the loops again; now the first run caches them under the home's
    # cache directory and the second loads them from there
    egg = _zipped_egg(tmp_path)
    code = ("import logging, sys; logging.basicConfig(); sys.path.insert(0, sys.argv[1])\n"
            "from wackycrawl.dedup.index import SimhashIndex\n"
            "import wackycrawl; assert wackycrawl.__file__.startswith(sys.argv[1])\n"
            "index = SimhashIndex([5, 7], k=3, buffer_size=2); index.add(6)\n"
            "print(index.candidates(5))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), NUMBA_DEBUG_CACHE="1")
    runs = [subprocess.run([sys.executable, "-c", code, str(egg)], capture_output=True,
                           text=True, env=env, cwd=tmp_path, timeout=300, check=False)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    assert {r.stdout.splitlines()[-1] for r in runs} == {"[(0, 0, 5), (1, 1, 7), (2, 2, 6)]"}
    assert "WARNING" not in runs[0].stderr + runs[1].stderr
    cached = list((tmp_path / "home" / ".cache" / "numba").rglob("*.nbc"))
    assert cached, runs[0].stdout[-2000:]
    assert "[cache] data saved to" in runs[0].stdout
    assert "[cache] data loaded from" in runs[1].stdout
    assert "[cache] data saved to" not in runs[1].stdout


def test_compiled_loops_run_when_numba_cache_files_are_damaged(tmp_path):
    # numba raises a damaged cache file's unpickling error on every call, a full disk's
    # OSError on the first: the loops are compiled again without the cache
    code = ("import logging; logging.basicConfig()\n"
            "from wackycrawl.dedup.index import ChecksumSet, SimhashIndex\n"
            "index = SimhashIndex([5, 7], k=3, buffer_size=2); index.add(6)\n"
            "checksums = ChecksumSet(buffer_size=1); checksums.add(9)\n"
            "print(index.candidates(5), 9 in checksums)\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        runs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   env=env, timeout=120, check=False))
        for index_file in (tmp_path / "cache").rglob("*.nbi"):
            index_file.write_bytes(b"\x80\x04 not a pickle")
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr[-2000:]
    assert {r.stdout for r in runs} == {"[(0, 0, 5), (1, 1, 7), (2, 2, 6)] True\n"}
    assert "WARNING" not in runs[0].stderr
    assert "compiled again without numba's cache: UnpicklingError" in runs[1].stderr


def test_simhash_index_save_load_round_trip(tmp_path):
    stored = random_fps(5000)
    index = SimhashIndex(k=3, buffer_size=1000)
    for fp in stored:  # ends with 0 pending: the merged tables are saved
        index.add(fp)
    index.add(12345)  # and one in the buffer
    path = str(tmp_path / "simhashes.npy")
    index.save(path)
    assert not (tmp_path / "simhashes.npy.tmp").exists()
    loaded = SimhashIndex.load(path, k=2)
    assert len(loaded) == 5001 and loaded.k == 2
    assert sorted(loaded.values().tolist()) == sorted(stored + [12345])
    assert loaded.find(flip(12345, 2, random.Random(1))) == 12345


def test_load_rejects_a_foreign_file(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError):
        SimhashIndex.load(str(path))
    path.write_bytes(b"not numpy at all")
    with pytest.raises(ValueError):
        ChecksumSet.load(str(path))


def test_load_rejects_a_header_claiming_more_than_the_file_holds(tmp_path):
    # a damaged header must not become an allocation of the size it claims (MemoryError)
    path = tmp_path / "x.npy"
    for descr, shape, load in (("<u8", (10**15,), SimhashIndex.load),
                               ("<u8", (10**15,), ChecksumSet.load),
                               ("|u1", (10**14, 92), lambda p: Records.load(p, 92))):
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": descr, "fortran_order": False, "shape": shape})
        path.write_bytes(header.getvalue() + bytes(64))
        with pytest.raises(ValueError):
            load(str(path))


# --- ChecksumSet ---------------------------------------------------------------------

def test_checksum_set_membership_across_merges_and_round_trip(tmp_path):
    values = random_fps(3000)
    s = ChecksumSet(buffer_size=512)
    for v in values + values[:100]:
        s.add(v)
    assert len(s) == 3000
    assert all(v in s for v in values)
    assert not any(v in s for v in random_fps(500, seed=11))
    assert s.nbytes <= 8 * 3000
    path = str(tmp_path / "checksums.npy")
    s.save(path)
    loaded = ChecksumSet.load(path)
    assert len(loaded) == 3000 and MASK not in loaded
    assert all(v in loaded for v in values[::7])


# --- DuplicateDetector (C16 with own texts) -----------------------------------------

ARTICLE = (
    "The town council met on Tuesday evening to discuss the future of the old railway "
    "station. The building has stood empty for almost twelve years, and several groups "
    "have proposed new uses for it. One group wants to turn the main hall into a covered "
    "market for local farmers, while another suggests a small museum about the history of "
    "the line. The mayor said that both ideas deserve careful study, but warned that the "
    "roof needs urgent repairs before any plan can go ahead. Engineers who inspected the "
    "site last spring found that water had damaged the wooden beams above the former "
    "ticket office. Residents who attended the meeting asked whether the council could "
    "apply for a regional grant, and the treasurer promised to report on the options at "
    "the next session in March. A decision on the roof is expected before the summer, and "
    "volunteers have offered to clear the platforms so that visitors can walk along them. "
    "Local historians point out that the station opened in 1887, when the branch line "
    "brought coal from the northern pits to the harbour, and that its iron canopy was "
    "made in a foundry only two streets away. Photographs from the archive show crowded "
    "platforms during the summer fairs, soldiers leaving in 1914 and the last steam "
    "locomotive arriving in 1962. Several shopkeepers hope a market would bring customers "
    "back to the quarter, whose bakery, tailor and hardware store closed during the past "
    "decade. Students from the technical college have drawn plans for solar panels on the "
    "roof of the goods shed, and a theatre company asked to rent the waiting room."
)
OTHER = (
    "Heavy rain flooded three villages in the valley overnight, and the fire brigade "
    "pumped water out of dozens of cellars until the early morning. The river rose above "
    "its banks near the old mill, where a footbridge was swept away. Farmers reported "
    "damage to crops and fences, and the regional road was closed for several hours while "
    "workers removed mud and fallen trees. Forecasters expect more storms later this week "
    "and have asked residents to move cars away from low streets near the water."
)


def c16_variants():
    b = ARTICLE.replace("Tuesday", "Wednesday")
    c = ARTICLE + "\nLast updated: 14 March 2024, 09:12"
    d = (ARTICLE.replace("twelve", "eleven").replace("urgent", "immediate")
         .replace("volunteers", "local volunteers"))
    return b, c, d


def test_c16_variants_are_near_duplicates_unrelated_is_not():
    det = DuplicateDetector(k=3)
    first = det.check(ARTICLE)
    assert first.verdict == "new"
    det.add(first)
    for variant in c16_variants():
        decision = det.check(variant)
        assert decision.verdict == "near_duplicate", decision
        assert decision.match == first.simhash and decision.distance <= 3
    unrelated = det.check(OTHER)
    assert unrelated.verdict == "new"
    exact = det.check(" " + ARTICLE.replace(". ", ".\n\n"))
    assert exact.verdict == "exact_duplicate" and exact.match == first.checksum


def test_c16_k_0_misses_the_edited_variants():
    det = DuplicateDetector(k=0)
    det.add(det.check(ARTICLE))
    verdicts = [det.check(v).verdict for v in c16_variants()]
    assert "new" in verdicts


def test_c16_menu_dominated_pages_hash_alike_their_main_texts_do_not():
    menu = " ".join(["Home News Sport Weather Contact Imprint Privacy Login Register"] * 40)
    story1, story2 = "The library opens at nine.", "Heavy rain flooded three villages."
    det = DuplicateDetector(k=3, min_features=1)
    det.add(det.check(menu + " " + story1))
    assert det.check(menu + " " + story2).is_duplicate  # why boilerplate goes first
    clean = DuplicateDetector(k=3, min_features=1)
    clean.add(clean.check(story1))
    assert not clean.check(story2).is_duplicate


def test_c15_tiny_and_empty_texts_never_match_each_other():
    det = DuplicateDetector(k=3, min_features=50)
    for text in ("😀😀😀 🎉🎉 👍", "★★★ ☆☆☆ ♥♥♥", " ", "", "कम", "काम"):
        decision = det.check(text)
        assert decision.verdict in ("too_few_features", "empty"), decision
        det.add(decision)
    assert len(det.simhashes) == 0
    assert det.check("").verdict == "empty"
    # the same tiny text twice is still an exact duplicate
    assert det.check("काम").verdict == "exact_duplicate"


def test_detector_save_load(tmp_path):
    det = DuplicateDetector()
    det.add(det.check(ARTICLE))
    det.save(str(tmp_path / "state"))
    again = DuplicateDetector.load(str(tmp_path / "state"))
    assert again.check(ARTICLE).verdict == "exact_duplicate"
    assert again.check(c16_variants()[0]).verdict == "near_duplicate"
    empty = DuplicateDetector.load(str(tmp_path / "missing"))
    assert len(empty) == 0


def test_a_save_cut_between_its_files_loads_as_the_state_before_it(tmp_path):
    # save() replaces simhashes.npy, then near-records.npy: a kill in between leaves the
    # fingerprints of documents whose records are not written; both are in id order
    det = DuplicateDetector()
    texts = [ARTICLE, c16_variants()[0]] + [f"Seite {i}: " + " ".join(
        f"wort{i}x{j}" for j in range(60)) for i in range(3)]
    det.add(det.check(texts[0]))
    det.add(det.check(texts[2]))
    state, later = tmp_path / "state", tmp_path / "later"
    det.save(str(state))
    for text in texts[3:]:
        det.add(det.check(text))
    det.save(str(later))
    (later / "simhashes.npy").replace(state / "simhashes.npy")
    loaded = DuplicateDetector.load(str(state))
    assert len(loaded.simhashes) == len(loaded.records) == 2 and loaded.cut_on_load == 2
    assert loaded.check(texts[0]).verdict == "exact_duplicate"
    assert loaded.check(texts[1]).verdict == "near_duplicate"
    assert loaded.check(texts[3]).verdict == "new"


def test_exact_copies_found_through_the_index_records_and_an_older_state(tmp_path):
    det = DuplicateDetector()
    first = det.check(ARTICLE)
    det.add(first)
    det.add(det.check("Kurz und klein."))  # too few features: its checksum alone is kept
    assert len(det) == 2
    again = det.check(ARTICLE.replace(". ", ".  "))  # same normalised text
    assert again.verdict == "exact_duplicate" and again.near_of == first.checksum
    assert det.check("Kurz  und klein.").verdict == "exact_duplicate"
    # a state that lists every checksum in checksums.npy (an earlier layout) still works
    state = tmp_path / "state"
    det.save(str(state))
    ChecksumSet([first.checksum]).save(str(state / "checksums.npy"))
    loaded = DuplicateDetector.load(str(state))
    assert loaded.check(ARTICLE).verdict == "exact_duplicate"
    assert loaded.check(c16_variants()[0]).verdict == "near_duplicate"


def test_texts_sharing_only_function_words_are_not_near_duplicates():
    # Function words are a third or more of every text; weighted by frequency they pull all
    # texts of one language together. These pages share their sentence frames and nothing
    # else: with function words among the features many pairs fall within k = 3.
    from itertools import combinations

    from tests.webpages import prose

    det = DuplicateDetector(k=3)
    fps = [det.check("\n".join(prose(seed))).simhash for seed in range(30)]
    assert min(hamming(a, b) for a, b in combinations(fps, 2)) > 3


# --- Records -------------------------------------------------------------------------

def test_records_take_gives_the_rows_of_any_ids_in_one_or_many_chunks():
    for n in (5, 23):  # one chunk, several chunks
        records = Records(3, chunk=8)
        rows = [bytes([i, i + 1, i + 2]) for i in range(n)]
        for row in rows:
            records.append(row)
        ids = [n - 1, 0, 2, n - 1]
        assert [bytes(r) for r in records.take(ids)] == [rows[i] for i in ids]
        assert [records[i] for i in ids] == [rows[i] for i in ids]
        assert records.take([]).shape == (0, 3)
        with pytest.raises(IndexError):
            records.take([n])
        with pytest.raises(IndexError):
            records.take([0, -1])
