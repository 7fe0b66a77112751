"""Host templates in one SQLite file of a JOBDIR, shared by the stage workers of a local crawl.

The same counts and rules as :class:`wackycrawl.text.templates.TemplateStore` (pages per block
hash and host, a page with the same set of blocks as one counted before not counted again,
at most ``max_blocks`` entries per host with the lowest counts - the oldest first among equal
counts - evicted to half when exceeded, at most ``max_hosts`` hosts with the least recently
counted evicted), kept in ``<JOBDIR>/wacky-templates.sqlite`` beside the local frontier
(:mod:`wackycrawl.distributed.local`), so a stopped or killed crawl resumes with the counts
it had, and every stage worker process of the crawl learns from every page.

Tables: ``hosts`` (``used``: a counter raised each time a page of the host is counted, for
the LRU rule; ``size``: the host's entries; ``seq``: its next insertion number) and
``counts`` (host, kind, key, pages, seq; kind 0: key = a block hash, kind 1: key = the page's
:func:`~wackycrawl.text.templates.page_signature`, both as signed 64-bit integers; seq: the
insertion order that breaks eviction ties). :meth:`LocalTemplateStore.learn` is one
``BEGIN IMMEDIATE`` transaction per page (WAL journal, ``synchronous=NORMAL``: a committed
page survives ``kill -9``, not a power cut; a page whose transaction had not committed is not
counted): 5 statements between ``BEGIN`` and ``COMMIT`` for a page of a known host, the
page's blocks counted by one upsert over ``json_each``, one more to evict entries, four more
to add a host and evict another. Concurrent workers never lose a count: a worker waits up
to ``busy_seconds`` for another's transaction. The file is opened on first use; errors (a
locked, damaged or unwritable file) are ``sqlite3.Error`` as they come, and the next call
opens the file again. Size: about 40 bytes per entry, ``max_hosts * max_blocks`` entries at
most (20 MB at the defaults).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable

from wackycrawl.text.templates import MAX_BLOCKS, MAX_HOSTS, MIN_PAGES, page_signature

FILENAME = "wacky-templates.sqlite"
#: Seconds a worker waits for another worker's transaction before the page goes without.
BUSY_SECONDS = 5.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS hosts (id INTEGER PRIMARY KEY, host TEXT NOT NULL UNIQUE,
    used INTEGER NOT NULL, size INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS hosts_used ON hosts (used);
CREATE TABLE IF NOT EXISTS counts (host INTEGER NOT NULL, kind INTEGER NOT NULL,
    key INTEGER NOT NULL, n INTEGER NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (host, kind, key)) WITHOUT ROWID;
"""
_BLOCK = 0  # counts.kind of a block hash (1: of a page signature)
# ?1 host id, ?2 the first insertion number, ?3 a JSON array of keys: each key seen before
# gets one page more, a new one count 1 and the next insertion number (in the array's order)
COUNT_BLOCKS = (
    "INSERT INTO counts (host, kind, key, n, seq) SELECT ?1, 0, value, 1, ?2 + key "
    "FROM json_each(?3) WHERE true ON CONFLICT (host, kind, key) DO UPDATE SET n = n + 1 "
    "RETURNING key, n")
COUNT_PAGE = ("INSERT INTO counts (host, kind, key, n, seq) VALUES (?, 1, ?, 1, ?) "
              "ON CONFLICT (host, kind, key) DO UPDATE SET n = n + 1 RETURNING n")
READ = ("SELECT key, n FROM counts WHERE host = ? AND kind = 0 AND key IN "
        "(SELECT value FROM json_each(?))")
EVICT = ("DELETE FROM counts WHERE (host, kind, key) IN (SELECT host, kind, key FROM counts "
         "WHERE host = ?1 ORDER BY n, seq LIMIT ?2) RETURNING kind, key")


def _signed(h: int) -> int:
    """An unsigned 64-bit hash as SQLite's signed 64-bit integer (OverflowError outside)."""
    if not 0 <= h < 2**64:
        raise OverflowError(f"block hash {h} is not an unsigned 64-bit integer")
    return h - 2**64 if h >= 2**63 else h


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
    def _read(db, table: int, keys: list[int]) -> dict[int, int]:
        """Counts of those of ``keys`` (signed) in table ``table`` (a host's id)."""
        return dict(db.execute(READ, (table, json.dumps(keys))))

    def _lookup(self, db, host: str, keys: list[int]) -> dict[int, int]:
        """Counts of those of ``keys`` in ``host``'s table (none for an unknown host)."""
        row = db.execute("SELECT id FROM hosts WHERE host = ?", (host,)).fetchone()
        return self._read(db, row[0], keys) if row else {}

    def _table(self, db, host: str) -> tuple[int, int, int]:
        """``(id, size, seq)`` of ``host``'s table (``seq``: the next entry's insertion
        number), created if new (evicting the least recently used host beyond
        ``max_hosts``), marked as the most recently used."""
        used = db.execute("SELECT COALESCE(MAX(used), 0) + 1 FROM hosts").fetchone()[0]
        row = db.execute("UPDATE hosts SET used = ? WHERE host = ? RETURNING id, size, seq",
                         (used, host)).fetchone()
        if row is not None:
            return row
        table = db.execute("INSERT INTO hosts (host, used, size, seq) VALUES (?, ?, 0, 0) "
                           "RETURNING id", (host, used)).fetchone()[0]
        if db.execute("SELECT COUNT(*) FROM hosts").fetchone()[0] > self.max_hosts:
            victim = db.execute("SELECT id FROM hosts ORDER BY used LIMIT 1").fetchone()[0]
            db.execute("DELETE FROM counts WHERE host = ?", (victim,))
            db.execute("DELETE FROM hosts WHERE id = ?", (victim,))
        return table, 0, 0

    def _observe(self, db, host: str, distinct: list[int]) -> dict[int, int]:
        """Count the page; returns each of ``distinct``'s counts after it (0 if evicted)."""
        keys = [_signed(h) for h in distinct]
        page = int.from_bytes(page_signature(distinct), "big", signed=True)
        table, size, seq = self._table(db, host)
        if db.execute(COUNT_PAGE, (table, page, seq)).fetchone()[0] > 1:  # a copy of a page
            counts = self._read(db, table, keys)
            return {h: counts.get(k, 0) for h, k in zip(distinct, keys)}
        counts = dict(db.execute(COUNT_BLOCKS, (table, seq + 1, json.dumps(keys))))
        size += 1 + sum(n == 1 for n in counts.values())  # n = 1: a new entry
        if size > self.max_blocks:
            drop = size - self.max_blocks // 2
            for kind, key in db.execute(EVICT, (table, drop)).fetchall():
                if kind == _BLOCK:
                    counts.pop(key, None)
            size -= drop
        db.execute("UPDATE hosts SET size = ?, seq = ? WHERE id = ?",
                   (size, seq + 1 + len(keys), table))
        return {h: counts.get(k, 0) for h, k in zip(distinct, keys)}

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
        counts = self._run(self._lookup, host, [_signed(h) for h in dict.fromkeys(hashes)],
                           write=False)
        return {h for h in hashes if counts.get(_signed(h), 0) >= self.min_pages}

    def count(self, host: str, block: int) -> int:
        """Pages of ``host`` block hash ``block`` was seen on (0 if unknown or evicted)."""
        key = _signed(block)
        return self._run(self._lookup, host, [key], write=False).get(key, 0)
