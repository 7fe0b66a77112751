"""Near-duplicate detection on the labelled pairs of devset/neardup, and fingerprint speed.

Each page is decoded (wackycrawl.text.encoding) and cleaned by the project's default
boilerplate extractor (wackycrawl.text.extractors); a pair is called near-duplicate when
a fresh DuplicateDetector that has added page a says "exact_duplicate" or
"near_duplicate" for page b (so the min-features rule applies). Reported side by side:
precision / recall / F1 of the near-dup class for our 64-bit word simhash at several k,
the same on the whole page text without boilerplate removal, and the ``simhash``
package's default Simhash (character 4-grams) on the clean text; then the share of pairs
called near-dup per kind; then fingerprints per second on the clean texts: ours (cold and
warm feature-hash cache) vs simhash.Simhash (default, and with our word features, which
crashes on weights > 255 with NumPy 2: case C28).

Usage: python benchmarks/neardup_eval.py [SHARED_DIR] [--k 0 1 2 3 4 5 7] [--repeat 3]
SHARED_DIR defaults to ../shared relative to the repository root.
"""

import argparse
import csv
import time
from collections import defaultdict
from pathlib import Path

import lxml.html
import simhash

from wackycrawl.dedup.detector import MIN_FEATURES, DuplicateDetector
from wackycrawl.dedup.simhash import feature_hash64, features, hamming
from wackycrawl.dedup.simhash import simhash as word_simhash
from wackycrawl.text.encoding import decode_html
from wackycrawl.text.extractors import get_extractor

REPO = Path(__file__).resolve().parent.parent


def load(folder: Path):
    """(pairs as dicts, {file: clean text}, {file: whole visible text}, raw HTML bytes)."""
    with open(folder / "pairs.tsv", newline="") as fh:
        pairs = list(csv.DictReader(fh, delimiter="\t"))
    extract = get_extractor()
    clean, whole, raw_bytes = {}, {}, 0
    for name in sorted({p["a_file"] for p in pairs} | {p["b_file"] for p in pairs}):
        raw = (folder / name).read_bytes()
        raw_bytes += len(raw)
        html = decode_html(raw).text
        clean[name] = "\n".join(extract(html))
        whole[name] = lxml.html.fromstring(html).text_content()
    return pairs, clean, whole, raw_bytes


def ours(k: int, texts: dict):
    def call(a: str, b: str) -> bool:
        detector = DuplicateDetector(k=k)
        detector.add(detector.check(texts[a]))
        return detector.check(texts[b]).is_duplicate
    return call


def package_default(k: int, texts: dict):
    values = {name: simhash.Simhash(text).value for name, text in texts.items()}
    return lambda a, b: hamming(values[a], values[b]) <= k


def score(pairs, call):
    """(precision, recall, F1, {kind: share called near-dup})."""
    tp = fp = fn = 0
    per_kind = defaultdict(list)
    for pair in pairs:
        said = call(pair["a_file"], pair["b_file"])
        gold = pair["label"] == "near-dup"
        tp += said and gold
        fp += said and not gold
        fn += gold and not said
        per_kind[pair["kind"]].append(said)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f, {kind: sum(v) / len(v) for kind, v in per_kind.items()}


def rate(fn, texts, repeat: int) -> tuple[float, int]:
    """(best docs/s over ``repeat`` runs, number of texts that raised)."""
    best, errors = float("inf"), 0
    for _ in range(repeat):
        errors = 0
        t0 = time.perf_counter()
        for text in texts:
            try:
                fn(text)
            except (OverflowError, ValueError):
                errors += 1
        best = min(best, time.perf_counter() - t0)
    return len(texts) / best, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shared", nargs="?", default=str(REPO.parent / "shared"))
    ap.add_argument("--k", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5, 7])
    ap.add_argument("--repeat", type=int, default=3, help="timing runs; the best is kept")
    args = ap.parse_args()
    pairs, clean, whole, raw_bytes = load(Path(args.shared) / "devset" / "neardup")
    n_pos = sum(p["label"] == "near-dup" for p in pairs)
    tiny = sum(sum(features(t).values()) < MIN_FEATURES for t in clean.values())
    print(f"{len(pairs)} pairs ({n_pos} near-dup), {len(clean)} pages; "
          f"{tiny} clean texts under {MIN_FEATURES} words (never matched by simhash)")

    rows = [(f"ours k={k}", score(pairs, ours(k, clean))) for k in args.k]
    rows += [(f"ours no-boilerplate-removal k={k}", score(pairs, ours(k, whole))) for k in (3,)]
    rows += [(f"simhash.Simhash 4-grams k={k}", score(pairs, package_default(k, clean)))
             for k in (3,)]
    kinds = sorted({p["kind"] for p in pairs}, key=lambda kd: (kd in ("same-site",
                   "same-template", "random", "same-topic"), kd))
    print(f"{'detector':<36}{'P':>6}{'R':>6}{'F1':>6}  " + "".join(f"{kd:>14}" for kd in kinds))
    for name, (p, r, f, per_kind) in rows:
        print(f"{name:<36}{p:6.2f}{r:6.2f}{f:6.2f}  "
              + "".join(f"{per_kind[kd]:14.2f}" for kd in kinds))
    print("(per kind: share of pairs called near-dup; the first six kinds are near-dups)")

    texts = list(clean.values())
    mb = sum(len(t.encode()) for t in texts) / 1e6
    feature_hash64.cache_clear()
    cold, _ = rate(word_simhash, texts, 1)
    timings = [
        ("ours word simhash, cold hash cache", (cold, 0)),
        ("ours word simhash, warm hash cache", rate(word_simhash, texts, args.repeat)),
        ("simhash.Simhash(text) 4-grams", rate(simhash.Simhash, texts, args.repeat)),
        ("simhash.Simhash(our word features)",
         rate(lambda t: simhash.Simhash(dict(features(t))), texts, args.repeat)),
    ]
    raw_mb = raw_bytes / 1e6
    print(f"\nfingerprint speed on {len(texts)} clean texts ({mb:.2f} MB UTF-8, from "
          f"{raw_mb:.2f} MB of raw HTML):")
    print(f"{'':<38}{'docs/s':>9}{'MB/s clean':>11}{'MB/s raw':>10}{'errors':>8}")
    for name, (docs_s, errors) in timings:
        print(f"{name:<38}{docs_s:9.0f}{docs_s * mb / len(texts):11.2f}"
              f"{docs_s * raw_mb / len(texts):10.2f}{errors:>8}")


if __name__ == "__main__":
    main()
