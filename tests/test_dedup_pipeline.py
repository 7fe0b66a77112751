"""DedupPipeline and FingerprintPipeline: a real Crawler from get_crawler, real items, JOBDIR
persistence, precomputed fingerprints."""

import os
import re
import shlex
import unicodedata

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler

from tests.clirun import wackycrawl

from wackycrawl.dedup.detector import DuplicateDetector, fingerprint_text
from wackycrawl.dedup.simhash import tokens
from wackycrawl.pipelines.dedup import (
    STATE_DIR,
    DedupPipeline,
    FingerprintPipeline,
    get_fingerprint,
)
from wackycrawl.text.langmodel import strip_ignorable
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter

WORDS = [
    "river", "bank", "water", "stone", "bridge", "village", "farmer", "market", "road",
    "field", "house", "garden", "school", "church", "mill", "forest", "hill", "valley",
    "storm", "rain",
]


def prose(seed, n=120):
    """A deterministic ~n-word text; different seeds give unrelated texts."""
    return " ".join(f"{WORDS[(i * seed) % len(WORDS)]}{i * seed % 997}" for i in range(n))


def item(text, url="http://example.org/"):
    return {"url": url, "meta": {"Depth": "0"}, "paragraphs": text.split(". ")}


def pipeline(tmp_path=None, **settings):
    if tmp_path is not None:
        settings.setdefault("JOBDIR", str(tmp_path / "job"))
    crawler = get_crawler(settings_dict=settings)
    return crawler, DedupPipeline.from_crawler(crawler)


def test_sets_meta_and_drops_exact_and_near_duplicates():
    crawler, p = pipeline()
    p.open_spider()
    kept = p.process_item(item(prose(1)))
    assert len(kept["meta"]["Simhash"]) == 16 and len(kept["meta"]["Checksum"]) == 16
    int(kept["meta"]["Simhash"], 16)
    with pytest.raises(DropItem, match="^exact_duplicate: http://mirror.example/"):
        p.process_item(item(prose(1), "http://mirror.example/"))
    assert kept["meta"]["Near-Distance"] == kept["meta"]["Near-Of"] == "-"
    near = item(prose(1).replace("bank1", "lake1", 1))
    with pytest.raises(DropItem, match=f"near_duplicate.*matches {kept['meta']['Checksum']} "
                                       r"at distance \d+, resemblance 0\.9\d \(wackycrawl trec "
                                       f"get --checksum {kept['meta']['Checksum']} --dir "
                                       f"{re.escape(os.path.abspath('corpus'))}\\)"):
        p.process_item(near)
    assert near["meta"]["Near-Of"] == kept["meta"]["Checksum"]
    assert int(near["meta"]["Near-Distance"]) <= 11
    assert 0.9 <= float(near["meta"]["Near-Resemblance"]) < 1
    exact = item(prose(1))
    with pytest.raises(DropItem):
        p.process_item(exact)
    assert [exact["meta"][f"Near-{k}"] for k in ("Distance", "Resemblance", "Of")] == [
        "0", "1.00", kept["meta"]["Checksum"]]
    assert p.process_item(item(prose(7))) is not None
    stats = crawler.stats
    assert stats.get_value("wacky/drop/exact_duplicate") == 2
    assert stats.get_value("wacky/drop/near_duplicate") == 1
    assert stats.get_value("wacky/dedup/new") == 2


def test_the_drop_hint_finds_the_matched_document_from_any_folder(tmp_path):
    """The duplicate drop's command names the crawl's output folder (absolute, quoted), so
    it works from another working directory than the crawl's."""
    corpus = tmp_path / "my corpus"
    _, p = pipeline(WACKY_OUTPUT_DIR=str(corpus))
    kept = p.process_item(item(prose(2), "http://a.test/original"))
    with TrecWriter(str(corpus), worker="w1") as w:  # as the crawl's writer would
        w.write(TrecDoc(url=kept["url"], paragraphs=kept["paragraphs"], meta=kept["meta"]))
    with pytest.raises(DropItem) as dropped:
        p.process_item(item(prose(2), "http://mirror.test/copy"))
    command = re.search(r"\((wackycrawl trec get [^)]*)\)\)$", str(dropped.value))[1]
    assert command == (f"wackycrawl trec get --checksum {kept['meta']['Checksum']} --dir "
                       f"{shlex.quote(str(corpus))}")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = wackycrawl(*shlex.split(command)[1:], cwd=elsewhere)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("<DOC>\n") == 1 and "\nhttp://a.test/original " in run.stdout


