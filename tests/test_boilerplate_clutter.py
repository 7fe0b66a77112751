"""Clutter around an article that the ``blocks`` default drops as CleanEval does (lists of
links run together, image credits, author bios) while readers' comments stay."""

import pytest

from tests.floodpage import ARTICLE, has_article, page
from wackycrawl.text import blocks

COMMENT = ("I grew up on that quay and I have never seen the water so high, not even in the "
           "spring of the great storm when the harbour wall broke near the old mill.")


def comments() -> str:
    return ('<div class="comments"><h3>2 comments</h3>'
            f'<div class="comment"><p class="comment-author">Mara</p><p>{COMMENT}</p></div>'
            "</div>")


def test_a_long_run_of_single_word_links_is_boilerplate_outside_the_span():
    # the readers who liked the post: half its words are links (not above the prose
    # blocks' limit), one link every two words
    names = " ".join(f'<a href="/u/{i}">reader{i}</a> ({i}),' for i in range(200))
    out = blocks.extract(page(f"<div>{ARTICLE}</div><div><p>{names}</p></div>"
                              f"{comments()}"))
    assert has_article(out)
    assert not any("reader17" in p for p in out)
    assert any(COMMENT in p for p in out)


def test_prose_with_a_few_links_outside_the_span_stays():
    para = ("Despite all this the mayor did not question the decision of the " +
            '<a href="/council">town council and the harbour board</a>' +
            ", which had invited the minister to the opening of the new bridge over the river "
            "and asked him to cut the ribbon.")
    out = blocks.extract(page(f"<div>{ARTICLE}</div><div><p>{para}</p></div>"))
    assert any("Despite all this" in p for p in out)


def test_image_credits_and_author_bios_are_boilerplate_comments_stay():
    figure = ('<div class="image"><img src="a.jpg"><div class="image-credit">'
              "Photo: Anna Berg, Gazette Agency</div></div>")
    bio = ('<div class="author-bio"><p>Anna Berg covers the harbour, the council and the '
           "weather for the Gazette, and has written about the river for twenty years.</p></div>")
    thread = ('<div class="comments"><h3>2 comments</h3><div class="comment">'
              f'<div class="comment-author vcard">Mara</div><p>{COMMENT}</p></div></div>')
    out = blocks.extract(page(f"<div>{ARTICLE[:200]}{figure}{ARTICLE[200:]}{bio}{thread}</div>"))
    text = "\n".join(out)
    assert has_article(out)
    assert "Photo: Anna Berg" not in text and "twenty years" not in text
    assert COMMENT in text and "Mara" in text


@pytest.mark.parametrize(
    "name", ["credit", "photo-credit", "authorBio", "author-info", "about-the-author", "bio"])
def test_credit_and_bio_names_are_cues(name):
    from wackycrawl.text import cues

    assert cues.names_boilerplate(f'<div class="{name}">', "div")


@pytest.mark.parametrize("name", ["comment-author", "author", "biology", "incredible",
                                  "post-author-name"])
def test_comment_author_and_lookalikes_are_no_cues(name):
    from wackycrawl.text import cues

    assert not cues.names_boilerplate(f'<div class="{name}">', "div")


@pytest.mark.parametrize("line", [
    "PUBLISHED: November 19, 2019 at 8:59 pm | UPDATED: November 19, 2019 at 10:16 pm",
    "Posted on October 27, 2015 by Admin", "First Published on Nov 20, 2019 01:38 pm",
    "Veröffentlicht am 3. Mai 2021, 14:05 Uhr", "Mis à jour le 12 mars 2020"])
def test_a_dateline_inside_the_span_is_boilerplate(line):
    out = blocks.extract(page(f"<div><h1>Flood</h1><p>{line}</p>{ARTICLE}{comments()}</div>"))
    assert has_article(out) and any(COMMENT in p for p in out)
    assert not any(line in p for p in out)


