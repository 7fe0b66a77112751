"""Encoding accuracy and speed: decode_html vs charset-normalizer, w3lib and Scrapy's default.

Data: ``<shared>/devset/encodings/manifest.tsv`` (chardet's test files with the true codec).
A guess is right when decoding the file with it gives the same text as the true codec
(chardet's rule; a leading BOM is ignored). A second column also accepts the text of the
codec the WHATWG Encoding Standard maps the true label to (Shift_JIS -> cp932, GB2312 ->
gb18030, TIS-620 -> cp874), which is what browsers and decode_html use. Rejections
(EncodingError) count as wrong and are shown apart. No HTTP header is passed. Scrapy's
default is ``TextResponse.encoding`` (w3lib with its own detector: ascii, utf-8, then
charset-normalizer).

"Family": a file of a Western or Central-European language decoded (with a different text)
by a code page of another family (Central European, Western, Vietnamese, Mac, Baltic,
Nordic...) is counted apart, the issue's second goal.

Held-out sentences: news and web sentences of the Leipzig corpora (devset/langid, never used
for tuning) of Western and Central-European languages, eight to a page, encoded in their
legacy code pages without any declaration.

Speed of undeclared legacy pages at real sizes: the devset's UTF-8 article pages in five
languages re-encoded (cp1252, ISO-8859-2, windows-1251) without declarations; MB/s is
wall-clock, CPU MB/s per ``time.process_time``. The same pages' UTF-8 originals, once
double-encoded (UTF-8 read as windows-1252 and stored as UTF-8), must decode back to the
text of the original; the originals must not be rewritten.

Held-out legacy pages: the devset's boilerplate pages whose bytes are not UTF-8 (real pages,
truth = the codec under which the page's gold text, UTF-8, is found), decoded once as served
(their own declaration) and once with every declaration removed.

    python benchmarks/encoding_eval.py [SHARED_DIR]      # default: ../shared from the repo root
"""

from __future__ import annotations

import argparse
import codecs
import csv
import re
import time
from collections import Counter
from pathlib import Path

import charset_normalizer
from scrapy.http import HtmlResponse
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


def guess_scrapy(body: bytes) -> str | None:
    return HtmlResponse("http://bench.test/", body=body).encoding


METHODS = {
    "decode_html": guess_decode_html,
    "charset_normalizer": guess_charset_normalizer,
    "w3lib only": guess_w3lib,
    "scrapy default": guess_scrapy,
}
WESTERN = {"en", "de", "fr", "es", "pt", "it", "nl", "sv", "da", "nb", "no", "fi", "is", "ca",
           "af", "la"}
CENTRAL = {"cs", "sk", "pl", "hu", "hr", "sl", "ro", "bs", "sr"}


def family(codec: str | None) -> str:
    """A codec's family, for the cross-family count (Python codec names)."""
    name = codecs.lookup(codec).name if codec else ""
    for fam, members in FAMILIES.items():
        if name in members:
            return fam
    return name


FAMILIES = {
    "western": {"cp1252", "iso8859-1", "latin-1", "iso8859-15", "ascii", "utf-8"},
    "central": {"cp1250", "iso8859-2", "iso8859-16"},
}


def devset_rows(root: Path) -> list[dict]:
    with open(root / "manifest.tsv", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle, delimiter="\t")
                if r["python_codec"] and r["python_codec"] != "no-python-codec"]


_DECLARATION = re.compile(rb"<meta[^>]*charset[^>]*>|<\?xml[^>]*\?>", re.I)


