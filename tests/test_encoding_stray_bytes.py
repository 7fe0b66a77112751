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


KOREAN = "오늘은 날씨가 맑고 따뜻해서 우리는 공원에 산책을 나갔습니다. 아이들은 잔디밭에서 뛰어 놀았고 어른들은 그늘에서 책을 읽었습니다. "
CHINESE = "今天天气很好，我们一起去公园散步。孩子们在草地上玩耍，大人们在树下看书聊天。"
JAPANESE = "今日はとても天気が良かったので、私たちは公園へ散歩に行きました。子供たちは芝生で遊び、大人は木陰で本を読みました。"
CJK_FAMILIES = {"euc_kr": ("euc_kr", "cp949"), "gb18030": ("gb2312", "gbk", "gb18030"),
                "euc_jp": ("euc_jp", "euc_jis_2004", "euc_jisx0213")}


@pytest.mark.parametrize("text, codec", [(KOREAN, "euc_kr"), (CHINESE, "gb18030"),
                                         (JAPANESE, "euc_jp")], ids=["ko", "zh", "ja"])
@pytest.mark.parametrize("stray", [b"\x80", b"\xff", b"\xb0"], ids=["80", "ff", "lead"])
def test_undeclared_cjk_page_with_a_stray_byte_is_read_by_its_codec_repaired(text, codec, stray):
    # one stray byte no CJK codec decodes (before ASCII): a short page read as cp874 gave Thai
    body = ("<html><head><title>t</title></head><body><p>" + text + "</p><p>" + text
            + "</p></body></html>").encode(codec)
    body = body.replace(b"</p><p>", stray + b"</p><p>", 1)
    decoded = decode_html(body)
    assert decoded.encoding in CJK_FAMILIES[codec], decoded.evidence
    assert decoded.repairs == 1
    assert decoded.text.count(text) == 2


def test_undeclared_cjk_page_whose_stray_byte_shifts_its_pairs_is_never_thai():
    # a lead byte before a run of characters shifts every pair of the run: no reading is
    # right, and the page is rejected or read as a CJK codec, never as Thai letters
    body = ("<html><body><p>" + CHINESE + "</p></body></html>").encode("gb2312")
    body = body.replace(b"<p>", b"<p>\xb0", 1)
    try:
        decoded = decode_html(body)
    except EncodingError:
        return
    assert decoded.encoding not in ("cp874", "tis-620"), decoded.evidence


def test_undeclared_latin_page_with_a_stray_byte_is_not_mac_roman():
    # Latin with English navigation, one byte windows-1252 leaves undefined (0x8F): Mac Roman
    # defines it (è) and reads á as a middle dot glued to a word (subruf·), no evidence for it
    nav = "<div>Home | About us | Contact | News | Privacy policy | Terms of use</div>"
    text = ("Gens initio subrufá pennáque vixit, et in oppidis magnis habitabat; "
            "urbs autem non erat magna, sed pulchra et antiqua. ")
    body = ("<html><body>" + nav + "<p>" + text * 2 + "</p>" + nav + "</body></html>"
            ).encode("cp1252").replace(b"initio", b"init\x8fio", 1)
    decoded = decode_html(body)
    assert decoded.encoding == "cp1252", decoded.evidence
    assert "pennáque" in decoded.text


def test_undeclared_maori_page_in_iso_8859_4_keeps_its_macron_vowels():
    # ā ē ī ō ū are 0xE0 0xBA 0xEF 0xF2 0xFE in ISO-8859-4: windows-1252's à º ï ò þ
    text = ("Nau mai, haere mai ki tō mātou pae tukutuku. Ka kōrero ngā tamariki i te reo "
            "Māori ki ō rātou whānau, ā, ka tūtaki rātou ki ētahi atu i te marae. ")
    body = ("<html><body><p>" + text * 3 + "</p></body></html>").encode("iso8859-4")
    decoded = decode_html(body)
    assert decoded.encoding == "iso8859-4", decoded.evidence
    assert text.strip() in decoded.text
