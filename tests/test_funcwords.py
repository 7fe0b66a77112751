"""Function-word language identification and connected-prose detection (no Scrapy)."""

from collections import Counter

import pytest

from wackycrawl.text import funcwords as fw
from wackycrawl.text import langmodel

EN = (
    "The council met on Tuesday evening to discuss the future of the old railway station, "
    "which has stood empty for years. Most of the members said that they would like to see "
    "it used again, but there was no agreement on how the work should be paid for. Some of "
    "them argued that the town could not afford it, while others believed that a new "
    "library in the building would bring people back to the centre of the town and that "
    "it was worth the cost. They will meet again in May, when the report is ready."
)
DE = (
    "Die Regierung hat am Montag eine neue Verordnung beschlossen, die ab dem nächsten Jahr "
    "für alle Schulen in dem Land gelten soll. Nach Angaben des Ministeriums werden die "
    "Mittel für die Renovierung der Gebäude deutlich erhöht, weil viele von ihnen seit "
    "Jahren in einem schlechten Zustand sind. Die Opposition kritisierte, dass die Pläne "
    "zu spät kommen und nicht weit genug gehen, aber sie will dem Gesetz trotzdem zustimmen."
)
FR = (
    "Le conseil municipal a approuvé lundi soir le nouveau budget des écoles. Selon le "
    "maire, les travaux de rénovation commenceront au printemps et dureront plus de deux "
    "ans. Les parents, qui attendaient cette décision depuis longtemps, se sont dits "
    "satisfaits, mais ils restent inquiets pour la sécurité des enfants pendant le chantier "
    "et ils demandent que la ville les informe régulièrement de l'avancement des travaux."
)

# Case C12: ALL-CAPS and all-lowercase text, one row per line of the handed case.
C12 = [
    ("en", "THE COUNCIL APPROVED THE NEW SCHOOL BUDGET ON MONDAY EVENING"),
    ("en", "OPENING HOURS CHANGE FROM NEXT WEEK"),
    ("de", "ICH HABE HEUTE KEINE ZEIT, VIELLEICHT MORGEN"),
    ("de", "DIE REGIERUNG HAT AM MONTAG EINE NEUE VERORDNUNG BESCHLOSSEN"),
    ("fr", "LE CONSEIL MUNICIPAL A APPROUVÉ LUNDI SOIR LE NOUVEAU BUDGET DES ÉCOLES"),
    ("fr", "LA BIBLIOTHÈQUE SERA FERMÉE PENDANT LES VACANCES"),
    ("hr", "VLADA JE U PONEDJELJAK DONIJELA NOVU UREDBU O CIJENAMA ENERGIJE"),
    ("de", "die regierung hat am montag eine neue verordnung beschlossen"),
    ("de", "ich habe heute keine zeit, vielleicht morgen"),
    ("en", "the council approved the new school budget on monday evening"),
]

ANY_LENGTH = fw.Identifier(min_chars=0)


def test_normalise_folds_case_and_full_width():
    assert fw.normalise("ＴＨＥ　ＬＩＢＲＡＲＹ Straße") == "the library strasse"


def test_word_counts_split_apostrophes_digits_and_punctuation():
    freq = fw.word_counts(fw.normalise("L'homme, 2024 (dell'anno) end. x_y"))
    assert freq == {"l": 1, "homme": 1, "dell": 1, "anno": 1, "end": 1, "x": 1, "y": 1}


def test_lists_load_as_package_data():
    assert {"de", "en", "it", "fr", "es", "nl", "pt", "pl"} <= set(fw.languages())
    tok, typ = fw.count(fw.word_counts("the of and der"))
    en = fw.languages().index("en")
    assert (tok[en], typ[en]) == (3, 3)


@pytest.mark.parametrize("gold,text", C12)
def test_c12_rows_identified(gold, text):
    r = ANY_LENGTH.identify(text)
    # Croatian has close neighbours (bs, sr): a short line may be und naming hr.
    assert r.lang == gold or (r.method == "close" and gold in dict(r.top2))


