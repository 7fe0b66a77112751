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
