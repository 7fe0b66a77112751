"""Crawl throughput: the full pipeline chain vs the same crawl with the item pipelines off.

Serves a generated loopback web (N prose pages of ~8-20 KB over H hosts, each page linking to
others) and runs ``scrapy crawl seeds`` on it three times: with the
item pipelines off, with the whole chain (text, boilerplate, filters, language, fingerprint,
dedup, TREC) as configured (stateless stages in a worker process on a machine with 2+ cores)
and with the whole chain in the crawl's own process (``WACKY_STAGE_WORKERS=0``).
Politeness delays are off (it is our own loopback server); all runs use the same settings.

    python benchmarks/crawl.py [--pages 2000] [--hosts 20] [--runs 1] [--server auto]
                               [--frontier memory local redis] [--profile DIR]
                               [--commandstats] [--set NAME=VALUE ...]

``--frontier``: Scrapy's in-memory scheduler (``memory``), the SQLite frontier in a JOBDIR
(``local``) and/or the Redis frontier with one worker and a redis-server of its own
(``redis``); each is measured with pipelines off and full. ``--profile DIR``: each crawl
runs under cProfile, its profile in DIR (``pstats`` / snakeviz read it). ``--commandstats``:
with ``redis``, each Redis command's calls and microseconds per fetched page
(``INFO commandstats``; a script's own time includes the commands it runs).
``--set NAME=VALUE`` (repeatable): a Scrapy setting for every run, after the benchmark's own.

The server is nginx when it is installed (``apt install nginx-light``; static files, one
root per host, proxy-form requests) and ``tests.localweb`` otherwise. On a 2-core machine the
Python test server needs much of a core itself, so with it the crawl process, the stage
worker and the server compete for two cores and the ratio measures the machine as much as
the crawler.

Prints pages/s of each run (response_received_count / elapsed_time_seconds from the crawl's
stats), the crawl process's CPU ms per page (``wacky/cpu_seconds``: spider open to close, the
stage worker not included; the load moves it less than pages/s), ``+workers``: the CPU ms per
page of the whole command, start-up and stage workers included (``RUSAGE_CHILDREN``),
``server``: the web server's CPU ms per page (nginx's processes, from ``/proc``; 0 for the
Python server, which runs in this process) and, per frontier, the ratios full / off (target
>= 0.9) and in-process / off; with
the Redis frontier also the Redis commands per fetched page (``INFO commandstats``, those
run inside Lua scripts included: frontier,
politeness, written set, dedup index, host templates), a figure the machine's load does not
move, and redis-server's CPU ms per page.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.crawlrun import crawl_command, finish
from tests.localweb import LocalWeb
from tests.redisserver import RedisServer
from tests.webpages import page, prose

BENCH = {
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS": "32",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
    "DEPTH_LIMIT": "0",
    "LOG_LEVEL": "WARNING",
    "WACKY_LANGUAGES": "en",
}


class NginxWeb:
    """Static files under ROOT/<host>/<path> served by nginx on a free loopback port; proxy-form
    requests (``GET http://host/path``) pick the host's root. Same ``add``/``env`` as LocalWeb."""

    CONF = """worker_processes 1; daemon off; pid {d}/nginx.pid; error_log {d}/error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; default_type text/html; types {{ text/html html; }}
  client_body_temp_path {d}/t1; proxy_temp_path {d}/t2; fastcgi_temp_path {d}/t3;
  uwsgi_temp_path {d}/t4; scgi_temp_path {d}/t5;
  server {{ listen 127.0.0.1:{port}; root {d}/web/$host; location / {{ try_files $uri =404; }} }}
}}
"""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="nginxweb-"))
        self.dir.chmod(0o755)  # nginx's workers run as an unprivileged user

    def add(self, url: str, body: str) -> None:
        parts = urlsplit(url)
        path = self.dir / "web" / parts.hostname / parts.path.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")

    def env(self) -> dict[str, str]:
        proxy = f"http://127.0.0.1:{self.port}"
        return {"http_proxy": proxy, "HTTP_PROXY": proxy, "no_proxy": "", "NO_PROXY": ""}

    def __enter__(self) -> Self:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        conf = self.dir / "nginx.conf"
        conf.write_text(self.CONF.format(d=self.dir, port=self.port))
        self.proc = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(self.dir)])
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise SystemExit(f"nginx did not start; see {self.dir}/error.log")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def build(web, pages: int, hosts: int) -> list[str]:
    urls = [f"http://h{n % hosts}.bench.test/p{n}.html" for n in range(pages)]
    for n, url in enumerate(urls):
        links = [urls[(n * 7 + k) % pages] for k in range(1, 12)]
        web.add(url, page(f"Page {n}", prose(n, min_chars=6000 + (n % 5) * 3000), links=links))
    return urls