def held_out(shared: Path) -> list[tuple[str, bytes, bytes, str, str]]:
    """(name, page bytes, bytes without declarations, true codec, language) of the devset's
    real non-UTF-8 pages whose gold text shows which codec is right."""
    pages = []
    for manifest in sorted((shared / "devset" / "boilerplate").glob("*/manifest.tsv")):
        with open(manifest, encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                if row["encoding"] != "non-utf8":
                    continue
                name = row["notes"].removeprefix("file=") if "file=" in row["notes"] \
                    else row["id"] + ".html"
                folder = manifest.parent
                if not (folder / name).exists():
                    continue
                raw = (folder / name).read_bytes()
                stem = folder / name.removesuffix(".html")
                gold_file = next(p for p in (stem.with_name(stem.name + ".txt"),
                                             stem.with_name(stem.name + ".with.txt"))
                                 if p.exists())
                gold = gold_file.read_text("utf-8")
                words = {w for w in gold.split() if not w.isascii()}
                truth = max(CANDIDATE_TRUTHS, key=lambda c: len(
                    words & set(raw.decode(c, "replace").split())))
                if words and words & set(raw.decode(truth, "replace").split()):
                    pages.append((f"{folder.name}/{name}", raw, _DECLARATION.sub(b"", raw),
                                  truth, row["language"]))
    return pages


CANDIDATE_TRUTHS = ("cp1252", "iso8859-2", "cp1250", "iso8859-15", "cp1251", "mac-roman")


LEGACY_PAGES = {"cp1252": "af ca da de en es fi fr is it nb nl pt sv",
                "iso8859-15": "de fr fi", "cp1250": "cs hr hu pl ro sk sl",
                "iso8859-2": "cs hr hu pl ro sk sl"}


def held_out_sentences(shared: Path, per_page: int = 8, pages: int = 6) -> list:
    """(codec, page bytes, language) of Leipzig sentences encoded in legacy code pages."""
    by_lang: dict[str, list[str]] = {}
    with open(shared / "devset" / "langid" / "sentences.tsv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            by_lang.setdefault(row["lang"], []).append(row["text"])
    files = []
    for codec, langs in LEGACY_PAGES.items():
        for lang in langs.split():
            good = []
            for text in by_lang[lang][-400:]:  # the end of each list: apart from any tuning
                if any(junk in text for junk in ("\ufffd", "ďż˝", "ï¿½", "Ã")) or any(
                        "\x80" <= ch <= "\x9f" for ch in text):
                    continue  # mojibake already in the source sentence
                text = text.replace("ș", "ş").replace("ț", "ţ").replace("Ș", "Ş")
                try:
                    good.append(text.encode(codec))
                except UnicodeEncodeError:
                    continue
            for i in range(pages):
                chunk = good[i * per_page:(i + 1) * per_page]
                if len(chunk) == per_page:
                    body = b"<html><body>" + b"".join(b"<p>%s</p>" % t for t in chunk)
                    files.append((codec, body + b"</body></html>", lang))
    return files


REENCODED = {"de": "cp1252", "fr": "cp1252", "es": "cp1252", "pl": "iso8859-2",
             "ru": "cp1251"}


def reencoded_pages(shared: Path, per_lang: int = 10) -> list[tuple[str, bytes, str]]:
    """(codec, page bytes, language): real UTF-8 pages of trafilatura-eval (German, French,
    Spanish, Polish, Russian; at most ``per_lang`` each) re-encoded in their legacy code page
    (characters it lacks as numeric references), every charset declaration removed: the
    speed of an undeclared legacy page at real page sizes, and its accuracy."""
    folder = shared / "devset" / "boilerplate" / "trafilatura-eval"
    taken: Counter = Counter()
    files = []
    with open(folder / "manifest.tsv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            lang, path = row["language"], folder / row["notes"].removeprefix("file=").split(";")[0]
            if lang not in REENCODED or taken[lang] >= per_lang or not path.is_file():
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue
            body = _DECLARATION.sub(b"", text.encode(REENCODED[lang], "xmlcharrefreplace"))
            if not body.isascii():
                taken[lang] += 1
                files.append((REENCODED[lang], body, lang))
    return files


def _doubled(text: str) -> str:
    """UTF-8 of ``text`` read byte by byte as windows-1252 (undefined bytes as C1)."""
    return "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in text.encode())


def double_encoded_table(shared: Path, per_lang: int = 10) -> None:
    """Double-encoded UTF-8: the re-encoded pages' UTF-8 originals, once double-encoded
    (UTF-8 read as windows-1252, stored as UTF-8) and once as they are."""
    folder = shared / "devset" / "boilerplate" / "trafilatura-eval"
    originals = [(body.decode(codec), lang) for codec, body, lang in
                 reencoded_pages(shared, per_lang)]
    back, changed = 0, []
    for text, _ in originals:
        own = decode_html(text.encode())
        back += decode_html(_doubled(text).encode()).text == own.text
        if own.undoubled:  # show what was restored, to be judged by eye
            words = set(own.text.split()) - set(text.split())
            changed.append(f"{own.undoubled} runs, e.g. {sorted(words)[:3]}")
    print(f"double-encoded UTF-8 ({len(originals)} pages of {folder.name}, as above):")
    print(f"  decoded back to the page's own text: {back / len(originals):.1%}")
    print(f"  pages as they are that were rewritten: {len(changed)}")
    for line in changed:
        print(f"    {line}")
    print()


def score(files, method) -> tuple[int, int, int, int, float, float, Counter]:
    """(right by chardet's rule, right with WHATWG labels, no answer, cross-family, MB/s
    wall-clock, MB/s of CPU time, wrong by true codec) of ``method`` on ``files`` =
    [(codec, body, language), ...]."""
    start, cpu = time.perf_counter(), time.process_time()
    guesses = [method(body) for _, body, _ in files]
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    right = lenient = cross = 0
    wrong = Counter()
    for (codec, body, lang), g in zip(files, guesses):
        truth, text = decoded(body, codec), decoded(body, g)
        ok = text is not None and text == truth
        ok_whatwg = ok or (text is not None and text == decoded(body, resolve_encoding(codec)))
        right += ok
        lenient += ok_whatwg
        if not ok_whatwg:
            wrong[codec] += 1
            if g and lang in WESTERN | CENTRAL and family(g) != family(codec):
                cross += 1
    mb = sum(len(b) for _, b, _ in files) / 1e6
    return right, lenient, guesses.count(None), cross, mb / seconds, mb / max(cpu, 1e-9), wrong


def table(title: str, files, with_codecs: bool = True) -> None:
    print(f"{title}: {len(files)} files, {sum(len(b) for _, b, _ in files) / 1e6:.2f} MB")
    print(f"{'method':<20}{'chardet rule':>14}{'+ WHATWG labels':>17}{'no answer':>11}"
          f"{'cross-family':>14}{'MB/s':>9}{'CPU MB/s':>10}")
    results = {name: score(files, method) for name, method in METHODS.items()}
    for name, (right, lenient, none, cross, speed, cpu, _) in results.items():
        print(f"{name:<20}{right / len(files):>14.1%}{lenient / len(files):>17.1%}{none:>11}"
              f"{cross:>14}{speed:>9.2f}{cpu:>10.2f}")
    if with_codecs:
        print("\nwrong or rejected (WHATWG labels accepted), by true codec:")
        seen = sorted({c for r in results.values() for c in r[6]})
        print(f"{'codec':<14}" + "".join(f"{name:>20}" for name in results))
        for codec in seen:
            print(f"{codec:<14}" + "".join(f"{r[6][codec]:>20}" for r in results.values()))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parent.parent.parent / "shared"
    parser.add_argument("shared", nargs="?", type=Path, default=default)
    args = parser.parse_args()
    root = args.shared / "devset" / "encodings"
    files = [(r["python_codec"], (root / r["file"]).read_bytes(), r["language"])
             for r in devset_rows(root)]
    table("devset/encodings (chardet test files), no HTTP header", files)
    table("held-out sentences in legacy code pages, no declaration",
          held_out_sentences(args.shared))
    pages = held_out(args.shared)
    table("held-out legacy pages as served (own declarations)",
          [(truth, raw, lang) for _, raw, _, truth, lang in pages], with_codecs=False)
    table("held-out legacy pages, declarations removed",
          [(truth, bare, lang) for _, _, bare, truth, lang in pages], with_codecs=False)
    table("speed: real pages re-encoded in legacy code pages, no declaration",
          reencoded_pages(args.shared))
    double_encoded_table(args.shared)


if __name__ == "__main__":
    main()
