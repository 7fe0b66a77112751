"""A real Scrapyd on 127.0.0.1 for tests: free port, all state in one temporary directory.

Usage::

    with ScrapydServer(tmp_path, env=web.env()) as scrapyd:
        deploy(scrapyd.url, tmp_path / "build")            # scrapyd-deploy from a project copy
        job = scrapyd.api("schedule.json", project="wackycrawl", spider="seeds", ...)["jobid"]
        state = scrapyd.wait_job("wackycrawl", job)         # the listjobs.json entry

Scrapyd runs with ``root`` as its working directory, so its jobs do too, and it reads
``root/scrapyd.conf`` (eggs/, logs/, dbs/ there). Jobs inherit Scrapyd's environment: pass the
local web's proxy variables as ``env`` to route the jobs' HTTP through it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Self
from urllib.error import URLError
from urllib.parse import urlencode
from urllib.request import ProxyHandler, build_opener

ROOT = Path(__file__).resolve().parent.parent
#: what ``scrapyd-deploy`` needs of the project (README.md: pyproject.toml's ``readme``)
PROJECT_FILES = ("scrapy.cfg", "setup.py", "pyproject.toml", "README.md", "wackycrawl")

CONF = """[scrapyd]
bind_address = 127.0.0.1
http_port = {port}
eggs_dir = {root}/eggs
logs_dir = {root}/logs
items_dir =
dbs_dir = {root}/dbs
poll_interval = 0.2
max_proc = 2
"""

_direct = build_opener(ProxyHandler({}))  # never through an http_proxy of the environment


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ScrapydServer:
    """``python -m scrapyd`` in ``root`` on a free loopback port; its output in root/scrapyd.log."""

    def __init__(self, root: Path, env: dict[str, str] | None = None):
        self.root = Path(root)
        self.env = env or {}
        self.port = 0
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self, timeout: float = 30) -> Self:
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        (self.root / "scrapyd.conf").write_text(CONF.format(port=self.port, root=self.root))
        env = {**os.environ, **self.env, "HOME": str(self.root), "PYTHONUNBUFFERED": "1"}
        with open(self.root / "scrapyd.log", "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "scrapyd"], cwd=self.root,
                                         env=env, stdout=log, stderr=subprocess.STDOUT)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"scrapyd exited: {self.log()[-2000:]}")
            try:
                if self.api("daemonstatus.json")["status"] == "ok":
                    return self
            except (URLError, ConnectionError):
                time.sleep(0.1)
        raise RuntimeError(f"scrapyd did not answer in {timeout} s: {self.log()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def log(self) -> str:
        return (self.root / "scrapyd.log").read_text(encoding="utf-8", errors="replace")

    def api(self, endpoint: str, params: list[tuple[str, str]] | None = None, **kw) -> dict:
        """Call a JSON endpoint: POST when there are parameters (``params`` may repeat a name,
        e.g. several ``setting``), GET otherwise. Returns the decoded answer."""
        query = urlencode([*(params or []), *kw.items()]).encode() if params or kw else None
        with _direct.open(self.url + endpoint, data=query, timeout=30) as r:
            return json.load(r)

    def jobs(self, project: str) -> dict[str, dict]:
        """listjobs.json as ``{job id: entry}``; each entry has ``state`` added."""
        answer = self.api(f"listjobs.json?project={project}")
        return {j["id"]: {**j, "state": state} for state in ("pending", "running", "finished")
                for j in answer[state]}

    def wait_job(self, project: str, job: str, states=("finished",), timeout: float = 120) -> dict:
        """Poll listjobs.json until ``job`` is in one of ``states``; returns its entry."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            entry = self.jobs(project).get(job)
            if entry and entry["state"] in states:
                return entry
            time.sleep(0.2)
        raise TimeoutError(f"job {job} not {states} after {timeout} s: {self.jobs(project)}")

    def job_log(self, project: str, spider: str, job: str) -> str:
        path = self.root / "logs" / project / spider / f"{job}.log"
        return path.read_text(encoding="utf-8", errors="replace")


def project_copy(dest: Path, url: str | None = None) -> Path:
    """Copy what scrapyd-deploy needs into ``dest`` (no caches, no build leftovers), with the
    scrapy.cfg deploy target pointed at ``url``; the repository is not touched."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    if url:
        cfg = (dest / "scrapy.cfg").read_text()
        cfg = "\n".join(f"url = {url}" if line.startswith("url") else line
                        for line in cfg.splitlines())
        (dest / "scrapy.cfg").write_text(cfg + "\n")
    return dest


def scrapyd_deploy(project_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run ``scrapyd-deploy ARGS`` (the venv's) in ``project_dir``; loopback is never proxied."""
    exe = Path(sys.executable).with_name("scrapyd-deploy")
    env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    return subprocess.run([str(exe), *args], cwd=project_dir, env=env, capture_output=True,
                          text=True, timeout=180, check=False)
