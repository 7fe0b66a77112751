"""Speed of ``wackycrawl export`` and ``wackycrawl report``, and the report's peak memory on a
corpus ten times the test corpus.

Test corpus: the gold texts of the boilerplate devset (``<shared>/devset/boilerplate/*/*.txt``,
real web text, one paragraph per line, languages from the manifests) as a TREC corpus. The
tokenizer-bound runs (vertical export, report of TREC input) read its first ``--tokenize-mb``
MB of text; text and JSON export read ten copies of it (other URLs). The 10x corpus of the
report's vertical input is generated from the test corpus's vertical file: nine more copies in which every type seen at
most 3 times gets a copy-specific suffix, so the vocabulary grows faster than Heaps' law
would let a real corpus grow (an upper bound for the type table). Every command runs as a
subprocess of the installed ``wackycrawl``; peak memory is that process's maximum RSS
(``wait4``). Anchors in the same run: syntok (segtok v2) tokenising the same text, reading the
TREC files alone, and ``collections.Counter`` over the vertical file's token lines (the least
a type table can cost).

    python benchmarks/corpus.py [SHARED] [--tokenize-mb 1.0] [--workers 2]
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from wackycrawl.corpus.source import corpus_files, iter_corpus
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter

ROOT = Path(__file__).resolve().parent.parent


def manifest_languages(shared: str) -> dict[str, str]:
    langs = {}
    for path in glob.glob(os.path.join(shared, "devset", "boilerplate", "*", "manifest.tsv")):
        folder = os.path.dirname(path)
        for line in Path(path).read_text(encoding="utf-8").splitlines()[1:]:
            parts = line.split("\t")
            if len(parts) > 1:
                langs[os.path.join(folder, parts[0] + ".txt")] = parts[1]
    return langs


def load_docs(shared: str) -> list[TrecDoc]:
    langs = manifest_languages(shared)
    paths = sorted(p for p in glob.glob(os.path.join(shared, "devset", "boilerplate", "*", "*.txt"))
                   if os.path.basename(p).count(".") == 1)
    docs = []
    for i, p in enumerate(paths):
        paras = [line for line in Path(p).read_text(encoding="utf-8").splitlines() if line.strip()]
        if paras:
            docs.append(TrecDoc(url=f"http://h{i % 40}.bench{i % 7}.test/{i}", ip="192.0.2.1",
                                fetched="20261130101502", content_type="text/html",
                                raw_length=20000, meta={"Language": langs.get(p, "en")},
                                paragraphs=paras))
    return docs


def text_mb(docs) -> float:
    return sum(len(p.encode()) + 1 for d in docs for p in d.paragraphs) / 1e6


def write(directory: str, docs) -> str:
    with TrecWriter(directory, worker="bench") as w:
        for d in docs:
            w.write(d)
    return directory


LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    start = time.perf_counter()
    proc = subprocess.Popen(json.loads(line), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    print(json.dumps([time.perf_counter() - start, usage.ru_maxrss / 1024,
                      os.waitstatus_to_exitcode(status), err[-2000:].decode()]), flush=True)
"""


