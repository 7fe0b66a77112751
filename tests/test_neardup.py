"""Near-duplicates beyond Manku's k = 3: re-templated, edited and truncated copies 4-11 bits
away are found and confirmed by shingle resemblance; texts on the same subject, and a text
with the same words in another order (simhash distance 0), are never merged."""

import random

import numpy as np
import pytest

from tests.neardup_texts import ARTICLE, SAME_TOPIC, edited, retemplated, text, truncated
from wackycrawl.dedup.detector import DuplicateDetector
from wackycrawl.dedup.index import SimhashIndex
from wackycrawl.dedup.shingles import (
    RESEMBLANCE,
    resemblance,
    resemblances,
    row_resemblances,
    shingle_hashes,
    sketch,
    sketch_size,
)
from wackycrawl.dedup.simhash import hamming

COPIES = {"retemplated": retemplated, "edited": edited, "truncated": truncated}


def jaccard(a: str, b: str) -> float:
    sa, sb = set(shingle_hashes(a).tolist()), set(shingle_hashes(b).tolist())
    return len(sa & sb) / len(sa | sb)


def shuffled_words(paragraphs, seed=1) -> str:
    rng = random.Random(seed)
    out = []
    for p in paragraphs:
        words = p.split()
        rng.shuffle(words)
        out.append(" ".join(words))
    return text(out)


@pytest.fixture
def detector():
    det = DuplicateDetector()
    first = det.check(text(ARTICLE))
    assert first.verdict == "new" and first.distance is None
    det.add(first)
    return det


@pytest.mark.parametrize("kind", COPIES)
def test_copies_4_to_11_bits_away_are_near_duplicates(detector, kind):
    copy = COPIES[kind]()
    original = detector.fingerprint(text(ARTICLE))
    assert 4 <= hamming(original.simhash, detector.fingerprint(copy).simhash) <= 11
    decision = detector.check(copy)
    assert decision.verdict == "near_duplicate", decision
    assert 4 <= decision.distance <= 11 and decision.match == original.simhash
    assert decision.near_of == original.checksum
    assert decision.resemblance >= RESEMBLANCE
    assert abs(decision.resemblance - jaccard(text(ARTICLE), copy)) < 0.1


def test_manku_k_3_alone_misses_those_copies():
    det = DuplicateDetector(k=3)
    det.add(det.check(text(ARTICLE)))
    assert [det.check(make()).verdict for make in COPIES.values()] == ["new"] * 3


@pytest.mark.parametrize("k", [11, 15])
def test_articles_on_the_same_subject_are_never_merged(k):
    det = DuplicateDetector(k=k)
    for paragraphs in [ARTICLE, *SAME_TOPIC]:
        decision = det.check(text(paragraphs))
        assert decision.verdict == "new", decision
        det.add(decision)
    for paragraphs in SAME_TOPIC:
        assert jaccard(text(ARTICLE), text(paragraphs)) < 0.05
        assert resemblance(shingle_hashes(text(paragraphs)),
                           det.fingerprint(text(ARTICLE)).sketch) < 0.1


def test_same_words_in_another_order_is_a_candidate_but_not_a_near_duplicate(detector):
    """Word-frequency simhash cannot see word order: distance 0, yet no shingle in common."""
    salad = shuffled_words(ARTICLE)
    decision = detector.check(salad)
    assert decision.distance <= 3
    assert decision.verdict == "new" and decision.resemblance < 0.1
    detector.add(decision)  # kept, and indexed: the article's copies still find the article
    assert detector.check(edited()).near_of == detector.fingerprint(text(ARTICLE)).checksum


def test_the_best_resembling_candidate_wins_over_the_nearest():
    det = DuplicateDetector()
    salad = det.check(shuffled_words(ARTICLE))
    det.add(salad)
    article = det.check(text(ARTICLE))
    assert article.verdict == "new" and article.distance == 0  # the salad is nearest
    det.add(article)
    decision = det.check(truncated())
    assert decision.verdict == "near_duplicate" and decision.near_of == article.checksum


def test_a_fingerprint_without_its_text_cannot_be_confirmed(detector):
    with pytest.raises(ValueError, match="text is needed"):
        detector.check(detector.fingerprint(edited()))
    fp = detector.fingerprint(edited())
    assert detector.check(fp, edited()) == detector.check(edited())


def test_state_with_sketches_survives_save_and_load(detector, tmp_path):
    detector.save(str(tmp_path / "state"))
    again = DuplicateDetector.load(str(tmp_path / "state"))
    assert again.check(edited()).verdict == "near_duplicate"
    (tmp_path / "state" / "near-records.npy").unlink()  # a state of the k = 3 layout
    with pytest.raises(ValueError, match="records"):
        DuplicateDetector.load(str(tmp_path / "state"))


# --- shingles and sketches --------------------------------------------------------------

def test_shingles_are_word_5_grams_case_and_punctuation_free():
    assert len(shingle_hashes("one two three four five six")) == 2
    assert np.array_equal(shingle_hashes("One, two; THREE four five!"),
                          shingle_hashes("one two three four five"))
    assert len(shingle_hashes("two words")) == 1 and len(shingle_hashes(" ")) == 0
    assert len(shingle_hashes("a b a b a b a b a b")) == 2  # a set: repeats count once
    with pytest.raises(ValueError):
        shingle_hashes("x", size=0)


def test_sketch_layout_and_resemblance_bounds():
    hashes = shingle_hashes(text(ARTICLE))
    record = sketch(hashes)
    assert len(record) == 84 and sketch_size(record) == 40
    assert resemblance(hashes, record) == 1.0
    assert resemblance(shingle_hashes(""), record) == 0.0
    assert resemblance(hashes, sketch(shingle_hashes(""))) == 0.0
    short = shingle_hashes("only six words in this text")
    assert len(sketch(short)) == 84 and resemblance(short, sketch(short)) == 1.0
    with pytest.raises(ValueError):
        resemblance(hashes, b"\1\2\3")


