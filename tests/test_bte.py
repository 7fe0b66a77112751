"""BTE (Finn et al. 2001) and the block-level extractor built on it."""

import random
from pathlib import Path

import pytest

from wackycrawl.text import blocks, bte
from wackycrawl.text.extractors import get_extractor

FIXTURES = Path(__file__).parent / "fixtures" / "boilerplate"
ARTICLE = (FIXTURES / "article_lists.html").read_text(encoding="utf-8")
ARTICLE_LINES = [
    "Repotting a Boston fern",
    "A Boston fern grows quickly",  # start of the first paragraph
    "Steps",
    "One: water the fern well",
    "Two: ease it out gently",
    "Three: loosen the root ball",
    "Four: set it level",
    "Five: fill with compost",
    "Six: water it again",
    "Keep it out of direct sun for a week afterwards.",
]
BOILERPLATE = ["Home", "Plants", "Popular posts", "Winter care for orchids", "Privacy",
               "Imprint", "Green Notes", "Not text at all", "Commented out paragraph", "tag1"]
AUTHOR = (
    '<div class="author"><div><div><p>About the author: Mara has grown ferns, palms and '
    "climbing plants in a small city flat for more than twenty years, and she writes about "
    "what worked for her and what did not, including the many plants she lost to too much "
    "water and too little light.</p></div></div></div>"
)
# A tag cloud: 40 links = 80 tags, more than the author paragraph's 52 words, so BTE cannot
# join the author paragraph to the article and it lies outside the span.
TAG_CLOUD = '<div class="tags">' + "".join(
    f'<a href="/tag/{i}">tag{i}</a> ' for i in range(40)) + "</div>"


def in_order(paragraphs: list[str], lines: list[str]) -> bool:
    """Each line starts a paragraph, in this order (other paragraphs may come between)."""
    it = iter(paragraphs)
    return all(any(p.startswith(line) for p in it) for line in lines)


# --- BTE -------------------------------------------------------------------------------------

HAND_PAGE = (
    "<html><head><title>Site name</title></head><body>"
    '<div><a href="/">Home</a> | <a href="/news">News</a></div>'
    "<p>Alpha beta gamma <b>delta epsilon zeta</b> eta.</p><p>Theta iota kappa.</p>"
    '<div><a href="/c">Contact us</a></div></body></html>'
)


@pytest.mark.parametrize("markup, first_names", [
    ('<!DOCTYPE html><HTML><Body CLASS=x><div-x>a</div-x></><//a>b<?xml v?><H2 id="t">T</H2 >'
     '<p title="a > b" data-n=\'1\'>c</P><a href=x>d</A ><img src="x.png"/><br/>e<a',
     ["", "html", "body", "div", "div", "", "", "", "h2", "h2", "p", "p", "a", "a"]),
    ('<div data-html="<p class=\'q\'>inner</p>"><Span x="<b>">f</SPAN></div><p title="x>',
     ["div", "span", "span", "div", "p"]),  # markup in quoted values: the other path
])
def test_named_pieces_give_each_tags_name(markup, first_names):
    parts, names = bte.named_pieces(markup)
    assert parts == bte.pieces(markup)
    assert names == [bte.tag_name(t) for t in parts[1::2]] == bte.tag_names(parts[1::2])
    assert names[:len(first_names)] == first_names


def test_hand_computed_span():
    # Scores after <body>: Home +1 </a> -1 "|" +1 <a> -1 News +1 </a> -1 </div> -1 <p> -1
    # | Alpha.. +3 <b> -1 +3 </b> -1 eta. +1 </p> -1 <p> -1 Theta.. +3 | </p> -1 <div> -1
    # <a> -1 Contact us +2 ... The best run is Alpha..kappa: 3-1+3-1+1-1-1+3 = 6; adding the
    # menu before it (net -1 with the </div><p>) or "Contact us" after it (net -1) lowers it.
    parts = bte.pieces(bte.strip_invisible(HAND_PAGE))
    scores = bte.weights(parts)
    start, end = bte.best_span(scores)
    assert parts[start] == "Alpha beta gamma " and parts[end - 1] == "Theta iota kappa."
    assert sum(scores[start:end]) == 6
    assert bte.extract(HAND_PAGE) == ["Alpha beta gamma delta epsilon zeta eta.",
                                      "Theta iota kappa."]


def naive_bte(bits: list[int]) -> int:
    """max over i <= j of tags before i + words in [i, j] + tags after j (b = 1 is a tag)."""
    n = len(bits)
    return max(
        sum(bits[:i]) + sum(1 - b for b in bits[i:j + 1]) + sum(bits[j + 1:])
        for i in range(n) for j in range(i, n)
    )