class Launcher:
    """Runs commands from a small fresh process: a child forked from this benchmark (which
    holds the corpus) would count this process's pages in its peak RSS until it execs."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def run(self, args: list[str]) -> tuple[float, float]:
        """Wall seconds and peak RSS (MB) of one command."""
        self.proc.stdin.write(json.dumps([str(a) for a in args]) + "\n")
        self.proc.stdin.flush()
        seconds, peak, code, err = json.loads(self.proc.stdout.readline())
        if code:
            sys.exit(f"failed: {' '.join(map(str, args))}\n{err}")
        return seconds, peak


def cli(*args) -> list[str]:
    return [str(Path(sys.executable).parent / "wackycrawl"), *map(str, args)]


def syntok_mb_s(docs) -> float:
    import syntok.segmenter as segmenter

    start = time.perf_counter()
    for d in docs:
        for p in d.paragraphs:
            for para in segmenter.analyze(p):
                for sentence in para:
                    len(sentence)
    return text_mb(docs) / (time.perf_counter() - start)


def tenfold(vrt: Path, out: Path) -> None:
    lines = vrt.read_text(encoding="utf-8").splitlines(keepends=True)
    freq = Counter(line for line in lines if not line.startswith("<"))
    rare = {t for t, c in freq.items() if c <= 3}
    with out.open("w", encoding="utf-8") as f:
        f.writelines(lines)
        for copy in range(1, 10):
            for line in lines:
                if line in rare:
                    f.write(f"{line[:-1]}~{copy}\n")
                elif line.startswith("<text "):
                    f.write(line.replace('id="', f'id="c{copy}-', 1))
                else:
                    f.write(line)


COUNTER = ("import sys, collections\n"
           "c = collections.Counter(l for l in open(sys.argv[1], encoding='utf-8') if l[0] != '<')\n"
           "print(len(c))")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("shared", nargs="?", default=str(ROOT.parent / "shared"))
    ap.add_argument("--tokenize-mb", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    run = Launcher().run  # before the corpus is loaded: a small process
    docs = load_docs(a.shared)
    subset, size = [], 0.0
    for d in docs:
        if size >= a.tokenize_mb:
            break
        subset.append(d)
        size = text_mb(subset)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        full, part = write(str(t / "full"), docs), write(str(t / "part"), subset)
        ten_docs = [TrecDoc(**{**vars(d), "url": f"{d.url}/{r}"}) for r in range(10) for d in docs]
        ten = write(str(t / "ten"), ten_docs)
        del ten_docs
        mb_full, mb_part = text_mb(docs), text_mb(subset)
        print(f"test corpus: {len(docs)} documents, {mb_full:.2f} MB of text; tokenizer runs: "
              f"{len(subset)} documents, {mb_part:.2f} MB\n")
        startup = min(run(cli("export", "--help"))[0] for _ in range(3))
        print(f"command start-up (imports): {startup:.2f} s, subtracted in 'MB/s net'\n")
        print(f"{'run':<50}{'MB/s':>8}{'MB/s net':>9}{'s':>7}{'peak MB':>9}")

        def row(name, mb, seconds, peak=None, net=True):
            net = f"{mb / max(seconds - startup, 1e-3):>9.3f}" if net and peak else f"{'':>9}"
            peak = f"{peak:>9.0f}" if peak is not None else f"{'':>9}"
            print(f"{name:<50}{mb / seconds:>8.3f}{net}{seconds:>7.1f}{peak}", flush=True)

        start = time.perf_counter()
        n = sum(1 for _ in iter_corpus(corpus_files([full])))
        row(f"anchor: read the TREC files ({n} docs)", mb_full, time.perf_counter() - start)
        row("anchor: syntok tokenise (in process)", mb_part, mb_part / syntok_mb_s(subset))
        for fmt in ("txt", "jsonl"):  # on ten copies: start-up is small beside the work
            row(f"export --format {fmt}, 10x corpus", 10 * mb_full,
                *run(cli("export", ten, "--format", fmt, "-o", t / f"c.{fmt}")))
        for w in sorted({1, a.workers}):
            row(f"export --format vrt --workers {w} (SoMaJo)", mb_part,
                *run(cli("export", part, "-o", t / "part.vrt", "--workers", w)))
        row(f"report TREC input --workers {a.workers} (SoMaJo)", mb_part,
            *run(cli("report", part, "-o", t / "r0", "--workers", a.workers)))
        run(cli("export", full, "-o", t / "full.vrt", "--workers", a.workers))
        tenfold(t / "full.vrt", t / "ten.vrt")
        for name, vrt, mb in (("1x", t / "full.vrt", mb_full), ("10x", t / "ten.vrt", 10 * mb_full)):
            seconds, peak = run(cli("report", vrt, "-o", t / f"r{name}"))
            row(f"report vertical input, {name} corpus", mb, seconds, peak)
            seconds, peak = run([sys.executable, "-c", COUNTER, str(vrt)])
            row(f"anchor: Counter over token lines, {name} corpus", mb, seconds, peak, net=False)
        for name in ("1x", "10x"):
            s = json.loads((t / f"r{name}" / "report.json").read_text(encoding="utf-8"))
            print(f"{name}: {s['documents']} documents, {s['tokens']} tokens, {s['types']} types,"
                  f" hapax {s['hapax_share_of_types']:.3f} of types, Zipf s "
                  f"{s['zipf']['exponent']}, Heaps K {s['heaps']['K']} beta {s['heaps']['beta']}")


if __name__ == "__main__":
    main()