def test_a_kept_document_names_the_nearest_candidate_it_does_not_resemble():
    crawler, p = pipeline()
    words = prose(3).split()
    p.process_item(item(" ".join(words)))
    salad = item(" ".join(words[1::2] + words[::2]))  # the same words, the shingles broken
    kept = p.process_item(salad)
    assert kept["meta"]["Near-Distance"] == "0" and float(kept["meta"]["Near-Resemblance"]) < 0.1
    assert crawler.stats.get_value("wacky/dedup/candidate_not_confirmed") == 1


def test_hashes_the_clean_paragraphs_not_the_html():
    # C16 nav pages: the same menu on both, in html only; the stories differ
    menu = "<ul>" + "<li>Home</li><li>News</li><li>Sport</li>" * 60 + "</ul>"
    _, p = pipeline()
    a = {"url": "u1", "meta": {}, "html": menu, "paragraphs": [prose(2)]}
    b = {"url": "u2", "meta": {}, "html": menu, "paragraphs": [prose(3)]}
    assert p.process_item(a) and p.process_item(b)


def test_tiny_and_missing_texts_are_kept_not_indexed():
    crawler, p = pipeline()
    for text in ("😀😀😀 🎉🎉 👍", "★★★ ☆☆☆ ♥♥♥"):
        assert p.process_item(item(text))
    assert p.process_item({"url": "x", "meta": {}})["meta"]["Simhash"] == "0" * 16
    assert crawler.stats.get_value("wacky/dedup/too_few_features") == 2
    assert crawler.stats.get_value("wacky/dedup/empty") == 1


def test_state_survives_close_and_reopen(tmp_path):
    _, first = pipeline(tmp_path)
    first.open_spider()
    first.process_item(item(prose(1)))
    first.process_item(item(prose(4)))
    first.close_spider()
    state = tmp_path / "job" / STATE_DIR
    assert sorted(os.listdir(state)) == ["checksums.npy", "near-records.npy", "simhashes.npy"]

    crawler, second = pipeline(tmp_path)
    second.open_spider()
    assert crawler.stats.get_value("wacky/dedup/loaded") == 2
    with pytest.raises(DropItem, match="exact_duplicate"):
        second.process_item(item(prose(4)))
    with pytest.raises(DropItem, match="near_duplicate"):
        second.process_item(item(prose(1).replace("bank1", "lake1", 1)))


def test_periodic_save(tmp_path):
    crawler, p = pipeline(tmp_path, WACKY_DEDUP_SAVE_EVERY=2)
    p.open_spider()
    p.process_item(item(prose(1)))
    assert not (tmp_path / "job" / STATE_DIR).exists()
    p.process_item(item(prose(2)))
    assert crawler.stats.get_value("wacky/dedup/saves") == 1
    _, reopened = pipeline(tmp_path)  # as after a crash: no close_spider
    reopened.open_spider()
    assert len(reopened.detector) == 2


def test_a_failed_save_is_tried_again_after_save_every_documents(tmp_path, caplog):
    (tmp_path / "job").write_text("a file where the state's folder would go")
    crawler, p = pipeline(tmp_path, WACKY_DEDUP_SAVE_EVERY=2)
    p.open_spider()
    for n in range(1, 6):
        p.process_item(item(prose(n)))
    # one try at 2 documents, the next at 4, not one at every document after the first
    assert crawler.stats.get_value("wacky/dedup/save_failed") == 2
    p.close_spider()
    assert crawler.stats.get_value("wacky/dedup/save_failed") == 3
    assert caplog.text.count("cannot save dedup state") == 3


def test_corrupt_state_is_logged_and_counted(tmp_path, caplog):
    state = tmp_path / "job" / STATE_DIR
    state.mkdir(parents=True)
    (state / "simhashes.npy").write_bytes(b"\x93NUMPY garbage")
    crawler, p = pipeline(tmp_path)
    p.open_spider()
    assert crawler.stats.get_value("wacky/dedup/state_unreadable") == 1
    assert "unreadable" in caplog.text
    assert p.process_item(item(prose(1)))


def test_state_of_a_cut_save_is_logged_and_counted(tmp_path, caplog):
    _, first = pipeline(tmp_path, WACKY_DEDUP_SAVE_EVERY=1)
    first.open_spider()
    first.process_item(item(prose(1)))
    state = tmp_path / "job" / STATE_DIR
    records = (state / "near-records.npy").read_bytes()
    first.process_item(item(prose(4)))
    (state / "near-records.npy").write_bytes(records)  # the second save killed before it
    crawler, p = pipeline(tmp_path)
    p.open_spider()
    assert crawler.stats.get_value("wacky/dedup/state_cut") == 1
    assert crawler.stats.get_value("wacky/dedup/loaded") == 1 and "cut in a save" in caplog.text
    with pytest.raises(DropItem, match="exact_duplicate"):
        p.process_item(item(prose(1)))
    assert p.process_item(item(prose(4)))


