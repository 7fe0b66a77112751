"""Text of the ``blocks`` default that the context rules used to drop: headings before a
hatnote."""

from tests.floodpage import ARTICLE, has_article, page
from wackycrawl.text import blocks

SECTION = ("<p>The harbour board met on Monday and agreed to raise the quay wall by half a "
           "metre before the next winter, at a cost the council will share with the port.</p>")


def test_a_heading_before_a_hatnote_stays_with_its_section():
    body = (f"<div>{ARTICLE}<h2>Harbour wall<span>[<a href='/edit'>edit</a>]</span></h2>"
            '<div class="hatnote">Main article: <a href="/wall">Harbour wall</a></div>'
            f"{SECTION}{ARTICLE}</div>")
    out = blocks.extract(page(body))
    assert has_article(out)
    assert any(p.startswith("Harbour wall") for p in out)
    assert not any("Main article" in p for p in out)


def test_a_heading_before_a_linked_title_still_takes_its_class():
    # a blog's date heading over a post's linked title: the title decides, the heading goes
    # with it (not a hatnote)
    body = (f"<div>{ARTICLE}<h2>Saturday, June 04, 2005</h2>"
            '<div><a href="/post">The quay after the flood</a></div>'
            f"{SECTION}{ARTICLE}</div>")
    out = blocks.extract(page(body))
    assert has_article(out)
    assert not any("June 04" in p for p in out)

CHART = "<table>" + "".join(f"<tr><td>{y}</td><td>{y % 7}</td></tr>" for y in range(1990, 2030)) + "</table>"
SHORT = ["<p>The harbour master has gone silent, even as the water rises again this spring.</p>",
         "<p>“The issue has just disappeared,” said the mayor. “There is collective amnesia.”</p>"]
LONG = ("<p>In the past the town raised its walls after every flood and let them crumble in the "
        "dry years between, and the council expects the same this time unless the port pays "
        "its share of the cost.</p>")


def test_short_paragraphs_outside_the_span_next_to_content_stay():
    out = blocks.extract(page(f"<div>{ARTICLE}</div>{CHART}{''.join(SHORT)}{LONG}{CHART}"))
    text = "\n".join(out)
    assert has_article(out) and "crumble" in text
    assert "gone silent" in text and "collective amnesia" in text
    assert "1995" not in text


def test_a_short_paragraph_under_a_linked_title_outside_the_span_goes():
    teaser = ('<h3><a href="/video">Mayor is proud of the volunteers</a></h3>'
              "<p>The mayor discusses how the volunteers of the town saved the bakery.</p>")
    out = blocks.extract(page(f"<div>{ARTICLE}</div>{CHART}{teaser}{LONG}{CHART}"))
    text = "\n".join(out)
    assert has_article(out) and "crumble" in text
    assert "mayor discusses" not in text


def _mathjax(formula: str) -> str:
    """A formula as MathJax 3 renders it: a custom element per symbol."""
    return ('<mjx-container class="MathJax" jax="CHTML" display="true"><mjx-math>'
            + " ".join(f"<mjx-mi><mjx-c>{c}</mjx-c></mjx-mi>" for c in formula.split())
            + "</mjx-math></mjx-container>")


def test_mathjax_formulas_do_not_cut_the_span():
    formula = "x ˙ = σ ( y − x ) y ˙ = ρ x − y − x z z ˙ = − β z + x y"
    body = (f"<div>{ARTICLE}<h2>The Lorenz equations</h2><p>{_mathjax(formula)}</p>"
            f"<h2>A cross product</h2><p>{_mathjax(formula.replace('x', 'v'))}</p>{ARTICLE}</div>")
    text = "\n".join(blocks.extract(page(body)))
    assert "σ ( y − x )" in text and "σ ( y − v )" in text
    assert "The Lorenz equations" in text and "A cross product" in text


EXCERPT = ("A sheriff says a woman held for three weeks is unable to fully describe her two "
           "abductors because their faces were covered. She was found on a roadside with a chain "
           "around her waist early on Thanksgiving Day.")


