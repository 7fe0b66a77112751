"""Length and porn/spam-word filters, and the FiltersPipeline adapter."""

import pytest
from scrapy.exceptions import DropItem, NotConfigured

from tests.wackysettings import crawler
from wackycrawl.pipelines.filters import FiltersPipeline
from wackycrawl.text.filters import TextFilter, load_badwords, parse_wordlist, words

PROSE = ("The council met on Tuesday to discuss the new budget for the schools of the town, "
         "and after a long debate the members agreed to repair the roofs before the winter.")


def test_words_are_lowercased_runs_and_cjk_characters():
    assert words(["Don't STOP-me now, 2024!"]) == ["don", "t", "stop", "me", "now", "2024"]
    assert words(["本市图书馆 open"]) == ["本", "市", "图", "书", "馆", "open"]


def test_parse_wordlist_skips_comments_and_blanks():
    assert parse_wordlist("# list\nFoo\n\n bar  # note\n") == frozenset({"foo", "bar"})


def test_shipped_lists_cover_english_and_german():
    shipped = load_badwords()
    assert {"porn", "pornstar", "pornofilm", "sexkontakte"} <= shipped
    assert not {"the", "und", "sex", "breast"} & shipped


def test_own_list_file(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("Spamword\n", encoding="utf-8")
    assert load_badwords(str(path)) == frozenset({"spamword"})


def test_too_short_counts_words_not_characters():
    check = TextFilter(min_words=30).check
    assert check([PROSE]) is None
    long_words = ["Donaudampfschifffahrtsgesellschaftskapitän " * 29]
    assert check(long_words).reason == "too_short"
    assert check([]).detail == "0 words < 30"


def test_badwords_types_rule():
    text_filter = TextFilter(badwords=frozenset({"aaa", "bbb", "ccc"}))
    assert text_filter.check([PROSE + " aaa bbb"]) is None
    rejection = text_filter.check([PROSE + " aaa bbb CCC"])
    assert rejection.reason == "badwords"
    assert rejection.detail.startswith("3 types, 3 tokens")


def test_badwords_tokens_rule():
    text_filter = TextFilter(badwords=frozenset({"aaa"}))
    assert text_filter.check([PROSE + " aaa" * 9]) is None
    assert text_filter.check([PROSE + " aaa" * 10]).reason == "badwords"


def test_zero_thresholds_turn_tests_off():
    text_filter = TextFilter(min_words=0, badwords=frozenset({"aaa"}), min_types=0,
                             min_tokens=0)
    assert text_filter.check(["aaa " * 50]) is None


def test_a_news_report_mentioning_one_list_word_is_kept():
    report = PROSE + " The police closed a porn website run from the town hall."
    assert TextFilter(badwords=load_badwords()).check([report]) is None



def test_pipeline_keeps_prose():
    c = crawler()
    item = {"url": "http://a.example.test/", "paragraphs": [PROSE], "meta": {}}
    assert FiltersPipeline.from_crawler(c).process_item(item) is item
    assert c.stats.get_value("wacky/filters/kept") == 1


@pytest.mark.parametrize("paragraphs, reason", [
    (["Home", "Contact", "Imprint"], "too_short"),
    ([PROSE, "Free porno, pornstar and sexcam videos"], "badwords"),
])
def test_pipeline_drops_with_reason(paragraphs, reason):
    c = crawler()
    item = {"url": "http://a.example.test/", "paragraphs": paragraphs, "meta": {}}
    with pytest.raises(DropItem, match=f"^{reason}: http://a.example.test/"):
        FiltersPipeline.from_crawler(c).process_item(item)
    assert c.stats.get_value(f"wacky/drop/{reason}") == 1


def test_pipeline_reads_thresholds_and_list_from_settings(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("council\n", encoding="utf-8")
    c = crawler(WACKY_BADWORDS_FILE=str(path), WACKY_BADWORDS_MIN_TOKENS=1,
                WACKY_MIN_CLEAN_WORDS=5)
    with pytest.raises(DropItem, match="^badwords"):
        FiltersPipeline.from_crawler(c).process_item({"paragraphs": [PROSE]})


def test_pipeline_off_when_all_thresholds_zero():
    c = crawler(WACKY_MIN_CLEAN_WORDS=0, WACKY_BADWORDS_MIN_TYPES=0,
                WACKY_BADWORDS_MIN_TOKENS=0)
    with pytest.raises(NotConfigured):
        FiltersPipeline.from_crawler(c)
