"""Checksums and simhash fingerprints (wackycrawl.dedup.simhash)."""

import unicodedata
import zlib
from collections import Counter

import pytest

from wackycrawl.dedup.simhash import (
    checksum,
    feature_hash64,
    features,
    feature_hashes,
    fingerprint,
    hamming,
    normalise,
    simhash,
    to_hex,
    tokens,
    weight_vector,
)


def definition(weighted, bits=64, hashfunc=feature_hash64):
    """Simhash straight from its definition (seed notes §9), with Python ints."""
    v = [0] * bits
    for feature, weight in weighted.items():
        h = hashfunc(feature)
        for i in range(bits):
            v[i] += weight if (h >> i) & 1 else -weight
    return sum(1 << i for i in range(bits) if v[i] > 0)


# --- exact duplicates: checksums (seed notes §7, worked example 12.2) -----------------

def test_byte_sum_collides_where_crc_and_blake2b_do_not():
    a, b = b"Tropical fish", b"Tropical fihs"
    assert sum(a) == sum(b) == 0x508  # 1288
    assert zlib.crc32(a) == 0x18F14F94
    assert zlib.crc32(b) == 0x3BA24DE2
    assert checksum(a.decode()) != checksum(b.decode())
    assert 0 <= checksum("Tropical fish") < 2**64


def test_checksum_ignores_normalisation_form_and_white_space_but_not_case():
    text = "Café au lait\n\n  is   served\tcold."
    nfd = unicodedata.normalize("NFD", text)
    assert nfd != text
    assert checksum(nfd) == checksum(text) == checksum("Café au lait is served cold.")
    assert normalise(" a \u00a0 b\n") == "a b"
    assert checksum(text.upper()) != checksum(text)


# --- simhash: worked example §12.4 (8-bit hashes from the slides) ----------------------

SLIDE_HASHES = {
    "tropical": 0b01100001, "fish": 0b10101011, "include": 0b11100110,
    "found": 0b00011110, "environments": 0b00101101, "around": 0b10001011,
    "world": 0b00101010, "including": 0b11000000, "both": 0b10101110,
    "freshwater": 0b00111111, "salt": 0b10110101, "water": 0b00100101,
    "species": 0b11101110,
}


def test_worked_example_tropical_fish_8_bit():
    weights = dict.fromkeys(SLIDE_HASHES, 1) | {"tropical": 2, "fish": 2}
    v = weight_vector(weights, bits=8, hashfunc=SLIDE_HASHES.__getitem__)
    # the slide prints V from the leftmost (highest) bit down
    assert list(v[::-1]) == [1, -5, 9, -9, 3, 1, 3, 3]
    fp = fingerprint(weights, bits=8, hashfunc=SLIDE_HASHES.__getitem__)
    assert fp == 0b10101111
    assert fp == definition(weights, 8, SLIDE_HASHES.__getitem__)


def test_words_of_the_slide_text_weighted_by_frequency():
    text = ("Tropical fish include fish found in tropical environments around the world, "
            "including both freshwater and salt water species.")
    w = features(text)
    assert w["tropical"] == 2 and w["fish"] == 2 and w["species"] == 1
    assert sum(w.values()) == 18


def test_bits_out_of_range_raise():
    with pytest.raises(ValueError):
        weight_vector({"a": 1}, bits=65)


# --- C28: weights above 255 ------------------------------------------------------------

def test_c28_weight_300_counts_300_times():
    h = 0x0123456789ABCDEF
    hashes = {"und": h, "gegen": ~h & (2**64 - 1)}  # every bit opposite
    weighted = {"und": 300, "gegen": 100}
    fp = fingerprint(weighted, hashfunc=hashes.__getitem__)
    assert list(weight_vector(weighted, hashfunc=hashes.__getitem__)[:4]) == [200, 200, 200, 200]
    assert fp == definition(weighted, hashfunc=hashes.__getitem__) == h
    # a uint8 weight (300 mod 256 = 44 < 100) would flip every bit
    assert definition({"und": 44, "gegen": 100}, hashfunc=hashes.__getitem__) == ~h & (2**64 - 1)


def test_c28_weight_300_with_the_real_feature_hash():
    weighted = {"und": 300, "der": 257} | {f"wort{i}": i % 7 + 1 for i in range(200)}
    assert fingerprint(weighted) == definition(weighted)


def test_c28_frequent_function_words_in_a_real_text():
    sentence = "Im Sommer gingen wir über die Brücke zum Haus und der Garten lag still. "
    text = sentence * 300 + "Am Abend kam der Regen."
    weighted = features(text)
    assert weighted["und"] == 300 and weighted["der"] == 301
    assert simhash(text) == definition(weighted)


# --- C15: Unicode-aware features -------------------------------------------------------

