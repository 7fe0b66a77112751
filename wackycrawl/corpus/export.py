"""A corpus document as vertical (VRT), plain text or a JSON line, and vertical read back.

Vertical, the input format of CWB's ``cwb-encode`` and of Sketch Engine (CWB Corpus
Encoding Tutorial; Sketch Engine, "Preparing a corpus: vertical")::

    <text id="WACKY-...-000003" url="http://www.example.de/a.html" host="www.example.de"
          tld="de" crawl_date="2026-11-30" lang="de" raw_bytes="23817" ...>
    <p lang="de">
    <s>
    Der
    Gemeinderat
    tagt
    <g/>
    .
    </s>
    </p>
    </text>

One token per line (the ``word`` positional attribute only), XML-escaped (``&amp;``,
``&lt;``, ``&gt;``; attribute values also ``&quot;``, and a TAB or line break in them as a
space, so that every tag is one line), UTF-8, no control characters.
``<g/>`` (Sketch Engine's glue) stands between two tokens of a sentence that had no space
between them. The ``<text>`` attributes are ``id`` (DOCNO), ``url``, ``host`` (lower case,
with the port when the URL has one: ``127.0.0.1:8101``, as in the crawl's host-yield file),
``tld`` (last label of the host name, ``-`` for an IP address), ``crawl_date`` (``YYYY-MM-DD``, UTC),
``lang`` (``X-Wacky-Language``, ``und`` if unknown), then every other ``X-Wacky-<Key>`` line
of the DOCHDR as ``<key>`` (lower case, ``-`` as ``_``: ``language_score``,
``boilerplate_share``, ``rejected``...). ``<p lang>`` is the document's language, or for a
paragraph listed in ``X-Wacky-Language-Foreign`` the one other language of
``X-Wacky-Language-Mix`` (``und`` if the mix names several). Sentences and tokens:
:mod:`wackycrawl.corpus.tokens`. A paragraph without tokens is left out.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from collections import deque
from collections.abc import Iterable, Iterator
from html import unescape
from urllib.parse import urlsplit

from wackycrawl.corpus.stats import Paragraph
from wackycrawl.corpus.tokens import Token, tokenize_all
from wackycrawl.crawl.urls import host_key
from wackycrawl.trec.format import TrecDoc

FORMATS = ("vrt", "txt", "jsonl")
UND, UNKNOWN = "und", "-"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: what would split an attribute value's line or its columns: TAB, CR, LF and the line
#: separators ``str.splitlines`` knows beyond the control characters (U+2028, U+2029)
_BREAKS = re.compile(r"[\t\n\r\u2028\u2029]")
_NAME_BAD = re.compile(r"[^a-z0-9_]")
_FIXED = ("id", "url", "host", "tld", "crawl_date", "lang")


def xml_text(text: str) -> str:
    """``text`` escaped for a VRT token line or attribute value, control characters removed."""
    text = _CONTROL.sub("", text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def xml_attribute(value: str) -> str:
    """``value`` escaped for a VRT attribute (``<text url="...">``): as :func:`xml_text`, and
    a TAB or line break (a metadata value decoded from ``%09``, ``%0A``, U+2028) as a space,
    so that the tag stays one line, read as one by ``cwb-encode`` and line-based readers."""
    return xml_text(_BREAKS.sub(" ", value))


def attribute_name(key: str) -> str:
    """``Language-Score`` -> ``language_score`` (CWB attribute names: a-z, 0-9, _; not
    starting with a digit, as no XML name does: ``2nd-Pass`` -> ``_2nd_pass``)."""
    name = _NAME_BAD.sub("_", key.lower())
    return f"_{name}" if name[:1].isdigit() else name


def tld(host: str) -> str:
    """Last label of a host name (``de`` for ``www.example.de``); ``-`` for an IP address
    or no host."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return UNKNOWN
    except ValueError:
        return host.rstrip(".").rsplit(".", 1)[-1].lower() if host else UNKNOWN


