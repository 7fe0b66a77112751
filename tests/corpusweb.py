"""A small two-language web for corpus tests (rejects stream, ``wackycrawl filter``).

Every quality drop has a page: a too-short page, a word list (not prose), an exact copy,
German pages, and a cross-language near duplicate: two bilingual pages with the same German
and English paragraphs, one led by a German introduction (so the language stage, which
decides on the opening, calls it German), the other by an English one (English). The
English one is fetched after the German one (linked only from it, answering after a delay),
so a crawl that keeps German rejects it as a near duplicate (simhash distance 8, shingle
resemblance 0.8) and a crawl that keeps only English keeps it.
"""

from __future__ import annotations

from tests.localweb import LocalWeb
from tests.webpages import page, prose, word_list


def bilingual_pair() -> tuple[list[str], list[str]]:
    """Paragraphs of two bilingual pages: the same German and English paragraphs after a
    German introduction, and after an English one."""
    both = [p for pair in zip(prose(21, 6000, "de"), prose(22, 6000, "en")) for p in pair]
    return prose(23, 1200, "de") + both, prose(24, 1200, "en") + both


def build_corpus_web(web: LocalWeb) -> dict[str, set[str]]:
    """Register the pages; returns the URL groups tests assert on."""
    german, english = bilingual_pair()
    en1 = page("English one", prose(1))
    padding = "<style>/*" + "padding " * 800 + "*/</style>"  # inside the 5 KB window
    web.add("http://hub.test/", page("Hub", prose(0), links=[
        "http://en1.test/", "http://en2.test/", "http://copy.test/", "http://de1.test/",
        "http://de2.test/", "http://short.test/", "http://words.test/"]))
    web.add("http://en1.test/", en1)
    web.add("http://copy.test/", en1)
    web.add("http://en2.test/", page("English two", prose(2)))
    web.add("http://de1.test/", page("Deutsch eins", prose(3, lang="de")))
    web.add("http://de2.test/", page("Zweisprachig", german,
                                     links=["http://cross.test/"]))
    web.add("http://cross.test/", page("Bilingual", english), delay=1.0)
    web.add("http://short.test/", page("Short", ["Only a few words are on this page."],
                                       head=padding))
    web.add("http://words.test/", word_list(10))
    return {"english": {"http://hub.test/", "http://en2.test/", "http://cross.test/"},
            "copies": {"http://en1.test/", "http://copy.test/"},
            "german": {"http://de1.test/", "http://de2.test/"}}