@pytest.mark.parametrize("seed", range(40))
def test_linear_span_matches_naive_objective(seed):
    rng = random.Random(seed)
    bits = [int(rng.random() < rng.choice((0.3, 0.5, 0.7))) for _ in range(rng.randint(1, 60))]
    if all(bits):
        bits[rng.randrange(len(bits))] = 0  # at least one word, so the span is not empty
    start, end = bte.best_span([bte.TAG_WEIGHT if b else bte.WORD_WEIGHT for b in bits])
    assert start < end
    objective = sum(bits[:start]) + sum(1 - b for b in bits[start:end]) + sum(bits[end:])
    assert objective == naive_bte(bits)


def test_no_words_gives_empty_span_and_no_text():
    assert bte.best_span([-1, -1, 0]) == (0, 0)
    assert bte.extract("<div><br><img src=x></div>") == []
    assert blocks.extract("<div><br><img src=x></div>") == []


def test_entities_script_style_comments():
    page = (
        "<html><head><style>p { color: red }</style></head><body>"
        "<p>caf&eacute; &amp; cr&#232;me&nbsp;br&ucirc;l&eacute;e, a &lt; b and 3 < 4</p>"
        '<script type="text/javascript">document.write("<p>not text</p>");</script>'
        "<!-- <p>hidden words here</p> --><noscript>enable scripts</noscript>"
        "<p>second   paragraph\n spans\tlines</p></body></html>"
    )
    for extract in (bte.extract, blocks.extract):
        assert extract(page) == ["café & crème brûlée, a < b and 3 < 4",
                                 "second paragraph spans lines"]


@pytest.mark.parametrize("written, text", [
    # a dropped reference leaves text around it, which is not read again as a reference
    ("no&#x&#xD800;D800;t a&#&#0;65533;b", "no&#xD800;t a&#65533;b"),
    ("a&#x&#0;b c", "a&#xb c"),
    ("&#x&#x26;#x41;", "&#x&#x41;"),  # &#x26; is "&": what it gives is text
    ("&amp;lt; &amp;#65533; &amp;#xFFFD;", "&lt; &#65533; &#xFFFD;"),
    ("&#65 &#x41; &#0000065; &#128; &ampx &lt &notit; &#xFFFD;&#1114112;&#x110000;&#0;",
     "A A A € &x < ¬it;"),
])
def test_references_are_decoded_in_one_pass(written, text):
    assert bte.normalise(written) == text
    assert bte.extract(f"<p>The cat sat on the mat: {written}</p>") == [
        f"The cat sat on the mat: {text}"]


def test_bogus_comments_end_at_the_next_gt():
    # HTML 5: "<![CDATA[" outside SVG/MathML, "<!x", "<?xml" are bogus comments up to ">"
    for extract in (bte.extract, blocks.extract):
        assert extract("<body><![CDATA[<p>The cat sat on the mat and it was not happy.</p>]]>"
                       ) == ["The cat sat on the mat and it was not happy."]
        assert extract('<body><?xml version="1.0"?><p>The cat sat on the mat.</p>') == [
            "The cat sat on the mat."]
    assert bte.strip_invisible("a<![if !IE]>b<!x <p>c>d") == "a b c>d"


def test_many_bogus_comment_openers_take_linear_time():
    import time

    small, big = ("<![x " * n + "<p>The cat sat on the mat.</p>" for n in (2_000, 20_000))
    t0 = time.perf_counter()
    assert bte.extract(small) == ["The cat sat on the mat."]
    t1 = time.perf_counter()
    assert bte.extract(big) == ["The cat sat on the mat."]
    t2 = time.perf_counter()
    assert t2 - t1 < 30 * (t1 - t0) + 0.05


def test_soft_hyphens_are_dropped():
    # U+00AD as a character and as an entity: a line-break hint, not part of the word.
    assert bte.extract("<p>Im Mit\xadtel\xadal&shy;ter war der Wein ber&#173;\xc3hmt</p>") == [
        "Im Mittelalter war der Wein ber\xc3hmt"]


def test_unclosed_script_and_comment_run_to_the_end():
    assert bte.extract("<p>kept words</p><script>var a = '<p>lost</p>';") == ["kept words"]
    assert bte.extract("<p>kept words</p><!-- <p>lost</p>") == ["kept words"]


@pytest.mark.parametrize(
    "markup",
    [
        "",
        "<",
        "<<<>>>",
        "<p>unclosed <b>bold <i>italic",
        "<div <p>attr soup=\"<a href='x'>\">text</div>",
        "</p></div>text only</body></html>",
        "<a" * 20000,  # would take quadratic time with a naive tag regex
        "<script" * 20000,
        "\x00\x01\x89PNG\r\n\x1a\n\ufffd" * 1000,  # binary served as text/html
        "<p>" + "&amp;&#xZZ;&bogus;&#99999999;" * 200,
    ],
)
def test_broken_markup_never_raises(markup):
    for extract in (bte.extract, blocks.extract):
        out = extract(markup)
        assert isinstance(out, list) and all(isinstance(p, str) and p for p in out)


