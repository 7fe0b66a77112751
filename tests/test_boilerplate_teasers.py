"""Teaser cards (a linked headline, a date, the opening lines of another page) are boilerplate
in both modes; the running text around linked headings is not."""

import pytest

from tests.floodpage import ARTICLE, has_article, page
from wackycrawl.text import blocks


def card(i: int, excerpt_words: int = 30) -> str:
    excerpt = " ".join(["the council met again to talk about the harbour and its walls"]
                       * (excerpt_words // 12 + 1)).split()[:excerpt_words]
    return (f'<div class="card"><h3><a href="/story/{i}">Storm number {i} hits the coast</a></h3>'
            f"<p>November {i}, 2019</p><p>Teaser {i}: {' '.join(excerpt)}.</p>"
            f'<p><a href="/story/{i}">Read more</a></p></div>')


@pytest.mark.parametrize("article", [False, True])
def test_teaser_cards_after_the_article_are_boilerplate(article):
    # no cue phrase in the heading, no class naming the box: the linked titles mark them
    more = f"<h2>More from the Gazette</h2>{''.join(card(i) for i in range(1, 4))}"
    out = blocks.extract(page(f"<div><h1>Flood</h1>{ARTICLE}{more}</div>"), article=article)
    assert has_article(out), out
    assert not any("Teaser" in p or "November" in p for p in out), out


@pytest.mark.parametrize("article", [False, True])
def test_teaser_cards_before_the_article_are_boilerplate(article):
    cards = f"<div>{''.join(card(i) for i in range(1, 3))}</div>"
    out = blocks.extract(page(f"{cards}<div><h1>Flood</h1>{ARTICLE}</div>"), article=article)
    assert has_article(out) and not any("Teaser" in p for p in out), out


def test_a_blog_index_keeps_its_posts_under_linked_titles():
    # posts longer than a teaser's excerpt: running text a corpus keeps
    post = ("<p>" + " ".join(["We walked along the dyke and watched the water come up to the "
                              "old mill, talking about the last great flood."] * 9) + "</p>")
    body = "".join(f'<div class="post"><h2><a href="/p/{i}">Day {i} by the river</a></h2>'
                   f"{post}</div>" for i in range(1, 4))
    out = blocks.extract(page(f"<div>{body}</div>"))
    assert sum("We walked along the dyke" in p for p in out) == 3, out


def test_linked_headings_among_the_articles_paragraphs_do_not_cut_it():
    # a widget's headlines interleaved with the paragraphs, all in one container
    paras = ARTICLE.split("</p>")[:-1]
    body = "".join(f'{p}</p><h4><a href="/x/{i}">Other story {i}</a></h4>'
                   for i, p in enumerate(paras))
    out = blocks.extract(page(f"<div>{body}</div>"))
    assert has_article(out), out


def test_a_single_post_under_a_linked_title_is_kept():
    body = ('<div><h1><a href="/">The Riverside Blog</a></h1></div>'
            '<div><h2><a href="/2019/flood">The flood</a></h2>'
            "<p>The river rose slowly through the night and stood in the streets by "
            "morning.</p></div>")
    out = blocks.extract(page(body))
    assert any("river rose slowly" in p for p in out), out


def test_list_items_of_a_linked_title_and_an_excerpt_cut_by_an_ellipsis_are_teasers():
    items = "".join(
        f'<li><a href="/s{i}">Council votes on the new harbour plan, part {i}</a> '
        f"<span>HARBOUR TOWN: The council voted late on Tuesday on the plan to rebuild the "
        f"old harbour wall, after a debate that lasted for more than four hours and...</span>"
        f"</li>" for i in range(4))
    article = "".join(
        f"<p>Paragraph {i} of the story: the storm broke the wall in two places, and the "
        f"water reached the market square before the pumps could start their work.</p>"
        for i in range(5))
    out = blocks.extract(f"<html><body><ul>{items}</ul><div>{article}</div></body></html>")
    text = "\n".join(out)
    assert "Paragraph 4 of the story" in text
    assert "HARBOUR TOWN" not in text
    # a contents list of one-word section links with their summaries stays
    contents = "".join(
        f'<li><a href="/d{i}">Section{i}</a>: a look at the storm, the harbour wall, the '
        f"market square, the pumps, the council and the plan to rebuild the old town, "
        f"...</li>" for i in range(4))
    out = blocks.extract(f"<html><body><div>{article}<ul>{contents}</ul></div></body></html>")
    assert "a look at the storm" in "\n".join(out)


def test_the_excerpt_of_the_last_teaser_card_outside_its_title_element_is_a_teaser():
    cards = "".join(
        f'<li><article><header><h5><a href="/s{i}">Wild finally settle their lines, part {i}'
        f'</a></h5><div class="meta">November 15, 2019</div></header>'
        f'<div class="excerpt">Contrary to what the coach\'s record might suggest, he does not '
        f"like tinkering with his lines and would rather have the same trios on the ice night "
        f'in and night out, story {i}, as he said after the game on...</div>'
        f'<a href="/s{i}">Read More</a></article></li>' for i in range(3))
    article = "".join(
        f"<p>Paragraph {i} of the report: the team scored twice in the third period and held "
        f"on for a win that lifted it back into a playoff place.</p>" for i in range(5))
    out = blocks.extract(f"<html><body><div>{article}</div><ul>{cards}</ul></body></html>")
    text = "\n".join(out)
    assert "Paragraph 4 of the report" in text
    assert "Contrary to what" not in text
