"""WARC cost in the crawl, and ``wackycrawl process`` throughput over the crawl's WARC files.

1. Crawl pages/s of the loopback web of ``benchmarks/crawl.py`` (nginx when installed) with
   the whole pipeline, without and with ``WACKY_WARC_DIR`` (alternating, ``--runs`` each;
   target ratio with/without >= 0.9). The WARC runs rotate files at ``--rotate`` bytes so
   that part 2 has several inputs.
2. ``wackycrawl process`` over the last run's WARC files with ``-j 1`` (everything in one
   process: the per-worker figure) and ``-j 2``: MB/s of compressed WARC input (wall time of
   the command, start-up and model loads included) and per CPU second (MB/CPU s: the
   per-worker rate), and the same documents kept.

    python benchmarks/warc.py [--pages 600] [--hosts 10] [--runs 2] [--rotate 1000000]
    python benchmarks/warc.py --synthetic 4 --pages 600     # process only, on 4 generated WARCs

Each figure also as CPU time (user + system of the crawl or process and its children): on a
shared machine wall-clock rates move with the load, CPU per page much less.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.crawl import NginxWeb, build, crawl
from tests.localweb import LocalWeb
from tests.webpages import page, prose
from wackycrawl.archive.writer import Exchange, WarcWriter

CLI = "import sys; from wackycrawl.cli import main; sys.exit(main())"


def cpu() -> float:
    """CPU seconds (user + system) of the finished child processes and their children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_crawl(web, seeds, label: str, extra: dict) -> dict:
    c0 = cpu()
    row = crawl(web, seeds, label, extra)
    row["cpu_ms_per_page"] = (cpu() - c0) * 1000 / max(row["pages"], 1)
    return row


def process(files: list[Path], jobs: int, out: Path) -> dict:
    c0, t0 = cpu(), time.monotonic()
    proc = subprocess.run([sys.executable, "-c", CLI, "process", *map(str, files), "-o", str(out),
                           "-j", str(jobs), "-s", "WACKY_LANGUAGES=en", "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    wall, used = time.monotonic() - t0, cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"process -j {jobs} failed: {proc.stderr[-2000:]}")
    mb = sum(f.stat().st_size for f in files) / 1e6
    stats = json.loads(next(out.glob("process-stats-*.json")).read_text())
    return {"jobs": jobs, "mb": mb, "secs": wall, "mbps": mb / wall, "cpu": used,
            "mb_per_cpu_s": mb / used,
            "kept": stats.get("wacky/trec/docs", 0), "summary": proc.stderr.strip()[-200:]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pages", type=int, default=600)
    ap.add_argument("--hosts", type=int, default=10)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--rotate", type=int, default=1_000_000)
    ap.add_argument("--synthetic", type=int, default=0, metavar="FILES",
                    help="skip the crawls: process FILES WARC files of --pages pages each, "
                         "written by the archive writer (more input, start-up amortised)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="warc-bench-"))
    if a.synthetic:
        files = synthetic(work / "synthetic", a.synthetic, a.pages)
        report_process(files, work, kept=a.synthetic * a.pages)
        shutil.rmtree(work, ignore_errors=True)
        return
    use_nginx = bool(shutil.which("nginx"))
    print(f"server: {'nginx' if use_nginx else 'tests.localweb (Python)'}")
    rows = []
    with (NginxWeb() if use_nginx else LocalWeb()) as web:
        urls = build(web, a.pages, a.hosts)
        seeds = urls[: a.hosts]
        for n in range(a.runs):
            warc = work / f"warc{n}"
            rows.append(timed_crawl(web, seeds, "without WARC", {}))
            rows.append(timed_crawl(web, seeds, "with WARC", {"WACKY_WARC_DIR": str(warc),
                                                         "WACKY_WARC_ROTATE_BYTES": str(a.rotate)}))
    print(f"{'crawl':<14}{'pages':>8}{'secs':>8}{'pages/s':>10}{'CPU ms/page':>13}{'docs kept':>11}")
    for r in rows:
        print(f"{r['label']:<14}{r['pages']:>8}{r['secs']:>8.1f}{r['pps']:>10.1f}"
              f"{r['cpu_ms_per_page']:>13.1f}{r['kept']:>11}")

    def mean(label: str, key: str) -> float:
        return sum(r[key] for r in rows if r["label"] == label) / a.runs

    ratio = mean("with WARC", "pps") / mean("without WARC", "pps")
    cpu_ratio = mean("without WARC", "cpu_ms_per_page") / mean("with WARC", "cpu_ms_per_page")
    print(f"ratio with/without WARC: {ratio:.2f} pages/s, {cpu_ratio:.2f} pages per CPU second "
          "(target >= 0.9; CPU time is the steadier figure on a shared machine)")
    files = sorted((work / f"warc{a.runs - 1}").glob("*.warc.gz"))
    results = report_process(files, work, rows[-1]["kept"])
    print(json.dumps({"ratio": round(ratio, 3), "cpu_ratio": round(cpu_ratio, 3),
                      "crawls": rows, "process": results}))
    shutil.rmtree(work, ignore_errors=True)


def synthetic(directory: Path, files: int, pages: int) -> list[Path]:
    """``files`` WARC files of ``pages`` generated prose pages each (benchmarks/crawl.py's)."""
    for f in range(files):
        with WarcWriter(str(directory), worker=f"s{f}") as w:
            for n in range(f * pages, (f + 1) * pages):
                html = page(f"Page {n}", prose(n, min_chars=6000 + (n % 5) * 3000)).encode()
                w.write_exchange(Exchange(f"http://h{n % 10}.bench.test/p{n}.html",
                                          "HTTP/1.1 200 OK",
                                          [("Content-Type", "text/html; charset=utf-8")], html))
    return sorted(directory.glob("*.warc.gz"))


def report_process(files: list[Path], work: Path, kept: int) -> list[dict]:
    print(f"\nwackycrawl process over {len(files)} WARC files "
          f"({sum(f.stat().st_size for f in files) / 1e6:.1f} MB, {kept} docs expected)")
    results = [process(files, jobs, work / f"out-j{jobs}") for jobs in (1, 2)]
    print(f"{'-j':<4}{'MB':>8}{'secs':>8}{'MB/s':>8}{'CPU s':>8}{'MB/CPU s':>10}{'docs kept':>11}")
    for r in results:
        print(f"{r['jobs']:<4}{r['mb']:>8.1f}{r['secs']:>8.1f}{r['mbps']:>8.2f}{r['cpu']:>8.1f}"
              f"{r['mb_per_cpu_s']:>10.2f}{r['kept']:>11}")
    print(f"speed-up -j 2 / -j 1: {results[1]['mbps'] / results[0]['mbps']:.2f}")
    return [{k: v for k, v in r.items() if k != "summary"} for r in results]


if __name__ == "__main__":
    main()
