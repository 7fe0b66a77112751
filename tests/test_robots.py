"""robots.txt decoding, parsing, fetch outcomes and the per-host table (C01, C02, C04)."""

from __future__ import annotations

import pytest

from wackycrawl.crawl.robots import (
    ALLOW,
    DEFER,
    FORBID,
    OK,
    UNAVAILABLE,
    UNREACHABLE,
    RobotsTable,
    decode_robots,
    outcome,
    parse_robots,
    product_token,
    retry_after_seconds,
    robots_key,
)

TOKEN = "wackycrawl"
HOST = "https://www.example.test"

BOM = b"\xef\xbb\xbfUser-agent: *\nDisallow: /members/\nDisallow: /basket\n"
CR_ONLY = b"User-agent: *\rDisallow: /tmp/\rDisallow: /drafts/\r"
LATIN1 = (b"# Regeln f\xfcr alle Roboter\nUser-agent: *\nDisallow: /b\xfccher/intern/\n"
          b"Disallow: /warenkorb\n")


def allowed(body: bytes, path: str, token: str = TOKEN) -> bool:
    return parse_robots(body).allowed(HOST + path, token)


# -- C02: BOM, legacy bytes, CR-only line ends ------------------------------------------------
@pytest.mark.parametrize("path, expected", [
    ("/members/area", False), ("/basket", False), ("/shop/item-1", True)])
def test_c02_bom_is_skipped(path, expected):
    assert allowed(BOM, path) is expected


@pytest.mark.parametrize("path, expected", [
    ("/warenkorb", False),
    ("/b%C3%BCcher/intern/x", False),   # the rule percent-encoded as UTF-8 (RFC 9309 2.2.2)
    ("/b%FCcher/intern/x", False),      # ... and in the file's own legacy encoding
    ("/bcher/intern/x", True),          # not the mangled rule with the byte dropped
    ("/startseite", True)])
def test_c02_invalid_utf8_falls_back_to_windows_1252(path, expected):
    assert allowed(LATIN1, path) is expected


def test_c02_decode_reports_the_fallback():
    text, encoding = decode_robots(LATIN1)
    assert encoding == "cp1252" and "/bücher/intern/" in text
    assert decode_robots(BOM) == (BOM[3:].decode(), "utf-8")
    # bytes cp1252 leaves undefined still decode (latin-1), no exception
    assert decode_robots(b"User-agent: *\nDisallow: /a\x81b\n")[1] == "latin-1"


@pytest.mark.parametrize("path, expected", [("/tmp/a", False), ("/drafts/b", False),
                                            ("/index", True)])
def test_c02_cr_only_line_ends(path, expected):
    assert allowed(CR_ONLY, path) is expected


def test_only_max_bytes_are_parsed_cut_at_a_line_end():
    body = b"User-agent: *\nDisallow: /a\n" + b"# " + b"x" * 100 + b"\nDisallow: /b\n"
    text, _ = decode_robots(body, max_bytes=40)
    assert text == "User-agent: *\nDisallow: /a\n"
    rules = parse_robots(body, max_bytes=40)
    assert not rules.allowed(HOST + "/a", TOKEN) and rules.allowed(HOST + "/b", TOKEN)


def test_garbage_and_empty_files_allow_everything():
    assert allowed(b"", "/x")
    assert allowed(b"\x00\xff<html><body>Down for maintenance</body></html>", "/x")


# -- C04: groups are matched with our product token -------------------------------------------
ROBOTS_A = b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: wackycrawl\nCrawl-delay: 3\n" \
           b"Disallow: /cgi-bin/\n"
ROBOTS_C = b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: wackycrawl\nDisallow: /private/\n"


def test_own_group_wins_over_star():
    rules = parse_robots(ROBOTS_A)
    assert rules.crawl_delay(TOKEN) == 3.0 and rules.crawl_delay("otherbot") == 10.0
    assert not rules.allowed(HOST + "/cgi-bin/x", TOKEN)
    assert rules.allowed(HOST + "/cgi-bin/x", "otherbot")


def test_groups_are_exclusive_and_full_user_agent_matches_token():
    rules = parse_robots(ROBOTS_C)
    assert rules.crawl_delay(TOKEN) is None  # our group has none; "*" does not apply
    ua = "wackycrawl/0.1 (+https://example.test/contact)"
    assert not rules.allowed(HOST + "/private/x", ua)


