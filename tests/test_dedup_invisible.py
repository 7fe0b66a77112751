"""Copies disguised with invisible format characters (Default_Ignorable_Code_Point) or
compatibility forms (fullwidth letters) are duplicates: dedup reads the text without the
former and in NFKC."""

import pytest

from wackycrawl.dedup import simhash
from wackycrawl.dedup.detector import DuplicateDetector
from wackycrawl.dedup.shingles import shingle_hashes
from wackycrawl.text import bte

TEXT = "\n".join(
    f"Paragraph {i}: the harbour master said that the ferries would sail again on Monday, "
    f"after the storm had passed over the islands and the pier number {i} was repaired. "
    "Local traders welcomed the news, although several of them asked for help with the "
    "costs of the damage to their shops and warehouses near the water."
    for i in range(12))


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


DISGUISES = {
    "zero width space": lambda t: t.replace("a", "a\u200b"),
    "word joiner": lambda t: t.replace("e", "e\u2060"),
    "zwj and zwnj": lambda t: t.replace("o", "o\u200d").replace("i", "i\u200c"),
    "bom": lambda t: t.replace(" ", " \ufeff"),
    "tag characters": lambda t: t.replace("s", "s\U000e0020\U000e0041"),
    "variation selectors": lambda t: t.replace("r", "r\ufe0f").replace("n", "n\U000e0100"),
    "combining grapheme joiner": lambda t: t.replace("t", "t\u034f"),
    "mongolian vowel separator": lambda t: t.replace("h", "h\u180e"),
    "hangul filler": lambda t: t.replace("d", "d\u3164"),
    "halfwidth hangul filler": lambda t: t.replace("d", "d\uffa0"),
    "fullwidth": fullwidth,
}


@pytest.mark.parametrize("name", sorted(DISGUISES))
def test_disguised_copy_is_an_exact_duplicate(name):
    copy = DISGUISES[name](TEXT)
    assert copy != TEXT
    assert simhash.checksum(copy) == simhash.checksum(TEXT)
    assert simhash.tokens(copy) == simhash.tokens(TEXT)
    detector = DuplicateDetector()
    detector.add(detector.check(TEXT))
    assert detector.check(copy).verdict == "exact_duplicate"


def test_partly_disguised_edited_copy_is_a_near_duplicate():
    edited = TEXT.replace("Paragraph 11", "Section eleven")
    copy = DISGUISES["zero width space"](edited)
    assert len(set(shingle_hashes(copy)) & set(shingle_hashes(TEXT))) > 0.8 * len(
        shingle_hashes(TEXT))
    detector = DuplicateDetector()
    detector.add(detector.check(TEXT))
    assert detector.check(copy).verdict == "near_duplicate"


def test_ordinary_text_keeps_its_values():
    # ASCII and NFC text read as before: the checksum of the NFC text, the same tokens
    assert simhash.normalise("Caf\u00e9  cr\u00e8me\n br\u00fbl\u00e9e") == (
        "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e")
    assert simhash.tokens("Die B\u00fcrger, sagte er.") == ["die", "b\u00fcrger", "sagte", "er"]
    assert simhash.fold("Tag's end") == "Tag's end"


def test_stored_text_loses_bom_and_tag_characters_but_keeps_joiners():
    assert bte.normalise("one\ufefftwo three\U000e0065\U000e006e\U000e007f four") == (
        "onetwo three four")
    assert bte.normalise("&#xFEFF;word &#917536;tag") == "word tag"
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ: part of the word
    devanagari = "\u0915\u094d\u200d\u0937"  # ZWJ
    assert bte.normalise(f"{persian} {devanagari}") == f"{persian} {devanagari}"
    assert bte.extract("<p>The cat\ufeff sat on the\U000e0041\U000e0042 mat.</p>") == [
        "The cat sat on the mat."]