C15 = {
    "hi1": "कम", "hi2": "काम", "hi3": "कमी", "hi4": "कोमा",
    "hi5": "आज दफ़्तर में बहुत काम है", "hi6": "आज दफ़्तर में बहुत कम है",
    "th1": "ผมชอบกินข้าวผัด", "th2": "ผมชอบกินขาวผด",
    "sym1": "😀😀😀 🎉🎉 👍", "sym2": "★★★ ☆☆☆ ♥♥♥", "empty": " ",
}


@pytest.mark.parametrize("a,b", [
    ("hi1", "hi2"), ("hi1", "hi3"), ("hi1", "hi4"), ("hi2", "hi3"), ("hi2", "hi4"),
    ("hi3", "hi4"), ("hi5", "hi6"), ("th1", "th2"), ("sym1", "sym2"), ("sym1", "empty"),
])
def test_c15_pairs_are_far_apart(a, b):
    assert hamming(simhash(C15[a]), simhash(C15[b])) > 3


def test_c15_tokens_keep_combining_marks():
    assert tokens(C15["hi5"]) == ["आज", "दफ़्तर", "में", "बहुत", "काम", "है"]
    assert tokens("दफ़्तर") == tokens(unicodedata.normalize("NFD", "दफ़्तर"))
    assert tokens(C15["th1"]) == [C15["th1"]]
    assert tokens("Hello, World! Ab-c") == ["hello", "world", "ab", "c"]
    assert features(C15["empty"]) == Counter()
    assert simhash(C15["empty"]) == 0


def test_one_changed_word_moves_few_bits():
    words = [f"w{i % 97}" for i in range(400)]
    a = " ".join(words)
    b = " ".join(words[:-1] + ["changed"])
    assert hamming(simhash(a), simhash(b)) <= 3
    assert to_hex(simhash(a)) == f"{simhash(a):016x}" and len(to_hex(1)) == 16


# --- the simhash package (issue 8 item 2): ours is simhash.Simhash with our features -----

def test_equals_the_simhash_package_with_the_same_features_weights_hash_and_width():
    """``simhash.Simhash`` (test extra) given our word features, weights and 64-bit BLAKE2b
    feature hash gives our fingerprint bit for bit; texts whose weights stay <= 255, where
    the package works with NumPy 2 (case C28: larger weights overflow its uint8 path)."""
    simhash_pkg = pytest.importorskip("simhash")
    from tests.neardup_texts import ARTICLE, SAME_TOPIC, edited
    from tests.webpages import prose
    from wackycrawl.text.funcwords import function_words

    def package(weighted):
        return simhash_pkg.Simhash(dict(weighted), f=64,
                                   hashfunc=lambda b: feature_hash64(b.decode("utf-8"))).value

    stopwords = function_words()
    texts = ["\n".join(ARTICLE), "\n".join(SAME_TOPIC[0]), edited(), "\n".join(prose(3)),
             "Grüße aus Köln, straße STRASSE Straße", "काम कम काम", "fish " * 60 + "tropical",
             " ".join(f"word{i % 97}" for i in range(20_000))]  # weights 51..255: the big path
    checked = 0
    for text in texts:
        for weighted in (features(text, stopwords), features(text)):
            assert max(weighted.values()) <= 255
            assert package(weighted) == fingerprint(weighted)
            checked += 1
        assert simhash(text, stopwords) == fingerprint(features(text, stopwords))
    assert checked == 2 * len(texts)
    assert package({"x": 1}) == fingerprint({"x": 1}) == feature_hash64("x")


def test_feature_hashes_equal_feature_hash64_also_when_the_cache_fills(monkeypatch):
    import wackycrawl.dedup.simhash as module

    monkeypatch.setattr(module, "HASH_CACHE_SIZE", 3)
    monkeypatch.setattr(module, "_HASHES", {})
    for words in (["a", "b"], ["b", "c", "d"], ["e"], ["a", "é", "काम", "z", "y"], []):
        assert feature_hashes(words).tolist() == [feature_hash64(w) for w in words]


def test_word_hashes_equal_feature_hash64_and_stopwords_also_when_buckets_overflow(monkeypatch):
    import wackycrawl.dedup.simhash as module

    monkeypatch.setattr(module, "_BUCKET_BITS", 2)  # 4 buckets of 4 words: most words evicted
    module._word_table.cache_clear()
    stopwords = frozenset({"the", "of", "straße", "a" * 20})
    texts = ["The cat, the dog; THE end.", "", " \n\t ", "a\0b a\0b ab a", "Straße STRASSE straße",
             "x" * 15 + " " + "x" * 16 + " " + "x" * 17 + " " + "a" * 20 + " " + "x" * 16,
             "Grüße aus Köln\u00a0und\u3000काम कम काम — “quoted” ’tis", "one two three " * 30,
             " ".join(f"word{i}" for i in range(300))]
    for _ in range(2):
        for text in texts:
            hashes, stop = module.word_hashes(text, stopwords)
            words = tokens(text)
            assert hashes.tolist() == [feature_hash64(w) for w in words]
            assert stop.tolist() == [w in stopwords for w in words]
    module._word_table.cache_clear()
