"""Language stage vs py3langid and langid.py: per-label precision and recall on every language
of the devset, close-language confusion, docs/s.

Data: ``<shared>/devset/langid/sentences.tsv`` (lang<TAB>text, lingua's test sentences of 75
languages, ~100 characters each). Two sets are judged:

- **sentences**: each sentence alone, through :class:`wackycrawl.text.funcwords.Identifier`
  with ``min_chars=0`` (no length floor) and otherwise the defaults;
- **documents**: ``--doc-sentences`` consecutive sentences of one language (default 10,
  ~1,000 characters, each sentence used once) as the paragraphs of an item, through the
  crawl's own ``LanguagePipeline`` with the project's settings (the label it writes in
  ``item["language"]``, kept or dropped).

Per label: precision = right / given (``und`` is not a label), over ALL languages' texts, so
a Sesotho text called ``it`` counts against ``it``; recall = right / texts of that language.
Goals (issue 7): precision >= 0.99 for every label given, recall >= 0.98 on the languages with
a function-word list, no close-pair confusion above 1 %. The same figures are printed for
py3langid and langid.py alone (langid.py on the first ``--anchor-docs`` documents per
language only: it is slow). Speed: CPU docs/s (``time.process_time``, best of ``--repeat``
interleaved runs) of the language stage, py3langid and langid.py on the same documents.
``--split odd`` / ``even`` judges every other text only (tune on one half, check the other).

    python benchmarks/language_eval.py [SHARED_DIR] [--max-rows 1000] [--doc-sentences 10]
"""

import argparse
import csv
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace

import langid
from scrapy.exceptions import DropItem
from scrapy.utils.project import get_project_settings

from wackycrawl.pipelines.language import LanguagePipeline
from wackycrawl.text import funcwords as fw

ROOT = Path(__file__).resolve().parent.parent
ALIAS = {"no": "nb"}  # the models' macrolanguage label for Norwegian
GROUPS = [("bs", "hr", "sr"), ("nb", "nn", "da", "sv"), ("cs", "sk"), ("es", "pt", "gl", "ca"),
          ("id", "ms")]


def load(path: Path, max_rows: int, split: str) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = defaultdict(list)
    with path.open(encoding="utf-8", newline="") as f:
        for i, row in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)):
            if len(row) != 2 or row[0] == "lang" or len(rows[row[0]]) >= max_rows:
                continue
            if split == "all" or (i % 2 == 1) == (split == "odd"):
                rows[row[0]].append(row[1])
    return rows


def documents(rows: dict[str, list[str]], k: int) -> dict[str, list[list[str]]]:
    return {lang: [texts[i:i + k] for i in range(0, len(texts) - k + 1, k)]
            for lang, texts in rows.items()}


def anchor(module):
    def label(text: str) -> str:
        lang = module.classify(text)[0]
        return ALIAS.get(lang, lang)
    return label


class _Stats(dict):
    def inc_value(self, key, count=1, start=0):
        self[key] = self.get(key, start) + count

    def get_value(self, key, default=None):
        return self.get(key, default)


class Stage:
    """The crawl's LanguagePipeline on a list of paragraphs: the label it sets."""

    def __init__(self):
        context = SimpleNamespace(settings=get_project_settings(), stats=_Stats())
        self.pipe = LanguagePipeline.from_crawler(context)  # a stage needs only these two

    def __call__(self, paragraphs: list[str]) -> str:
        item = {"url": "http://devset.test/", "paragraphs": paragraphs, "meta": {}}
        try:
            self.pipe.process_item(item)
        except DropItem:
            pass
        return item.get("language", fw.UND)


def judge(texts: dict[str, list], label) -> dict[str, list[str]]:
    return {lang: [label(t) for t in ts] for lang, ts in texts.items()}


def scores(out: dict[str, list[str]]):
    """(given, right, n, und) Counters per label / gold language."""
    given, right, n, und = Counter(), Counter(), Counter(), Counter()
    for gold, labels in out.items():
        n[gold] += len(labels)
        for lab in labels:
            if lab == fw.UND:
                und[gold] += 1
            else:
                given[lab] += 1
                right[lab] += lab == gold
    return given, right, n, und


