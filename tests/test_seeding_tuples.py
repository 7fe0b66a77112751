"""Word tuples for seed queries: word test, counting, band, sampling (wackycrawl.seeding.tuples)."""

from collections import Counter

import pytest

from wackycrawl.seeding import tuples as tp


@pytest.mark.parametrize("token", ["house", "Haus", "well-known", "l'homme", "naïve", "Straße",
                                   "食べる", "नमस्ते", "дом"])
def test_words(token):
    assert tp.is_word(token)


@pytest.mark.parametrize("token", ["ab", "x2y", "2024", "e-mail-", "--ab", "a--b", "hello!",
                                   "foo_bar", "mixАb", "http://a.b", "ä\u00a0b"])
def test_non_words(token):
    assert not tp.is_word(token)


def test_min_chars_is_counted_in_characters():
    assert tp.is_word("öäü", 3) and not tp.is_word("öä", 3)


def test_frequency_list_reading_and_detection():
    lines = ["# comment", "house\t12", "", "House\t3", "bad line", "tree\t7 "]
    assert not tp.looks_like_frequency_list(lines)
    counts, bad = tp.read_frequency_list(lines)
    assert counts == Counter({"house": 12, "House": 3, "tree": 7}) and bad == [5]
    assert tp.looks_like_frequency_list(["a\t1", "b\t2"])
    assert not tp.looks_like_frequency_list(["The cat sat on the mat.", "It was 3 pm."])
    assert not tp.looks_like_frequency_list([])


def test_text_counting_strips_punctuation_and_merges_case():
    counts = tp.count_words(["(Well-known), the dog!", "“Dog” DOG 2024 dog."])
    assert counts["dog"] == 2 and counts["well-known"] == 0 and counts["Well-known"] == 1
    cleaned = tp.clean(counts)
    assert cleaned == Counter({"dog": 4, "well-known": 1, "the": 1})


def test_band_by_rank_ties_alphabetical_and_exclusions():
    counts = Counter({"the": 100, "and": 90, "river": 10, "apple": 10, "stone": 5, "rare": 1})
    assert tp.mid_frequency_band(counts, skip_top=2, band=3) == ["apple", "river", "stone"]
    assert tp.mid_frequency_band(counts, 0, 3, exclude=["THE"]) == ["and", "apple"]
    with pytest.raises(ValueError):
        tp.mid_frequency_band(counts, -1, 3)


WORDS = [f"w{i:03d}x" for i in range(40)]


@pytest.mark.parametrize("n,k", [(50, 3), (9000, 3), (40, 1), (780, 2)])
def test_tuples_reproducible_distinct_no_permutations(n, k):
    a = tp.sample_tuples(WORDS, n, k, seed=7)
    assert a == tp.sample_tuples(WORDS, n, k, seed=7)
    assert a != tp.sample_tuples(WORDS, n, k, seed=8) or n == 780
    assert len(a) == n and all(len(set(t)) == k for t in a)
    assert len({frozenset(t) for t in a}) == n  # no repeat, no permutation of another


def test_all_possible_tuples_can_be_drawn_and_one_more_cannot():
    words = ["alpha", "beta", "gamma", "delta", "omega"]
    assert len({frozenset(t) for t in tp.sample_tuples(words, 10, 3)}) == 10
    with pytest.raises(ValueError, match="only 10 distinct tuples"):
        tp.sample_tuples(words, 11, 3)
    with pytest.raises(ValueError):
        tp.sample_tuples(words, 1, 0)
    assert tp.sample_tuples(words + words, 10, 3) == tp.sample_tuples(words, 10, 3)