@pytest.mark.parametrize("gold,text", [r for r in C12 if r[1].isupper()])
def test_c12_all_caps_page_identified_under_length_policy(gold, text):
    page = " ".join([text + "."] * 8)  # over the 200-character policy
    assert len(page) >= fw.MIN_CHARS
    r = fw.identify(page)
    assert r.lang == gold or (r.method == "close" and gold in dict(r.top2))


def test_c12_model_without_features_answers_nothing():
    # No n-gram of the model occurs: it would answer its prior, so nothing is ranked.
    assert langmodel.rank("") == langmodel.rank("!!! ???") == []
    assert langmodel.rank("OPENING HOURS CHANGE FROM NEXT WEEK")[0][0] == "en"


# Case C13: short strings, menus, names, full-width letters.
C13_SHORT = [
    "Hello Lisbon",
    "garden",
    "newsletter",
    "Home | Kontakt | Impressum | Datenschutz",
    "Home | About us | Contact | Privacy",
    "José Da Silva: Louis Verhoeven explains why he left Porto",
    "ｔｈｅ　ｌｉｂｒａｒｙ　ｉｓ　ｏｐｅｎ",
    "погода на завтра",
    "свежие новости района",
    EN.split(". ")[0] + ".",  # one 117-character sentence
]


@pytest.mark.parametrize("text", C13_SHORT)
def test_c13_short_text_is_und_under_length_policy(text):
    r = fw.identify(text)
    assert (r.lang, r.method) == ("und", "short")


@pytest.mark.parametrize(
    "text,never",
    [
        ("Hello Lisbon", "it"),
        ("garden", "de"),
        ("newsletter", "en"),
        ("Home | Kontakt | Impressum | Datenschutz", "de"),
        ("погода на завтра", "mk"),
        ("свежие новости района", "bg"),
    ],
)
def test_c13_no_confident_wrong_answer_without_length_policy(text, never):
    r = ANY_LENGTH.identify(text)
    assert r.lang != never
    assert r.lang == "und"


def test_c13_title_with_foreign_names_in_english_body_is_english():
    page = "José Da Silva: Louis Verhoeven explains why he left Porto\n" + EN
    assert fw.identify(page).lang == "en"
    assert ANY_LENGTH.identify(C13_SHORT[5]).lang != "fr"


def test_c13_full_width_latin_is_english_after_nfkc():
    assert ANY_LENGTH.identify("ｔｈｅ　ｌｉｂｒａｒｙ　ｉｓ　ｏｐｅｎ").lang == "en"
    page = "ｔｈｅ　ｌｉｂｒａｒｙ　ｉｓ　ｏｐｅｎ　ｏｎ　ｍｏｎｄａｙ．" * 8
    assert fw.identify(page).lang == "en"


@pytest.mark.parametrize("gold,text", [("en", EN), ("de", DE), ("fr", FR)])
def test_paragraphs_identified_by_function_words_and_are_prose(gold, text):
    r = fw.identify(text)
    assert (r.lang, r.method) == (gold, "funcwords")
    assert r.fw_ratio > 0.3 and r.score >= fw.AGREE_MIN_PROB
    assert r.top2[0][0] == gold
    assert fw.is_connected_prose(r)


def test_word_list_is_not_prose():
    words = ("apple banana cherry grape lemon mango melon orange peach pear plum "
             "apricot kiwi lime papaya quince raspberry strawberry tangerine ") * 5
    r = fw.identify(words)
    assert r.fw_tokens == 0
    assert not fw.is_connected_prose(r)