# RFC 9309 2.2.1: the group is found by the exact product token, case-insensitively
@pytest.mark.parametrize("body, blocked, free", [
    # a group whose name is a prefix of ours is not ours (Protego alone took it for ours)
    (b"User-agent: wacky\nDisallow: /\n\nUser-agent: *\nDisallow: /b\n", ["/b"], ["/x"]),
    (b"User-agent: wacky*\nDisallow: /\n", [], ["/x"]),
    (b"User-agent: wackycrawler\nDisallow: /\n", [], ["/x"]),
    (b"User-agent: WACKYCRAWL\nDisallow: /p\n", ["/p"], ["/x"]),
    # the product token of a value with a version is read as Google's parser reads it
    (b"User-agent: WackyCrawl/2.0\nDisallow: /x\n\nUser-agent: *\nDisallow: /b\n",
     ["/x"], ["/b"]),
    # groups of our token are combined, other groups and "*" left out
    (b"User-agent: wackycrawl\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\n"
     b"User-agent: WackyCrawl\nDisallow: /b\n", ["/a", "/b"], ["/c"]),
    # one group, several User-agent lines; a line without colon as Protego reads it
    (b"User-agent: otherbot\nUser-agent: wackycrawl # us\nDisallow: /z\n", ["/z"], ["/x"]),
    (b"User-agent wackycrawl\nDisallow: /z\n", ["/z"], ["/x"]),
    (b"User-agent: * # everyone\nDisallow: /z\n", ["/z"], ["/x"]),
])
def test_group_is_the_exact_product_token(body, blocked, free):
    rules = parse_robots(body)
    for ua in (TOKEN, "WackyCrawl", "wackycrawl/0.1 (+https://example.test/contact)"):
        assert [p for p in blocked + free if not rules.allowed(HOST + p, ua)] == blocked, ua


def test_crawl_delay_of_a_prefix_group_is_not_ours():
    rules = parse_robots(b"User-agent: wacky\nCrawl-delay: 30\n\nUser-agent: *\nCrawl-delay: 2\n")
    assert rules.crawl_delay(TOKEN) == 2.0
    assert rules.crawl_delay("wacky") == 30.0


@pytest.mark.parametrize("value, token", [
    ("wackycrawl", "wackycrawl"), ("WackyCrawl/2.0", "wackycrawl"),
    ("wackycrawl/0.1 (+https://example.test/contact)", "wackycrawl"),
    ("  Other_Bot-X ", "other_bot-x"), ("*", ""), ("/x", ""), ("", "")])
def test_product_token(value, token):
    assert product_token(value) == token


@pytest.mark.parametrize("body, delay", [
    (b"User-agent: *\nCrawl-delay: 7.5\n", 7.5),
    (b"User-agent: *\nCrawl-delay: ten seconds please\n", None),
    (b"User-agent: *\nCrawl-delay: -3\n", None),
    (b"User-agent: *\nCrawl-delay: 86400\n", 86400.0)])
def test_crawl_delay_values(body, delay):
    assert parse_robots(body).crawl_delay(TOKEN) == delay


# -- C01: outcomes --------------------------------------------------------------------------
@pytest.mark.parametrize("status, expected", [
    (200, OK), (204, OK), (301, UNAVAILABLE), (401, UNAVAILABLE), (403, UNAVAILABLE),
    (404, UNAVAILABLE), (410, UNAVAILABLE), (429, UNREACHABLE), (500, UNREACHABLE),
    (503, UNREACHABLE), (None, UNREACHABLE)])
def test_c01_outcome_of_status(status, expected):
    assert outcome(status) == expected


def test_retry_after_and_key():
    assert retry_after_seconds(b"600") == 600.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") is None
    assert retry_after_seconds(None) is None
    assert robots_key("http://A.example.test/x?y") == "http://a.example.test:80"
    assert robots_key("https://a.example.test:8443/") == "https://a.example.test:8443"
    assert robots_key("http://[::1]/") == "http://[::1]:80"
    with pytest.raises(ValueError):
        robots_key("http:///nohost")


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_c01_unreachable_disallows_until_retry_then_refetch():
    clock = FakeClock()
    table = RobotsTable(max_age=86400, retry_seconds=600, clock=clock)
    key = "http://shop.example.test:80"
    url = "http://shop.example.test/catalogue/page-1.html"
    assert table.get(key) is None
    entry = table.store(key, UNREACHABLE)
    assert entry.decide(url, TOKEN) == DEFER
    clock.t += 599
    assert table.get(key) is entry
    clock.t += 1
    assert table.get(key) is None  # fetch again; the new answer replaces the old one
    table.store(key, UNAVAILABLE)
    assert table.get(key).decide(url, TOKEN) == ALLOW


def test_c01_retry_after_lengthens_the_backoff_within_max_age():
    clock = FakeClock()
    table = RobotsTable(max_age=3600, retry_seconds=600, clock=clock)
    assert table.store("k", UNREACHABLE, retry_after=1200).expires == clock.t + 1200
    assert table.store("k", UNREACHABLE, retry_after=60).expires == clock.t + 600
    assert table.store("k", UNREACHABLE, retry_after=10**9).expires == clock.t + 3600


def test_good_robots_cached_at_most_max_age():
    clock = FakeClock()
    table = RobotsTable(max_age=86400, retry_seconds=600, clock=clock)
    entry = table.store("k", OK, parse_robots(b"User-agent: *\nDisallow: /private/\n"))
    assert entry.decide(HOST + "/private/x", TOKEN) == FORBID
    assert entry.decide(HOST + "/public", TOKEN) == ALLOW
    clock.t += 86399.9
    assert table.get("k") is entry
    clock.t += 0.1
    assert table.get("k") is None