def table(results: dict[str, dict[str, list[str]]], listed: set[str]) -> None:
    names = list(results)
    sc = {name: scores(out) for name, out in results.items()}
    labels = sorted(set().union(*(set(s[0]) | set(s[2]) for s in sc.values())))
    print(f"{'label':6}{'list':>5}" + "".join(f" | {name[:27]:>27}" for name in names))
    print(f"{'':11}" + "".join(f" | {'n':>5} {'given':>5} {'P':>5} {'R':>5} {'und':>4}"
                               for _ in names))
    for lab in labels:
        cols = []
        for name in names:
            given, right, n, und = sc[name]
            p = f"{right[lab] / given[lab]:5.3f}" if given[lab] else f"{'-':>5}"
            r = f"{right[lab] / n[lab]:5.3f}" if n[lab] else f"{'-':>5}"
            u = f"{und[lab] / n[lab]:4.2f}" if n[lab] else f"{'-':>4}"
            cols.append(f" | {n[lab]:5} {given[lab]:5} {p} {r} {u}")
        print(f"{lab:6}{'yes' if lab in listed else '':>5}" + "".join(cols))
    print("\nsummary (goals: every P >= 0.99; R >= 0.98 on listed languages; close pairs <= 1 %)")
    for name in names:
        given, right, n, und = sc[name]
        low_p = sorted((right[lab] / given[lab], lab) for lab in given if right[lab] < 0.99 * given[lab])
        low_r = sorted((right[lab] / n[lab], lab) for lab in listed if n[lab] and right[lab] < 0.98 * n[lab])
        worst = max(confusion(results[name]).values(), default=0.0)
        total = sum(n.values())
        print(f"  {name}: {sum(given.values())}/{total} labelled, "
              f"{sum(right.values()) / total:.3f} right; "
              f"{len(low_p)} labels with P < 0.99: "
              + (", ".join(f"{lab} {p:.3f}" for p, lab in low_p[:12]) or "none")
              + (" ..." if len(low_p) > 12 else "")
              + f"; {len(low_r)} listed languages with R < 0.98: "
              + (", ".join(f"{lab} {r:.3f}" for r, lab in low_r) or "none")
              + f"; worst close-pair confusion {worst:.1%}")


def confusion(out: dict[str, list[str]]) -> dict[tuple[str, str], float]:
    """Share of the texts of ``a`` labelled ``b``, for a != b of one close group."""
    shares = {}
    for group in GROUPS:
        for a in group:
            labels = out.get(a) or []
            for b in group:
                if a != b and labels:
                    shares[a, b] = sum(lab == b for lab in labels) / len(labels)
    return shares


def close_pairs(results: dict[str, dict[str, list[str]]]) -> None:
    for group in GROUPS:
        langs = [g for g in group if any(g in out for out in results.values())]
        if not langs:
            continue
        print(f"  {'/'.join(group)}: rows = text's language, columns = label given")
        print(f"    {'':28} {'gold':5}" + "".join(f"{g:>7}" for g in group)
              + f"{'und':>7}{'other':>7}")
        for name, out in results.items():
            for gold in langs:
                labels = out.get(gold)
                if not labels:
                    continue
                c = Counter(labels)
                other = len(labels) - sum(c[g] for g in group) - c[fw.UND]
                print(f"    {name[:28]:28} {gold:5}"
                      + "".join(f"{c[g] / len(labels):7.1%}" for g in group)
                      + f"{c[fw.UND] / len(labels):7.1%}{other / len(labels):7.1%}")


