"""Bidi formatting controls (LRM, RLM, ALM, the embeddings and overrides U+202A-U+202E, the
isolates U+2066-U+2069) never reach the stored text: they reached it (only the language
identifiers' input was stripped of them), so ``"\\u202bword"`` and ``"word"`` were two tokens."""

import re

import pytest

from tests.wackysettings import crawler
from wackycrawl.pipelines.boilerplate import BoilerplatePipeline
from wackycrawl.pipelines.text import TextPipeline
from wackycrawl.text import bte
from wackycrawl.text.extractors import EXTRACTORS, get_extractor

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
HAS_BIDI = re.compile(f"[{BIDI}]")

PARAGRAPHS = [
    "The delegation travelled from {Tel Aviv} to {Jerusalem} on Monday, where the mayor of the "
    "old city received them and spoke about the plans for the new tram line.",
    "In Arabic the city is called {القدس} and in Hebrew {ירושלים}; both names were printed on "
    "the invitation that the guests received a week before the visit began.",
    "The talks went on for three hours, and after a short break the two sides agreed to meet "
    "again in {Haifa} in the spring, when the first part of the line will open.",
    "A spokesman said that the {price} of a ticket would be the same for every passenger and "
    "that the trains would run every ten minutes during the day and at night.",
]
# how a page writes its direction hints around a name: each once, written or as an entity
WRAPS = [("\u2067", "\u2069"), ("\u202b", "\u202c"), ("&#x202B;", "&#8236;"), ("&rlm;", "&lrm;"),
         ("\u202e", "\u202c"), ("\u2066", "\u2069"), ("\u200f", "\u200e"), ("\u061c", "\u2068")]


def page(wrapped: bool) -> str:
    out, k = [], 0
    for text in PARAGRAPHS:
        def wrap(m: re.Match) -> str:
            nonlocal k
            left, right = WRAPS[k % len(WRAPS)] if wrapped else ("", "")
            k += 1
            return f"{left}{m.group(1)}{right}"
        out.append("<p>" + re.sub(r"\{(.*?)\}", wrap, text) + "</p>")
    return (f"<html><head><title>Visit</title></head><body><div class='article'>{''.join(out)}"
            "</div></body></html>")


def test_normalise_drops_bidi_controls_written_or_as_entities():
    assert bte.normalise("\u202bword\u202c \u2067שלום\u2069 &#x202B;x&#8236; &rlm;y&lrm; "
                         "z\u061c \u202a\u202d\u202e\u2066\u2068end") == "word שלום x y z end"


def test_default_ignorables_that_belong_to_a_spelling_stay():
    # ZWNJ in Persian, ZWJ in a Devanagari conjunct, an emoji's variation selector
    for text in ("می\u200cخواهم", "क्\u200dष", "\u2764\ufe0f"):
        assert bte.normalise(text) == text


@pytest.mark.parametrize("name", EXTRACTORS)
def test_stored_paragraphs_are_those_of_the_page_without_bidi_controls(name):
    extract = get_extractor(name)
    with_bidi, without = extract(page(True)), extract(page(False))
    assert without and with_bidi == without
    assert not any(HAS_BIDI.search(p) for p in with_bidi)
    assert "and in Hebrew ירושלים; both names" in " ".join(with_bidi)



def test_pipelines_store_no_bidi_control():
    c = crawler()
    item = {"url": "http://a.example.test/", "content_type": "text/html; charset=utf-8",
            "body": page(True).encode("utf-8"), "meta": {}}
    item = BoilerplatePipeline.from_crawler(c).process_item(
        TextPipeline.from_crawler(c).process_item(item))
    text = "\n".join(item["paragraphs"])
    assert text and not HAS_BIDI.search(text)
    assert {"Aviv", "القدس", "ירושלים", "Haifa", "price"} <= set(re.findall(r"\w+", text))
