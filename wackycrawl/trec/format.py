"""The TREC Web document format (WT10g/GOV2 style) with WaCky crawl metadata.

One document, as UTF-8 bytes (Croft et al., *Search Engines*, section 3.6; seed notes section 5)::

    <DOC>
    <DOCNO>WACKY-20261130T101500Z-3f2a1c-00000-000001</DOCNO>
    <DOCHDR>
    http://example.com/a.html 93.184.216.34 20261130101502 text/html;charset=utf-8 18231
    HTTP/1.1 200 OK
    Content-Type: text/html; charset=utf-8
    X-Wacky-Language: de
    </DOCHDR>
    clean text, one paragraph per line
    </DOC>

The first DOCHDR line is exactly five space-separated fields: URL, IP, fetch time (UTC
``YYYYMMDDhhmmss``), content type and the length in bytes of the raw body; unknown fields are
``-``. No field contains whitespace, since strict readers (GOV2 tools) split the line on it: the
content type is normalised (``text/html; charset=utf-8`` -> ``text/html;charset=utf-8``) and any
other whitespace in a field is percent-encoded (``%20``). Then the status line, the response
headers (``Name: value``, as received) and the crawl metadata (``X-Wacky-<Key>: value``), whose
values are whitespace-free too (whitespace percent-encoded, an empty value written ``-``).
In the IP, date and content-type fields and the metadata values a literal ``%`` is written
``%25``, so :func:`parse_doc` decodes them unambiguously (a value written is read back as it
was; a file written before ``%`` was encoded reads the same unless a value held ``%`` and two
hex digits). The URL keeps its ``%`` (it is URL syntax: ``parse_doc(...).url`` is the URL with
its whitespace percent-encoded, :func:`url_token`). Control characters in header values
(other than TAB) are percent-encoded as well, one way: headers are read back as stored.

Escaping: everything between the tags has ``&``, ``<`` and ``>`` written as ``&amp;``, ``&lt;``,
``&gt;``, so no page text can imitate TREC markup (a page containing ``</DOC>`` round-trips), and
``</DOC>`` followed by a newline only ever appears at the end of a document. CR and LF inside a
paragraph or a header value become spaces; blank paragraphs are left out. A response header
named ``X-Wacky-*`` is written as ``X-Upstream-X-Wacky-*`` so a server cannot forge crawl metadata.
"""

import re
from dataclasses import dataclass, field
from urllib.parse import unquote
from xml.sax.saxutils import escape, unescape

META_PREFIX = "X-Wacky-"
UPSTREAM_PREFIX = "X-Upstream-"
UNKNOWN = "-"

