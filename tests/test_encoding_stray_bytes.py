"""Undeclared Western pages with a few bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F,
0x90, 0x9D): read as windows-1252 with those bytes repaired (dropped), never handed to a code
page that defines them (cp1256, cp1257, cp1251, cp1250, Mac pages) on their evidence alone.
Fixtures are written here from Python strings."""

import random

import pytest

from wackycrawl.text.encoding import EncodingError, decode_html

UNDEFINED_IN_CP1252 = (0x81, 0x8D, 0x8F, 0x90, 0x9D)
ENGLISH = ("The café served crème brûlée and a naïve “special” for €5 – it’s déjà vu, said "
           "the owner, who has run the place since the war. ")
FRENCH = ("L’été dernier, nous sommes allés à la plage où le soleil était très fort. Ça a été "
          "génial, même pour les enfants âgés. ")
GERMAN = ("Die Straße führt über die Brücke zum großen Schloß, wo Müller und Jäger wohnen. "
          "Es ist schön hier, und die Gäste grüßen freundlich. ")
PLAIN_ENGLISH = ("The quick brown fox jumps over the lazy dog and then it runs away into the "
                 "forest, where the other animals are waiting for the night to come. ")


def page(text: str, times: int = 3) -> bytes:
    return ("<html><head><title>t</title></head><body><p>" + text * times
            + "</p></body></html>").encode("cp1252")


@pytest.mark.parametrize("text", [ENGLISH, FRENCH, GERMAN], ids=["en", "fr", "de"])
@pytest.mark.parametrize("byte", UNDEFINED_IN_CP1252, ids=hex)
@pytest.mark.parametrize("where", ["alone", "in-word"])
def test_one_undefined_byte_in_a_western_page_is_repaired_as_windows_1252(text, byte, where):
    body = page(text)
    if where == "alone":
        body = body.replace(b"</p>", bytes([byte]) + b"</p>")
    else:
        body = body.replace(b" the" if text is ENGLISH else b" ", b" x" + bytes([byte]) + b"y ", 1)
    decoded = decode_html(body)
    assert decoded.encoding == "cp1252", decoded.evidence
    assert decoded.repairs == 1
    assert text.strip() in decoded.text
    assert "\ufffd" not in decoded.text


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_english_page_with_a_few_undefined_bytes_is_windows_1252_or_rejected(count, seed):
    rnd = random.Random(seed * 10 + count)
    body = bytearray(page(PLAIN_ENGLISH, 5))
    for position in sorted(rnd.sample(range(60, len(body) - 30), count), reverse=True):
        body[position:position] = bytes([rnd.choice(UNDEFINED_IN_CP1252)])
    try:
        decoded = decode_html(bytes(body))
    except EncodingError:
        return
    assert decoded.encoding == "cp1252", decoded.evidence
    assert decoded.repairs == count
    assert decoded.text.isascii()


def test_a_page_whose_bytes_only_one_code_page_defines_keeps_it():
    # Russian in windows-1251 holds 0x81 (Ѓ)...: the letters choose cp1251, not the repair
    text = "Ѓорѓе и Љубица живеят в Москве, где летом очень жарко и много туристов. "
    body = ("<html><body><p>" + text * 3 + "</p></body></html>").encode("cp1251")
    decoded = decode_html(body)
    assert decoded.encoding == "cp1251" and decoded.repairs == 0
