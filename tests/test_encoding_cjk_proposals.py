"""When no code page explains an undeclared page, charset-normalizer's first clean and
plausible proposal is taken, not its first clean one: a short Shift_JIS page is not cp1251
(which charset-normalizer may rank first) because the best code page read it as Greek.
Fixtures are written here from Python strings."""

from wackycrawl.text.encoding import decode_html

NAV = "Search | Follow us on Twitter | Next page | Contact | Home"
JAPANESE = "まだ腎臓の腫れは残っていますので判りませんが、このまま収束して欲しいものです。"


def test_short_shift_jis_page_with_english_navigation_is_shift_jis():
    html = (f"<html><head><title>Page</title></head><body><div>{NAV}</div><p>{JAPANESE}</p>"
            f"<div>{NAV}</div></body></html>")
    decoded = decode_html(html.encode("shift_jis"), "text/html")
    assert decoded.encoding in ("shift_jis", "cp932"), decoded.evidence
    assert JAPANESE in decoded.text
