"""Encoding accuracy and speed: decode_html vs plain charset-normalizer vs w3lib alone.

Data: ``<shared>/devset/encodings/manifest.tsv`` (chardet's test files with the true codec).
A guess is right when decoding the file with it gives the same text as the true codec
(chardet's rule; a leading BOM is ignored). A second column also accepts the text of the
codec the WHATWG Encoding Standard maps the true label to (Shift_JIS -> cp932, GB2312 ->
gb18030, TIS-620 -> cp874), which is what browsers and decode_html use. Rejections
(EncodingError) count as wrong and are shown apart. No HTTP header is passed.

    python benchmarks/encoding_eval.py [SHARED_DIR]      # default: ../shared from the repo root
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import Counter
from pathlib import Path

import charset_normalizer
from w3lib.encoding import html_to_unicode, resolve_encoding

from wackycrawl.text.encoding import EncodingError, decode_html


def decoded(body: bytes, codec: str | None) -> str | None:
    """``body`` decoded strictly with ``codec`` (leading BOM dropped), or None."""
    try:
        return body.decode(codec).lstrip("\ufeff") if codec else None
    except (UnicodeDecodeError, LookupError):
        return None


def guess_decode_html(body: bytes) -> str | None:
    try:
        return decode_html(body).encoding
    except EncodingError:
        return None


def guess_charset_normalizer(body: bytes) -> str | None:
    best = charset_normalizer.from_bytes(body).best()
    return best.encoding if best else None


def guess_w3lib(body: bytes) -> str | None:
    return html_to_unicode(None, body)[0]


METHODS = {
    "decode_html": guess_decode_html,
    "charset_normalizer": guess_charset_normalizer,
    "w3lib only": guess_w3lib,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parent.parent.parent / "shared"
    parser.add_argument("shared", nargs="?", type=Path, default=default)
    args = parser.parse_args()
    root = args.shared / "devset" / "encodings"
    with open(root / "manifest.tsv", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t")
                if r["python_codec"] and r["python_codec"] != "no-python-codec"]
    files = [(r["python_codec"], (root / r["file"]).read_bytes()) for r in rows]
    truths = [decoded(body, codec) for codec, body in files]
    whatwg = [decoded(body, resolve_encoding(codec)) for codec, body in files]
    total_mb = sum(len(body) for _, body in files) / 1e6

    results = {}
    for name, guess in METHODS.items():
        start = time.perf_counter()
        guesses = [guess(body) for _, body in files]
        seconds = time.perf_counter() - start
        texts = [decoded(body, g) for (_, body), g in zip(files, guesses)]
        right = [t is not None and t == truth for t, truth in zip(texts, truths)]
        lenient = [ok or (t is not None and t == w) for ok, t, w in zip(right, texts, whatwg)]
        wrong_by_codec = Counter(c for (c, _), ok in zip(files, lenient) if not ok)
        results[name] = (sum(right), sum(lenient), guesses.count(None), total_mb / seconds,
                         wrong_by_codec)

    print(f"{len(files)} files, {total_mb:.2f} MB, no HTTP header\n")
    print(f"{'method':<20}{'chardet rule':>14}{'+ WHATWG labels':>17}{'no answer':>11}"
          f"{'MB/s':>9}")
    for name, (right, lenient, none, speed, _) in results.items():
        print(f"{name:<20}{right / len(files):>14.1%}{lenient / len(files):>17.1%}{none:>11}"
              f"{speed:>9.2f}")
    print("\nwrong or rejected (WHATWG labels accepted), by true codec:")
    codecs_seen = sorted({c for *_, wrong in results.values() for c in wrong})
    print(f"{'codec':<14}" + "".join(f"{name:>20}" for name in results))
    for codec in codecs_seen:
        print(f"{codec:<14}" + "".join(f"{r[4][codec]:>20}" for r in results.values()))


if __name__ == "__main__":
    main()
