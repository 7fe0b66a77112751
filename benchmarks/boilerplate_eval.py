"""Boilerplate removal on labelled pages: CleanEval word-level P/R/F and speed, side by side.

Protocol (Evert 2008, as in the CleanEval shared task): whitespace-normalised words of the
system output are aligned with the gold words by difflib.SequenceMatcher; matched words are
true positives, extra ones false positives, missing ones false negatives. P/R/F are reported
micro (counts summed over pages) and macro (mean of per-page figures). Speed is megabytes
of raw HTML (the page bytes as crawled) per second on one core: "MB/s" for extraction alone,
"chain" for decoding (wackycrawl.text.encoding.decode_html, timed once) plus extraction.

Usage: python benchmarks/boilerplate_eval.py [SHARED_DIR] [--set cleaneval-dev] [--repeat 3]
SHARED_DIR defaults to ../shared relative to the repository root.
"""

import argparse
import time
from difflib import SequenceMatcher
from pathlib import Path

import justext

from wackycrawl.text import blocks, bte
from wackycrawl.text.encoding import decode_html

REPO = Path(__file__).resolve().parent.parent


def _justext(markup: str) -> list[str]:
    paras = justext.justext(markup, justext.get_stoplist("English"))
    return [p.text for p in paras if not p.is_boilerplate]


EXTRACTORS = {"bte": bte.extract, "blocks": blocks.extract, "justext": _justext}


def load(set_dir: Path) -> list[tuple[str, bytes, str]]:
    """(id, raw html bytes, gold text) for each page of a devset folder."""
    pages = []
    for gold in sorted(set_dir.glob("*.txt")):
        if gold.name.count(".") == 1:
            page_id = gold.stem
            pages.append((page_id, (set_dir / f"{page_id}.html").read_bytes(), gold.read_text()))
    return pages


def word_scores(gold: str, system: str) -> tuple[int, int, int]:
    """(TP, FP, FN) of system words against gold words (CleanEval alignment)."""
    g, s = gold.split(), system.split()
    tp = sum(b.size for b in SequenceMatcher(None, g, s, autojunk=False).get_matching_blocks())
    return tp, len(s) - tp, len(g) - tp


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def evaluate(name, fn, docs, golds, raw_bytes, decode_seconds, repeat):
    """Print one row: micro and macro P/R/F in percent, then MB/s of raw HTML."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        outputs = [fn(text) for text in docs]
        best = min(best, time.perf_counter() - t0)
    totals, per_page = [0, 0, 0], []
    for gold, out in zip(golds, outputs):
        counts = word_scores(gold, "\n".join(out))
        totals = [a + b for a, b in zip(totals, counts)]
        per_page.append(prf(*counts))
    macro = [sum(x[i] for x in per_page) / len(per_page) for i in range(3)]
    micro = prf(*totals)
    mbs, chain = raw_bytes / best / 1e6, raw_bytes / (best + decode_seconds) / 1e6
    scores = "".join(f"{v * 100:7.1f}" for v in (*micro, *macro))
    print(f"{name:<9}{scores}{mbs:9.2f}{chain:9.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shared", nargs="?", default=str(REPO.parent / "shared"))
    ap.add_argument("--set", default="cleaneval-dev")
    ap.add_argument("--repeat", type=int, default=3, help="timing runs; the best is kept")
    args = ap.parse_args()
    pages = load(Path(args.shared) / "devset" / "boilerplate" / args.set)
    raw_bytes = sum(len(raw) for _, raw, _ in pages)
    t0 = time.perf_counter()
    docs = [decode_html(raw).text for _, raw, _ in pages]
    decode_seconds = time.perf_counter() - t0
    golds = [gold for _, _, gold in pages]
    print(
        f"{args.set}: {len(pages)} pages, {raw_bytes / 1e6:.2f} MB raw HTML; "
        f"decode_html alone {raw_bytes / decode_seconds / 1e6:.1f} MB/s"
    )
    header = "".join(f"{h:>7}" for h in ("P-mic", "R-mic", "F-mic", "P-mac", "R-mac", "F-mac"))
    print(f"{'':<9}{header}{'MB/s':>9}{'chain':>9}")
    for name, fn in EXTRACTORS.items():
        evaluate(name, fn, docs, golds, raw_bytes, decode_seconds, args.repeat)


if __name__ == "__main__":
    main()