def test_settings_k_and_off_switch():
    _, p = pipeline(WACKY_SIMHASH_K=1, WACKY_SIMHASH_MIN_FEATURES=10)
    assert p.detector.k == 1 and p.detector.simhashes.k == 1 and p.detector.min_features == 10
    with pytest.raises(NotConfigured):
        pipeline(WACKY_DEDUP_ENABLED=False)


# --- stateless part: FingerprintPipeline, precomputed fingerprints ---------------------------

def test_fingerprint_stage_and_dedup_give_what_dedup_alone_gives():
    _, alone = pipeline()
    crawler, fpr = pipeline()
    stage = FingerprintPipeline.from_crawler(crawler)
    a, b = item(prose(1)), item(prose(1))
    stage.process_item(b)
    assert b["simhash_features"] > 50 and b["meta"]["Simhash"]
    assert alone.process_item(a)["meta"] == fpr.process_item(b)["meta"]
    with pytest.raises(NotConfigured):
        FingerprintPipeline.from_crawler(get_crawler(settings_dict={"WACKY_DEDUP_ENABLED": False}))


def test_dedup_uses_the_precomputed_fingerprint_and_recomputes_a_malformed_one():
    crawler, p = pipeline()
    stage = FingerprintPipeline.from_crawler(crawler)
    first = stage.process_item(item(prose(1)))
    p.process_item(first)
    # another text carrying the first one's fingerprint: the fingerprint decides
    other = item(prose(5))
    other["meta"].update(Checksum=first["meta"]["Checksum"], Simhash=first["meta"]["Simhash"])
    other["simhash_features"] = first["simhash_features"]
    other["shingle_sketch"] = first["shingle_sketch"]
    with pytest.raises(DropItem, match="exact_duplicate"):
        p.process_item(other)
    for bad in ("zz", "-1", "1" * 17):
        broken = item(prose(1))
        broken["meta"].update(Checksum=bad, Simhash=bad)
        broken["simhash_features"] = 99
        assert get_fingerprint(broken) is None
        with pytest.raises(DropItem, match="exact_duplicate"):  # recomputed from the text
            p.process_item(broken)


def outcome(p, it):
    try:
        return p.process_item(it)["meta"]
    except DropItem as exc:
        return str(exc)


def test_near_duplicates_confirmed_with_the_stage_shingle_hashes():
    """The stage's shingle hashes give the decisions the text gives, and they are what the
    confirmation reads: an unrelated text carrying a near copy's fingerprint and hashes is
    dropped as that near copy would be."""
    _, alone = pipeline()
    crawler, staged = pipeline()
    stage = FingerprintPipeline.from_crawler(crawler)
    near = prose(1).replace("bank1", "lake1", 1).replace("road8", "path8", 1)
    texts = [prose(1), near, prose(2), prose(2).replace("water2", "sea2", 1), prose(3)]
    results = []
    for n, text in enumerate(texts):
        carried = stage.process_item(item(text, f"http://e.test/{n}"))
        assert isinstance(carried["shingle_hashes"], bytes)
        results.append(outcome(staged, carried))
        assert "shingle_hashes" not in carried
        assert outcome(alone, item(text, f"http://e.test/{n}")) == results[-1]
    assert sum("near_duplicate" in str(r) for r in results) == 2
    disguised = stage.process_item(item(near, "http://e.test/x"))
    disguised["paragraphs"] = [prose(4)]
    assert "near_duplicate" in outcome(staged, disguised)
    assert "near_duplicate" not in str(outcome(alone, item(prose(4), "http://e.test/y")))


def test_detector_check_of_a_fingerprint_equals_check_of_the_text():
    det = DuplicateDetector()
    texts = [prose(1), prose(2), prose(1).replace("bank1", "lake1", 1), "", "few words"]
    for text in texts:
        by_text, by_fp = det.check(text), det.check(det.fingerprint(text), text)
        assert by_text == by_fp
        assert det.fingerprint(text) == fingerprint_text(text, det.stopwords)
        det.add(by_text)


def test_tokens_split_at_every_unicode_punctuation_mark_and_nothing_else():
    def by_category(text):  # the definition: punctuation (categories P*) to spaces, split,
        # in the text without default-ignorable characters, in NFKC
        text = strip_ignorable(unicodedata.normalize("NFKC", strip_ignorable(text))).casefold()
        return "".join(" " if unicodedata.category(c).startswith("P") else c
                       for c in text).split()

    for _ in range(2):  # the second time from the cache of characters seen
        for cp in [*range(0x3000), *range(0xFE30, 0xFF70), 0x1F600, 0x10FFFF]:
            text = f"x{chr(cp)}y {chr(cp)} Zé"
            assert tokens(text) == by_category(text), hex(cp)