def test_resemblance_estimate_tracks_the_exact_jaccard():
    base = text(ARTICLE)
    record = sketch(shingle_hashes(base))
    for n in range(1, len(ARTICLE)):
        part = text(ARTICLE[:n])
        assert abs(resemblance(shingle_hashes(part), record) - jaccard(base, part)) < 0.12


def bottom_k_estimate(hashes: np.ndarray, record: bytes) -> float:
    """The module's estimate written out with sets: shared tags / the union below the bound."""
    if not len(hashes) or not any(record):
        return 0.0
    bound = int.from_bytes(record[:4], "little")
    tags = set(np.frombuffer(record, dtype="<u2", offset=4).tolist())
    below = [h & 0xFFFF for h in hashes.tolist() if h >> 32 <= bound]
    shared = len(tags & set(below))
    union = len(below) + len(tags) - shared
    return shared / union if union else 0.0


def test_resemblances_of_many_sketches_at_once_are_the_estimates_one_by_one():
    rng = np.random.default_rng(7)
    for mask in (2**64 - 1, 0xFFFF00000000FFFF, 0x000F00000000000F):  # colliding ranks, tags
        for _ in range(200):
            def shingles(n):
                return np.unique(rng.integers(0, 2**64, n, dtype=np.uint64) & np.uint64(mask))
            query = shingles(int(rng.integers(0, 300)))
            others = [shingles(int(rng.integers(1, 80))), query, shingles(0),
                      np.unique(np.concatenate([query[: len(query) // 2], shingles(30)]))]
            m = int(rng.choice([1, 3, 40]))
            records = [sketch(o, m) for o in others]
            assert resemblances(query, records) == [bottom_k_estimate(query, r) for r in records]
    hashes = shingle_hashes(text(ARTICLE))  # sketches of other sizes in one call
    assert resemblances(hashes, [sketch(hashes, 3), sketch(hashes, 40)]) == [1.0, 1.0]
    assert resemblances(hashes, []) == []


def test_row_resemblances_read_sketches_from_record_rows_after_an_offset():
    """Rows as a store holds them (an 8-byte key, then the sketch): the same estimates as
    the sketches given as bytes; an all-zero sketch (no shingles) is 0.0; read-only or
    non-contiguous arrays give the same values."""
    hashes = shingle_hashes(text(ARTICLE))
    others = [hashes, shingle_hashes(text(SAME_TOPIC[0])), shingle_hashes(edited())]
    sketches = [sketch(o, 16) for o in others] + [bytes(len(sketch(hashes, 16)))]
    rows = np.frombuffer(b"".join(b"KEY-%04d" % i + s for i, s in enumerate(sketches)),
                         dtype=np.uint8).reshape(len(sketches), -1)  # read-only
    expected = resemblances(hashes, sketches)
    assert expected[0] == 1.0 and expected[-1] == 0.0
    assert row_resemblances(hashes, rows, 8).tolist() == expected
    wide = np.repeat(rows, 2, axis=1)[:, ::2]  # a strided view of the same bytes
    assert row_resemblances(list(hashes), wide, 8).tolist() == expected
    assert row_resemblances(hashes, rows[:0], 8).tolist() == []


# --- the index beyond k = 3 ----------------------------------------------------------------

def flip(value, n, rng):
    for bit in rng.sample(range(64), n):
        value ^= 1 << bit
    return value


def test_index_finds_every_copy_up_to_11_bits_through_the_tables():
    rng = random.Random(4)
    stored = np.random.default_rng(4).integers(0, 2**64, size=20_000, dtype=np.uint64).tolist()
    index = SimhashIndex(stored, k=11, buffer_size=64)
    assert index._pending == 0  # all in the tables
    for i in range(600):
        doc = rng.randrange(len(stored))
        d = i % 12
        found = index.candidates(flip(stored[doc], d, rng))
        assert (d, doc, stored[doc]) in found
        assert all(dist <= 11 for dist, _, _ in found)
    assert index.capped == 0


def test_candidate_cap_keeps_the_own_blocks():
    stored = np.random.default_rng(5).integers(0, 2**64, size=5000, dtype=np.uint64).tolist()
    index = SimhashIndex(stored, k=11, max_candidates=1)
    rng = random.Random(5)
    for doc in range(0, 5000, 50):
        q = flip(stored[doc], 3, rng)
        assert (3, doc, stored[doc]) in index.candidates(q)  # radius 0 of the four tables: pigeonhole
    assert index.capped == 100


def test_fingerprint_text_equals_the_simhash_and_shingles_computed_apart():
    # fingerprint_shingles hashes each distinct word once for both: the same values as
    # fingerprint(features(...)), their total weight and sketch(shingle_hashes(...))
    from wackycrawl.dedup.detector import fingerprint_text
    from wackycrawl.dedup.simhash import features, fingerprint

    stopwords = frozenset({"the", "a", "of", "and"})
    texts = ["", "the of and", "The cat sat on the mat, and the dog sat on a log.",
             "काम कम काम — नमस्ते, दुनिया! काम", "word " * 30 + "other words of the text",
             text(ARTICLE)]
    for page in texts:
        for sw in (stopwords, frozenset()):
            fpr = fingerprint_text(page, sw)
            weighted = features(page, sw)
            assert fpr.simhash == fingerprint(weighted)
            assert fpr.n_features == sum(weighted.values())
            assert fpr.sketch == sketch(shingle_hashes(page))
