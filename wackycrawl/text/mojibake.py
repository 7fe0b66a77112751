"""Double-encoded UTF-8 ("mojibake"): UTF-8 bytes read as windows-1252 (or ISO-8859-1) and
stored again as UTF-8, so that ``é`` reads ``Ã©``, ``’`` reads ``â€™``, ``п`` reads ``Ð¿``.

The rule is ftfy's (R. Speer, *ftfy*, 2019: ``fix_encoding`` re-encodes a text as "sloppy
windows-1252" and decodes it as UTF-8): :func:`undouble` finds each run of characters that are
the windows-1252 (or Latin-1) reading of one well-formed UTF-8 multi-byte sequence (a lead
byte 0xC2-0xF4 and its 0x80-0xBF continuation bytes), turns it back into those bytes and
decodes them strictly. A run is replaced only if the character it gives is one a text of some
language holds (:func:`wackycrawl.text.charsets.usual_char`: a letter of a CLDR alphabet or
a CJK script, a punctuation mark or common sign, a space), so real text stays as it is:
``São`` holds no such run, and ``ß“`` (German ``„Straße“``) would give U+07D3, an N'Ko
letter, and is left alone. Whether a page is rewritten is decided by the caller, round by
round, on the evidence score of the text before and after (:mod:`wackycrawl.text.encoding`).

ftfy itself is not used: its own ``badness`` measure would decide instead of the evidence
every other decoding choice here rests on; it repairs what it can and leaves the rest
(``Ã¢â‚¬Â\x9d`` comes out as ``â€Â``, here as ``”``); and it reads 5 MB/s of clean text,
where this byte test reads every page and rewrites only the few that hold such runs.
"""

from __future__ import annotations

import re
import unicodedata

from wackycrawl.text import charsets

# Character -> the byte windows-1252 or Latin-1 reads as it (0x80-0xFF; the five bytes
# windows-1252 leaves undefined, 0x81 0x8D 0x8F 0x90 0x9D, come through as C1 controls).
_TO_BYTE: dict[str, int] = {}
for _byte in range(0x80, 0x100):
    _TO_BYTE[chr(_byte)] = _byte
    try:
        _TO_BYTE[bytes([_byte]).decode("cp1252")] = _byte
    except UnicodeDecodeError:
        pass
# A continuation byte 0x80-0xBF so read, in the page's UTF-8: U+0080-U+00BF (C2 80-BF) or
# one of windows-1252's signs at 0x80-0x9F (U+0152-U+2122).
_CONT = b"(?:" + b"|".join(sorted(
    re.escape(ch.encode()) for ch, byte in _TO_BYTE.items() if byte < 0xC0)) + b")"
# One UTF-8 multi-byte sequence so read, in UTF-8: a lead byte C2-DF, E0-EF or F0-F4 read as
# U+00C2-U+00F4 (C3 82-C3 B4) and its one, two or three continuation bytes.
_SEQUENCE = re.compile(rb"\xc3[\x82-\x9f]" + _CONT + rb"|\xc3[\xa0-\xaf]" + _CONT + b"{2}"
                       + rb"|\xc3[\xb0-\xb4]" + _CONT + b"{3}")


def suspect(body: bytes) -> bool:
    """True if the UTF-8 ``body`` holds a run that may be double-encoded UTF-8 (``Ã©``,
    ``â€™``...); to be confirmed by :func:`undouble` and the caller's evidence."""
    return _SEQUENCE.search(body) is not None


def _back(match: re.Match, replaced: list[int]) -> bytes:
    """The UTF-8 of the character a run stands for, if it is one a text holds: for a
    two-byte sequence (U+0080-U+07FF, where real text such as ``ß“`` or ``Ü»`` also lands)
    a letter of an alphabet or a sign (:func:`charsets.usual_char`); for longer ones
    (U+0800 up: other scripts, CJK, emoji), any assigned character but a control or
    private-use one. A C1 control is kept as a byte for the next round (its last one drops
    it, as the decoder does)."""
    run = match.group()
    chars = run.decode("utf-8")
    try:
        char = bytes(map(_TO_BYTE.__getitem__, chars)).decode("utf-8")
    except UnicodeDecodeError:  # overlong, surrogate or beyond U+10FFFF
        return run
    if "\x80" <= char <= "\x9f":  # a byte of a text encoded three times: the next round's
        ok = True
    elif len(chars) == 2:
        ok = charsets.usual_char(char)
    else:
        ok = unicodedata.category(char)[0] != "C"
    if ok:
        replaced[0] += 1
        return char.encode("utf-8")
    return run


# Rounds of undoing at most: ftfy's examples go up to text encoded three times.
ROUNDS = 3


def undouble(body: bytes) -> tuple[bytes, int]:
    """``(body, runs)``: the UTF-8 ``body`` with each double-encoded UTF-8 sequence decoded
    back once; ``runs`` counts the sequences replaced. Text encoded three times
    (``Ã¢â‚¬â„¢``) needs a second round (``â€™`` -> ``’``), which the caller judges anew:
    it also reads the text the first round restored. Works on the bytes: valid UTF-8
    stays valid, stray bytes stay as they are."""
    replaced = [0]
    body = _SEQUENCE.sub(lambda m: _back(m, replaced), body)
    return body, replaced[0]
