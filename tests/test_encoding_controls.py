"""Control characters written in a page (valid bytes: stray C0 controls, DEL, U+0080-U+009F in
UTF-8) are removed and counted, not taken for a wrong charset: a page with dozens of them was
rejected as ``encoding`` ("no codec decodes the page cleanly"). A body mostly made of them is
binary data and says so."""

import re
import subprocess
import sys

import pytest
from scrapy.exceptions import DropItem

from tests.crawlrun import ROOT
from tests.wackysettings import crawler
from wackycrawl.pipelines.text import TextPipeline
from wackycrawl.text.encoding import MAX_REPAIRS, BinaryContentError, decode_html

UNCLEAN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")

SENTENCES = [
    "Der Gemeinderat hat am Dienstag über die Zukunft des alten Bahnhofs beraten.",
    "Ein Vorschlag sieht einen überdachten Markt vor, ein anderer ein kleines Museum.",
    "Die Bürger können ihre Meinung bis Ende März schriftlich äußern.",
    "Für die Sanierung des Bahnhofs stehen im Haushalt drei Millionen Euro bereit.",
    "Der Bürgermeister will im Sommer entscheiden, welche Pläne weiter verfolgt werden.",
]
PROSE = " ".join(SENTENCES)
# 20 controls of every kind, placed where they are met: instead of a space, inside a word,
# next to a space, at a sentence's end; C1 controls that windows-1252 reads as letters and
# signs (0x8A Š, 0x80 €, 0x99 ™...) or leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D)
NOISY = [
    "Der Gemein\x02derat hat am Dienstag über\x0bdie Zukunft \x7f des alten Bahnhofs\x01beraten.",
    "Ein Vor\x8aschlag sieht einen über\x9adachten Markt vor,\x1f ein anderer ein "
    "kleines\x03Museum.",
    "Die Bürger\x81 können ihre Mei\x80nung bis Ende März schrift\x99lich äußern.\x85Punkt.",
    "Für die Sa\x0enierung des Bahnhofs\x1c stehen im Haus\x8dhalt drei Millionen\x90 Euro bereit.",
    "Der Bürger\x1bmeister will im Sommer\x9d ent\x7fscheiden, welche Pläne weiter\x15 "
    "verfolgt werden.",
]
CONTROLS = sum(len(UNCLEAN.findall(s)) for s in NOISY)


def body(head: str = '<meta charset="utf-8">', repeat: int = 12) -> bytes:
    """A page of ``repeat`` clean paragraphs, then the noisy ones twice (40 controls)."""
    paragraphs = "".join(f"<p>{PROSE}</p>\n" for _ in range(repeat))
    noisy = "".join(f"<p>{row}</p>\n" for row in NOISY) * 2
    return (f"<!DOCTYPE html><html><head>{head}<title>Der Bahnhof</title></head><body>"
            f"{paragraphs}{noisy}</body></html>").encode("utf-8")


