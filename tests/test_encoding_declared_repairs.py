"""A declared code page whose page holds one of the bytes it leaves undefined (0x81, 0x8D,
0x8F, 0x90, 0x9D in windows-1252): the declaration is used and the byte repaired, as one stray
byte in a UTF-8 page is; the page is not handed to another family's code page in which that
byte is a letter (Arabic, Baltic, Cyrillic). Fixtures are written here."""

import pytest

from wackycrawl.text.encoding import decode_html

ENGLISH = ("The committee met on Monday and said that the results of the survey were clear, "
           "but the owner of the shop did not agree with them at all. ")


def page(middle: bytes) -> bytes:
    para = ENGLISH.encode("ascii") * 4
    return (b"<!DOCTYPE html><html><head><title>Report</title></head><body>"
            + b"<p>" + para + b"</p>\n" + b"<p>We met at the caf\xe9 " + middle + b" on Monday."
            + b"</p>\n" + (b"<p>" + para + b"</p>\n") * 4 + b"</body></html>")


@pytest.mark.parametrize("stray", [b"\x81", b"\x8d", b"\x8f", b"\x90", b"\x9d"])
@pytest.mark.parametrize("label, codec", [("windows-1252", "cp1252"), ("iso-8859-1", "cp1252"),
                                          ("latin1", "cp1252"), ("iso-8859-15", "iso8859-15")])
def test_declared_code_page_keeps_a_page_with_one_undefined_byte(stray, label, codec):
    decoded = decode_html(page(b"by the" + stray + b" station"),
                          f"text/html; charset={label}")
    assert (decoded.encoding, decoded.evidence) == (codec, "declared:header")
    assert "caf\u00e9 by the station" in decoded.text
    assert decoded.repairs == 1


def test_meta_declaration_is_kept_too():
    body = page(b"by the\x81 station").replace(b"<head>", b'<head><meta charset="windows-1252">')
    decoded = decode_html(body, "text/html")
    assert (decoded.encoding, decoded.evidence) == ("cp1252", "declared:meta")
    assert "caf\u00e9 by the station" in decoded.text


def test_a_declared_code_page_of_another_script_still_gives_way_to_the_evidence():
    """The repairs do not make a lying label stick: Cyrillic windows-1251 text labelled
    windows-1252 is still read as windows-1251."""
    russian = ("Вчера мы были в городе, и погода была очень хорошая. Потом мы пошли домой, "
               "потому что было уже поздно, и все магазины были закрыты. ")
    body = ("<html><head><title>T</title></head><body>"
            + f"<p>{russian}</p>" * 6 + "</body></html>").encode("cp1251")
    decoded = decode_html(body, "text/html; charset=windows-1252")
    assert decoded.encoding == "cp1251"
    assert russian.strip() in decoded.text
