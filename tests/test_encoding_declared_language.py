"""A declared single-byte label is judged by the page's language too: windows-1252 French
labelled ISO-8859-2 reads as letters some language has (trčs, lŕ: Slovak) but not French, the
language of its words; the guess overrides the label there, and only there. Fixtures are
written here from Python strings."""

import pytest

from wackycrawl.text.encoding import decode_html

FRENCH = ("Le comité a décidé de réduire les dépenses. Il a été très clair là-dessus, "
          "et le maire a répondu à la presse. ")
GERMAN = "Die Straße führt über die Brücke zum großen Schloß, wo Müller und Jäger wohnen. "
POLISH = "Zażółć gęślą jaźń. Pójdę do sklepu, żeby kupić chleb i masło dla babci. "
CZECH = "Příliš žluťoučký kůň úpěl ďábelské ódy, když jsme přišli do města. "


def page(text: str, head: str = "", times: int = 3) -> str:
    return (f"<html><head>{head}<title>t</title></head><body>"
            + f"<p>{text}</p>" * times + "</body></html>")


@pytest.mark.parametrize("declared", ["header", "meta"])
def test_windows_1252_french_labelled_iso_8859_2_is_windows_1252(declared):
    head = '<meta charset="iso-8859-2">' if declared == "meta" else ""
    header = "text/html; charset=iso-8859-2" if declared == "header" else "text/html"
    decoded = decode_html(page(FRENCH, head).encode("cp1252"), header)
    assert decoded.encoding == "cp1252", decoded.evidence
    assert FRENCH.strip() in decoded.text
    assert "trčs" not in decoded.text and "lŕ" not in decoded.text


@pytest.mark.parametrize("text", [POLISH, CZECH], ids=["pl", "cs"])
def test_iso_8859_2_label_on_central_european_text_is_used(text):
    decoded = decode_html(page(text).encode("iso8859-2"), "text/html; charset=iso-8859-2")
    assert (decoded.encoding, decoded.evidence) == ("iso8859-2", "declared:header")
    assert text.strip() in decoded.text


def test_iso_8859_2_label_on_german_is_used_where_the_letters_are_the_same():
    # ä ö ü ß have the same bytes in both: nothing overrides the label
    decoded = decode_html(page(GERMAN).encode("cp1252"), "text/html; charset=iso-8859-2")
    assert (decoded.encoding, decoded.evidence) == ("iso8859-2", "declared:header")
    assert GERMAN.strip() in decoded.text


# Maori (no alphabet or function-word list here): its short words (a, i, te, e, ko) name
# Croatian or Italian at random, and windows-1252 reads its macrons as French à ï
MAORI = ("Ka kī atu te tamāhine a Kupe, a Matiu, nā tāna harikoa i tae pai mai rātau ki "
         "konei, me te patutanga o te wheke rā e Kupe, kia tapaina te motu rā ko "
         "Te Mana-o-Kupe-ki-Aotearoa.")


@pytest.mark.parametrize("declared", ["header", "meta"])
def test_label_kept_when_the_guess_reads_another_language_than_the_words_name(declared):
    head = '<meta charset="iso-8859-4">' if declared == "meta" else ""
    header = "text/html; charset=iso-8859-4" if declared == "header" else "text/html"
    decoded = decode_html(page(MAORI, head, times=1).encode("iso8859-4"), header)
    assert (decoded.encoding, decoded.evidence) == ("iso8859-4", f"declared:{declared}")
    assert MAORI in decoded.text
