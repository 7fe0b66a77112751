"""UTF-8 pages with bytes outside UTF-8: surrogate pairs written CESU-8 style are the
characters they encode; stray bytes beyond the repair bound reject the page, and no CJK codec
(which reads every two-byte Latin letter as one Han or Hangul character: ``Caf茅``) gets it.
Fixtures are written here."""

import pytest

from wackycrawl.text.encoding import EncodingError, decode_html

FRENCH = ("L'été dernier, nous étions à Paris où la côte était très belle. Déjà le garçon "
          "de l'hôtel nous a présenté une crème brûlée et un gâteau à la française. ")
ENGLISH = ("The committee met on Monday and said that the results of the survey were clear, "
           "but the owner of the shop did not agree with them at all. ")
QUOTED = "He called it a café of déjà vu, naïve, with a façade from the Straße, a fête. "
CHINESE = ("我们昨天去了北京的博物馆，看到了很多古代的文物。这个T恤是在商店里买的，"
           "他用iPhone手机拍了很多照片，然后发给了朋友们。")
TRADITIONAL = ("我們昨天去了台北的博物館，看到了很多古代的文物。他用iPhone手機拍了很多照片，"
               "然後發給了朋友們，大家都說這些DVD和書都很好看。")
JAPANESE = ("昨日は東京の本屋でCDを買った。Appleの新しい製品について友達と話しながら、"
            "駅の近くの喫茶店でコーヒーを飲みました。")


def html(*paragraphs: str, times: int = 6) -> str:
    return ("<!DOCTYPE html><html><head><title>Page</title></head><body>"
            + "".join(f"<p>{p}</p>\n" for p in paragraphs * times) + "</body></html>")


def cesu8(text: str) -> bytes:
    """``text`` in UTF-8, but characters beyond U+FFFF as two 3-byte surrogate sequences."""
    out = bytearray()
    for ch in text:
        if ord(ch) > 0xFFFF:
            units = ch.encode("utf-16-be")
            for unit in (units[:2], units[2:]):
                out += chr(int.from_bytes(unit, "big")).encode("utf-8", "surrogatepass")
        else:
            out += ch.encode("utf-8")
    return bytes(out)


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "text/html", None])
def test_cesu8_surrogate_pairs_are_the_characters_they_encode(content_type):
    """Java's modified UTF-8 or MySQL's 3-byte utf8 write an emoji as 6 bytes UTF-8 forbids;
    two of them passed the repair bound and the page went to gb18030 (``Caf茅 d茅j脿``)."""
    text = FRENCH + "Bravo 😀 et merci 👍, voir 𠀋. "
    decoded = decode_html(cesu8(html(text)), content_type)
    assert decoded.encoding == "utf-8"
    assert text.strip() in decoded.text
    assert decoded.repairs == 0


@pytest.mark.parametrize("stray", [b"\xc3", b"\xff", b"\x81", b"\xed\xa0\xbd", b"\xf0\x9f\x98"])
@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "text/html",
                                          "text/html; charset=iso-8859-1"])
def test_utf8_latin_page_with_too_many_stray_bytes_is_rejected_not_read_as_cjk(stray,
                                                                               content_type):
    """More stray bytes than the repair bound (10) in an English page quoting a few French
    words: the page was stored as gb18030 or cp949 mojibake with plausibility 1.000."""
    body = html(ENGLISH * 4, QUOTED, times=3).encode("utf-8")
    cut = body.index("façade".encode())
    body = body[:cut] + (b"X" + stray) * 12 + body[cut:]
    with pytest.raises(EncodingError):
        decode_html(body, content_type)


@pytest.mark.parametrize("stray", [b"\xc3", b"\x81", b"\xe2\x80"])
def test_cjk_label_on_a_utf8_latin_page_with_stray_bytes_is_not_believed(stray):
    """A few stray bytes in a UTF-8 page labelled GBK: the label's decoding is mojibake
    (``Caf茅``), the page UTF-8 with its stray bytes repaired."""
    body = html(FRENCH, times=3).encode("utf-8")
    cut = body.index("garçon".encode())
    body = body[:cut] + (b"X" + stray) * 4 + body[cut:]
    decoded = decode_html(body, "text/html; charset=gbk")
    assert decoded.encoding == "utf-8"
    assert "Déjà le" in decoded.text and "\u8305" not in decoded.text


@pytest.mark.parametrize("text, codec, label", [
    (CHINESE, "gb18030", None), (CHINESE, "gb18030", "gbk"), (TRADITIONAL, "big5", "big5"),
    (JAPANESE, "euc_jp", None), (JAPANESE, "shift_jis", "shift_jis"),
    (JAPANESE, "euc_jp", "euc-jp")])
def test_cjk_pages_with_latin_words_still_decode(text, codec, label):
    """Real CJK text writes Latin words next to its own characters (``T恤``, ``CDを``):
    no mojibake sign."""
    body = html(text).encode(codec)
    decoded = decode_html(body, f"text/html; charset={label}" if label else "text/html")
    assert "CDを買った" in decoded.text or "iPhone手" in decoded.text
    assert decoded.text == body.decode(codec)


def test_english_page_with_twelve_cesu8_emoji_is_utf8():
    text = ENGLISH + "Great 😀😀😀 thanks 👍👍👍. " * 2
    decoded = decode_html(cesu8(html(text, times=2)), "text/html; charset=utf-8")
    assert (decoded.encoding, decoded.repairs) == ("utf-8", 0)
    assert "😀😀😀" in decoded.text


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "text/html"])
def test_lone_surrogate_in_utf8_is_dropped_not_read_as_three_cp1252_characters(content_type):
    """Half of a CESU-8 pair (``\\xed\\xa0\\xbd``): Python reports its three bytes one by
    one, and each was read as windows-1252 (``Straí\\xa0½ße``)."""
    body = html(FRENCH, ENGLISH, times=3).encode("utf-8")
    body = body.replace("garçon".encode(), "gar".encode() + b"\xed\xa0\xbd" + "çon".encode(), 2)
    decoded = decode_html(body, content_type)
    assert decoded.encoding == "utf-8"
    assert decoded.text.count("Déjà le garçon de l'hôtel") == 3
    assert decoded.repairs == 6
