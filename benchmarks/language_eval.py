"""Function-word LID vs langid.py: accuracy per language, speed on ~5 KB documents, and the
connected-prose figures of real prose.

Data: ``<shared>/devset/langid/{sentences,word-pairs}.tsv`` (lang<TAB>text), restricted to the
languages that have a function-word list. 5 KB documents are sentences of one language
concatenated up to ``--doc-bytes`` UTF-8 bytes. Close neighbours: documents of 1,200 to 4,000
bytes in languages the lists confuse (da/nb/nn, cs/sk, hr/sl, es/pt/ca), errors with langid.py
reading 1,000 vs 2,000 characters. Speed: CPU seconds (``time.process_time``), best of
``--repeat`` interleaved runs; "whole text" is the identifier without early stop and with
langid.py reading 2,000 characters (the behaviour before early stop). Devset pages: the HTML
pages of ``<shared>/devset/boilerplate`` through the stages before the language stage
(``WACKY_STAGES``), then LanguagePipeline vs ``langid.classify`` on the same clean texts (the
issue's target: >= 50x).

    python benchmarks/language_eval.py [--shared ../shared] [--docs-per-lang 20] [--no-pages]
"""

import argparse
import csv
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import langid
from pipeline import SETS, items_from  # benchmarks/pipeline.py: devset pages as items
from scrapy.exceptions import DropItem
from scrapy.utils.misc import load_object
from scrapy.utils.project import get_project_settings
from scrapy.utils.reactor import install_reactor
from scrapy.utils.test import get_crawler

from wackycrawl.text import funcwords as fw

ROOT = Path(__file__).resolve().parent.parent
ALIAS = {"no": "nb"}  # langid.py's Norwegian label


def lid(text: str) -> str:
    lang = langid.classify(text)[0]
    return ALIAS.get(lang, lang)


def load(path: Path, langs: set[str]) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = defaultdict(list)
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) == 2 and row[0] in langs:
                rows[row[0]].append(row[1])
    return rows


def make_docs(sentences: list[str], doc_bytes: int, limit: int) -> list[str]:
    docs, cur, size = [], [], 0
    for s in sentences:
        cur.append(s)
        size += len(s.encode()) + 1
        if size >= doc_bytes:
            docs.append(" ".join(cur)[: doc_bytes])
            cur, size = [], 0
            if len(docs) == limit:
                break
    return docs


def accuracy(data: dict[str, list[str]], ident: fw.Identifier) -> None:
    print(f"{'lang':5} {'n':>5} {'ours':>6} {'und':>5} {'langid':>7}")
    tot = [0, 0, 0, 0]
    for lang in sorted(data):
        texts = data[lang]
        ours = [ident.identify(t).lang for t in texts]
        theirs = [lid(t) for t in texts]
        ok, und = sum(o == lang for o in ours), sum(o == fw.UND for o in ours)
        ok2 = sum(t == lang for t in theirs)
        n = len(texts)
        print(f"{lang:5} {n:5} {ok / n:6.1%} {und / n:5.1%} {ok2 / n:7.1%}")
        tot = [tot[0] + n, tot[1] + ok, tot[2] + und, tot[3] + ok2]
    print(f"{'all':5} {tot[0]:5} {tot[1] / tot[0]:6.1%} {tot[2] / tot[0]:5.1%} {tot[3] / tot[0]:7.1%}")


CLOSE = ["da", "nb", "nn", "cs", "sk", "hr", "sl", "es", "pt", "ca"]


def rates(fns: dict, docs: list[str], repeat: int) -> dict[str, float]:
    """docs/s of each function, CPU time, best of ``repeat`` interleaved runs."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.process_time()
            for d in docs:
                fn(d)
            best[name] = min(best[name], time.process_time() - t0)
    return {name: len(docs) / secs for name, secs in best.items()}


def devset_pages(shared: Path, repeat: int) -> None:
    """LanguagePipeline (early stop / whole text) vs langid.classify on the clean texts of
    the devset's HTML pages."""
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    settings = get_project_settings().copy_to_dict()
    crawler = get_crawler(settings_dict=settings)
    items = items_from(shared, SETS)
    for path in settings["WACKY_STAGES"]:
        if path.endswith(".LanguagePipeline"):
            break
        stage = load_object(path).from_crawler(crawler)
        kept = []
        for item in items:
            try:
                kept.append(stage.process_item(item))
            except DropItem:
                pass
        items = kept
    lang = load_object("wackycrawl.pipelines.language.LanguagePipeline")
    whole = dict(settings, WACKY_LID_CHUNK_CHARS=0, WACKY_LANGID_MAX_CHARS=2000)
    pipes = {"LanguagePipeline": lang.from_crawler(crawler),
             "LanguagePipeline, whole text": lang.from_crawler(get_crawler(settings_dict=whole))}

    def stage(pipe):
        def run(item):
            try:
                pipe.process_item(dict(item, meta={}))
            except DropItem:
                pass
        return run

    fns = {name: stage(pipe) for name, pipe in pipes.items()}
    texts = {id(i): "\n".join(i["paragraphs"]) for i in items}
    fns["langid.classify (97 langs)"] = lambda item: langid.classify(texts[id(item)])
    r = rates(fns, items, repeat)
    chars = sum(map(len, texts.values())) / len(items)
    print(f"{len(items)} clean texts, mean {chars:.0f} characters")
    for name, v in r.items():
        print(f"{name:30} {v:7.0f} docs/s ({v / r['langid.classify (97 langs)']:5.1f}x langid.py)")


