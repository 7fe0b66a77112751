"""A throw-away ``redis-server`` on a free loopback port, for tests and benchmarks.

It runs with ``--save "" --appendonly no`` in a temporary directory and is killed on exit;
with ``aof=True`` it keeps an append-only file (``appendfsync always``), so :meth:`kill`
(SIGKILL) and :meth:`start` again on the same port restart it from its AOF.
If the binary is missing the caller's test is skipped, unless ``WACKY_REQUIRE_REDIS=1`` (CI):
then it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Self

import pytest
import redis

BINARY = "/usr/bin/redis-server"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """``with RedisServer() as srv:`` gives ``srv.url`` and ``srv.client()``."""

    def __init__(self, aof: bool = False):
        binary = BINARY if os.path.exists(BINARY) else shutil.which("redis-server")
        if not binary:
            message = f"{BINARY} not found (apt-get install redis-server)"
            if os.environ.get("WACKY_REQUIRE_REDIS") == "1":
                pytest.fail(message)
            pytest.skip(message)
        self.binary = binary
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self.aof = aof
        self.dir = tempfile.mkdtemp(prefix="wacky-redis-")

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def start(self) -> Self:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.aof else "no", "--appendfsync", "always",
             "--dir", self.dir], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while True:
            try:
                self.client().ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > end or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"redis-server did not start on port {self.port}")
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL the server, keeping its directory (and AOF) for :meth:`start`."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
