"""The page's ASCII function words earn a code page's reading a bonus only for the
languages they name clearly (at least 90 % of the tokens of the most-named one): a language
named in passing by a few short words must not tip a near tie of code pages. Fixtures are written
here from Python strings."""

import pytest

from wackycrawl.text.encoding import decode_html

NAV = ("Copyright 2015 All rights reserved | Follow us on Twitter | Contact | Next page | "
       "Privacy policy")
# Basque (no function-word list) quoting Spanish, Catalan and French names: windows-1252's
# á à è fit no single language, cp1250's á ŕ č are all Slovak, a language the page's short
# words (a, je...) name three times against English's and Catalan's seven
BASQUE = ("Galtzaile Basilio Boioanes katapan berriak armada erraldoia bildu zuen, Baregoen "
          "Guardia famatuarekin batera, Basilio II.ak bidalia. Bi egunkariren sortzaile eta "
          "zuzendaria: El estado catalán (1869) eta Diari català (1879), katalanez egindako "
          "lehen egunkaria. Demografia Biztanleria 2007an Poiseul-la-Ville-et-Laperrière "
          "udalerrian erroldatutako biztanleak 170 ziren.")
# Czech with few letters outside Latin-1 (ě, ř): its function words, named clearly, keep it
CZECH = ("Vláda schválila návrh zákona, podle kterého se budou moci obce a kraje rozhodnout, "
         "zda zavedou poplatek za odpad ve městě a na vesnici, řekl ministr. ")


def page(text: str) -> bytes:
    return (f"<html><head><title>t</title></head><body><div>{NAV}</div><p>{text}</p>"
            f"<div>{NAV}</div></body></html>")


def test_undeclared_windows_1252_basque_with_foreign_names_is_windows_1252():
    decoded = decode_html(page(BASQUE).encode("cp1252"), "text/html")
    assert decoded.encoding == "cp1252", decoded.evidence
    assert "catalán" in decoded.text and "Laperrière" in decoded.text


def test_undeclared_czech_with_few_diacritics_is_cp1250():
    decoded = decode_html(page(CZECH * 3).encode("cp1250"), "text/html")
    assert decoded.encoding == "cp1250", decoded.evidence
    assert CZECH.strip() in decoded.text


# An English page quoting one sentence of a Central-European language in its code page: the
# English function words are ASCII and read the same in every reading, so they must not hand
# the page to windows-1252, which garbles the quoted words (że -> ¿e, zwiększony -> zwiêkszony)
ENGLISH_NEWS = [
    "The committee met on Tuesday to discuss the budget for the coming year.",
    "Members of the public were invited to comment on the proposals before the meeting.",
    "It was agreed that the report would be published in the spring.",
    "The minister said that the decision had not yet been taken.",
    "There are several options on the table, and all of them have costs.",
    "A spokesman for the ministry declined to comment on the figures.",
    "The final vote is expected at the end of the month."]


def english_page_quoting(sentence: str) -> str:
    paragraphs = ENGLISH_NEWS[:4] + [sentence] + ENGLISH_NEWS[4:]
    return ("<!DOCTYPE html><html><head><title>News</title></head><body><ul><li>Home</li>"
            "<li>News</li><li>Contact</li></ul><p>" + "</p><p>".join(paragraphs)
            + "</p><footer>Copyright All rights reserved</footer></body></html>")


@pytest.mark.parametrize("sentence", [
    "MON potwierdza, że kontyngent zostanie zwiększony, ale nie aż dwukrotnie.",
    "Ministar je rekao da će se broj vojnika povećati, ali ne dvostruko.",
], ids=["pl", "hr"])
def test_undeclared_english_page_quoting_a_cp1250_sentence_is_cp1250(sentence):
    html = english_page_quoting(sentence)
    decoded = decode_html(html.encode("cp1250"), "text/html")
    assert decoded.encoding == "cp1250", decoded.evidence
    assert decoded.text == html


# Latvian (no function-word list) in windows-1257 with English navigation: windows-1252
# reads its ā ē ī ū as French â ç î û (Kopçjam), and the page's short words name French 9
# times against English's, Italian's and Catalan's 11: French, named in passing, must not
# earn a bonus that tips the near tie (windows-1257's prior is 1.0)
LATVIAN = ('Februāra koncerts Tukumā - Kamerkoris TonikaDraugi un AtbalstītājiFebruāra '
           'koncerts Tukumā 22. februārī „Tonika” ar savu ceturto cikla „Apex cordis” '
           'koncertu Tukuma Sv. Kopējam holesterīna līmenim Jūsu asinīs ir jābūt zem 5,0 '
           'mmol/l, ZBLH – zem 3,5 mmol/l, ABLH („labajam” augsta blīvuma lipoproteīdu '
           'holesterīnam) – virs 1,0 mmol/l vīriešiem un virs 1,2 mmol/l sievietēm, bet '
           'triglicerīdiem – zem 1,7 mmol/l. Azemitologs dod ceļa maizi jaunajiem '
           'studentiemCeturtdienas pēcpusdienā Jelgavas pils pagalms, kā jau katru gadu, '
           'piedzīvoja nebeidzamu jautrību un daudzkrāsainus studentu pūļus.')


def test_a_language_named_less_often_than_the_top_ones_earns_no_bonus():
    body = (f"<html><head><title>Februāra koncerts Tukumā - Kamerkoris To</title></head>"
            f"<body><div class=\"nav\">{NAV_LV}</div>\n<p>{LATVIAN}</p>\n"
            f"<p>Un vakars bija burviigs.</p>\n<div class=\"foot\">{NAV_LV}</div>"
            "</body></html>")
    decoded = decode_html(body.encode("cp1257"), "text/html")
    assert decoded.encoding == "cp1257", decoded.evidence
    assert LATVIAN in decoded.text


NAV_LV = ("Home | About us | Contact | News | Archive | Privacy policy | Terms of use | "
          "Sitemap | Search this site | Login | Register | Next page » | "
          "Copyright © 2009 All rights reserved")


def test_a_number_sign_glued_to_a_letter_is_junk_and_no_sign():
    # ISO-8859-15's œ (0xBD) is windows-1252's ½: c½ur is one bad character, not also a sign
    from wackycrawl.text import charsets
    assert charsets.fit("c½ur", "cp1252").good == 0
    assert charsets.fit("cœur", "iso8859-15").good == 1


def test_vietnamese_is_a_latin_script_language():
    # a windows-1252 reading best explained as Vietnamese letters (à è ñ) is a Latin-script
    # reading: charset-normalizer's proposal does not override it unless it scores higher
    from wackycrawl.text import charsets
    assert charsets.latin_script("vi") and charsets.latin_script("fr")
    assert not charsets.latin_script("ru") and not charsets.latin_script("")
