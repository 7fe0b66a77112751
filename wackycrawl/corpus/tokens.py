"""Sentence splitting and tokenisation of clean paragraphs: SoMaJo.

SoMaJo (Proisl & Uhrig 2016, "SoMaJo: State-of-the-art tokenization for German web and
social media texts", WAC-X) is a rule-based tokenizer and sentence splitter made for web
text: URLs, e-mail addresses, emoticons, hashtags, dates, abbreviations and German
orthography, with a record of the whitespace after each token (``space_after``), which is
what the vertical format's ``<g/>`` glue needs. Its rules ship with the package: nothing is
downloaded at run time. German text (``de``) uses its ``de_CMC`` model, every other language
``en_PTB`` (Penn Treebank conventions): SoMaJo has no rules for other languages, whose text
is then split on whitespace and punctuation with English abbreviations and clitics.
Cost: about 0.05-0.1 MB of text per second and core (``benchmarks/corpus.py``).

A tokenised paragraph is a list of sentences; a sentence a list of :class:`Token`.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import NamedTuple

from somajo import SoMaJo

GERMAN_MODEL, DEFAULT_MODEL = "de_CMC", "en_PTB"
#: documents per worker process handed out at once by :func:`tokenize_all`
BATCH = 32
#: ISO 639-1 codes read with the German model
GERMAN = frozenset({"de"})


class Token(NamedTuple):
    """``text`` of one token (never empty, no whitespace); ``glue``: True when no space
    stood between it and the token before it in the same sentence."""

    text: str
    glue: bool


class Tokenizer:
    """One SoMaJo model per language family, loaded on first use (~0.3 s each)."""

    def __init__(self):
        self._models: dict[str, SoMaJo] = {}

    def _model(self, lang: str) -> SoMaJo:
        name = GERMAN_MODEL if lang in GERMAN else DEFAULT_MODEL
        if name not in self._models:
            self._models[name] = SoMaJo(name)
        return self._models[name]

    def paragraph(self, text: str, lang: str = "") -> list[list[Token]]:
        """The sentences of one paragraph (str) of language ``lang`` (ISO 639-1 or "")."""
        sentences = []
        for sentence in self._model(lang).tokenize_text([text]):
            tokens, glue = [], False
            for token in sentence:
                word = "".join(token.text.split())
                if word:
                    tokens.append(Token(word, glue))
                    glue = not token.space_after
            if tokens:
                sentences.append(tokens)
        return sentences

    def document(self, paragraphs: list[str], langs: list[str]) -> list[list[list[Token]]]:
        """Every paragraph's sentences; ``langs`` holds one language per paragraph."""
        return [self.paragraph(p, lang) for p, lang in zip(paragraphs, langs, strict=True)]


_worker_tokenizer: Tokenizer | None = None


def _tokenize_job(job: tuple[list[str], list[str]]) -> list[list[list[Token]]]:
    global _worker_tokenizer
    if _worker_tokenizer is None:
        _worker_tokenizer = Tokenizer()
    return _worker_tokenizer.document(*job)


def ignore_sigint() -> None:
    """Pool initializer: a worker leaves Ctrl-C (sent to the whole process group) to its
    parent, which stops the pool; no traceback from every worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def tokenize_all(jobs: Iterable[tuple[list[str], list[str]]], workers: int = 1
                 ) -> Iterator[list[list[list[Token]]]]:
    """Tokenise ``(paragraphs, languages)`` jobs in order, in ``workers`` processes
    (1 = here). Streams: ``BATCH`` jobs per worker at most are in memory (``Pool.imap``
    would read the whole input ahead)."""
    if workers <= 1:
        tokenizer = Tokenizer()
        for job in jobs:
            yield tokenizer.document(*job)
        return
    jobs = iter(jobs)
    with multiprocessing.get_context("spawn").Pool(workers, ignore_sigint) as pool:
        while batch := list(islice(jobs, BATCH * workers)):
            yield from pool.map(_tokenize_job, batch, chunksize=max(1, BATCH // 4))
