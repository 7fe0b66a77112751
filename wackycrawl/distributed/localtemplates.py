"""Host templates in one SQLite file of a JOBDIR, shared by the stage workers of a local crawl.

The same counts and rules as :class:`wackycrawl.text.templates.TemplateStore` (pages per block
hash and host, a page with the same set of blocks as one counted before not counted again,
at most ``max_blocks`` entries per host with the lowest counts - the oldest first among equal
counts - evicted to half when exceeded, at most ``max_hosts`` hosts with the least recently
counted evicted), kept in ``<JOBDIR>/wacky-templates.sqlite`` beside the local frontier
(:mod:`wackycrawl.distributed.local`), so a stopped or killed crawl resumes with the counts
it had, and every stage worker process of the crawl learns from every page.

Tables: ``hosts`` (``used``: a counter raised each time a page of the host is counted, for
the LRU rule; ``size``: the host's entries) and ``counts`` (host, key, pages; key = the block
hash as 8 big-endian bytes, or ``p`` + the page's 8-byte
:func:`~wackycrawl.text.templates.page_signature`, as in Redis). The table's integer primary
key keeps the insertion order that breaks eviction ties. :meth:`LocalTemplateStore.learn` is
one ``BEGIN IMMEDIATE`` transaction per page (WAL journal, ``synchronous=NORMAL``: a committed
page survives ``kill -9``, not a power cut; a page whose transaction had not committed is not
counted), so concurrent workers never lose a count; a worker waits up to ``busy_seconds`` for
another's transaction. The file is opened on first use; errors (a locked, damaged or
unwritable file) are ``sqlite3.Error`` as they come, and the next call opens the file again.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable

from wackycrawl.text.templates import MAX_BLOCKS, MAX_HOSTS, MIN_PAGES, page_signature

FILENAME = "wacky-templates.sqlite"
#: Seconds a worker waits for another worker's transaction before the page goes without.
BUSY_SECONDS = 5.0
CHUNK = 500  # keys per IN (...) query, below SQLite's limit of host parameters

SCHEMA = """
CREATE TABLE IF NOT EXISTS hosts (id INTEGER PRIMARY KEY, host TEXT NOT NULL UNIQUE,
    used INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS hosts_used ON hosts (used);
CREATE TABLE IF NOT EXISTS counts (id INTEGER PRIMARY KEY, host INTEGER NOT NULL,
    key BLOB NOT NULL, n INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS counts_key ON counts (host, key);
"""


def _key(h: int) -> bytes:
    return h.to_bytes(8, "big")


class LocalTemplateStore:
    """Block-hash counts per host in the SQLite file ``path``; ``min_pages``, ``max_blocks``
    and ``max_hosts`` as in :class:`~wackycrawl.text.templates.TemplateStore` (ValueError if
    one is below 1), ``busy_seconds`` as in the module doc."""

    def __init__(self, path: str, min_pages: int = MIN_PAGES, max_blocks: int = MAX_BLOCKS,
                 max_hosts: int = MAX_HOSTS, busy_seconds: float = BUSY_SECONDS):
        if min(min_pages, max_blocks, max_hosts) < 1:
            raise ValueError("min_pages, max_blocks and max_hosts must be at least 1")
        self.path, self.busy_seconds = path, busy_seconds
        self.min_pages, self.max_blocks, self.max_hosts = min_pages, max_blocks, max_hosts
        self.db: sqlite3.Connection | None = None

    @classmethod
    def in_jobdir(cls, jobdir: str, *args, **kwargs) -> LocalTemplateStore:
        """The store of the crawl whose JOBDIR is ``jobdir`` (the file need not exist yet)."""
        return cls(os.path.join(jobdir, FILENAME), *args, **kwargs)

    def _connection(self) -> sqlite3.Connection:
        if self.db is None:
            db = sqlite3.connect(self.path, timeout=self.busy_seconds, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")  # survives kill -9, not power loss
                db.executescript(SCHEMA)
            except sqlite3.Error:
                db.close()
                raise
            self.db = db
        return self.db

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def _run(self, work, *args, write: bool = True):
        """``work(db, *args)`` in one transaction (a write transaction from the start with
        ``write``); on an error the transaction is rolled back, the connection closed (the next
        call opens the file again) and the error raised."""
        try:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                result = work(db, *args)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return result
        except sqlite3.Error:
            self.close()
            raise

    @staticmethod
    def _read(db, table: int, keys: list[bytes]) -> dict[bytes, int]:
        """Counts of those of ``keys`` in table ``table`` (a host's id)."""
        found: dict[bytes, int] = {}
        for i in range(0, len(keys), CHUNK):
            chunk = keys[i:i + CHUNK]
            found.update(db.execute("SELECT key, n FROM counts WHERE host = ? AND key IN "
                                    f"({','.join('?' * len(chunk))})", (table, *chunk)))
        return found

    def _lookup(self, db, host: str, keys: list[bytes]) -> dict[bytes, int]:
        """Counts of those of ``keys`` in ``host``'s table (none for an unknown host)."""
        row = db.execute("SELECT id FROM hosts WHERE host = ?", (host,)).fetchone()
        return self._read(db, row[0], keys) if row else {}

    def _table(self, db, host: str) -> tuple[int, int]:
        """``(id, size)`` of ``host``'s table, created if new (evicting the least recently
        used host beyond ``max_hosts``), marked as the most recently used."""
        used = db.execute("SELECT COALESCE(MAX(used), 0) + 1 FROM hosts").fetchone()[0]
        row = db.execute("SELECT id, size FROM hosts WHERE host = ?", (host,)).fetchone()
        if row is not None:
            db.execute("UPDATE hosts SET used = ? WHERE id = ?", (used, row[0]))
            return row
        table = db.execute("INSERT INTO hosts (host, used, size) VALUES (?, ?, 0) RETURNING id",
                           (host, used)).fetchone()[0]
        if db.execute("SELECT COUNT(*) FROM hosts").fetchone()[0] > self.max_hosts:
            victim = db.execute("SELECT id FROM hosts ORDER BY used LIMIT 1").fetchone()[0]
            db.execute("DELETE FROM counts WHERE host = ?", (victim,))
            db.execute("DELETE FROM hosts WHERE id = ?", (victim,))
        return table, 0

    def _observe(self, db, host: str, distinct: list[int]) -> dict[int, int]:
        """Count the page; returns each of ``distinct``'s counts after it (0 if evicted)."""
        table, size = self._table(db, host)
        keys = [_key(h) for h in distinct]
        page = b"p" + page_signature(distinct)
        old = self._read(db, table, [page, *keys])
        if page in old:  # a copy of a page counted before
            db.execute("UPDATE counts SET n = n + 1 WHERE host = ? AND key = ?", (table, page))
            return {h: old.get(k, 0) for h, k in zip(distinct, keys)}
        new = {k: old.get(k, 0) + 1 for k in keys}
        db.executemany(  # in the page's order: new entries get increasing ids
            "INSERT INTO counts (host, key, n) VALUES (?, ?, ?) "
            "ON CONFLICT (host, key) DO UPDATE SET n = excluded.n",
            [(table, page, 1), *((table, k, n) for k, n in new.items())])
        size += 1 + sum(k not in old for k in keys)
        if size > self.max_blocks:
            drop = size - self.max_blocks // 2
            for (key,) in db.execute(
                    "DELETE FROM counts WHERE id IN (SELECT id FROM counts WHERE host = ? "
                    "ORDER BY n, id LIMIT ?) RETURNING key", (table, drop)).fetchall():
                new.pop(key, None)
            size -= drop
        db.execute("UPDATE hosts SET size = ? WHERE id = ?", (size, table))
        return {h: new.get(k, 0) for h, k in zip(distinct, keys)}

    def __len__(self) -> int:
        """Hosts in the store."""
        return self._run(lambda db: db.execute("SELECT COUNT(*) FROM hosts").fetchone()[0],
                         write=False)

    def observe(self, host: str, hashes: Iterable[int]) -> None:
        """Count one page of ``host`` with these block hashes (duplicates count once; a page
        with the same set of blocks as one counted before is not counted)."""
        self.learn(host, hashes)

    def learn(self, host: str, hashes: Iterable[int]) -> set[int]:
        """:meth:`observe` this page, then its :meth:`templates`, in one transaction."""
        hashes = list(hashes)
        distinct = list(dict.fromkeys(hashes))
        if not distinct:
            return set()
        counts = self._run(self._observe, host, distinct)
        return {h for h in hashes if counts[h] >= self.min_pages}

    def templates(self, host: str, hashes: Iterable[int]) -> set[int]:
        """Those of ``hashes`` seen on at least ``min_pages`` pages of ``host`` (no counting)."""
        hashes = list(hashes)
        counts = self._run(self._lookup, host, [_key(h) for h in dict.fromkeys(hashes)],
                           write=False)
        return {h for h in hashes if counts.get(_key(h), 0) >= self.min_pages}

    def count(self, host: str, block: int) -> int:
        """Pages of ``host`` block hash ``block`` was seen on (0 if unknown or evicted)."""
        return self._run(self._lookup, host, [_key(block)], write=False).get(_key(block), 0)