def visible(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("content_type, head", [
    ("text/html; charset=utf-8", ""), ("text/html", '<meta charset="utf-8">'), ("text/html", "")])
def test_valid_utf8_page_with_dozens_of_controls_is_kept_without_them(content_type, head):
    raw = body(head)
    assert CONTROLS == 20 and 2 * CONTROLS > MAX_REPAIRS
    decoded = decode_html(raw, content_type)
    assert decoded.encoding == "utf-8" and decoded.repairs == 0
    assert decoded.controls == 2 * CONTROLS
    assert not UNCLEAN.search(decoded.text)
    # inside a word the page writes whole elsewhere: removed; where the page writes both
    # sides as words (never joined), or a whitespace control (VT, FS, US, NEL): a space;
    # next to a space: removed
    noisy = [visible(p) for p in re.findall(r"<p>(.*?)</p>", decoded.text)[-10:]]
    assert noisy == (SENTENCES[:2] + [SENTENCES[2] + " Punkt."] + SENTENCES[3:]) * 2


def test_windows_text_stored_as_latin1_in_utf8_reads_its_c1_controls_as_windows_1252():
    # Windows text read as Latin-1 and stored as UTF-8: every ’ “ ” – … a C1 control, far more
    # than MAX_REPAIRS of them; the evidence reads them as windows-1252 (not bounded)
    english = ("It\x92s the \x93new\x94 station \x96 isn\x92t it\x85 The council\x92s plan "
               "was published on Monday. ")
    raw = (f"<html><head><title>t</title></head><body><p>{english * 8}</p></body></html>"
           ).encode("utf-8")
    decoded = decode_html(raw, "text/html; charset=utf-8")
    assert decoded.encoding == "utf-8" and decoded.controls == 0 and decoded.repairs == 56
    assert ("It’s the “new” station – isn’t it… The council’s plan" in decoded.text)
    assert not UNCLEAN.search(decoded.text)


def test_utf8_with_controls_under_a_single_byte_label_is_still_utf8():
    decoded = decode_html(body('<meta charset="windows-1252">'), "text/html")
    assert decoded.encoding == "utf-8" and decoded.controls == 2 * CONTROLS
    assert "Die Bürger können ihre Meinung" in decoded.text


def test_legacy_page_with_controls_is_still_guessed():
    russian = ("Городской совет утвердил новый бюджет на ремонт школы и больницы. "
               "Жители города могут высказать своё мнение до конца марта. ")
    noisy = russian.replace("совет ", "совет\x01 ").replace("школы", "шко\x02лы")
    raw = (f"<html><head><title>t</title></head><body>{('<p>' + russian + '</p>') * 6}"
           f"{('<p>' + noisy + '</p>') * 6}</body></html>").encode("cp1251")
    decoded = decode_html(raw, "text/html")
    assert decoded.encoding == "cp1251" and decoded.controls == 12
    kept = "Городской совет утвердил новый бюджет на ремонт школы"
    assert visible(decoded.text).count(kept) == 12


@pytest.mark.parametrize("junk", [
    "\x7f" * 400,  # DEL: no WHATWG binary data byte, so not caught by the byte sniffing
    "\x1b[0m\x1b[1m" * 120,  # ESC: nor is it
    "\x85\x86\x87\x81" * 100,  # C1 controls in UTF-8, even those windows-1252 reads
])
def test_body_mostly_of_controls_is_binary_and_the_message_says_so(junk):
    raw = f"<html><body><p>{junk}short text</p></body></html>".encode("utf-8")
    with pytest.raises(BinaryContentError, match=r"^\d+ control characters in \d+ characters$"):
        decode_html(raw, "text/html; charset=utf-8")



def test_pipeline_keeps_the_page_and_counts_the_controls_removed():
    c = crawler()
    item = {"url": "http://a.example.test/", "content_type": "text/html; charset=utf-8",
            "body": body(), "meta": {}}
    out = TextPipeline.from_crawler(c).process_item(item)
    assert not UNCLEAN.search(out["html"])
    assert out["meta"]["Encoding-Controls"] == str(2 * CONTROLS)
    assert "Encoding-Repairs" not in out["meta"]
    assert c.stats.get_value("wacky/encoding/with_controls") == 1
    assert c.stats.get_value("wacky/encoding/controls_removed") == 2 * CONTROLS


def test_pipeline_drops_a_body_of_controls_as_binary_naming_them(caplog):
    c = crawler()
    raw = ("<html><body><p>" + "\x7f" * 400 + "short text</p></body></html>").encode()
    item = {"url": "http://a.example.test/", "content_type": "text/html; charset=utf-8",
            "body": raw, "meta": {}}
    with caplog.at_level("INFO"), pytest.raises(
            DropItem, match=r"^binary: .*400 control characters in 443 characters"):
        TextPipeline.from_crawler(c).process_item(item)
    assert c.stats.get_value("wacky/drop/binary") == 1
    assert "400 control characters in 443 characters" in caplog.text


def test_cli_names_the_controls_removed_and_the_body_of_controls(tmp_path):
    good, junk = tmp_path / "noisy.html", tmp_path / "junk.html"
    good.write_bytes(body())
    junk.write_bytes(("<html><body><p>" + "\x7f" * 400 + "short text</p></body></html>").encode())
    code = "import sys; from wackycrawl.cli import main; sys.exit(main())"
    run = subprocess.run([sys.executable, "-c", code, "encoding", str(good), str(junk)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    lines = [line.split("\t") for line in run.stdout.splitlines()]
    assert lines[0] == [str(good), "utf-8", f"declared:meta,controls:{2 * CONTROLS}"]
    assert lines[1] == [str(junk), "-", "rejected:binary"] and run.returncode == 1
    assert f"{junk}: 400 control characters in 443 characters" in run.stderr
