"""The team's hostile cases (../shared/cases/C*) run through the project's own pure modules.

Prints one row per check: case, expected (from the case's expected.txt/.tsv), observed,
verdict. Crawl-level cases (C01, C04 timing, C06, C08 streaming, C29) are real crawls in
tests/test_robots_crawl.py, test_politeness_crawl.py, test_backoff_crawl.py,
test_sizewindow_crawl.py. Usage: ``python benchmarks/hostile_cases.py [CASES_DIR]``.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from wackycrawl.crawl.politeness import effective_interval
from wackycrawl.crawl.robots import parse_robots
from wackycrawl.crawl.urls import canonical_url, request_fingerprint
from wackycrawl.dedup.detector import DuplicateDetector
from wackycrawl.dedup.simhash import feature_hash64, features, fingerprint, hamming, simhash
from wackycrawl.text import blocks
from wackycrawl.text.encoding import EncodingError, decode_html
from wackycrawl.text.funcwords import identify
from wackycrawl.trec.reader import TruncatedFileError, iter_docs, read_index, read_member

ROOT = Path(__file__).resolve().parent.parent
rows: list[tuple[str, str, str, bool]] = []


def row(case: str, expected: str, observed: str, ok: bool) -> None:
    rows.append((case, expected, observed, ok))


def tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def c02(d: Path) -> None:
    for name, path, want, *_ in tsv(d / "expected.tsv"):
        rules = parse_robots((d / name).read_bytes())
        got = "ALLOW" if rules.allowed("https://www.example.test" + path, "wackycrawl") \
            else "DISALLOW"
        row("C02", f"{name} {path} {want}", got, got == want)


def c04(d: Path) -> None:
    for host, name, want, *_ in tsv(d / "expected.tsv"):
        delay = parse_robots((d / name).read_bytes()).crawl_delay("wackycrawl")
        interval, capped = effective_interval(1.0, delay, 60.0)
        row("C04", f"{host} {want}", f"{interval:g} s{' capped' if capped else ''}",
            interval == float(want.split()[0]))


def c09_c10(d: Path, case: str) -> None:
    headers = dict(r[:2] for r in tsv(d / "headers.tsv"))
    for name, *rest in tsv(d / "expected.tsv"):
        fragment = rest[1] if case == "C09" else rest[0]
        try:
            dec = decode_html((d / name).read_bytes(), headers.get(name))
            got = f"{dec.encoding}, {dec.repairs} repairs"
            ok = all(part.strip() in dec.text for part in fragment.split(" / "))
        except EncodingError as exc:
            got, ok = f"rejected: {exc}", False
        row(case, f"{name}: text contains {fragment[:40]!r}", got, ok)


def c12_c13(d: Path, case: str) -> None:
    for gold, *rest in tsv(d / "input.tsv"):
        text = rest[-1]
        if case == "C12":  # repeated past the 200-character minimum, so LID must decide
            got = identify(" ".join([text] * (250 // len(text) + 1))).lang
            row(case, f"{text[:30]!r} repeated: {gold}", got, got == gold)
        else:  # short strings: "und" (too short), never a wrong language
            got = identify(text).lang
            row(case, f"{text[:30]!r}: und (too short)", got, got == "und")


def c15(d: Path) -> None:
    texts = {r[0]: r[1] for r in tsv(d / "input.tsv")}
    for a, b in [("hi1", "hi2"), ("hi1", "hi3"), ("hi1", "hi4"), ("hi5", "hi6"), ("th1", "th2"),
                 ("sym1", "sym2")]:
        dist = hamming(simhash(texts[a]), simhash(texts[b]))
        row("C15", f"{a}-{b} distance > 3", str(dist), dist > 3)
    det = DuplicateDetector()
    for key in ("sym1", "sym2", "empty"):
        dec = det.check(texts.get(key, ""))
        det.add(dec)
        row("C15", f"{key}: never a duplicate", dec.verdict, not dec.is_duplicate)


def c16(d: Path) -> None:
    det = DuplicateDetector()
    det.add(det.check((d / "doc_a.txt").read_text(encoding="utf-8")))
    for name, _what, want, *_ in tsv(d / "expected.tsv"):
        if not name.startswith("doc_"):
            continue
        dec = det.check((d / name).read_text(encoding="utf-8"))
        ok = dec.is_duplicate == want.startswith("NEAR")
        row("C16", f"{name} {want}", f"{dec.verdict} (d={dec.distance})", ok)


def c18(d: Path) -> None:
    fps = [request_fingerprint(r[0], r[1], r[2].encode() if len(r) > 2 else b"")
           for r in tsv(d / "requests.tsv")]
    row("C18", "rows 1-3 one fingerprint", f"{len(set(fps[:3]))} distinct", len(set(fps[:3])) == 1)


def c22(d: Path) -> None:
    bad = [(u, canonical_url(u)) for u, want in tsv(d / "urls.tsv") if canonical_url(u) != want]
    idem = all(canonical_url(canonical_url(u)) == canonical_url(u) for u, _ in tsv(d / "urls.tsv"))
    row("C22", "16 URLs -> expected keys, idempotent",
        f"{len(bad)} differ, idempotent={idem}", not bad and idem)


def c24(d: Path) -> None:
    text = "\n".join(blocks.extract((d / "page.html").read_text(encoding="utf-8")))
    norm = " ".join(text.split())
    want = [" ".join(x.split()) for x in (d / "expected_main_text.txt").read_text(
        encoding="utf-8").splitlines() if x.strip()]
    bad = [x for x in (d / "must_not_contain.txt").read_text(encoding="utf-8").splitlines()
           if x.strip() and x.strip() in text]
    pos, missing = 0, 0
    for line in want:
        i = norm.find(line, pos)
        missing += i < 0
        pos = i if i >= 0 else pos
    row("C24", f"{len(want)} lines in order, none of must_not_contain",
        f"{missing} missing, {len(bad)} unwanted", not missing and not bad)


def c26(d: Path) -> None:
    path = d / "corpus-00000.trec.gz"
    docs = [doc.docno for _, doc in iter_docs(str(path))]
    index = read_index(str(path))
    row("C26", "3 docs == 3 index lines", f"{len(docs)} docs, {len(index)} lines",
        len(docs) == len(index) == 3)
    with open(path, "rb") as f:
        member = read_member(f, 196, 199)
    row("C26", "offset 196 -> WACKY-20261130-0002", member.split(b"\n")[1].decode()[:40],
        b"WACKY-20261130-0002" in member)
    try:
        list(iter_docs(str(d / "corpus-00001-truncated.trec.gz")))
        observed, ok = "no error", False
    except TruncatedFileError as exc:
        observed, ok = f"TruncatedFileError after {exc.complete} docs", exc.complete == 2
    row("C26", "truncated: 2 docs then an error", observed, ok)
    single = [doc for _, doc in iter_docs(str(d / "corpus-00002-single-member.trec.gz"))]
    row("C26", "single-member file: 3 docs", f"{len(single)} docs", len(single) == 3)


def c28(d: Path) -> None:
    text = (d / "text_frequent_word.txt").read_text(encoding="utf-8")
    weights = features(text)
    v = [0] * 64
    for feature, w in weights.items():
        h = feature_hash64(feature)
        for i in range(64):
            v[i] += w if h >> i & 1 else -w
    want = sum(1 << i for i in range(64) if v[i] > 0)
    try:
        got = fingerprint(weights)
        observed, ok = f"{got:016x} (max weight {max(weights.values())})", got == want
    except (OverflowError, ValueError) as exc:
        observed, ok = f"{type(exc).__name__}: {exc}", False
    row("C28", f"fingerprint == definition with Python ints ({want:016x})", observed, ok)


def c08(d: Path) -> None:
    from wackycrawl.crawl.sizewindow import DecodedMeter, window_reason
    for name, how, _wire, _dec, want in tsv(d / "expected.tsv"):
        if "truncated" in want or "chunked" in how:
            continue  # streaming and data loss: real crawls in tests/test_sizewindow_crawl.py
        raw = (d / name).read_bytes()
        body = gzip.decompress(raw) if name.endswith(".gz") else raw
        if "gzip" in how:
            meter = DecodedMeter("gzip", 204800)
            meter.feed(raw)
            size = meter.size if meter.over else len(body)
        else:
            size = len(body)
        reason = window_reason(size, encoded="gzip" in how) or "ACCEPT"
        ok = (reason == "ACCEPT") == want.startswith("ACCEPT")
        row("C08", f"{name} ({how[:30]}) {want[:20]}", reason, ok)


def main(cases: Path) -> int:
    c02(cases / "C02")
    c04(cases / "C04")
    c08(cases / "C08")
    c09_c10(cases / "C09", "C09")
    c09_c10(cases / "C10", "C10")
    c12_c13(cases / "C12", "C12")
    c12_c13(cases / "C13", "C13")
    c15(cases / "C15")
    c16(cases / "C16")
    c18(cases / "C18")
    c22(cases / "C22")
    c24(cases / "C24")
    c26(cases / "C26")
    c28(cases / "C28")
    print("| case | expected | observed | verdict |\n|---|---|---|---|")
    for case, expected, observed, ok in rows:
        print(f"| {case} | {expected} | {observed} | {'ok' if ok else 'FAIL'} |")
    failed = sum(not r[3] for r in rows)
    print(f"\n{len(rows) - failed} of {len(rows)} checks ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "cases"))
