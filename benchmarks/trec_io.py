"""Cost of the gzip TREC layout: size per member layout, write/read speed, random access.

Documents: the gold texts of the boilerplate devset (``<shared>/devset/boilerplate/*/*.txt``,
one paragraph per line), repeated ``--repeat`` times with distinct URLs.

    python benchmarks/trec_io.py [--shared ../shared] [--repeat 3]
"""

import argparse
import glob
import gzip
import os
import random
import tempfile
import time
from pathlib import Path

from wackycrawl.trec import reader
from wackycrawl.trec.format import TrecDoc, format_doc
from wackycrawl.trec.writer import TrecWriter


def load_docs(shared: str, repeat: int) -> list[TrecDoc]:
    paths = sorted(glob.glob(os.path.join(shared, "devset", "boilerplate", "*", "*.txt")))
    paths = [p for p in paths if os.path.basename(p).count(".") == 1]  # not .with.txt etc.
    texts = [Path(p).read_text(encoding="utf-8").splitlines() for p in paths]
    return [TrecDoc(url=f"http://bench.test/{r}/{i}", ip="192.0.2.1", fetched="20261130101502",
                    content_type="text/html", raw_length=20000, status_line="HTTP/1.1 200 OK",
                    headers=[("Content-Type", "text/html")], meta={"Language": "en"},
                    paragraphs=t) for r in range(repeat) for i, t in enumerate(texts)]


def sizes(raw: list[bytes]) -> None:
    total = sum(map(len, raw))
    print(f"\n{len(raw)} documents, {total / 1e6:.1f} MB uncompressed TREC text")
    print(f"{'layout':<34}{'compressed MB':>14}{'ratio':>8}{'vs 1 stream':>13}")
    stream = len(gzip.compress(b"".join(raw), 6, mtime=0))
    rows = [("one gzip stream (no random access)", stream)]
    for block in (64, 16, 4):
        size = sum(len(gzip.compress(b"".join(raw[i:i + block]), 6, mtime=0))
                   for i in range(0, len(raw), block))
        rows.append((f"member per {block} documents, level 6", size))
    for level in (1, 6, 9):
        rows.append((f"member per document, level {level}",
                     sum(len(gzip.compress(d, level, mtime=0)) for d in raw)))
    for name, size in rows:
        print(f"{name:<34}{size / 1e6:>14.2f}{size / total:>8.3f}{size / stream:>13.3f}")


def speed(docs: list[TrecDoc], raw_mb: float) -> None:
    print(f"\n{'operation':<40}{'docs/s':>10}{'MB/s (text)':>13}")
    for fsync in (False, True):
        with tempfile.TemporaryDirectory() as directory:
            start = time.perf_counter()
            with TrecWriter(directory, worker="bench", rotate_bytes=20_000_000, fsync=fsync) as w:
                written = [w.write(d) for d in docs]
            took = time.perf_counter() - start
            print(f"{f'TrecWriter.write, fsync={fsync}':<40}{len(docs) / took:>10.0f}"
                  f"{raw_mb / took:>13.1f}")
            if fsync:
                continue
            paths = sorted({x.path for x in written})
            start = time.perf_counter()
            count = sum(1 for p in paths for _ in reader.iter_docs(p))
            took = time.perf_counter() - start
            print(f"{'iter_docs (decompress + parse all)':<40}{count / took:>10.0f}"
                  f"{raw_mb / took:>13.1f}")
            sample = random.Random(1).sample(written, min(500, len(written)))
            start = time.perf_counter()
            for x in sample:
                reader.get_doc(x.path, reader.IndexEntry(x.docno, x.offset, x.length))
            took = time.perf_counter() - start
            print(f"{'get_doc, random access via index':<40}{len(sample) / took:>10.0f}"
                  f"{'':>13}  ({took / len(sample) * 1e6:.0f} us per document)")
            start = time.perf_counter()
            for x in sample[:20]:
                reader.find_doc(directory, x.docno)
            took = (time.perf_counter() - start) / 20
            print(f"{'find_doc (read the index file)':<40}{1 / took:>10.0f}"
                  f"{'':>13}  ({took * 1e3:.1f} ms per lookup)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                         "shared"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    docs = load_docs(args.shared, args.repeat)
    raw = [format_doc(**{**vars(d), "docno": f"WACKY-bench-00000-{i:06d}"})
           for i, d in enumerate(docs)]
    sizes(raw)
    speed(docs, sum(map(len, raw)) / 1e6)


if __name__ == "__main__":
    main()
