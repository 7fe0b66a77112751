"""Set-up for the whole test session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _dedup_loops_compiled():
    """The near-duplicate index's numba loops compiled and cached (``wackycrawl/dedup/
    __pycache__``) once, before the first test: in a fresh clone the first crawl would
    otherwise compile them while it opens, inside that test's time limit (5 s of CPU on a
    fast machine, 30 s and more on a slow one). In a process of its own, so that this one
    does not load numba."""
    subprocess.run([sys.executable, "-c",
                    "from wackycrawl.dedup import index; index.load_loops()"],
                   cwd=ROOT, check=True, timeout=600)


@pytest.fixture(autouse=True)
def _redis_view_per_test():
    """The process's view of Redis (:class:`~wackycrawl.distributed.connection.Outage`, one
    per process, as in a crawl) as it was before each test: a test that leaves an outage
    open (its server gone for good) does not make the next test's first failure give up."""
    from wackycrawl.distributed.connection import Outage

    saved = {k: v for k, v in vars(Outage).items() if not k.startswith("__")
             and not isinstance(v, classmethod)}
    yield
    for k, v in saved.items():
        setattr(Outage, k, v)
