"""Generated web pages for crawl tests: prose in a language, boilerplate around it, word lists.

Prose is built from each language's real function words and a seeded stream of pseudo-words
(content words), so two pages from different seeds share no content words: their simhash
fingerprints are far apart, while function-word language ID sees ordinary text.
"""

from __future__ import annotations

import html
import random

_TEMPLATES = {
    "en": [
        "The {n} of the {n} was {a} and it {v} with a {n} in the {n}.",
        "We have {v} this {n} because they would not {v} it for their {n}.",
        "It is not {a}, but there are many {n}s which have been {v} by the {n}.",
        "When she {v} to the {n}, he said that the {n} should be {a} for all of them.",
        "There was also a {n} from the {n}, and we could {v} it at any time.",
    ],
    "de": [
        "Der {n} und die {n} sind nicht {a}, aber sie haben es mit dem {n} {v}.",
        "Wir haben auch den {n} gesehen, weil er in der {n} noch {a} war.",
        "Es ist eine {n}, die von einem {n} für das {n} {v} wurde.",
        "Dann sagte sie, dass der {n} sich auf die {n} nicht mehr {v} kann.",
        "Auch wenn wir nur einen {n} hatten, war das {n} doch sehr {a}.",
    ],
}


def pseudo_word(rng: random.Random) -> str:
    syll = ["ka", "lo", "mi", "ten", "bra", "sul", "vo", "rin", "dex", "pa", "gor", "fen", "tu"]
    return "".join(rng.choice(syll) for _ in range(rng.randint(2, 4)))


def prose(seed: int, min_chars: int = 6000, lang: str = "en") -> list[str]:
    """Paragraphs of generated prose in ``lang`` ("en" or "de"), at least ``min_chars`` characters."""
    rng = random.Random(f"{lang}-{seed}")
    paras, total = [], 0
    while total < min_chars:
        sentences = []
        for _ in range(rng.randint(4, 7)):
            t = rng.choice(_TEMPLATES[lang])
            s = t.format_map(_Filler(rng))
            sentences.append(s[0].upper() + s[1:])
        p = " ".join(sentences)
        paras.append(p)
        total += len(p) + 1
    return paras


class _Filler(dict):
    def __init__(self, rng):
        super().__init__()
        self.rng = rng

    def __missing__(self, key):
        return pseudo_word(self.rng)


def page(title: str, paragraphs: list[str], links: list[str] = (), *, nav_links: int = 12,
         escape: bool = True, head: str = "") -> str:
    """An HTML page: a navigation menu (boilerplate), the paragraphs as the main text, a footer."""
    nav = "".join(f'<li><a href="/section{i}.html">Section {i}</a></li>' for i in range(nav_links))
    esc = html.escape if escape else (lambda s: s)
    body = "".join(f"<p>{esc(p)}</p>\n" for p in paragraphs)
    more = "".join(f'<li><a href="{u}">{html.escape(u)}</a></li>' for u in links)
    return (f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title>{head}</head><body>"
            f'<div id="nav"><ul>{nav}</ul></div>'
            f'<div id="main"><h1>{html.escape(title)}</h1>\n{body}</div>'
            f'<div id="links"><ul>{more}</ul></div>'
            f'<div id="footer"><a href="/imprint">Imprint</a> | <a href="/privacy">Privacy</a>'
            f" | &copy; 2026</div></body></html>")


def word_list(seed: int, n: int = 1500) -> str:
    """A page that is only a list of words (a dictionary index): no connected prose."""
    rng = random.Random(seed)
    items = "".join(f"<li>{pseudo_word(rng)}</li>" for _ in range(n))
    return f"<html><head><title>Index</title></head><body><ul>{items}</ul></body></html>"
