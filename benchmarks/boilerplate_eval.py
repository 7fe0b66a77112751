"""Boilerplate removal on labelled pages: ours next to jusText, trafilatura, readability-lxml
and resiliparse, on every devset set, in one run.

Scores (protocols of ``devset/README.md``, so figures compare with published ones):

* ``CE-F``: CleanEval word-level macro F (Evert 2008): whitespace-separated words of the output
  aligned with the gold words by difflib.SequenceMatcher; matched = TP, extra = FP, missing =
  FN; F per page, averaged over pages. Sets with a full gold text only.
* ``AEB-F1``: article-extraction-benchmark: ``\\w+`` tokens, 4-token shingles, per-page TP/FP/FN
  normalised to sum 1; P and R are means over pages, F1 from them. Full gold text only.
* ``TR-F1``: trafilatura-eval: a "with" segment found in the output = TP, else FN; a
  "without" segment found = FP; summed over pages (whitespace normalised on both sides).

Ours: ``blocks`` (the default, CleanEval's definition: all running text, readers' comments
included), ``article`` (``WACKY_EXTRACTOR = "article"``: the article only, the definition of
the article sets' gold) and plain ``bte``.

Each set is split in two halves by a hash of the page id: ``dev`` (the half thresholds and
cues were tuned on) and ``held`` (never looked at while tuning): a gap between them is
overfitting. Speed: MB/s of raw HTML (the page bytes as crawled) on one core, extraction
alone, from the decoded text (``wackycrawl.text.encoding.decode_html``, the same input for
every system). The anchors' outputs and timings are cached (``--cache``, keyed by set, page
and package version), as they do not change between runs of ours.

Then the multi-page-host comparison: pages of hosts with at least two pages in the devset
(host of the manifest URL, the archived URL's host for web.archive.org copies), ours with host
templates off, learnt over all pages of each host first (``wackycrawl.text.templates``, as
``wackycrawl clean`` does, with ``--template-min-pages``, default 2), and learnt in crawl order
(page by page, each page judged by those before it and itself, with the crawl's default
minimum of pages).

With ``--split parity`` the halves are the odd and the even pages of each set in manifest
order instead (a second cut: a change that helps one half and hurts the other shows).

Usage: python benchmarks/boilerplate_eval.py [SHARED_DIR] [--set NAME ...] [--cache DIR]
       [--no-anchors] [--split hash|parity]
SHARED_DIR defaults to ../shared relative to the repository root.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import statistics
import sys
import time
import warnings
from collections import Counter, defaultdict
from difflib import SequenceMatcher
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from wackycrawl.text import blocks, bte  # noqa: E402
from wackycrawl.text.encoding import decode_html  # noqa: E402

SETS = ["cleaneval-dev", "article-extraction-benchmark", "readability-testpages",
        "trafilatura-eval"]
JUSTEXT_STOPLISTS = {"en": "English", "de": "German", "fr": "French", "es": "Spanish",
                     "it": "Italian", "nl": "Dutch", "pl": "Polish", "pt": "Portuguese",
                     "fi": "Finnish", "sv": "Swedish", "ru": "Russian", "cs": "Czech"}
csv.field_size_limit(1 << 30)


def _justext(markup: str, lang: str) -> str:
    import justext

    stoplist = justext.get_stoplist(JUSTEXT_STOPLISTS.get(lang, "English"))
    return "\n".join(p.text for p in justext.justext(markup, stoplist) if not p.is_boilerplate)


def _trafilatura(markup: str, lang: str) -> str:
    import trafilatura

    return trafilatura.extract(markup) or ""


def _readability(markup: str, lang: str) -> str:
    import lxml.html
    from readability import Document

    summary = Document(markup).summary(html_partial=True)
    return lxml.html.fromstring(summary).text_content() if summary.strip() else ""


def _resiliparse(markup: str, lang: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return extract_plain_text(HTMLTree.parse(markup), main_content=True)


ANCHORS = {"jusText": (_justext, "justext"), "trafilatura": (_trafilatura, "trafilatura"),
           "readability": (_readability, "readability-lxml"),
           "resiliparse": (_resiliparse, "resiliparse")}
OURS = {"blocks": lambda m, lang: "\n".join(blocks.extract(m)),
        "article": lambda m, lang: "\n".join(blocks.extract(m, article=True)),
        "bte": lambda m, lang: "\n".join(bte.extract(m))}


class Page:
    def __init__(self, set_name: str, page_id: str, raw: bytes, lang: str, url: str, gold):
        self.set, self.id, self.raw, self.lang, self.url, self.gold = (
            set_name, page_id, raw, lang, url, gold)
        self.split = "held" if hashlib.sha1(page_id.encode()).digest()[0] % 2 else "dev"
        try:
            self.text = decode_html(raw).text
        except Exception:  # refused or failed: the same lenient text for every system
            self.text = raw.decode("utf-8", "replace")


def load(set_dir: Path) -> list[Page]:
    """Pages of a devset folder; ``gold`` is the text, or ``(with, without)`` segment lists."""
    pages = []
    with open(set_dir / "manifest.tsv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            notes = dict(n.split("=", 1) for n in re.split(r"[;\s]+", row.get("notes") or "")
                         if "=" in n)
            html = set_dir / f"{row['id']}.html"
            if not html.exists():
                html = set_dir / notes.get("file", "").strip()
            full = set_dir / f"{row['id']}.txt"
            if full.exists():
                gold = full.read_text(encoding="utf-8")
            elif (set_dir / f"{row['id']}.with.txt").exists():
                gold = tuple(
                    [s for s in (set_dir / f"{row['id']}.{kind}.txt").read_text(
                        encoding="utf-8").splitlines() if s.strip()]
                    for kind in ("with", "without"))
            else:
                continue
            pages.append(Page(set_dir.name, row["id"], html.read_bytes(), row["language"],
                              row["url"], gold))
    return pages


def cleaneval(gold: str, system: str) -> float:
    g, s = gold.split(), system.split()
    tp = sum(b.size for b in SequenceMatcher(None, g, s, autojunk=False).get_matching_blocks())
    p, r = (tp / len(s) if s else 0.0), (tp / len(g) if g else 0.0)
    return 2 * p * r / (p + r) if p + r else 0.0


_TOKEN_RE = re.compile(r"\w+")


def shingle_counts(gold: str, system: str, n: int = 4) -> tuple[float, float, float]:
    def shingles(text):
        t = _TOKEN_RE.findall(text)
        return Counter(tuple(t[i:i + n]) for i in range(max(1, len(t) - n + 1)) if t[i:i + n])

    g, s = shingles(gold), shingles(system)
    tp = sum((g & s).values())
    fp, fn = sum(s.values()) - tp, sum(g.values()) - tp
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def aeb_f1(counts: list[tuple[float, float, float]]) -> float:
    """F1 of the mean per-page precision and recall (AEB's evaluate.py rules for empty pages)."""
    def ratio(tp, other, fp, fn):
        return 1.0 if fp == fn == 0 else (0.0 if tp == other == 0 else tp / (tp + other))

    ps = [ratio(tp, fp, fp, fn) for tp, fp, fn in counts if tp + fp > 0]
    rs = [ratio(tp, fn, fp, fn) for tp, fp, fn in counts if tp + fn > 0]
    p, r = (statistics.mean(ps) if ps else 0.0), (statistics.mean(rs) if rs else 0.0)
    return 2 * p * r / (p + r) if p + r else 0.0


def trafilatura_f1(pages: list[Page], outputs: list[str]) -> float:
    tp = fp = fn = 0
    for page, out in zip(pages, outputs):
        text = " ".join(out.split())
        with_, without = page.gold
        for seg in with_:
            if " ".join(seg.split()) in text:
                tp += 1
            else:
                fn += 1
        fp += sum(" ".join(seg.split()) in text for seg in without)
    p, r = (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)
    return 2 * p * r / (p + r) if p + r else 0.0


def scores(pages: list[Page], outputs: list[str]) -> dict[str, float]:
    if pages and isinstance(pages[0].gold, tuple):
        return {"TR-F1": trafilatura_f1(pages, outputs)}
    return {"CE-F": statistics.mean(cleaneval(p.gold, o) for p, o in zip(pages, outputs)),
            "AEB-F1": aeb_f1([shingle_counts(p.gold, o) for p, o in zip(pages, outputs)])}


def run(fn, pages: list[Page]) -> tuple[list[str], float]:
    """Outputs and seconds (one run each; warnings of the anchors silenced)."""
    outputs, seconds = [], 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for page in pages:
            t0 = time.perf_counter()
            try:
                out = fn(page.text, page.lang)
            except Exception:  # an anchor failing on a page scores as empty output
                out = ""
            seconds += time.perf_counter() - t0
            outputs.append(out)
    return outputs, seconds


def anchor_outputs(name: str, pages: list[Page], cache: Path) -> tuple[list[str], float]:
    fn, package = ANCHORS[name]
    path = cache / f"{pages[0].set}.{package}-{version(package)}.json"
    if path.exists():
        data = json.loads(path.read_text())
        if all(p.id in data["out"] for p in pages):
            return [data["out"][p.id] for p in pages], data["seconds"]
    outputs, seconds = run(fn, pages)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seconds": seconds,
                                "out": {p.id: o for p, o in zip(pages, outputs)}}))
    return outputs, seconds