def text_attributes(doc: TrecDoc) -> dict[str, str]:
    """The metadata of ``doc`` as ``<text>`` attributes, in the order of the module doc."""
    parts = urlsplit(doc.url)
    host = host_key(doc.url)  # a port other than the default kept, as in the host-yield file
    f = doc.fetched
    attrs = {"id": doc.docno or UNKNOWN, "url": doc.url, "host": host or UNKNOWN,
             "tld": tld(parts.hostname or ""),
             "crawl_date": f"{f[:4]}-{f[4:6]}-{f[6:8]}" if len(f) >= 8 and f.isdigit() else UNKNOWN,
             "lang": doc.meta.get("Language") or UND}
    for key, value in doc.meta.items():
        if key == "Language":
            continue
        name = base = attribute_name(key)
        n = 2
        while name in attrs:  # two keys with one name (Weird-Key!, Weird-Key?): _2, _3...
            name, n = f"{base}_{n}", n + 1
        attrs[name] = value
    return attrs


def paragraph_languages(doc: TrecDoc) -> list[str]:
    """One language per paragraph of ``doc`` (see the module doc)."""
    lang = doc.meta.get("Language") or UND
    foreign_field = doc.meta.get("Language-Foreign", UNKNOWN)
    foreign = {int(i) for i in foreign_field.split(",") if i.strip().isdigit()}
    mix = [part.split(":", 1)[0] for part in doc.meta.get("Language-Mix", "").split(",") if part]
    others = [m for m in mix if m not in (lang, UND)]
    other = others[0] if len(others) == 1 else UND
    return [other if i in foreign else lang for i in range(len(doc.paragraphs))]


@dataclass
class Counts:
    """What an export wrote: ``texts``, ``paragraphs``, ``sentences``, ``tokens``;
    ``empty`` documents without a token were left out; ``attributes`` every ``<text>``
    attribute name used, in first-seen order."""

    texts: int = 0
    paragraphs: int = 0
    sentences: int = 0
    tokens: int = 0
    empty: int = 0
    attributes: dict[str, None] = field(default_factory=dict)

    def cwb_encode(self, path: str | None = None) -> str:
        """The complete ``cwb-encode`` command line encoding the export at ``path`` (None:
        stdout, read from stdin then): options declaring this export's structures, data
        directory ``data``, registry entry ``registry/<name>`` (the file name without
        ``.vrt``/``.gz``, lowercased, other characters than ``a-z0-9_-`` as ``_``; CWB corpus
        names are lowercase)."""
        name = re.sub(r"\.(vrt|gz)$", "", os.path.basename(path or "corpus.vrt"))
        name = re.sub(r"\.(vrt|gz)$", "", name)
        name = re.sub(r"[^a-z0-9_-]", "_", name.lower()) or "corpus"
        source = f" -f {shlex.quote(path)}" if path else ""
        return ("cwb-encode -c utf8 -x -s -B -P word -S text:0"
                + "".join(f"+{name}" for name in self.attributes)
                + f" -S p:0+lang -S s:0 -S g:0 -d data{source} -R registry/{name}")


def vrt(doc: TrecDoc, tokenized: list[list[list[Token]]], langs: list[str],
        counts: Counts) -> str:
    """One ``<text>`` block (ending with a newline), or "" for a document without tokens."""
    if not any(tokenized):
        counts.empty += 1
        return ""
    attrs = text_attributes(doc)
    counts.attributes.update(dict.fromkeys(attrs))
    lines = ["<text " + " ".join(f'{k}="{xml_attribute(v)}"' for k, v in attrs.items()) + ">"]
    for sentences, lang in zip(tokenized, langs, strict=True):
        if not sentences:
            continue
        counts.paragraphs += 1
        lines.append(f'<p lang="{xml_attribute(lang)}">')
        for sentence in sentences:
            counts.sentences += 1
            counts.tokens += len(sentence)
            lines.append("<s>")
            for token in sentence:
                if token.glue:
                    lines.append("<g/>")
                lines.append(xml_text(token.text))
            lines.append("</s>")
        lines.append("</p>")
    lines.append("</text>\n")
    counts.texts += 1
    return "\n".join(lines)


def txt(doc: TrecDoc) -> str:
    """The text, one paragraph per line, and a blank line after the document."""
    return "\n".join(doc.paragraphs) + "\n\n"


def jsonl(doc: TrecDoc) -> str:
    """One JSON object and a newline: ``id``, ``url``, ``host``, ``tld``, ``crawl_date``,
    ``lang``, ``paragraph_langs``, ``meta`` (every ``X-Wacky-*`` line), ``ip``,
    ``fetched`` and ``text`` (paragraphs joined by newlines)."""
    attrs = {k: v for k, v in text_attributes(doc).items() if k in _FIXED}
    record = {**attrs, "paragraph_langs": paragraph_languages(doc), "meta": doc.meta,
              "ip": doc.ip, "fetched": doc.fetched, "text": doc.text}
    return json.dumps(record, ensure_ascii=False) + "\n"


