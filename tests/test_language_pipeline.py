"""LanguagePipeline as Scrapy builds it: settings, stats, drops, item keys."""

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler

from tests.test_funcwords import DE, EN, FRUIT
from wackycrawl.pipelines.language import LanguagePipeline
from wackycrawl.text import funcwords


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
    assert funcwords.AGREE_MIN_PROB <= float(out["meta"]["Language-Score"]) <= 1
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


RU = ("В нашем городе открылась новая детская библиотека. Она находится в старом здании на "
      "берегу реки, которое много лет стояло пустым. Теперь здесь светлые залы, удобные кресла "
      "и тысячи книг для читателей всех возрастов, от самых маленьких до школьников. Идею "
      "предложили родители, которые хотели, чтобы у их детей было место, где можно спокойно "
      "читать и заниматься после уроков. Они написали письмо в администрацию города, собрали "
      "подписи жителей и нашли спонсоров, готовых помочь с ремонтом. На всё это ушло почти три "
      "года, но теперь каждый день сюда приходят десятки детей со своими бабушками и мамами.")


def test_prose_in_a_language_without_a_list_outside_the_targets_is_wrong_language():
    # Russian (no function-word list, labelled by langid.py): kept without a language filter,
    # wrong_language outside WACKY_LANGUAGES, never not_prose by another language's list.
    assert build()[0].process_item(item(RU))["language"] == "ru"
    pipe, stats = build(WACKY_LANGUAGES="de")
    with pytest.raises(DropItem, match="^wrong_language"):
        pipe.process_item(item(RU))
    assert stats.get_value("wacky/drop/wrong_language") == 1


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


def test_dochdr_fields_of_the_language_stage():
    pipe, stats = build()
    de = DE.split(". ")
    out = pipe.process_item(item(DE, None, de[1] + ".", EN.split(". ")[0] + ".", "Impressum"))
    meta = out["meta"]
    assert meta["Language"] == "de"
    lang, share = meta["Language-Top2"].split(",")[0].split(":")
    assert lang == "de" and len(share) == 5 and float(share) >= funcwords.AGREE_MIN_PROB
    assert len(meta["Language-Top2"].split(",")) == 2
    assert meta["Language-Mix"] == "de:0.500,en:0.250,und:0.250"
    assert meta["Language-Foreign"] == "3"  # index into the item's paragraphs (None skipped)
    assert 0.3 < float(meta["Funcword-Share"]) < 1 and len(meta["Funcword-Share"]) == 5
    assert int(meta["Funcword-Types"]) >= 10 and int(meta["Funcword-Tokens"]) >= 30
    assert not any(c.isspace() for v in meta.values() for c in v)
    assert stats.get_value("wacky/language/foreign_paragraphs") == 1


def test_close_languages_und_keeps_both_candidates_in_the_dochdr():
    from tests.test_langcheck import CLOSE

    pipe, _ = build(WACKY_MIN_FUNCWORD_TOKENS=1, WACKY_MIN_FUNCWORD_TYPES=1)
    meta = pipe.process_item(item(CLOSE["hr"], CLOSE["hr"]))["meta"]
    assert meta["Language"] in ("hr", "und")
    if meta["Language"] == "und":
        assert meta["Language-Method"] == "close"
        assert {c.split(":")[0] for c in meta["Language-Top2"].split(",")} <= {"bs", "hr", "sr"}
    assert meta["Language-Foreign"] == "-"


def test_short_text_has_no_model_reading():
    pipe, _ = build()
    short = item("Home | About us")
    with pytest.raises(DropItem):
        pipe.process_item(short)
    # The stage set its fields before dropping (the rejects stream keeps them).
    assert short["meta"]["Language-Top2"] == "-" and short["meta"]["Language-Method"] == "short"


def test_new_thresholds_read_from_settings():
    pipe, _ = build(WACKY_LID_AGREE_MIN_PROB=0.7, WACKY_LID_MODEL_MIN_PROB=0.999,
                    WACKY_LID_CLOSE_MIN_SHARE=0.8, WACKY_LID_CLOSE_MIN_MARKERS=5,
                    WACKY_LID_MIX_MIN_TOKENS=4, WACKY_LID_MIX_LANGID_MIN_CHARS=150,
                    WACKY_LID_CHECK_CHARS=0)
    ident = pipe.identifier
    assert ident.check_chars == 0
    assert (ident.agree_min_prob, ident.model_min_prob, ident.close_min_share,
            ident.close_min_markers) == (0.7, 0.999, 0.8, 5)
    assert pipe.mix == {"min_tokens": 4, "langid_min_chars": 150}


def test_group_shares_read_from_settings_and_a_bad_name_stops_the_crawl():
    pipe, _ = build(WACKY_LID_CLOSE_GROUP_SHARES='{"cs,sk": 0.7}')
    assert pipe.identifier.close_group_shares == {frozenset({"cs", "sk"}): 0.7}
    with pytest.raises(ValueError, match="WACKY_LID_CLOSE_GROUP_SHARES: 'hr,xx'"):
        build(WACKY_LID_CLOSE_GROUP_SHARES={"hr,xx": 0.8})


def test_mixed_ratio_read_from_settings_and_a_bad_name_stops_the_crawl():
    assert build()[0].identifier.close_mixed_ratio == {frozenset({"id", "ms"}): 3.0}
    pipe, _ = build(WACKY_LID_CLOSE_MIXED_RATIO='{"ms,id": 2}')
    assert pipe.identifier.close_mixed_ratio == {frozenset({"id", "ms"}): 2.0}
    assert build(WACKY_LID_CLOSE_MIXED_RATIO={})[0].identifier.close_mixed_ratio == {}
    with pytest.raises(ValueError, match="WACKY_LID_CLOSE_MIXED_RATIO: 'id,xx'"):
        build(WACKY_LID_CLOSE_MIXED_RATIO={"id,xx": 3})


def test_one_marker_shares_read_from_settings_and_a_bad_name_stops_the_crawl():
    assert build()[0].identifier.close_one_marker_shares == {
        frozenset({"da", "nb", "nn", "sv"}): 0.5, frozenset({"ca", "es", "gl", "pt"}): 0.5,
        frozenset({"cs", "sk"}): 0.5}
    pipe, _ = build(WACKY_LID_CLOSE_ONE_MARKER_SHARES='{"sk,cs": 0.7}')
    assert pipe.identifier.close_one_marker_shares == {frozenset({"cs", "sk"}): 0.7}
    assert build(WACKY_LID_CLOSE_ONE_MARKER_SHARES={})[0].identifier.close_one_marker_shares == {}
    with pytest.raises(ValueError, match="WACKY_LID_CLOSE_ONE_MARKER_SHARES: 'cs,xx'"):
        build(WACKY_LID_CLOSE_ONE_MARKER_SHARES={"cs,xx": 0.5})


def test_purist_standards_read_from_settings():
    from tests.test_langcheck import BS_ONE

    assert build()[0].identifier.close_purist == {"hr"}
    pipe, _ = build(WACKY_LID_CLOSE_PURIST="", WACKY_MIN_FUNCWORD_TOKENS=1,
                    WACKY_MIN_FUNCWORD_TYPES=1)
    assert pipe.identifier.close_purist == frozenset()
    assert pipe.process_item(item(BS_ONE))["meta"]["Language-Method"] == "close"