def close_neighbours(path: Path) -> None:
    data = load(path, set(CLOSE))
    variants = {m: fw.Identifier(langid_max_chars=m) for m in (1000, 2000)}
    print(f"{'bytes':>5} {'docs':>5} " + " ".join(f"{'errors@' + str(m):>11}" for m in variants))
    for size in (1200, 2000, 2500, 4000):
        docs = [(k, d) for k in CLOSE for d in make_docs(data[k], size, 1000)]
        errs = [sum(v.identify(d).lang != k for k, d in docs) for v in variants.values()]
        print(f"{size:5} {len(docs):5} " + " ".join(f"{e:11}" for e in errs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--doc-bytes", type=int, default=5 * 1024)
    ap.add_argument("--docs-per-lang", type=int, default=20)
    ap.add_argument("--max-rows", type=int, default=300, help="rows per language for accuracy")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs, the fastest counts")
    ap.add_argument("--no-pages", action="store_true", help="skip the devset pages section")
    args = ap.parse_args(argv)
    base = args.shared / "devset" / "langid"
    langs = set(fw.languages())
    sentences = load(base / "sentences.tsv", langs)
    pairs = load(base / "word-pairs.tsv", langs)
    short = fw.Identifier(min_chars=0)  # judge every row, whatever its length
    langid.classify("warm up")  # load both models outside the timings
    fw.langid_rank("warm up")

    print("== accuracy on single sentences (min_chars=0) ==")
    accuracy({k: v[: args.max_rows] for k, v in sentences.items()}, short)
    print("\n== accuracy on word pairs (min_chars=0) ==")
    accuracy({k: v[: args.max_rows] for k, v in pairs.items()}, short)

    docs = {k: make_docs(v, args.doc_bytes, args.docs_per_lang) for k, v in sentences.items()}
    print(f"\n== {args.doc_bytes}-byte documents: accuracy, methods, connected prose (defaults) ==")
    print(f"{'lang':5} {'docs':>4} {'ours':>6} {'langid':>7} {'fw-only':>7} "
          f"{'ratio min':>9} {'median':>6} {'prose':>6}")
    alldocs = []
    for lang in sorted(docs):
        ds = docs[lang]
        alldocs += ds
        res = [fw.identify(d) for d in ds]
        ok = sum(r.lang == lang for r in res)
        ok2 = sum(lid(d) == lang for d in ds)
        only = sum(r.method == "funcwords" for r in res)
        ratios = [r.fw_ratio for r in res]
        prose = sum(fw.is_connected_prose(r) for r in res)
        n = len(ds)
        print(f"{lang:5} {n:4} {ok / n:6.1%} {ok2 / n:7.1%} {only / n:7.1%} "
              f"{min(ratios):9.2f} {statistics.median(ratios):6.2f} {prose / n:6.1%}")

    print("\n== close neighbours: errors with langid.py reading 1,000 / 2,000 characters ==")
    close_neighbours(base / "sentences.tsv")

    decided = [d for d in alldocs if fw.identify(d).method == "funcwords"]
    print(f"\n== speed on {len(alldocs)} documents of {args.doc_bytes} bytes, docs/s (CPU), "
          f"all / the {len(decided)} the lists decide ==")
    whole = fw.Identifier(chunk_chars=0, langid_max_chars=2000)
    fns = {"ours (early stop)": fw.identify, "ours, whole text": whole.identify,
           "langid.classify (97 langs)": langid.classify}
    every, lists = rates(fns, alldocs, args.repeat), rates(fns, decided, args.repeat)
    ref = "langid.classify (97 langs)"
    for name in fns:
        print(f"{name:28} {every[name]:7.0f} ({every[name] / every[ref]:5.1f}x langid.py)  "
              f"{lists[name]:7.0f} ({lists[name] / lists[ref]:5.1f}x)")
    if not args.no_pages:
        print("\n== devset pages: language stage on clean texts, docs/s (CPU) ==")
        devset_pages(args.shared, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
