"""A small two-language web for corpus tests (rejects stream, ``wackycrawl filter``).

Every quality drop has a page: a too-short page, a word list (not prose), an exact copy,
German pages, and a cross-language near duplicate: an English page with exactly the content
words of a German one (simhash distance 0, other checksum), fetched after it (linked only
from it, answering after a delay), so a crawl that keeps German rejects it as a near
duplicate and a crawl that keeps only English keeps it.
"""

from __future__ import annotations

import random

from tests.localweb import LocalWeb
from tests.webpages import page, prose, pseudo_word, word_list

# templates whose words are all function words of the shipped lists, 4 slots each
_EN = ["The {} of the {} is not {} but it was {} with them.",
       "We have {} this {} because they would {} it for their {}.",
       "It is {} and there are {} which have been {} by the {}.",
       "When she {} to the {}, then the {} should be {} for all of us."]
_DE = ["Der {} und die {} sind nicht {}, aber sie haben es mit dem {}.",
       "Wir haben auch den {} in der {}, weil er noch {} {} war.",
       "Es ist eine {}, die von einem {} für das {} {} wurde.",
       "Dann ist sie so, dass der {} sich auf die {} nicht mehr {} {} kann."]


def same_words(templates: list[str], words: list[str]) -> list[str]:
    """Paragraphs of six sentences filling ``templates`` with ``words`` in order."""
    paras, para = [], []
    for i in range(0, len(words), 4):
        s = templates[(i // 4) % len(templates)].format(*words[i:i + 4])
        para.append(s[0].upper() + s[1:])
        if len(para) == 6:
            paras.append(" ".join(para))
            para = []
    return paras + ([" ".join(para)] if para else [])


def build_corpus_web(web: LocalWeb) -> dict[str, set[str]]:
    """Register the pages; returns the URL groups tests assert on."""
    rng = random.Random(42)
    shared = [pseudo_word(rng) for _ in range(800)]
    en1 = page("English one", prose(1))
    padding = "<style>/*" + "padding " * 800 + "*/</style>"  # inside the 5 KB window
    web.add("http://hub.test/", page("Hub", prose(0), links=[
        "http://en1.test/", "http://en2.test/", "http://copy.test/", "http://de1.test/",
        "http://de2.test/", "http://short.test/", "http://words.test/"]))
    web.add("http://en1.test/", en1)
    web.add("http://copy.test/", en1)
    web.add("http://en2.test/", page("English two", prose(2)))
    web.add("http://de1.test/", page("Deutsch eins", prose(3, lang="de")))
    web.add("http://de2.test/", page("Deutsch zwei", same_words(_DE, shared),
                                     links=["http://cross.test/"]))
    web.add("http://cross.test/", page("Cross", same_words(_EN, shared)), delay=1.0)
    web.add("http://short.test/", page("Short", ["Only a few words are on this page."],
                                       head=padding))
    web.add("http://words.test/", word_list(10))
    return {"english": {"http://hub.test/", "http://en2.test/", "http://cross.test/"},
            "copies": {"http://en1.test/", "http://copy.test/"},
            "german": {"http://de1.test/", "http://de2.test/"}}
