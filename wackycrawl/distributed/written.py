"""Every page written once through ``kill -9`` of a worker (Redis crawls): write intents.

A worker writes a document to its TREC file, then records the URL's fingerprint in the
crawl's ``written`` SET. Killed between the two, it leaves the document in its ``.open`` file
unrecorded; the page's lease expires and another worker may write it again. So the look-up
of ``written`` before the write (the dedup script, or
:class:`~wackycrawl.distributed.pipeline.WrittenOncePipeline` without it) records an intent
in the same script: the fingerprint goes into the writer's ``pending:<writer>`` SET
(:data:`CLAIM`), and the record after the write moves it from there to ``written``
(:data:`RECORD`, one script). ``<writer>`` is the stem of the writer's TREC file names,
``<prefix>-<worker id>`` (:func:`writer_name`), so a dead worker's file names its set
(:func:`writer_of`). No round trip is added per document.

:class:`Reconciler` (given to the TREC writer, which calls it for each ``.open`` file it
recovers, before the file gets its final name): for each document, by its URL's fingerprint,
one script call per :data:`RECONCILE_BATCH` documents (:data:`RECONCILE`):

* in ``written`` and in the dead writer's ``pending`` SET: another worker wrote and recorded
  the page after the lease expired: the document is removed from the recovered file
  (``wacky/frontier/superseded``);
* in ``written`` only: the dead writer recorded it itself: kept;
* not in ``written``: recorded now (``wacky/frontier/reconciled``) and kept.

The script takes a URL out of the SET only when it records it (as the writer's own record
would), so a reconciler killed before the file got its final name is repeated by the next
one with the same result; the dead writer's SET is deleted once the files have their final
names (:meth:`Reconciler.finish`), as a worker's own at its close. An intent left by a
document dropped after the look-up (a duplicate) is removed with the next record
(:data:`STALE_MAX` at most are kept for that; the others wait for the close).
"""

from __future__ import annotations

import logging
import os
import re

import redis

from wackycrawl.distributed.fingerprint import url_fingerprint

logger = logging.getLogger(__name__)

RECONCILE_BATCH = 5_000  # documents per reconcile script call
STALE_MAX = 1_000  # intents of dropped documents kept to be removed with the next record

# KEYS: written[, pending]; ARGV: the URL fingerprint. 1 = already written (no intent).
CLAIM = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if KEYS[2] then redis.call('SADD', KEYS[2], ARGV[1]) end
return 0
"""

# KEYS: written, pending; ARGV: the URL fingerprint, then stale intents to remove.
# 1 = recorded now, 0 = it was recorded already.
RECORD = """
local added = redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], unpack(ARGV))
return added
"""

# KEYS: written, the dead writer's pending; ARGV: URL fingerprints. Per fingerprint:
# 0 = recorded by the dead writer (keep), 1 = recorded now (keep), 2 = superseded (remove).
RECONCILE = """
local out = {}
for i, fp in ipairs(ARGV) do
  if redis.call('SISMEMBER', KEYS[1], fp) == 1 then
    out[i] = redis.call('SISMEMBER', KEYS[2], fp) * 2
  else
    redis.call('SADD', KEYS[1], fp)
    redis.call('SREM', KEYS[2], fp)
    out[i] = 1
  end
end
return out
"""

_FILE = re.compile(r"(.+)-\d{5,}\.trec\.gz(?:\.open)?")


def writer_name(prefix: str, worker: str) -> str:
    """``<prefix>-<worker id>``: the stem of a TREC writer's file names, naming its SET."""
    return f"{prefix}-{worker}"


def writer_of(path: str) -> str | None:
    """The :func:`writer_name` in a TREC file's name, or None for another name."""
    m = _FILE.fullmatch(os.path.basename(path))
    return m.group(1) if m else None


class Reconciler:
    """Called by :class:`~wackycrawl.trec.writer.TrecWriter` with each recovered ``.open``
    file's path and index entries (see the module doc); ``server`` a blocking
    ``redis.Redis``, ``keys`` the crawl's :class:`~wackycrawl.distributed.keys.CrawlKeys`,
    ``stats`` has ``inc_value``."""

    def __init__(self, server, keys, stats):
        self.server, self.keys, self.stats = server, keys, stats
        self._script = server.register_script(RECONCILE)
        self.writers: set[str] = set()
        self.reconciled = self.superseded = self.failed = 0

    def __call__(self, path: str, entries) -> set[str] | None:
        """The DOCNOs to remove from ``path``; None when Redis did not answer (the file is
        then left ``.open``, for the next worker started on the folder)."""
        writer = writer_of(path) or ""
        pending = self.keys.pending(writer)
        docs = [(e.docno, url_fingerprint(e.url)) for e in entries if e.url != "-"]
        drop, added = set(), 0
        try:
            for start in range(0, len(docs), RECONCILE_BATCH):
                batch = docs[start:start + RECONCILE_BATCH]
                codes = self._script(keys=[self.keys.written, pending],
                                     args=[fp for _, fp in batch])
                drop.update(docno for (docno, _), c in zip(batch, codes, strict=True) if c == 2)
                added += sum(c == 1 for c in codes)
        except redis.RedisError as exc:
            logger.warning("%s: not reconciled with the crawl's written set (%s): left .open "
                           "for the next worker started on this folder", path, exc)
            self.failed += 1
            return None
        self.writers.add(writer)
        self.reconciled += added
        self.superseded += len(drop)
        return drop

    def finish(self) -> None:
        """After the recovered files have their final names: delete the dead writers'
        ``pending`` SETs, count and log what was done."""
        if self.writers:
            try:
                self.server.delete(*(self.keys.pending(w) for w in self.writers))
            except redis.RedisError as exc:
                logger.warning("write intents of %s not deleted: %s", sorted(self.writers), exc)
        if self.reconciled:
            self.stats.inc_value("wacky/frontier/reconciled", self.reconciled)
            logger.info("%d documents of TREC files left by a writer that died were not "
                        "recorded as written: recorded now, so their pages are not written "
                        "again", self.reconciled)
        if self.superseded:
            self.stats.inc_value("wacky/frontier/superseded", self.superseded)
            logger.info("%d documents of TREC files left by a writer that died were written "
                        "again by another worker after their leases expired: removed from the "
                        "recovered files, so each page is in the corpus once", self.superseded)
        self.writers.clear()
        self.reconciled = self.superseded = self.failed = 0
