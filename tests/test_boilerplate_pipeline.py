"""BoilerplatePipeline: item["html"] to item["paragraphs"], meta and the no_text drop."""

from pathlib import Path

import pytest
from scrapy.exceptions import DropItem

from tests.wackysettings import crawler
from wackycrawl.pipelines.boilerplate import BoilerplatePipeline
from wackycrawl.text import blocks, bte

ARTICLE = (Path(__file__).parent / "fixtures" / "boilerplate" / "article_lists.html").read_text(
    encoding="utf-8"
)



def item(markup: str) -> dict:
    return {"url": "http://a.example.test/fern", "html": markup, "meta": {"Encoding": "utf-8"}}


def test_default_extractor_is_blocks_and_sets_paragraphs_and_meta():
    c = crawler()
    out = BoilerplatePipeline.from_crawler(c).process_item(item(ARTICLE))
    assert "html" not in out
    assert out["paragraphs"] == blocks.extract(ARTICLE)
    assert "Six: water it again" in out["paragraphs"]  # C24: list items inside the article
    assert out["meta"]["Extractor"] == "blocks"
    assert out["meta"]["Encoding"] == "utf-8"
    assert int(out["meta"]["Clean-Chars"]) == len("\n".join(out["paragraphs"]))
    assert c.stats.get_value("wacky/boilerplate/pages") == 1
    assert c.stats.get_value("wacky/boilerplate/clean_chars") == int(out["meta"]["Clean-Chars"])


def test_clean_chars_counts_characters_not_bytes():
    out = BoilerplatePipeline.from_crawler(crawler()).process_item(
        item("<p>Grüße aus Köln</p><p>Ελληνικά γράμματα εδώ</p>"))
    assert out["paragraphs"] == ["Grüße aus Köln", "Ελληνικά γράμματα εδώ"]
    assert out["meta"]["Clean-Chars"] == "36"  # characters; the UTF-8 text has 58 bytes


def test_bte_by_setting():
    out = BoilerplatePipeline.from_crawler(crawler(WACKY_EXTRACTOR="bte")).process_item(
        item(ARTICLE))
    assert out["meta"]["Extractor"] == "bte"
    assert out["paragraphs"] == bte.extract(ARTICLE)


def test_article_by_setting():
    out = BoilerplatePipeline.from_crawler(crawler(WACKY_EXTRACTOR="article")).process_item(
        item(ARTICLE))
    assert out["meta"]["Extractor"] == "article"
    assert out["paragraphs"] == blocks.extract(ARTICLE, article=True)
    assert "Template-Blocks" in out["meta"]  # host templates apply to the article mode too


def test_thresholds_come_from_settings():
    c = crawler(WACKY_MAX_LINK_DENSITY=1.0, WACKY_MIN_OUTSIDE_WORDS=0)
    page = ARTICLE.replace("sidebar", "side")  # a class naming boilerplate removes at any threshold
    out = BoilerplatePipeline.from_crawler(c).process_item(item(page))
    assert "Winter care for orchids" in out["paragraphs"]


@pytest.mark.parametrize("markup", ["", "<html><body><img src=a.png></body></html>",
                                    "<script>only('code')</script><!-- and a comment -->"])
def test_no_text_is_dropped_and_counted(markup):
    c = crawler()
    with pytest.raises(DropItem, match="^no_text: http://a.example.test/fern"):
        BoilerplatePipeline.from_crawler(c).process_item(item(markup))
    assert c.stats.get_value("wacky/drop/no_text") == 1


def test_unknown_extractor_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown extractor 'nope'; choose one of blocks, article, bte"):
        BoilerplatePipeline.from_crawler(crawler(WACKY_EXTRACTOR="nope"))