def test_keyword_spam_is_not_prose():
    spam = ("cheap flights cheap hotels best price london paris rome deals book now "
            "discount travel insurance car hire the best deals ") * 8
    r = fw.identify(spam)
    assert r.lang == "en"
    assert r.fw_tokens >= 8 and r.fw_types < fw.MIN_FUNCWORD_TYPES
    assert r.fw_ratio < fw.MIN_FUNCWORD_RATIO
    assert not fw.is_connected_prose(r)


def test_prose_thresholds_are_parameters():
    r = fw.identify(EN)
    assert not fw.is_connected_prose(r, min_tokens=r.fw_tokens + 1)
    assert not fw.is_connected_prose(r, min_types=r.fw_types + 1)
    assert not fw.is_connected_prose(r, min_ratio=0.99)


def test_close_lists_are_told_apart_by_the_model():
    # Danish and Bokmål share most function words: the lists do not decide alone.
    da = ("Det er ingen hemmelighed, at mange danskere er glade for at cykle. Hver dag kører "
          "tusindvis af mennesker på cykel til arbejde i København, og kommunen har bygget "
          "flere nye cykelstier. Nogle af dem siger, at de hellere vil cykle end tage bussen, "
          "fordi det er hurtigere og billigere, og fordi man får lidt motion.")
    r = fw.identify(da)
    assert r.lang == "da" and r.method == "funcwords"
    assert [lang for lang, _ in r.top2] in (["da", "nb"], ["da", "sv"], ["da", "nn"])


def test_long_text_without_listed_function_words_goes_to_langid():
    ru = ("Городской совет собрался во вторник вечером, чтобы обсудить будущее старого "
          "вокзала, который уже много лет стоит пустым. Большинство депутатов заявили, что "
          "хотели бы снова использовать здание, но согласия о финансировании работ нет.")
    r = fw.identify(ru)
    assert (r.lang, r.method) == ("ru", "langid")
    assert fw.is_connected_prose(r)  # no Russian list: cannot judge, passes


def test_odd_input_never_raises():
    for text in ["", "   ", "\x00\ufffd" * 300, "</DOC>" * 100, "1234 5678 " * 50]:
        r = fw.identify(text)
        assert r.lang == "und" and not fw.is_connected_prose(r)


def test_parse_languages():
    assert fw.parse_languages("") == ()
    assert fw.parse_languages(" EN, de ,en") == ("en", "de")
    assert fw.parse_languages("ru") == ("ru",)  # known to the model only
    assert fw.parse_languages("no,nn") == ("nb", "nn")  # Norwegian: Bokmål, never Nynorsk
    with pytest.raises(ValueError, match="xx"):
        fw.parse_languages("en,xx")


def test_an_unknown_language_code_gets_close_matches_not_the_whole_list():
    with pytest.raises(ValueError) as raised:
        fw.parse_languages("english,xx")
    message = str(raised.value)
    assert message.startswith("unknown language code(s) english (did you mean en?), xx; codes "
                              "are ISO 639-1 such as en, de, it")
    assert "[" not in message and "'af'" not in message and len(message) < 200


# Speed paths: the same words, counts and langid.py answers as the plain definitions.

def _reference_words(text):
    return Counter(fw._WORD.findall(text))


@pytest.mark.parametrize("text", [
    "“the” it’s l'homme «la» „die“ – — … © 2024 x_y end. (dell'anno)",
    "straße STRASSE ǅemal ﬁnal café cafe\u0301 naïve 東京 タワー ١٢٣ ½",
    "line\u2028sep\u00a0nbsp\u3000ideo tab\tnew\nline \x00 \ufffd \ud800lone",
    "москва, київ; ελλάδα! עברית? العربية.",
])
def test_word_counts_match_the_regex_definition(text):
    norm = fw.normalise(text)
    assert fw.word_counts(norm) == _reference_words(norm)