# --- tags as the HTML 5 tokenizer reads them --------------------------------------------------

def shown(markup: str) -> str:
    """All the text of a page (no span, no blocks) without white space: what a reader sees."""
    return "".join("".join(bte.paragraphs(bte.pieces(bte.strip_invisible(markup)))).split())


# (markup, its text as an HTML 5 parser shows it, white space left out)
HTML5_TAGS = [
    ("<x<x<x<p>Hallo Welt", "HalloWelt"),  # one tag, named "x<x<x<p"
    ("<p>Hallo <a<b>Welt", "HalloWelt"),
    ('<p>Hallo <a href="x<b>y">Welt</a>', "HalloWelt"),
    ('<p>Hallo <a href="x<b>y"<i>Welt</a>', "HalloWelt"),  # "<i" after the value: a name
    ("<p>Hallo <a title='1 > 0' href=\"x<b>y\" data-x<i>Welt</a>", "HalloWelt"),
    ('<p>Hallo <b c="d" e=\'f>g\' h=i"j>Welt</b>', "HalloWelt"),
    ('<p>Hallo</p title="</p><p>x">Welt', "HalloWelt"),  # an end tag's attributes too
    ("<p>Hallo<br/ >Welt<br / x=\"<>\">!", "HalloWelt!"),
    ('<p>Hallo Welt <a href="', "HalloWelt"),  # a tag open at the end: no text
    ("<p>Hallo Welt <a", "HalloWelt"),
    ("<p>Hallo Welt <a href=x y", "HalloWelt"),
    ('<p>Hallo <a b =="x>y">Welt', 'Halloy">Welt'),  # "=" after "=": an unquoted value
    ('<p>Hallo <a ="x>y">Welt', 'Halloy">Welt'),  # "=" first: part of a name
    ("<p>Hallo <img alt=a>b>Welt", "Hallob>Welt"),
    ("<p>3 < 4, 5 <> 6 <3 <<a>x </ y>z</>w<//a>v", "3<4,5<>6<3<xzwv"),
    ("<p>Hallo </", "Hallo</"),
    ('<p>Hallo <script data-x="<b>">var lost = 1;</script>Welt', "HalloWelt"),
    ('<p>Hallo <script>a = "</script-x>";</script>Welt', "HalloWelt"),
    ("<p><style-guide>Hallo</style-guide> Welt", "HalloWelt"),  # not a style element
    ('<title x="a>b">lost</title><p>Hallo Welt', "HalloWelt"),
    # comments and invisible elements' tags inside a tag are part of it
    ('<p>Hallo <a title="<!--">Welt</a> <!-- c -->!', "HalloWelt!"),
    ('<p>Hallo <a title="<script>">Welt</a>', "HalloWelt"),
    ("<p>Hallo <a <?x>Welt", "HalloWelt"),
    ("<!DOCTYPE html><p>Hallo </ <!-- c --> Welt<!-- d -->", "HalloWelt"),
]


@pytest.mark.parametrize("markup, text", HTML5_TAGS)
def test_tags_end_where_html5_ends_them(markup, text):
    assert shown(markup) == text
    parts = bte.pieces(markup)
    assert "".join(parts) == markup
    assert bte.named_pieces(markup)[1] == bte.tag_names(parts[1::2])


def test_html5_tag_cases_agree_with_an_html5_parser():
    # resiliparse (a test extra): lexbor's HTML 5 parser, the visible text of its tree
    from resiliparse.extract import html2text
    for markup, text in HTML5_TAGS:
        shown_by_parser = html2text.extract_plain_text(
            markup, main_content=False, list_bullets=False, alt_texts=False, links=False,
            form_fields=False, noscript=False)
        assert "".join(shown_by_parser.split()) == text, markup


def test_no_tag_text_in_the_extracted_text():
    for extract in (bte.extract, blocks.extract):
        assert extract("<x<x<x<p>Hallo Welt") == ["Hallo Welt"]
        out = extract('<p>Hallo Welt, wie geht es dir heute?</p><a href="x<b>y">z</a>'
                      '<p>Gut, danke. <a href="')
        assert not any("<" in p or "href" in p for p in out)
    assert bte.paragraphs(bte.pieces('<p>Hallo Welt, wie geht es dir?</p><p>Gut. <a href="'
                                     )) == ["Hallo Welt, wie geht es dir?", "Gut."]


