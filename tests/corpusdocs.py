"""A small hand-made TREC corpus for export and report tests: English and German prose,
markup characters, glued tokens, a foreign paragraph, an IP-address host."""

from __future__ import annotations

from pathlib import Path

from tests.webpages import prose
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter

SPECIAL = ('Prices & "offers" <b>: don\'t miss it, the caf\u00e9 (see www.example.com/a?b=1&c=2) '
           'opens at 9:30 \u2013 really!')
GERMAN = "Die Stra\u00dfe, die wir gestern sahen, war z.\u00a0B. sehr sch\u00f6n; oder nicht?"


def corpus_docs(n: int = 6) -> list[TrecDoc]:
    docs = []
    for i in range(n):
        lang = "de" if i % 3 == 2 else "en"
        paras = prose(i, min_chars=1500, lang=lang)
        meta = {"Language": lang, "Language-Score": "0.700", "Language-Method": "funcwords"}
        if i == 0:
            paras = [SPECIAL, *paras, GERMAN]
            meta.update({"Language-Mix": "en:0.800,de:0.200",
                         "Language-Foreign": str(len(paras) - 1)})
        host = ["www.example.co.uk", "blog.example.de", "127.0.0.1"][i % 3]
        docs.append(TrecDoc(url=f"http://{host}/page{i}.html?a=1&b=\"2\"", ip="127.0.0.1",
                            fetched=f"202611{10 + i}120000", content_type="text/html",
                            raw_length=9000, status_line="HTTP/1.1 200 OK", meta=meta,
                            paragraphs=paras))
    return docs


def write_corpus(directory: Path, docs: list[TrecDoc], worker: str = "test") -> Path:
    with TrecWriter(str(directory), worker=worker) as w:
        for d in docs:
            w.write(d)
    return directory
