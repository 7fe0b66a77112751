"""The output folder's marker (wackycrawl.crawl.owner), written by every worker of a crawl."""

import multiprocessing
import os

from wackycrawl.crawl import owner


def _write_many(args) -> str | None:
    folder, n = args
    for k in range(n):
        try:
            owner._write(os.path.join(folder, owner.MARKER), f"crawl {k % 2}")
        except OSError as exc:
            return repr(exc)
    return None


def test_workers_starting_at_once_write_the_marker_without_a_race(tmp_path):
    # Each writer has its own temporary file: with one shared name, a worker's rename found
    # the file another had already renamed (FileNotFoundError: the worker did not start).
    with multiprocessing.get_context("fork").Pool(4) as pool:
        errors = [e for e in pool.map(_write_many, [(str(tmp_path), 300)] * 4) if e]
    assert errors == []
    assert (tmp_path / owner.MARKER).read_text().startswith("crawl ")
    assert [p.name for p in tmp_path.iterdir()] == [owner.MARKER]