def run(web, seeds, outdir: Path, settings: dict, profile: Path | None):
    """``scrapy crawl seeds`` (under cProfile with ``profile``) to completion."""
    seeds_file = outdir / "seeds.txt"
    seeds_file.write_text("\n".join(seeds) + "\n", encoding="utf-8")
    cmd, stats_file = crawl_command(seeds_file, outdir, settings, fast=False)
    if profile is not None:
        cmd[1:1] = ["-m", "cProfile", "-o", str(profile)]
    env = {**os.environ, **web.env()}
    with open(outdir / "crawl.log", "ab") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    return finish(proc, outdir, stats_file, timeout=1800)


def tree_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its live children
    (Linux ``/proc``; 0 elsewhere or for None)."""
    if pid is None:
        return 0.0
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total


def children_cpu() -> float:
    """CPU seconds of this process's ended children (the crawl and its stage workers)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def crawl(web, seeds, label: str, extra: dict, profile: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory() as d:
        t0 = time.monotonic()
        if extra.pop("_jobdir", False):
            extra["JOBDIR"] = str(Path(d) / "job")
        server_pid = getattr(getattr(web, "proc", None), "pid", None)
        cpu0, server0 = children_cpu(), tree_cpu(server_pid)
        r = run(web, seeds, Path(d), {**BENCH, **extra}, profile)
        wall = time.monotonic() - t0
        cpu1, server1 = children_cpu(), tree_cpu(server_pid)
        s = r.stats
        if r.returncode != 0 or not s:
            print(r.log[-3000:])
            raise SystemExit(f"{label}: crawl failed")
        pages = s.get("response_received_count", 0)
        secs = s.get("elapsed_time_seconds", wall)
        return {"label": label, "pages": pages, "secs": secs, "pps": pages / secs,
                "cpu_ms": s.get("wacky/cpu_seconds", 0) * 1000 / max(1, pages),
                "kept": s.get("wacky/kept", 0), "wall": wall,
                "all_cpu_ms": (cpu1 - cpu0) * 1000 / max(1, pages),
                "server_cpu_ms": (server1 - server0) * 1000 / max(1, pages)}


