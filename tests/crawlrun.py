"""Run a real ``scrapy crawl seeds`` in a subprocess against a :class:`LocalWeb`.

Crawls run as subprocesses because Scrapy's asyncio reactor is installed once per process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: settings that make a test crawl fast and deterministic on the local web
FAST = {
    "DOWNLOAD_DELAY": "0",
    "DOWNLOAD_DELAY_JITTER": "0",
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "4",
    "TELNETCONSOLE_ENABLED": "False",
    "LOG_LEVEL": "INFO",
    # the local web is on 127.0.0.1: crawls that reach it directly, not through its proxy
    # (e.g. a refused connection), need loopback allowed; tests of the refusal set False
    "WACKY_ALLOW_PRIVATE_ADDRESSES": "True",
}


@dataclass
class CrawlResult:
    returncode: int
    log: str
    stats: dict
    outdir: Path

    def stat(self, key: str, default=0):
        return self.stats.get(key, default)


def crawl_command(seeds_file: Path, outdir: Path, settings: dict | None = None,
                  fast: bool = True, spider_args: dict | None = None) -> tuple[list[str], Path]:
    """The ``scrapy crawl seeds`` command line and the stats file it will write
    (``spider_args``: more ``-a NAME=VALUE``, e.g. ``queries``)."""
    stats_file = outdir / "stats.json"
    s = {**(FAST if fast else {}), "WACKY_OUTPUT_DIR": str(outdir / "corpus"),
         "WACKY_STATS_FILE": str(stats_file), **(settings or {})}
    cmd = [sys.executable, "-m", "scrapy", "crawl", "seeds", "-a", f"seeds={seeds_file}"]
    for k, v in (spider_args or {}).items():
        cmd += ["-a", f"{k}={v}"]
    for k, v in s.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd, stats_file


def start_crawl(web, seeds: list[str], outdir: Path, settings: dict | None = None,
                fast: bool = True, spider_args: dict | None = None
                ) -> tuple[subprocess.Popen, Path]:
    """Start a crawl in the background; returns (process, stats file). Log goes to outdir/crawl.log."""
    outdir.mkdir(parents=True, exist_ok=True)
    seeds_file = outdir / "seeds.txt"
    seeds_file.write_text("\n".join(seeds) + "\n", encoding="utf-8")
    cmd, stats_file = crawl_command(seeds_file, outdir, settings, fast, spider_args)
    env = {**os.environ, **web.env(), "PYTHONUNBUFFERED": "1"}
    with open(outdir / "crawl.log", "ab") as log:  # the child keeps its own descriptor
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    return proc, stats_file


def finish(proc: subprocess.Popen, outdir: Path, stats_file: Path, timeout: float = 120) -> CrawlResult:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log = (outdir / "crawl.log").read_text(encoding="utf-8", errors="replace")
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    return CrawlResult(proc.returncode, log, stats, outdir / "corpus")


def run_crawl(web, seeds: list[str], outdir: Path, settings: dict | None = None,
              timeout: float = 120, fast: bool = True,
              spider_args: dict | None = None) -> CrawlResult:
    """Run a crawl to completion (``settings`` are ``-s`` overrides, values as strings)."""
    proc, stats_file = start_crawl(web, seeds, outdir, settings, fast, spider_args)
    return finish(proc, outdir, stats_file, timeout)


def wait_for(predicate, timeout: float = 60, interval: float = 0.1) -> bool:
    """Poll ``predicate()`` until true or timeout; returns its last value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def stop(proc: subprocess.Popen, sig=signal.SIGTERM) -> None:
    proc.send_signal(sig)