def test_counts_of_many_tokens_stay_in_their_language():
    # The per-language counters share one int: a huge count must not spill over.
    tok, typ = fw.count(Counter({"the": 10**9, "der": 3}))
    langs = fw.languages()
    assert tok[langs.index("en")] == 10**9 and typ[langs.index("en")] == 1
    assert tok[langs.index("de")] == 3
    assert all(t in (0, 3) for lang, t in zip(langs, tok) if lang != "en")


def test_model_rank_agrees_with_py3langid_classify():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ref = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    for text in (EN, DE, FR, "das ist ein kleiner test"):
        lang, prob = langmodel.rank(text)[0]
        ref_lang, ref_prob = ref.classify(text)
        assert (lang, round(prob, 6)) == (ref_lang, round(ref_prob, 6))


# Early stop: the figures are those of the text read.

LONG_EN = " ".join([EN] * 20)  # ~11,600 characters of prose
FRUIT = ("apple banana cherry grape lemon mango melon orange peach pear plum "
         "apricot kiwi lime papaya quince raspberry strawberry tangerine ") * 100


def test_long_prose_is_decided_on_its_first_piece():
    r = fw.identify(LONG_EN)
    whole = fw.Identifier(chunk_chars=0).identify(LONG_EN)
    assert (r.lang, r.method) == (whole.lang, whole.method) == ("en", "funcwords")
    assert fw.CHUNK_CHARS <= r.chars < 2 * fw.CHUNK_CHARS < whole.chars == len(LONG_EN)
    assert abs(r.fw_ratio - whole.fw_ratio) < 0.05
    assert fw.is_connected_prose(r)


def test_prose_then_word_list_is_prose_in_the_text_read():
    text = EN + " " + EN + "\n" + FRUIT
    r = fw.identify(text)
    assert r.chars < len(text) and fw.is_connected_prose(r)
    whole = fw.Identifier(chunk_chars=0).identify(text)
    assert whole.chars == len(text.strip()) and not fw.is_connected_prose(whole)


def test_keyword_list_then_prose_is_read_to_the_end():
    spam = ("cheap flights cheap hotels best price london paris rome deals book now "
            "discount travel insurance car hire the best deals ") * 60
    text = spam + "\n" + EN
    r = fw.identify(text)
    assert r.chars == len(text)
    assert r == fw.Identifier(chunk_chars=0).identify(text)


def test_text_without_function_words_stops_after_its_first_piece():
    ru = ("Городской совет собрался во вторник вечером, чтобы обсудить будущее старого "
          "вокзала, который уже много лет стоит пустым. ") * 60
    r = fw.identify(ru)
    assert (r.lang, r.method, r.fw_tokens) == ("ru", "langid", 0)
    assert fw.CHUNK_CHARS <= r.chars < 2 * fw.CHUNK_CHARS < len(ru.strip())


def test_early_stop_needs_the_margin_over_the_prose_ratio():
    strict = fw.Identifier(stop_margin=0.9)  # no text reaches a ratio of 1.15
    assert strict.identify(LONG_EN).chars == len(LONG_EN)


def test_close_lists_text_stops_once_prose_is_settled():
    da = ("Det er ingen hemmelighed, at mange danskere er glade for at cykle. Hver dag kører "
          "tusindvis af mennesker på cykel til arbejde i København, og kommunen har bygget "
          "flere nye cykelstier. Nogle af dem siger, at de hellere vil cykle end tage bussen, "
          "fordi det er hurtigere og billigere, og fordi man får lidt motion. ") * 15
    r = fw.identify(da)
    assert r.lang == "da"
    assert fw.CHUNK_CHARS <= r.chars < len(da.strip())


def test_short_check_and_full_read_give_the_same_label():
    # The model's short check (check_chars) only confirms what the full read would say.
    full = fw.Identifier(check_chars=0)
    for text in (LONG_EN, DE * 3, FR * 3):
        quick, whole = fw.identify(text), full.identify(text)
        assert (quick.lang, quick.method) == (whole.lang, whole.method)
        assert quick.score >= fw.MODEL_MIN_PROB