@pytest.mark.parametrize("line", [
    "Published by the harbour board in 1999, the report warned of floods like this one.",
    "(Published Monday, Nov. 18, 2019)", "Updated plans for the quay are due next spring."])
def test_sentences_and_remarks_about_publishing_stay(line):
    out = blocks.extract(page(f"<div><p>{line}</p>{ARTICLE}</div>"))
    assert any(line in p for p in out)


@pytest.mark.parametrize("heading", ["More Great Gazette Stories", "Don't miss"])
def test_a_more_stories_list_inside_the_article_is_boilerplate(heading):
    related = (f"<div><h3>{heading}</h3><ul>"
               + "".join(f'<li><a href="/s/{i}">Storm number {i} hits</a> the coast again and '
                         "again this winter</li>" for i in range(4)) + "</ul></div>")
    out = blocks.extract(page(f"<div>{ARTICLE[:200]}{related}{ARTICLE[200:]}{comments()}</div>"))
    text = "\n".join(out)
    assert has_article(out) and COMMENT in text
    assert "Storm number" not in text and heading not in text


SHORT = [  # an article of short paragraphs (under MIN_OUTSIDE_WORDS words each)
    "The ferry left the harbour at seven with forty passengers on board.",
    "Fog lay over the strait, and the captain kept the speed low for an hour.",
    "Near the lighthouse the engine stopped and the crew dropped the anchor.",
    "A tug from the island towed the ferry into port shortly after noon.",
    "Nobody was hurt, and the line resumed its timetable on the next morning.",
]


def thread(n: int) -> str:
    return ('<div id="comments" class="comment-list">'
            + "".join(f'<div class="comment"><p>Reader {i}: {COMMENT}</p></div>'
                      for i in range(n))
            + "</div>")


def test_the_article_stays_when_a_long_comment_thread_wins_the_span():
    # dozens of comments outweigh a short article across a tag-heavy share bar: BTE's span is
    # the thread; the article, the span found with the comment sections set aside, stays
    share = "".join(f'<div class="icon"><i></i><img src="/{i}.png"></div>' for i in range(40))
    body = ("<div class='post'>" + "".join(f"<p>{s}</p>" for s in SHORT) + "</div>"
            + share + thread(30))
    out = blocks.extract(page(body))
    text = "\n".join(out)
    assert all(s in text for s in SHORT)
    assert COMMENT in text  # readers' comments stay in the default mode
    # a short thread under a long article changes nothing
    body = f"<div class='post'>{ARTICLE}</div>" + thread(2)
    assert blocks.extract(page(body)) == blocks.extract(page(body.replace("comment", "note")))


@pytest.mark.parametrize("credit", ["Foto: Sascha Klahn", "Photo: Joseph Cox / AP",
                                    "(Bild: Hersteller)", "Crédits photos : Bestimage",
                                    "Credit: ESA"])
def test_a_short_block_opening_with_a_credit_label_is_boilerplate(credit):
    # a source line (a citation) and a long block opening with "Photo:" stay
    source = "Source: School Administrator, v59 n3 p6-12 Mar 2002"
    photo = ("Photo: the river at noon, taken from the bridge by a reader who sent it to us "
             "with a long letter about the flood")
    out = blocks.extract(page(f'<div><img src="a.jpg"><p>{credit}</p>{ARTICLE}'
                              f"<p>{source}</p><p>{photo}</p></div>"))
    assert has_article(out)
    assert credit not in out
    assert source in out and photo in out


CAPTION = ("Volunteers carry sandbags along the quay of the old town on Tuesday morning, "
           "as the river rises towards the doorsteps.")


