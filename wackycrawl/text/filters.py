"""Document filters run on the clean text after boilerplate removal (WaCky post-processing).

Two stages, in order:

1. Length: fewer than ``min_words`` words -> ``too_short``. WaCky's connected-prose test
   needs at least 30 function-word tokens (Baroni et al. 2009, "The WaCky wide web", 2.3),
   so a text of fewer than 30 words can never pass it; 30 is the default.
2. Bad words: at least ``min_types`` distinct words or ``min_tokens`` occurrences from a list
   of porn/spam words -> ``badwords``. "Porn stop words (... because pornographers do funny
   things with language to fool search engines)" (Baroni, WaCky slides); the thresholds,
   at least three types or ten tokens from the list, are the WaCky corpora's rule
   (ukWaC: Ferraresi et al. 2008; Baroni et al. 2009), as in BootCaT's blacklist
   ("types" and "tokens" parameters).

Words are runs of letters/digits (``\\w+``, lowercased); each Han/kana character counts as
one word, since those scripts do not separate words by spaces. Lengths are in words, never
characters or bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path
from typing import NamedTuple

MIN_WORDS = 30
BADWORDS_MIN_TYPES = 3
BADWORDS_MIN_TOKENS = 10

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")
_CJK_CHAR = re.compile(f"[{_CJK}]")
# ASCII characters that are no part of a word, mapped to a space (str.translate, bytes.translate)
_ASCII_GAPS = {c: " " for c in range(128) if not _WORD.match(chr(c))}
_ASCII_GAP_BYTES = bytes(0x20 if b in _ASCII_GAPS else b for b in range(256))


class Rejection(NamedTuple):
    reason: str  # "too_short" or "badwords"
    detail: str  # human-readable figures for the log line


def words(paragraphs: Iterable[str]) -> list[str]:
    """The lowercased words of ``paragraphs`` (see the module docstring for "word").

    No word spans two paragraphs: they are joined by a newline, which is in none and also
    ends the context of str.lower (final sigma), so each paragraph lowers as on its own."""
    text = "\n".join(paragraphs).lower()
    if text.isascii():  # no Han/kana: the words are what the non-word characters separate
        return text.translate(_ASCII_GAPS).split()
    if _CJK_CHAR.search(text):
        return _WORD.findall(text)
    # No Han/kana: split at whitespace and ASCII non-word characters (mapped to spaces on the
    # UTF-8 bytes); a piece of letters/digits alone is one word, others go through _WORD.
    pieces = text.encode("utf-8", "surrogatepass").translate(_ASCII_GAP_BYTES).decode(
        "utf-8", "surrogatepass").split()
    found = []
    for piece in pieces:
        if piece.isalnum():
            found.append(piece)
        else:
            found += _WORD.findall(piece)
    return found


def parse_wordlist(text: str) -> frozenset[str]:
    """Words of a list file: one per line, lowercased; blank lines and ``#`` comments skipped."""
    lines = (line.split("#", 1)[0].strip().lower() for line in text.splitlines())
    return frozenset(line for line in lines if line)


def load_badwords(path: str = "") -> frozenset[str]:
    """The bad-word list at ``path`` (UTF-8), or, if empty, the union of the shipped lists.

    The shipped lists (``wackycrawl/text/data/badwords/<lang>.txt``) are merged because the
    filter runs before language identification. Raises OSError if ``path`` is unreadable.
    """
    if path:
        return parse_wordlist(Path(path).read_text(encoding="utf-8-sig"))  # BOM: no word
    shipped = files("wackycrawl.text").joinpath("data", "badwords")
    return frozenset().union(*(
        parse_wordlist(entry.read_text(encoding="utf-8"))
        for entry in shipped.iterdir() if entry.name.endswith(".txt")
    ))


class TextFilter:
    """Length and bad-word filters over a document's clean paragraphs.

    A threshold of 0 turns its test off.
    """

    def __init__(self, min_words: int = MIN_WORDS, badwords: frozenset[str] = frozenset(),
                 min_types: int = BADWORDS_MIN_TYPES, min_tokens: int = BADWORDS_MIN_TOKENS):
        self.min_words = min_words
        self.badwords = badwords
        self.min_types = min_types
        self.min_tokens = min_tokens

    def check(self, paragraphs: Iterable[str]) -> Rejection | None:
        """The first failed test as a :class:`Rejection`, or None to keep the document."""
        tokens = words(paragraphs)
        if len(tokens) < self.min_words:
            return Rejection("too_short", f"{len(tokens)} words < {self.min_words}")
        hits = Counter(filter(self.badwords.__contains__, tokens))
        n_types, n_tokens = len(hits), sum(hits.values())
        if (self.min_types and n_types >= self.min_types) or (
            self.min_tokens and n_tokens >= self.min_tokens
        ):
            return Rejection("badwords", f"{n_types} types, {n_tokens} tokens from the list")
        return None
