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



# English pages with a few words of the label's language, as pasted under a list of links
ENGLISH_WITH_POLISH = [
    "Current Forecast The La Nina condition has peaked. przypuszczać",
    "Puppets Elora Goes to School Puppets Elora brings exciting theatre to your students "
    "using our traveling stage and unique set designs. zdobył",
    "He and Lucy both sing in the Kerrisdale Keynotes and they play bridge as a team. został",
    "I didn't like walking to the school in the cold. równo",
    "Duclos of ATSAC if CATCA had decided not to challenge the use of radar by flight "
    "service specialists on Arctic Radio, Mr. ",
    "Retribution was quick and took place under cover of night. "]
ENGLISH_WITH_HUNGARIAN = [
    "Put drinks on ice or in coolers. trágyát,",
    "Members of HSG team who won the National Student Evaluation Case Competition: Jennifer "
    "Yessis, Liz Cyarto, Adam Spencer, Trisha Gavin and Candace Nykiforuk. Továbbá",
    "A Bio-fosseTM is thus being installed. ",
    "For best viewing, screen resolution should be set at a minimum of 800 x 600 pixels. ",
    "PUBLIC DECISIONS - No.26/2002 Preamble: A non-oral file review was held on February 5, "
    "2002, at the request of an advocate, acting on behalf of the claimant. ",
    "How is the program designed to influence the relevant determinants of health? "]


def linked_page(paragraphs: list[str], head: str) -> str:
    return (f"<!DOCTYPE html><html><head>{head}<title>{paragraphs[2][:30]}</title></head><body>"
            "<ul><li>Home</li><li>News</li><li>Contact</li></ul><p>"
            + "</p><p>".join(paragraphs)
            + "</p><footer>Copyright All rights reserved</footer></body></html>")


@pytest.mark.parametrize("paragraphs,codec,label,declared", [
    (ENGLISH_WITH_POLISH, "cp1250", "cp1250", "xml"),
    (ENGLISH_WITH_HUNGARIAN, "iso8859-2", "iso-8859-2", "meta")], ids=["pl-xml", "hu-meta"])
def test_label_kept_on_an_english_page_with_a_few_words_of_the_labels_language(
        paragraphs, codec, label, declared):
    # the words name English, which has no letters a guess could read right: a guess that
    # turns the few Polish or Hungarian letters into Latin-1 letters or Mac signs explains
    # nothing of the text, and does not override the label
    if declared == "meta":
        html = linked_page(paragraphs, f'<meta http-equiv="Content-Type" '
                                       f'content="text/html; charset={label}">')
    else:
        html = f'<?xml version="1.0" encoding="{label}"?>\n' + linked_page(paragraphs, "")
    decoded = decode_html(html.encode(codec), "text/html")
    assert (decoded.encoding, decoded.evidence) == (codec, f"declared:{declared}")
    assert all(text.strip() in decoded.text for text in paragraphs)


# An English page with a few Czech words, one of them mojibake already (UTF-8 read as
# ISO-8859-2 upstream: skuteÄŤnĂ˝m): the label's reading is implausible, but so is every
# other; a Mac Central European guess that leads by the score garbles ostrůvkem and České too
ENGLISH_WITH_CZECH_AND_MOJIBAKE = [
    "For your information --- The library will close for this school term on Wednesday, "
    "June 11, 2003. ostrůvkem",
    "If I am doing an IFR renewal, do I have to do all the regular requirements of an "
    "initial IFR rating? (skuteÄŤnĂ˝m",
    "Coping with illness: Synthesis and critiques of the nursing coping literature from "
    "1980-1990. České",
    "It's an Arafat clothed like Che Guevara and treated like Saladin: my heart breaks. ",
    "Patriarchal neoliberal globalization accentuates gender inequality and the gap between "
    "rich and poor, between countries, territories and peoples, and generates ever "
    "increasing exclusion, hatred, racism and intolerance. ",
    "Local resources within the town include a campus of the College of the North Atlantic, "
    "schools, shopping, library, sports fields, a skating rink, and a bird sanctuary. "]


def test_label_kept_when_the_better_scored_guess_is_implausible_too():
    html = linked_page(ENGLISH_WITH_CZECH_AND_MOJIBAKE, '<meta charset="iso-8859-2">')
    decoded = decode_html(html.encode("iso8859-2"), "text/html")
    assert (decoded.encoding, decoded.evidence) == ("iso8859-2", "declared:meta")
    assert "ostrůvkem" in decoded.text and "České" in decoded.text


# A few Thai words in an English page, labelled windows-874: the Thai reading has some junk
# (its vowel signs), a Korean reading of the same bytes (two a character) scores higher;
# scores of readings two bytes a character are no measure against the label's
ENGLISH_WITH_THAI = [
    "American Bittern: Good views of standing and flying birds at the Sedge Wren Marsh. "
    "(สำนักงาน",
    "Please also note that as these Terms and Conditions of Use may change from time to time "
    "and as it is your responsibility to check for such updates, you should visit these pages "
    "periodically to review them. จังหวัดอุบลราชธานี",
    "Protecting E-Business Knowledge Assets in Collaborator Networks Fernandes, Gary - "
    "Carleton University (Canada) วันพฤหัสบดีที่",
    "Most ISPs and most list serves have lengthy Acceptable Use Policies and pretty clearly "
    "state profanity, pornography, and inappropriate use of the service could result in "
    "termination (eeeek) of user rights. ย้ำกำลังพลตั้ง",
    "Please Note: Any enquiries regarding the 16th Annual TMAC-Toronto FATCAT Golf Tournament "
    "should be directed to your FATCAT Golf Committee. ",
    "Although the prosecutor will listen to your reasons, you will not have the final say. "]


def test_single_byte_label_kept_against_a_cjk_guess_while_its_reading_is_plausible():
    body = linked_page(ENGLISH_WITH_THAI, "").encode("cp874")
    decoded = decode_html(body, "text/html; charset=windows-874")
    assert (decoded.encoding, decoded.evidence) == ("cp874", "declared:header")
    assert all(text.strip() in decoded.text for text in ENGLISH_WITH_THAI)