def redis_cpu(client) -> float:
    """CPU seconds (user + system) redis-server has used so far."""
    info = client.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--server", choices=("auto", "nginx", "python"), default="auto")
    ap.add_argument("--frontier", nargs="+", choices=("memory", "local", "redis"),
                    default=["memory"])
    ap.add_argument("--profile", type=Path, default=None, help="write cProfile files here")
    ap.add_argument("--set", "-s", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting for every run (e.g. WACKY_STAGE_WORKER_NICE=0)")
    ap.add_argument("--commandstats", action="store_true",
                    help="with redis: print each Redis command's calls per page")
    a = ap.parse_args()
    for pair in a.set:
        name, sep, value = pair.partition("=")
        if not sep:
            ap.error(f"--set {pair}: expected NAME=VALUE")
        BENCH[name] = value
    use_nginx = a.server == "nginx" or (a.server == "auto" and shutil.which("nginx"))
    print(f"server: {'nginx' if use_nginx else 'tests.localweb (Python)'}")
    if a.profile:
        a.profile.mkdir(parents=True, exist_ok=True)
    with (NginxWeb() if use_nginx else LocalWeb()) as web, RedisServer() as srv:
        urls = build(web, a.pages, a.hosts)
        seeds = urls[: a.hosts]
        rows = []
        for i in range(a.runs):
            for fr in a.frontier:
                base = {"redis": {"REDIS_URL": srv.url, "WACKY_CRAWL_NAME": f"bench{i}",
                                  "WACKY_IDLE_CLOSE_SECONDS": "0"},
                        "local": {"_jobdir": True}}.get(fr, {})
                if fr == "redis":
                    srv.client().flushall()
                for label, extra in (("pipelines off", {"ITEM_PIPELINES": "{}"}),
                                     ("full pipeline", {}),
                                     ("full, in-process", {"WACKY_STAGE_WORKERS": "0"})):
                    if fr == "redis":
                        srv.client().flushall()
                        srv.client().config_resetstat()
                        cpu0 = redis_cpu(srv.client())
                    prof = a.profile / f"{fr}-{label.replace(' ', '_').replace(',', '')}-{i}.prof" \
                        if a.profile else None
                    row = {**crawl(web, seeds, label, {**base, **extra}, prof), "frontier": fr}
                    if fr == "redis":  # commands of frontier, politeness, dedup (client + Lua)
                        stats = {k.removeprefix("cmdstat_"): v for k, v in
                                 srv.client().info("commandstats").items()
                                 if k not in ("cmdstat_flushall", "cmdstat_config",
                                              "cmdstat_info")}
                        calls = sum(v["calls"] for v in stats.values())
                        if a.commandstats:  # calls and microseconds per page
                            n = max(1, row["pages"])
                            print(f"redis {label}: " + ", ".join(
                                f"{k} {v['calls'] / n:.2f} ({v['usec'] / n:.0f} us)"
                                for k, v in sorted(stats.items(),
                                                   key=lambda kv: -kv[1]["calls"])))
                        row["redis_per_page"] = calls / max(1, row["pages"])
                        row["redis_cpu_ms"] = ((redis_cpu(srv.client()) - cpu0) * 1000
                                               / max(1, row["pages"]))
                    rows.append(row)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'frontier':<9}{'run':<18}{'pages':>8}{'secs':>8}{'pages/s':>10}{'CPU ms/page':>13}"
          f"{'+workers':>10}{'server':>8}"
          f"{'docs kept':>11}{'Redis cmds/page':>17}{'Redis CPU ms/page':>19}")
    for r in rows:
        per_page = f"{r['redis_per_page']:.1f}" if "redis_per_page" in r else "-"
        redis_ms = f"{r['redis_cpu_ms']:.2f}" if "redis_cpu_ms" in r else "-"
        print(f"{r['frontier']:<9}{r['label']:<18}{r['pages']:>8}{r['secs']:>8.1f}"
              f"{r['pps']:>10.1f}{r['cpu_ms']:>13.2f}{r['all_cpu_ms']:>10.2f}"
              f"{r['server_cpu_ms']:>8.2f}{r['kept']:>11}{per_page:>17}{redis_ms:>19}")

    def mean(fr: str, label: str, key: str = "pps") -> float:
        values = [r[key] for r in rows if r["label"] == label and r["frontier"] == fr]
        return sum(values) / len(values)

    ratios = {}
    for fr in a.frontier:
        off = mean(fr, "pipelines off")
        ratios[fr] = (mean(fr, "full pipeline") / off, mean(fr, "full, in-process") / off)
        cpu = mean(fr, "pipelines off", "cpu_ms") / max(1e-9, mean(fr, "full pipeline", "cpu_ms"))
        print(f"{fr}: ratio full/off: {ratios[fr][0]:.2f} (target >= 0.9); "
              f"in-process/off: {ratios[fr][1]:.2f}; crawl-process CPU per page off/full: "
              f"{cpu:.2f}")
    print(json.dumps({"ratios": {k: [round(x, 3) for x in v] for k, v in ratios.items()},
                      "runs": rows}))


if __name__ == "__main__":
    main()
