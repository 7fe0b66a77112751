"""Near-duplicate detection on labelled pairs (devset/neardup or a held-out split of the
same layout), and fingerprint speed.

Each page is decoded (wackycrawl.text.encoding) and cleaned by the project's default
boilerplate extractor (wackycrawl.text.extractors); a pair is called near-duplicate when
a fresh DuplicateDetector that has added page a says "exact_duplicate" or
"near_duplicate" for page b (so the min-features rule applies). Reported side by side:
precision / recall / F1 of the near-dup class for

* ours: simhash candidates within k bits confirmed by word 5-gram resemblance >= 0.5
  (the crawl's default at k = 11), at several k, and at the default k on each half of the
  pairs (odd and even rows: a check that the defaults are not fitted to the whole set);
* ours, simhash alone (every candidate accepted: the dedup stage before the shingle check),
  at several k;
* ours on the whole page text without boilerplate removal;
* the ``simhash`` package alone: its default Simhash (character 4-grams) on the clean text;

then the share of pairs called near-dup per kind, the resemblance margin (smallest estimate
among near-dup pairs, largest among distinct pairs that were candidates), and fingerprints
per second on the clean texts: ours (simhash + shingle sketch) vs simhash.Simhash (default,
and with our word features, which crashes on weights > 255 with NumPy 2: case C28).

Usage: python benchmarks/neardup_eval.py [SHARED_DIR] [--split DIR] [--k 3 7 11 15] [--repeat 3]
SHARED_DIR defaults to ../shared relative to the repository root; --split (a folder with
pairs.tsv and the pages) defaults to SHARED_DIR/devset/neardup.
"""

import argparse
import csv
import time
from collections import defaultdict
from pathlib import Path

import lxml.html
import simhash

from wackycrawl.dedup.detector import K, MIN_FEATURES, DuplicateDetector, fingerprint_text
from wackycrawl.dedup.simhash import feature_hash64, features, hamming
from wackycrawl.dedup.simhash import simhash as word_simhash
from wackycrawl.text.funcwords import function_words
from wackycrawl.text.encoding import EncodingError, decode_html
from wackycrawl.text.extractors import get_extractor

REPO = Path(__file__).resolve().parent.parent


def load(folder: Path):
    """(pairs as dicts, {file: clean text}, {file: whole visible text}, raw HTML bytes)."""
    with open(folder / "pairs.tsv", newline="") as fh:
        pairs = list(csv.DictReader(fh, delimiter="\t"))
    extract = get_extractor()
    clean, whole, raw_bytes, undecodable = {}, {}, 0, []
    for name in sorted({p["a_file"] for p in pairs} | {p["b_file"] for p in pairs}):
        raw = (folder / name).read_bytes()
        raw_bytes += len(raw)
        try:
            html = decode_html(raw).text
        except EncodingError:  # the crawl drops such a page (``encoding``): no text to compare
            undecodable.append(name)
            clean[name] = whole[name] = ""
            continue
        clean[name] = "\n".join(extract(html))
        whole[name] = lxml.html.fromstring(html).text_content()
    if undecodable:
        print(f"{len(undecodable)} pages the crawl would drop as undecodable (empty text here): "
              + " ".join(undecodable))
    return pairs, clean, whole, raw_bytes


def ours(k: int, texts: dict, threshold: float | None = None, margins: dict | None = None):
    """Pair caller of a fresh detector per pair; ``threshold=0`` accepts every simhash
    candidate (simhash alone). ``margins`` collects the resemblance of every pair that had a
    candidate, by gold label."""
    kwargs = {} if threshold is None else {"threshold": threshold}
    stopwords = function_words()
    fps = {}

    def call(a: str, b: str) -> bool:
        detector = DuplicateDetector(k=k, stopwords=stopwords, **kwargs)
        for name in (a, b):
            if name not in fps:
                fps[name] = detector.fingerprint(texts[name])
        detector.add(detector.check(fps[a], texts[a]))
        decision = detector.check(fps[b], texts[b])
        if margins is not None and decision.verdict in ("new", "near_duplicate") \
                and decision.resemblance is not None:
            margins.setdefault(call.gold, []).append(decision.resemblance)
        return decision.is_duplicate
    return call