def halves_of(pages: list[Page], split: str) -> dict[str, list[int]]:
    """Page indexes of the two halves: ``hash`` -> dev/held (:class:`Page`), ``parity`` ->
    odd/even position in the manifest (1st, 3rd... page / 2nd, 4th...)."""
    if split == "parity":
        return {"odd": list(range(0, len(pages), 2)), "even": list(range(1, len(pages), 2))}
    return {s: [i for i, p in enumerate(pages) if p.split == s] for s in ("dev", "held")}


def table(set_name: str, pages: list[Page], results: dict[str, tuple[list[str], float]],
          split: str = "hash"):
    mb = sum(len(p.raw) for p in pages) / 1e6
    halves = halves_of(pages, split)
    names = list(halves)
    print(f"\n{set_name}: {len(pages)} pages ({names[0]} {len(halves[names[0]])}, {names[1]} "
          f"{len(halves[names[1]])}), {mb:.1f} MB raw HTML")
    keys = list(scores(pages[:1], [""]))
    head = "".join(f"{k + ' ' + s:>14}" for k in keys for s in ("all", *names))
    print(f"{'':<13}{head}{'MB/s':>8}")
    for name, (outputs, seconds) in results.items():
        cells = []
        for key in keys:
            for idx in (range(len(pages)), *halves.values()):
                sub = [pages[i] for i in idx]
                cells.append(scores(sub, [outputs[i] for i in idx])[key] if sub else 0.0)
        print(f"{name:<13}" + "".join(f"{c:>14.3f}" for c in cells) + f"{mb / seconds:>8.1f}")


