"""LanguagePipeline as Scrapy builds it: settings, stats, drops, item keys."""

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler

from tests.test_funcwords import DE, EN, FRUIT
from wackycrawl.pipelines.language import LanguagePipeline


def build(**settings):
    crawler = get_crawler(settings_dict=settings)
    return LanguagePipeline.from_crawler(crawler), crawler.stats


def item(*paragraphs):
    return {"url": "http://example.org/", "paragraphs": list(paragraphs), "meta": {"Depth": "1"}}


def test_sets_language_and_meta_and_counts():
    pipe, stats = build()
    out = pipe.process_item(item(*EN.split(". ")))
    assert out["language"] == "en"
    assert out["meta"]["Language"] == "en"
    assert out["meta"]["Language-Method"] == "funcwords"
    assert 0.3 < float(out["meta"]["Language-Score"]) < 1
    assert out["meta"]["Depth"] == "1"
    assert stats.get_value("wacky/language/en") == 1
    assert stats.get_value("wacky/language/method/funcwords") == 1


def test_wrong_language_dropped_and_counted():
    pipe, stats = build(WACKY_LANGUAGES="de")
    assert pipe.process_item(item(DE))["language"] == "de"
    with pytest.raises(DropItem, match="^wrong_language"):
        pipe.process_item(item(EN))
    assert stats.get_value("wacky/drop/wrong_language") == 1


def test_short_main_text_is_und_and_not_in_a_language_corpus():
    # Case C13: navigation or a title alone never gets a language.
    pipe, stats = build(WACKY_LANGUAGES="en,de")
    with pytest.raises(DropItem, match="^wrong_language"):
        pipe.process_item(item("Home | About us | Contact | Privacy"))
    assert stats.get_value("wacky/language/und") == 1


def test_word_list_dropped_as_not_prose():
    pipe, stats = build()
    words = " ".join(["Impressum Datenschutz Kontakt Startseite Produkte Preise"] * 10)
    with pytest.raises(DropItem, match="^not_prose"):
        pipe.process_item(item(words))
    assert stats.get_value("wacky/drop/not_prose") == 1


def test_prose_thresholds_read_from_settings():
    pipe, _ = build(WACKY_MIN_FUNCWORD_TOKENS=1000)
    with pytest.raises(DropItem, match="^not_prose"):
        pipe.process_item(item(EN))


def test_bad_language_code_fails_at_start_up():
    with pytest.raises(ValueError, match="WACKY_LANGUAGES.*klingon"):
        build(WACKY_LANGUAGES="en,klingon")


def test_disabled_stage_is_not_configured():
    with pytest.raises(NotConfigured):
        build(WACKY_LANGUAGE_ENABLED=False)


def test_missing_or_broken_paragraphs_do_not_crash():
    pipe, _ = build()
    with pytest.raises(DropItem, match="^not_prose"):
        pipe.process_item({"url": "http://example.org/x"})
    broken = item(EN, None, 42)
    assert pipe.process_item(broken)["language"] == "en"


def test_word_list_outside_the_targets_is_not_prose():
    # A list of words langid.py assigns to some unlisted language is no prose either.
    pipe, stats = build(WACKY_LANGUAGES="en")
    words = " ".join(f"{a}{b}{c}" for a in ("ka", "lo", "mi", "ten", "bra")
                     for b in ("sul", "vo", "rin", "dex") for c in ("pa", "gor", "fen", "tu"))
    with pytest.raises(DropItem, match="^not_prose"):
        pipe.process_item({"url": "http://example.org/", "paragraphs": [words, words]})
    assert stats.get_value("wacky/drop/not_prose") == 1


def test_early_stop_settings_read_from_settings():
    # Prose followed by a long word list: prose in the text read under early stop (the
    # default), not prose when the stage reads every text whole.
    page = item(EN, EN, FRUIT)
    assert build()[0].process_item(dict(page, meta={}))["language"] == "en"
    pipe, stats = build(WACKY_LID_CHUNK_CHARS=0)
    with pytest.raises(DropItem, match="^not_prose"):
        pipe.process_item(dict(page, meta={}))
    assert stats.get_value("wacky/drop/not_prose") == 1
    assert pipe.identifier.stop_margin == 0.05
    assert build(WACKY_LID_STOP_MARGIN=0.2)[0].identifier.stop_margin == 0.2
    assert build(WACKY_MIN_FUNCWORD_RATIO=0.4)[0].identifier.prose == (10, 30, 0.4)
