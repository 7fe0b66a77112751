"""The crawl process's worker id, and the per-process files named after it.

One id per crawl process names its TREC files and DOCNOs, its frontier leases, its
``wackycrawl status`` entry and its side files (per-host yield, drops), so resumed runs and
workers sharing one output directory never overwrite each other. No Scrapy import: a
crawler is any object with ``settings``.
"""

from __future__ import annotations

import os

from wackycrawl.trec.writer import default_worker_id


def crawl_worker_id(crawler) -> str:
    """This crawl process's worker id: ``WACKY_WORKER_ID`` or one derived once per crawler
    (:func:`wackycrawl.trec.writer.default_worker_id`)."""
    if not getattr(crawler, "_wacky_worker_id", None):
        crawler._wacky_worker_id = crawler.settings.get("WACKY_WORKER_ID") or default_worker_id()
    return crawler._wacky_worker_id


def worker_file(crawler, setting: str) -> str:
    """The path a file setting such as ``WACKY_YIELD_FILE`` names for this process:
    ``{worker}`` replaced by the worker id, a relative path put under WACKY_OUTPUT_DIR; ""
    (file off) when the setting is empty, or when it is relative and WACKY_OUTPUT_DIR is
    empty (the writer off: no stray files in the working directory)."""
    s = crawler.settings
    path = (s.get(setting) or "").replace("{worker}", crawl_worker_id(crawler))
    outdir = s.get("WACKY_OUTPUT_DIR") or ""
    if not path or os.path.isabs(path):
        return path
    return os.path.join(outdir, path) if outdir else ""