def host_of(url: str) -> str:
    m = re.match(r"https?://web\.archive\.org/web/[^/]+/(.*)", url)
    return (urlsplit(m.group(1) if m else url).hostname or "").removeprefix("www.")


def host_comparison(pages: list[Page], min_pages: int) -> None:
    """Template blocks off, learnt over each host's pages first (as ``wackycrawl clean``
    does, ``min_pages``), and learnt as a crawl learns them: page by page in manifest
    order, a page judged by the pages before it and itself, with the crawl's default
    ``WACKY_TEMPLATE_MIN_PAGES`` (the first pages of a host keep blocks later ones lose)."""
    try:
        from wackycrawl.text import templates
    except ImportError:  # a checkout from before host templates
        print("\nmulti-page hosts: no wackycrawl.text.templates in this checkout")
        return
    by_host = defaultdict(list)
    for p in pages:
        if p.url:
            by_host[(p.set, host_of(p.url))].append(p)
    groups = [g for g in by_host.values() if len(g) >= 2]
    print(f"\nmulti-page hosts: {len(groups)} hosts, {sum(map(len, groups))} pages "
          f"(off; learnt over each host's pages first, min pages {min_pages}; learnt in "
          f"crawl order, min pages {templates.MIN_PAGES})")
    rows = defaultdict(list)
    for group in groups:
        store = templates.TemplateStore(min_pages=min_pages)
        crawl = templates.TemplateStore()
        for p in group:
            store.observe(host_of(p.url), blocks.block_hashes(p.text))
        for p in group:
            off = "\n".join(blocks.extract(p.text))
            host = host_of(p.url)
            first = "\n".join(blocks.analyse(p.text, lambda h, host=host: store.templates(host, h))
                              .paragraphs)
            order = "\n".join(blocks.analyse(p.text, lambda h, host=host: crawl.learn(host, h))
                              .paragraphs)
            rows[p.set].append((p, off, first, order))
    for set_name, items in rows.items():
        group_pages = [p for p, *_ in items]
        off, first, order = (scores(group_pages, [row[i] for row in items]) for i in (1, 2, 3))
        cells = "  ".join(f"{k} off {off[k]:.3f} first {first[k]:.3f} in order {order[k]:.3f}"
                          for k in off)
        print(f"  {set_name:<30}{len(items):>4} pages  {cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shared", nargs="?", default=str(REPO.parent / "shared"))
    ap.add_argument("--set", action="append", dest="sets", help=f"default: all of {SETS}")
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "wackycrawl-bench"))
    ap.add_argument("--template-min-pages", type=int, default=2)
    ap.add_argument("--no-anchors", action="store_true", help="ours only")
    ap.add_argument("--split", choices=("hash", "parity"), default="hash",
                    help="halves: dev/held by a hash of the page id (default) or odd/even "
                         "pages in manifest order")
    args = ap.parse_args()
    everything = []
    for set_name in args.sets or SETS:
        pages = load(Path(args.shared) / "devset" / "boilerplate" / set_name)
        everything += pages
        results = {name: run(fn, pages) for name, fn in OURS.items()}
        if not args.no_anchors:
            for name in ANCHORS:
                results[name] = anchor_outputs(name, pages, Path(args.cache))
        table(set_name, pages, results, args.split)
    host_comparison(everything, args.template_min_pages)


if __name__ == "__main__":
    main()