def test_a_quote_that_never_closes_ends_at_the_next_gt():
    # HTML 5 would drop the rest of the page; here the page keeps its later text.
    assert bte.pieces('<p>a <b c="d>e</b> f') == ["", "<p>", "a ", '<b c="d>', "e", "</b>", " f"]
    assert shown('<p>a <b c="d>e</b> f <i x=\'y') == "aef"


@pytest.mark.parametrize("unit", [
    '<a href="', "<", "<a", "<a x=\"1\" y='", '<p title="a><a \'', '<a href="x<b>', "<x<x<p>",
    '<script x="', '</script x="', "<a b=c=d=", '="<a', "<!--<a \"", '<a title="<!--',
    "<a <?x", "</ <!--",
])
def test_hostile_tags_take_linear_time(unit):
    import time

    def seconds(markup):  # the best of three runs: the least disturbed by other processes
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            bte.named_pieces(bte.strip_invisible(markup))
            best = min(best, time.perf_counter() - t0)
        return best

    small, big = (unit * (size // len(unit)) for size in (25_000, 200_000))
    # 8 times the input: linear time takes about 8 times as long, quadratic 64 times
    assert seconds(big) < 24 * seconds(small) + 0.05


# --- Block-level extractor (case C24: lists inside the article) --------------------------------


def test_bte_cuts_the_article_at_its_list():
    out = bte.extract(ARTICLE)
    assert in_order(out, ARTICLE_LINES[:2])
    assert not any("water the fern" in p for p in out)


def test_blocks_keeps_list_items_and_drops_link_lists():
    out = blocks.extract(ARTICLE)
    assert in_order(out, ARTICLE_LINES)
    assert [line for line in BOILERPLATE if any(line in p for p in out)] == []


def test_blocks_keeps_a_second_content_area():
    page = ARTICLE.replace("<!-- author -->", TAG_CLOUD + AUTHOR)
    parts = bte.pieces(bte.strip_invisible(page))
    _, scores = blocks.segment(parts)
    assert "About the author" not in "".join(parts[slice(*bte.best_span(scores))])
    out = blocks.extract(page)
    assert in_order(out, [*ARTICLE_LINES, "About the author: Mara"])
    assert [line for line in BOILERPLATE if any(line in p for p in out)] == []


def test_short_block_outside_the_span_is_boilerplate():
    page = ARTICLE.replace("<!-- author -->", "<div><div><p>Subscribe to our newsletter</p>")
    assert not any("newsletter" in p for p in blocks.extract(page))


def test_words_of_text_without_spaces_are_counted_by_characters():
    cjk = "谷歌在2014年收购的人工智能公司开发出一款能够用自己的记忆学习新知识的系统"
    padded = "<p>\n                 \u201917                  \n</p>"  # "’17" and whitespace
    (long_run,), _ = blocks.segment(bte.pieces(f"<p>{cjk}</p>"))
    (short,), _ = blocks.segment(bte.pieces(padded))
    assert long_run.words == len(cjk) // blocks.CHARS_PER_WORD
    assert short.words == 1


def test_text_without_tags_is_one_block_with_one_score():
    assert bte.tag_names([]) == []
    (block,), scores = blocks.segment(bte.pieces("plain text, no markup"))
    assert (block.text, block.words, scores) == ("plain text, no markup", 4, [4])


def test_a_mathml_formula_stays_in_its_sentence_without_its_tex_source():
    formula = ("<math><semantics><mrow><mi>x</mi><mo>=</mo><mn>2</mn></mrow>"
               "<annotation encoding='application/x-tex'>x = 2</annotation></semantics></math>")
    page = (f"<p>The water stood highest when {formula} metres were measured on the gauge at "
            "the bridge, the morning after the storm had passed over the old town.</p>")
    (text,) = blocks.extract(page)
    assert "when x=2 metres were measured" in text and "x = 2" not in text


def test_thresholds_are_parameters():
    # (class "side", not "sidebar": a class naming boilerplate removes a block at any threshold)
    page = ARTICLE.replace("<!-- author -->", TAG_CLOUD + AUTHOR).replace("sidebar", "side")
    assert not any("About the author" in p
                   for p in blocks.extract(page, min_outside_words=1000))
    everything = blocks.extract(page, max_link_density=1.0, min_outside_words=0)
    assert any("Winter care for orchids" in p for p in everything)


def test_get_extractor_by_name():
    assert get_extractor("bte") is bte.extract
    assert get_extractor("blocks")(ARTICLE) == blocks.extract(ARTICLE)
    with pytest.raises(ValueError, match="unknown extractor 'justext'"):
        get_extractor("justext")