def package_default(k: int, texts: dict):
    values = {name: simhash.Simhash(text).value for name, text in texts.items()}
    return lambda a, b: hamming(values[a], values[b]) <= k


def score(pairs, call):
    """(precision, recall, F1, {kind: share called near-dup})."""
    tp = fp = fn = 0
    per_kind = defaultdict(list)
    for pair in pairs:
        gold = pair["label"] == "near-dup"
        call.gold = gold
        said = call(pair["a_file"], pair["b_file"])
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
    ap.add_argument("--split", help="folder with pairs.tsv (default SHARED/devset/neardup)")
    ap.add_argument("--k", type=int, nargs="+", default=[3, 7, 11, 15])
    ap.add_argument("--repeat", type=int, default=3, help="timing runs; the best is kept")
    args = ap.parse_args()
    folder = Path(args.split) if args.split else Path(args.shared) / "devset" / "neardup"
    pairs, clean, whole, raw_bytes = load(folder)
    n_pos = sum(p["label"] == "near-dup" for p in pairs)
    tiny = sum(sum(features(t).values()) < MIN_FEATURES for t in clean.values())
    print(f"{folder}: {len(pairs)} pairs ({n_pos} near-dup), {len(clean)} pages; "
          f"{tiny} clean texts under {MIN_FEATURES} words (never matched by simhash)")

    margins: dict[bool, list[float]] = {}
    rows = [(f"ours k={k} + shingles", score(pairs, ours(k, clean, None,
                                                         margins if k == 11 else None)))
            for k in args.k]
    rows += [(f"ours k={K} + shingles, pairs {half}", score(pairs[i::2], ours(K, clean)))
             for i, half in enumerate(("1, 3, 5 ...", "2, 4, 6 ..."))]
    rows += [(f"ours simhash alone k={k}", score(pairs, ours(k, clean, 0.0))) for k in args.k]
    rows += [("ours no-boilerplate-removal k=11", score(pairs, ours(11, whole)))]
    rows += [(f"simhash.Simhash 4-grams k={k}", score(pairs, package_default(k, clean)))
             for k in (3, 7)]
    kinds = sorted({p["kind"] for p in pairs}, key=lambda kd: (kd in ("same-site",
                   "same-template", "random", "same-topic"), kd))
    print(f"{'detector':<42}{'P':>6}{'R':>6}{'F1':>7}  " + "".join(f"{kd:>14}" for kd in kinds))
    for name, (p, r, f, per_kind) in rows:
        print(f"{name:<42}{p:6.3f}{r:6.3f}{f:7.4f}  "
              + "".join(f"{per_kind.get(kd, 0):14.2f}" for kd in kinds))
    print("(per kind: share of pairs called near-dup; the first kinds are near-dups)")
    pos, neg = margins.get(True, []), margins.get(False, [])
    print(f"resemblance at k=11 (candidates only): near-dup pairs min "
          f"{min(pos) if pos else float('nan'):.3f} (n={len(pos)}), distinct pairs max "
          f"{max(neg) if neg else float('nan'):.3f} (n={len(neg)}); threshold 0.5")

    texts = list(clean.values())
    mb = sum(len(t.encode()) for t in texts) / 1e6
    stopwords = function_words()
    feature_hash64.cache_clear()
    cold, _ = rate(lambda t: fingerprint_text(t, stopwords), texts, 1)
    timings = [
        ("ours simhash + sketch, cold cache", (cold, 0)),
        ("ours simhash + sketch, warm cache",
         rate(lambda t: fingerprint_text(t, stopwords), texts, args.repeat)),
        ("ours word simhash alone, warm cache", rate(word_simhash, texts, args.repeat)),
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