@pytest.mark.parametrize("figure", [
    '<figure><img src="{n}.jpg"><figcaption>{c}</figcaption></figure>',
    '<div class="slide"><img src="{n}.jpg"><div class="gallery-caption">{c}</div></div>',
])
def test_a_carousels_copies_of_a_caption_are_dropped_the_first_stays(figure):
    slides = "".join(figure.format(n=n, c=CAPTION) for n in range(4))
    out = blocks.extract(page(f"<div>{slides}{ARTICLE}</div>"))
    assert has_article(out)
    assert out.count(CAPTION) == 1  # the caption once, as running text CleanEval keeps
    # a paragraph repeated outside figures stays twice (a refrain, a quoted line)
    refrain = "<p>" + CAPTION + "</p>"
    out = blocks.extract(page(f"<div>{ARTICLE}{refrain}{ARTICLE}{refrain}</div>"))
    assert out.count(CAPTION) == 2


@pytest.mark.parametrize("line", [
    "Published in 1851, Moby-Dick sold poorly and was out of print when Melville died.",
    "Updated 3 times since its first edition, the dictionary remains the standard reference.",
    "Modified in 1962 for the new engines, the aircraft flew until 1990.",
    "Photo: the only surviving image of him.", "Credit: the bank lent him the money."])
def test_short_sentences_opening_like_a_dateline_or_credit_stay(line):
    out = blocks.extract(page(f"<div><p>{line}</p>{ARTICLE}</div>"))
    assert any(line in p for p in out)


@pytest.mark.parametrize("line", [
    "Posted on October 27, 2015 by admin.", "Photo: courtesy of the artist.",
    "Publié le 12 mars 2021 à 10h30, mis à jour le 13 mars 2021 à 08h12."])
def test_datelines_and_credits_ending_in_a_full_stop_are_boilerplate(line):
    out = blocks.extract(page(f"<div><p>{line}</p>{ARTICLE}{comments()}</div>"))
    assert has_article(out) and not any(line in p for p in out)


def test_a_long_paragraph_quoting_a_notice_phrase_stays():
    # "no part may be reproduced", "delivered to your inbox"... mark a notice of a sentence
    # or two, not a paragraph of running text that quotes one
    line = ("The court heard that the song was subject to copyright until 2030 and that, as "
            "the publisher's letter put it, no part of it may be reproduced in the film. "
            + " ".join(["The producers had asked the heirs for a licence twice, in 2019 and "
                        "again in 2021, and both times the heirs had refused to answer."] * 3))
    out = blocks.extract(page(f"<div><p>{line}</p>{ARTICLE}</div>"))
    assert any(line in p for p in out)
    notice = ("This article is subject to copyright. No part of it may be reproduced "
              "without the written permission of the publisher.")
    out = blocks.extract(page(f"<div>{ARTICLE}<p>{notice}</p></div>"))
    assert has_article(out) and not any(notice in p for p in out)


@pytest.mark.parametrize("heading", ["More ghost stories", "Don't miss"])
def test_prose_under_a_more_stories_heading_stays(heading):
    # the heading titles a section of the article's own text, not a list of links
    out = blocks.extract(page(f"<div>{ARTICLE[:200]}<h2>{heading}</h2>{ARTICLE[200:]}</div>"))
    assert has_article(out)
    assert heading in out


def test_a_refrain_repeated_inside_a_figure_stays():
    # a poem quoted in <figure>: its refrain is no copy of a caption
    refrain = "And the river runs down to the sea by the mill."
    poem = f"<figure><p>{refrain}</p><p>The mill is still.</p><p>{refrain}</p></figure>"
    out = blocks.extract(page(f"<div>{ARTICLE[:200]}{poem}{ARTICLE[200:]}</div>"))
    assert has_article(out)
    assert out.count(refrain) == 2


def test_a_sentence_naming_many_linked_names_stays():
    # a sentence around a run of links, not a bare list of names
    names = ", ".join(f'<a href="/m/{i}">Member{i}</a>' for i in range(30))
    out = blocks.extract(page(f"<div>{ARTICLE[:200]}<p>The members were {names}.</p>"
                              f"{ARTICLE[200:]}</div>"))
    assert has_article(out)
    assert any(p.startswith("The members were Member0") for p in out)