def standard_forms(docs: dict[str, list[list[str]]], labels: dict[str, list[str]],
                   group: tuple[str, str] = ("id", "ms")) -> None:
    """How far the gold labels of a close pair agree with the forms each standard writes its
    own way (the marker and function-word lists' distinctive words, SOURCES.md): per gold
    language, the documents holding forms of one standard only, of both, or of neither, and
    the labels ours gave each kind. A document of "ms" holding only Indonesian forms (karena,
    uang, Amerika Serikat...) is Indonesian by the standards, whatever its gold label says."""
    a, b = group
    print(f"  {a}/{b}: documents by the standard forms they hold (distinctive words of "
          f"{a} / {b}), and our labels")
    for gold in group:
        kinds: dict[str, Counter] = {}
        for doc, label in zip(docs.get(gold, []), labels.get(gold, [])):
            words = fw._words(fw.normalise("\n".join(doc)))
            na, nb = fw._markers(a, b, words)
            kind = (f"{a} only" if na and not nb else f"{b} only" if nb and not na
                    else "both" if na else "neither")
            kinds.setdefault(kind, Counter())[label] += 1
        n = sum(sum(c.values()) for c in kinds.values())
        for kind in (f"{a} only", f"{b} only", "both", "neither"):
            c = kinds.get(kind, Counter())
            print(f"    gold {gold:3} {kind:8} {sum(c.values()):4} of {n}: labelled "
                  + (", ".join(f"{lab} {k}" for lab, k in c.most_common()) or "-"))


def rates(fns: dict, texts: list, repeat: int) -> dict[str, float]:
    """docs/s of each function, CPU time, best of ``repeat`` interleaved runs."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.process_time()
            for t in texts:
                fn(t)
            best[name] = min(best[name], time.process_time() - t0)
    return {name: len(texts) / secs for name, secs in best.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shared", nargs="?", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--max-rows", type=int, default=1000, help="sentences per language")
    ap.add_argument("--doc-sentences", type=int, default=10, help="sentences per document")
    ap.add_argument("--anchor-docs", type=int, default=20,
                    help="documents per language judged by langid.py (slow)")
    ap.add_argument("--split", choices=("all", "odd", "even"), default="all")
    ap.add_argument("--speed-docs", type=int, default=600, help="documents timed")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs, the fastest counts")
    args = ap.parse_args(argv)
    import py3langid

    rows = load(args.shared / "devset" / "langid" / "sentences.tsv", args.max_rows, args.split)
    docs = documents(rows, args.doc_sentences)
    listed = set(fw.languages())
    stage, short = Stage(), fw.Identifier(min_chars=0)
    p3, lid = anchor(py3langid), anchor(langid)
    lid("warm up"), p3("warm up"), stage(["warm up"])  # load the models outside the timings
    n_docs = sum(map(len, docs.values()))
    chars = sum(len("\n".join(d)) for ds in docs.values() for d in ds) / n_docs
    print(f"{sum(map(len, rows.values()))} sentences, {n_docs} documents of "
          f"{args.doc_sentences} sentences (mean {chars:.0f} characters), {len(rows)} languages, "
          f"{len(listed)} with a function-word list: {' '.join(sorted(listed))}")

    sentences = {"ours, sentences": judge(rows, lambda t: short.identify(t).lang),
                 "py3langid, sentences": judge(rows, p3)}
    print("\n== single sentences: per label ==")
    table(sentences, listed)
    joined = {lang: ["\n".join(d) for d in ds] for lang, ds in docs.items()}
    few = {lang: ts[: args.anchor_docs] for lang, ts in joined.items()}
    documents_ = {"ours (LanguagePipeline), docs": judge(docs, stage),
                  "py3langid, docs": judge(joined, p3),
                  f"langid.py, first {args.anchor_docs} docs": judge(few, lid)}
    print(f"\n== documents of {args.doc_sentences} sentences: per label ==")
    table(documents_, listed)
    print("\n== close languages: share of each language's texts per label ==")
    close_pairs({**sentences, **documents_})
    print("\n== gold labels and the standards' own forms ==")
    standard_forms(docs, documents_["ours (LanguagePipeline), docs"])

    sample = [d for ds in docs.values() for d in ds[:max(1, args.speed_docs // len(docs))]]
    texts = {id(d): "\n".join(d) for d in sample}
    fns = {"language stage": stage,
           "py3langid.classify": lambda d: py3langid.classify(texts[id(d)]),
           "langid.py classify": lambda d: langid.classify(texts[id(d)])}
    r = rates(fns, sample, args.repeat)
    print(f"\n== speed on {len(sample)} documents (CPU docs/s, best of {args.repeat}) ==")
    for name, v in r.items():
        print(f"  {name:20} {v:8.0f} docs/s ({v / r['langid.py classify']:5.1f}x langid.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