def _stream(n: int) -> str:
    """A stream of other stories: a section, a linked title, an excerpt, related links."""
    return "<ul>" + "".join(
        f'<li><div>News</div><a href="/s{i}"><div>The latest on the abductors of the '
        f'woman {i}</div></a><p>{EXCERPT}</p><ul><li><a href="/r{i}">Related story number '
        f"{i} of the day</a></li></ul></li>" for i in range(n)) + "</ul>"


MENU = "<ul>" + "".join(f'<li><a href="/m{i}">Menu {i}</a></li>' for i in range(80)) + "</ul>"


def test_a_stream_of_excerpts_under_linked_titles_outside_the_span_goes():
    out = blocks.extract(page(f"<div>{ARTICLE * 3}</div>{MENU}{_stream(3)}"))
    assert has_article(out)
    assert not any("roadside" in p for p in out)


def test_one_long_paragraph_under_a_linked_title_outside_the_span_stays():
    out = blocks.extract(page(f"<div>{ARTICLE * 3}</div>{MENU}{_stream(1)}"))
    assert has_article(out)
    assert any("roadside" in p for p in out)


REFERENCES = ('<h2>References</h2><ol>'
              '<li><a href="#r1">^</a> <a href="/a">"The council will raise the quay wall after '
              'the flood of the old town"</a>. Gazette. Retrieved 2014-04-05.</li>'
              '<li><a href="#r2">^</a> <a href="/b">"Volunteers carried the sandbags from the '
              'square to the bakery"</a>. Harbour News. Retrieved 2014-07-01.</li></ol>')


def test_references_mostly_in_links_inside_the_span_stay():
    out = blocks.extract(page(f"<div>{ARTICLE}{REFERENCES}{ARTICLE}</div>"))
    text = "\n".join(out)
    assert has_article(out)
    assert "Retrieved 2014-04-05." in text and "Retrieved 2014-07-01." in text


def test_a_call_to_click_mostly_in_a_link_inside_the_span_goes():
    promo = ('<p>Our paper is now digital too! <a href="/reg">Just click here and register for '
             'the digital edition of the paper</a>!</p>')
    out = blocks.extract(page(f"<div>{ARTICLE}{promo}{ARTICLE}</div>"))
    assert has_article(out)
    assert not any("click here" in p for p in out)


def test_teaser_cards_under_titles_mostly_in_links_go():
    # "Other columns": a label, then the linked title, then the excerpt, card after card
    cards = "".join(
        f'<div class="card"><h4>Opinion <a href="/c{i}">The quay wall will not hold another '
        f"winter</a></h4><p>ANNA BERG {EXCERPT}</p></div>" for i in range(3))
    out = blocks.extract(page(f"<div>{ARTICLE}{ARTICLE}<h3>Other columns</h3>{cards}</div>"))
    assert has_article(out)
    assert not any("roadside" in p for p in out)


def test_linked_cells_of_a_data_table_inside_the_span_stay():
    rows = "".join(
        f'<tr><td>{1990 + i}</td><td><a href="/film{i}">Quay Film {i}</a></td>'
        f"<td>The harbour floods again and again, and the town relives the same day.</td></tr>"
        for i in range(6))
    menu = ("<table><tr>" + "".join(f'<td><a href="/m{i}">Section {i}</a></td>' for i in range(6))
            + "</tr></table>")
    out = blocks.extract(page(f"{menu}<div>{ARTICLE}<table>{rows}</table>{ARTICLE}</div>{menu}"))
    assert has_article(out)
    assert "Quay Film 3" in out and "1993" in out
    assert not any("Section" in p for p in out)


def test_a_short_paragraph_with_inline_links_outside_the_span_next_to_content_stays():
    lead = ('<p>The town owns <a href="/quay">the old quay</a>, <a href="/mill">the mill</a> and '
            "the bakery on the square, and it pays for their repair.</p>")
    out = blocks.extract(page(f"<div>{ARTICLE}</div>{CHART}{lead}{LONG}{CHART}"))
    text = "\n".join(out)
    assert has_article(out) and "crumble" in text
    assert "pays for their repair" in text