_NEWLINES = re.compile(r"[\r\n]+")
_WHITESPACE = re.compile(r"\s")
# what a whitespace-free field (not the URL) percent-encodes: whitespace, controls and "%"
_TOKEN_ENCODED = re.compile("[\\s%\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MIME_SPACE = re.compile(r"\s*([;=,])\s*")
# C0 controls other than TAB/LF, DEL, C1 controls: never written into a header line
_HEADER_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NAME_BAD = re.compile(r"[^!#$%&'*+.^_`|~0-9A-Za-z-]")  # RFC 9110 token characters
_DOC_END = b"</DOC>\n"


# Never in a stored document: C0 controls other than TAB and LF, DEL, C1 controls, U+FFFD (a
# decoding failure). Matched on the UTF-8 bytes (0xC2 is never a continuation byte): a control
# byte alone, 0xC2 0x80-0x9F (C1) or EF BF BD (U+FFFD). The pattern starts with the set of
# these first bytes, so the search skips to them; the lookbehinds then tell which one it met.
_FORBIDDEN_FIRST = rb"\x00-\x08\x0b-\x1f\x7f\xc2\xef"
_FORBIDDEN = re.compile(rb"[%s](?:(?<=\xc2)[\x80-\x9f]|(?<=\xef)\xbf\xbd|(?<![\xc2\xef]))"
                        % _FORBIDDEN_FIRST)
# Every byte but those first bytes: bytes.translate deleting them leaves most documents empty.
_NEVER_FORBIDDEN_FIRST = re.sub(rb"[%s]" % _FORBIDDEN_FIRST, b"", bytes(range(256)))


class TrecFormatError(ValueError):
    """Bytes that are not one well-formed TREC document; the message says what is wrong."""


class TrecContentError(TrecFormatError):
    """A document whose text or metadata holds a control character or U+FFFD."""


@dataclass
class TrecDoc:
    """One document. ``raw_length`` is the raw body length in bytes (None if unknown);
    ``headers`` are the response headers in order; ``meta`` the ``X-Wacky-`` entries without
    the prefix; ``paragraphs`` the clean text, one str per paragraph."""

    docno: str = ""
    url: str = UNKNOWN
    ip: str = UNKNOWN
    fetched: str = UNKNOWN
    content_type: str = UNKNOWN
    raw_length: int | None = None
    status_line: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    paragraphs: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The clean text, paragraphs joined by newlines."""
        return "\n".join(self.paragraphs)


def _value(text: object) -> str:
    """One line of escaped text: CR/LF runs become a space."""
    text = str(text)
    if "\n" in text or "\r" in text:
        text = _NEWLINES.sub(" ", text)
    return escape(text)


def _percent(match: re.Match) -> str:
    return "".join(f"%{b:02X}" for b in match.group().encode("utf-8", "replace"))


def _header(text: object) -> str:
    """A header value on one line: CR/LF runs become a space, other controls are %-encoded."""
    text = str(text)
    if not text.isprintable():  # printable text has no control (Cc) to replace
        text = _HEADER_CONTROLS.sub(_percent, _NEWLINES.sub(" ", text))
    return escape(text)


def _token(text: object) -> str:
    """A whitespace-free field (first DOCHDR line but the URL, metadata value): whitespace,
    controls and ``%`` are percent-encoded (:func:`decode_token` reverses it), an empty
    field is ``-``."""
    text = str(text)
    if " " in text or "%" in text or not text.isprintable():  # else nothing to encode
        text = _TOKEN_ENCODED.sub(_percent, text)
    return escape(text) or UNKNOWN  # no CR/LF is left: they are whitespace


def decode_token(text: str) -> str:
    """The value of a field :func:`_token` wrote (XML-unescaped): its ``%XX`` sequences
    decoded as UTF-8 (a ``%`` without two hex digits, from an older file, stays)."""
    return unquote(text, errors="replace") if "%" in text else text


def url_token(url: object) -> str:
    """A URL as the first DOCHDR line and the index hold it once unescaped: whitespace and
    controls percent-encoded, ``-`` if empty (``parse_doc(...).url`` gives this back)."""
    return _WHITESPACE.sub(_percent, _HEADER_CONTROLS.sub(_percent, str(url))) or UNKNOWN


def mime_token(content_type: object) -> str:
    """A Content-Type as one whitespace-free field: blanks around ``;``, ``=`` and ``,`` go
    (``text/html; charset=utf-8`` -> ``text/html;charset=utf-8``), other whitespace is
    percent-encoded, an empty value is ``-``."""
    return _token(_MIME_SPACE.sub(r"\1", str(content_type).strip()))


def _name(text: str) -> str:
    return _NAME_BAD.sub("-", text) or UNKNOWN


def format_doc(docno: str, url: str, ip: str, fetched: str, content_type: str,
               raw_length: int | None, status_line: str, headers: list[tuple[str, str]],
               meta: dict[str, str], paragraphs: list[str]) -> bytes:
    """Return one TREC document as UTF-8 bytes, ending with ``</DOC>`` and a newline.

    Never raises on odd text: markup is escaped, newlines in one-line fields become spaces,
    whitespace in the first line's fields and in metadata values is removed or percent-encoded
    (see the module doc), unencodable characters (lone surrogates) become ``?``, a status line
    not starting with ``HTTP/`` is written after ``HTTP/-``. Text characters are not judged
    here: the writer refuses a document with control characters or U+FFFD
    (:func:`forbidden_characters`). The concatenation of :func:`format_start`,
    :func:`format_head`, :func:`format_meta` and :func:`format_body`.
    """
    return b"".join((format_start(docno),
                     format_head(url, ip, fetched, content_type, raw_length, status_line,
                                 headers, meta.items()),
                     format_body(paragraphs)))


def format_start(docno: str) -> bytes:
    """The first three lines: ``<DOC>``, the ``<DOCNO>`` line and ``<DOCHDR>``."""
    return f"<DOC>\n<DOCNO>{_token(docno)}</DOCNO>\n<DOCHDR>\n".encode("utf-8", "replace")


def format_head(url: str, ip: str, fetched: str, content_type: str, raw_length: int | None,
                status_line: str, headers: list[tuple[str, str]], meta) -> bytes:
    """The DOCHDR lines (first line, status line, headers) and the metadata lines of
    ``meta`` (``(key, value)`` pairs, see :func:`format_meta`), each ending with a newline."""
    length = UNKNOWN if raw_length is None else str(int(raw_length))
    lines = [f"{escape(url_token(url))} {_token(ip)} {_token(fetched)} "
             f"{mime_token(content_type)} {length}"]
    if status_line:
        status = _header(status_line)
        # parse_doc knows the status line by its "HTTP/" (RFC 9112 4); another one (Scrapy's
        # HTTP/2 handler says "h2") would read as a malformed header and fail the document
        lines.append(status if status.startswith("HTTP/") else f"HTTP/{UNKNOWN} {status}")
    for name, value in headers:
        name = _name(str(name))
        if name.lower().startswith(META_PREFIX.lower()):
            name = UPSTREAM_PREFIX + name
        lines.append(f"{name}: {_header(value)}")
    lines.append("")
    return "\n".join(lines).encode("utf-8", "replace") + format_meta(meta)


def format_meta(meta) -> bytes:
    """``X-Wacky-<Key>: value`` lines, each ending with a newline, for ``(key, value)`` pairs."""
    return "".join(f"{META_PREFIX}{_name(str(key))}: {_token(value)}\n"
                   for key, value in meta).encode("utf-8", "replace")


def format_body(paragraphs: list[str]) -> bytes:
    """``</DOCHDR>``, the escaped paragraphs (one a line, blank ones left out), ``</DOC>``."""
    lines = ["</DOCHDR>", *(p for p in (_value(p).strip() for p in paragraphs) if p), "</DOC>\n"]
    return "\n".join(lines).encode("utf-8", "replace")


def forbidden_characters(data: bytes) -> str | None:
    """Describe the first forbidden character of a formatted document (``data``, UTF-8: a C0
    control other than TAB/LF, DEL, a C1 control or U+FFFD), e.g. ``"U+FFFD at byte 212"``;
    None if there is none."""
    if not data.translate(None, _NEVER_FORBIDDEN_FIRST):
        return None
    match = _FORBIDDEN.search(data)
    if match is None:
        return None
    char = match.group().decode("utf-8")
    return f"U+{ord(char):04X} at byte {match.start()}"


def strict_problems(data: bytes) -> list[str]:
    """What a strict TREC reader would refuse in one document (``data`` as stored): a first
    DOCHDR line without exactly five whitespace-separated fields, a metadata value that is
    empty or holds whitespace, a forbidden character (:func:`forbidden_characters`).
    Assumes ``data`` parses (:func:`parse_doc`); returns an empty list for a sound document."""
    problems = []
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    docno = lines[1].removeprefix("<DOCNO>").removesuffix("</DOCNO>")
    fields = lines[3].split()
    if len(fields) != 5 or lines[3] != " ".join(fields):
        problems.append(f"{docno}: DOCHDR first line has {len(fields)} fields, not 5 "
                        f"separated by single spaces: {lines[3][:120]!r}")
    for line in lines[4:lines.index("</DOCHDR>")]:
        if line.startswith(META_PREFIX):
            value = line.partition(": ")[2]
            if not value or _WHITESPACE.search(value):
                problems.append(f"{docno}: metadata value with whitespace: {line[:120]!r}")
    if (bad := forbidden_characters(data)) is not None:
        problems.append(f"{docno}: forbidden character {bad}")
    return problems


def _first_line(line: str) -> dict:
    """Parse ``URL [IP DATE CONTENT-TYPE LENGTH]`` (older files carry the URL alone)."""
    fields = line.split(" ")
    if len(fields) == 1:
        return {"url": unescape(fields[0])}
    if len(fields) < 5:
        raise TrecFormatError(f"DOCHDR first line needs URL IP DATE TYPE LENGTH: {line!r}")
    length = fields[-1]
    if length != UNKNOWN and not (length.isascii() and length.isdigit()):
        raise TrecFormatError(f"DOCHDR length is not a number: {length!r}")
    return {"url": unescape(fields[0]), "ip": decode_token(unescape(fields[1])),
            "fetched": decode_token(unescape(fields[2])),
            "content_type": decode_token(unescape(" ".join(fields[3:-1]))),
            "raw_length": None if length == UNKNOWN else int(length)}


def parse_doc(data: bytes) -> TrecDoc:
    """Parse one document as written by :func:`format_doc` (unescaping the text; the IP,
    date, content type and metadata values percent-decoded: :func:`decode_token`).

    Raises :class:`TrecFormatError` if the bytes are not UTF-8 or miss a part of the markup.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrecFormatError(f"document is not UTF-8: {exc}") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) < 5 or lines[0] != "<DOC>" or lines[-1] != "</DOC>":
        raise TrecFormatError(f"not a <DOC>...</DOC> block: {text[:60]!r}")
    match = re.fullmatch(r"<DOCNO>([^<>]*)</DOCNO>", lines[1])
    if not match or lines[2] != "<DOCHDR>" or "</DOCHDR>" not in lines:
        raise TrecFormatError(f"missing <DOCNO> or <DOCHDR>: {text[:80]!r}")
    end = lines.index("</DOCHDR>")
    hdr, body = lines[3:end], lines[end + 1:-1]
    if not hdr:
        raise TrecFormatError("empty <DOCHDR>")
    doc = TrecDoc(docno=unescape(match.group(1)), **_first_line(hdr[0]))
    rest = hdr[1:]
    if rest and rest[0].startswith("HTTP/"):
        doc.status_line = unescape(rest.pop(0))
    for line in rest:
        name, sep, value = line.partition(": ")
        if not sep:
            raise TrecFormatError(f"DOCHDR line is not 'Name: value': {line!r}")
        if name.startswith(META_PREFIX):
            doc.meta[name[len(META_PREFIX):]] = decode_token(unescape(value))
        else:
            doc.headers.append((name, unescape(value)))
    if any(line.startswith("<") for line in body):
        raise TrecFormatError("markup inside the document text")
    doc.paragraphs = [unescape(line) for line in body]
    return doc


def split_docs(data: bytes) -> list[bytes]:
    """Split decompressed bytes into documents (each ending with ``</DOC>`` and a newline).

    Raises :class:`TrecFormatError` if bytes are left after the last ``</DOC>``.
    """
    docs, start = [], 0
    while start < len(data):
        end = data.find(_DOC_END, start)
        if end < 0:
            raise TrecFormatError(f"{len(data) - start} bytes after the last </DOC>")
        docs.append(data[start:end + len(_DOC_END)])
        start = end + len(_DOC_END)
    return docs
