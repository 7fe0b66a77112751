"""UTF-8 with windows-1252 words pasted in (too many stray bytes to repair, fewer than two
well-formed sequences per stray byte) is never read by a CJK codec, whatever a detector
proposes: gb18030 decodes nearly any such bytes (Caf茅 for Café) into plausible-looking Han.
Fixtures are written here from Python strings."""

import charset_normalizer
import pytest

from wackycrawl.text import encoding
from wackycrawl.text.encoding import EncodingError, decode_html

UTF8_TEXT = ("The café near the marché sold a purée and a soufflé to every employé of the "
             "comité. Our protégé liked the rosé and the sauté, and the fiancé paid the entrée. ")
# windows-1252 words whose high bytes are each followed by a letter (gb18030 pairs them)
PASTED = ["\xe9tait", "\xe9l\xe8ve", "\xe9cole", "\xe9glise"]


def damaged_page() -> bytes:
    words = (UTF8_TEXT * 4).split()
    parts = [w.encode("utf-8") for w in words]
    for i in range(28):  # 28 pasted words: 35 stray bytes among 48 UTF-8 sequences
        parts.insert(3 + 3 * i, PASTED[i % len(PASTED)].encode("cp1252"))
    return b"<html><body><p>" + b" ".join(parts) + b"</p></body></html>"


def test_fixture_is_damaged_utf8_below_the_repair_rule():
    body = damaged_page()
    assert encoding.damaged_utf8(body) is None  # not caught by the two-per-byte rule
    stray, sequences = encoding.damaged_utf8(body, 1.0)
    assert stray > encoding.MAX_REPAIRS and sequences < 2 * stray
    assert body.decode("gb18030")  # a CJK codec decodes it cleanly


@pytest.mark.parametrize("proposed", ["gb18030", "big5", "euc_kr", "shift_jis"])
def test_a_cjk_proposal_for_damaged_utf8_is_refused(monkeypatch, proposed):
    real = charset_normalizer.from_bytes

    class Match:
        encoding = proposed

    monkeypatch.setattr(encoding.charset_normalizer, "from_bytes",
                        lambda body: [Match(), *real(body)])
    try:
        decoded = decode_html(damaged_page())
    except EncodingError:
        return
    assert decoded.encoding in ("utf-8", "cp1252"), decoded.evidence
    assert "\ufffd" not in decoded.text and "茅" not in decoded.text


def test_real_cjk_pages_are_still_read_by_their_codec():
    text = "我们今天去公园散步，天气很好，大家都很高兴。这个城市的历史非常悠久。" * 6
    body = ("<html><body><p>" + text + "</p></body></html>").encode("gb18030")
    assert decode_html(body).encoding in ("gb18030", "gb2312", "gbk")
    text = "今日は公園を散歩しました。天気がとても良くて、みんな楽しかったです。" * 6
    body = ("<html><body><p>" + text + "</p></body></html>").encode("shift_jis")
    assert decode_html(body).encoding in ("shift_jis", "cp932")


def test_damaged_utf8_below_the_repair_rule_is_rejected_as_damaged_utf8():
    with pytest.raises(EncodingError, match="damaged UTF-8"):
        decode_html(damaged_page())