_ATTR = re.compile(r'([A-Za-z_][\w.-]*)="([^"]*)"')
#: A document's start tag: ``<text ...>`` (ours, CWB) or ``<doc ...>`` (Sketch Engine's usual).
_DOC_START = re.compile(r"<(text|doc)(?=[\s>/])")
_DOC_END = ("</text>", "</doc>")
#: a paragraph's start tag, a sentence's start or end tag (not ``<pb/>``, ``<sub>``...)
_P_START = re.compile(r"<p(?=[\s>])")
_S_TAG = re.compile(r"</?s(?=[\s>])")
NO_DOCUMENT = ("no <text> or <doc> element: not a vertical file (one token per line inside "
               "<text ...>...</text> or <doc ...>...</doc>, as wackycrawl export writes)")


def _doc_attributes(line: str) -> dict[str, str]:
    """A document start tag's attributes, unescaped; ``host`` and ``tld`` from its ``url``
    when it names none (a ``<doc>`` of another tool)."""
    attrs = {k: unescape(v) for k, v in _ATTR.findall(line)}
    if "host" not in attrs and (url := attrs.get("url")):
        try:
            parts = urlsplit(url)
        except ValueError:
            return attrs
        if host := host_key(url):
            attrs["host"] = host
            attrs.setdefault("tld", tld(parts.hostname or ""))
    return attrs


def read_vertical(lines) -> Iterator[tuple[dict[str, str], list[Paragraph]]]:
    """The documents of a vertical file written by :func:`vrt`, or of another CWB or Sketch
    Engine corpus whose documents are ``<doc>`` elements (lines of str, newlines optional):
    ``(document attributes, paragraphs)``, unescaped. Tokens are the first column of a line;
    ``<g/>`` and unknown tags are skipped; tokens outside ``<s>`` count as one sentence of
    their paragraph (of the document when it has no ``<p>``), each run of them its own. Raises ValueError (:data:`NO_DOCUMENT`) for input without any
    document element (a bare token list, a plain-text export, an empty file)."""
    attrs, paragraphs, sentence, found = None, [], None, False
    for line in lines:
        line = line.strip(" \t\r\n")  # cwb-encode -s: spaces around a line are no part of it
        if line[:1] == "<":
            if _DOC_START.match(line):
                attrs = _doc_attributes(line)
                paragraphs, sentence, found = [], None, True
            elif _P_START.match(line):
                lang = dict(_ATTR.findall(line)).get("lang", UND)
                paragraphs.append(Paragraph(unescape(lang), []))
                sentence = None
            elif _S_TAG.match(line):  # <s ...> or </s>: the next token starts a sentence
                sentence = None
            elif line in _DOC_END and attrs is not None:
                yield attrs, paragraphs
                attrs, sentence = None, None
            continue
        if not line or attrs is None:
            continue
        if not paragraphs:
            paragraphs.append(Paragraph(attrs.get("lang", UND), []))
        if sentence is None:
            sentence = []
            paragraphs[-1].sentences.append(sentence)
        if "\t" in line:
            line = line.split("\t", 1)[0]
        sentence.append(unescape(line) if "&" in line else line)
    if not found:
        raise ValueError(NO_DOCUMENT)


def tokenized(docs: Iterable[TrecDoc], workers: int = 1
              ) -> Iterator[tuple[TrecDoc, list[str], list[list[list[Token]]]]]:
    """``(document, paragraph languages, sentences of tokens per paragraph)`` for ``docs``,
    in order, tokenised in ``workers`` processes (:func:`wackycrawl.corpus.tokens.tokenize_all`)."""
    pending: deque = deque()

    def jobs():
        for doc in docs:
            langs = paragraph_languages(doc)
            pending.append((doc, langs))
            yield doc.paragraphs, langs

    for result in tokenize_all(jobs(), workers):
        doc, langs = pending.popleft()
        yield doc, langs, result


def paragraphs_of(tokens: list[list[list[Token]]], langs: list[str]) -> list[Paragraph]:
    """The paragraphs as :class:`Paragraph` (token strings), those without tokens left out
    (as :func:`vrt` does)."""
    return [Paragraph(lang, [[t.text for t in s] for s in sentences])
            for sentences, lang in zip(tokens, langs, strict=True) if sentences]
