"""Host templates in one SQLite file of a JOBDIR, shared by the stage workers of a local crawl.

The counts and rules of :class:`wackycrawl.text.templates.TemplateStore` (pages per block
hash and host, a page with the same set of blocks as one counted before not counted again,
at most ``max_blocks`` entries per host with the lowest counts - the oldest first among equal
counts - evicted to half when exceeded, at most ``max_hosts`` hosts with the least recently
counted evicted), kept in ``<JOBDIR>/wacky-templates.sqlite`` beside the local frontier
(:mod:`wackycrawl.distributed.local`), so a stopped or killed crawl resumes with the counts
it had, and every stage worker process of the crawl learns from every page.

One row per host: ``used`` (a counter raised each time a page of the host is counted, for
the LRU rule) and ``tab``, the host's table of
:func:`~wackycrawl.text.templates.count_page` packed in insertion order (:func:`pack`).
:meth:`LocalTemplateStore.learn` is one ``BEGIN IMMEDIATE`` transaction per page (WAL
journal, ``synchronous=NORMAL``): it reads the host's row, counts the page with
:func:`~wackycrawl.text.templates.count_page` and writes the row back, so concurrent workers
never lose a count (a worker waits up to ``busy_seconds`` for another's transaction), and a
committed page survives ``kill -9`` (not a power cut); a page whose transaction had not
committed is not counted. A page counted whose document was not written before a kill is
fetched again on resume and, as a copy of a page counted, not counted again (its templates
are those known at that later moment). The unpacked table of a host stays in memory while
no other connection writes the file (``PRAGMA data_version``), so a lone stage worker only
packs and writes. Size: 17 bytes per entry, at most ``max_hosts * max_blocks`` entries (9 MB at the
defaults). The file is opened on first use; errors (a locked, damaged or unwritable file, a
row that does not unpack) are ``sqlite3.Error`` as they come, and the next call opens the file
again.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from array import array
from collections.abc import Iterable

from wackycrawl.text.templates import MAX_BLOCKS, MAX_HOSTS, MIN_PAGES, count_page

FILENAME = "wacky-templates.sqlite"
#: Seconds a worker waits for another worker's transaction before the page goes without.
BUSY_SECONDS = 5.0
_ENTRY = 17  # bytes per packed entry: kind, key, count

SCHEMA = """
CREATE TABLE IF NOT EXISTS hosts (id INTEGER PRIMARY KEY, host TEXT NOT NULL UNIQUE,
    used INTEGER NOT NULL, tab BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS hosts_used ON hosts (used);
"""


def _array(values=()) -> array:
    return array("Q", values)


def pack(table: dict) -> bytes:
    """A host's table as bytes: n kind bytes (0: a block hash, 1: a page signature), then n
    keys and n counts as unsigned 64-bit big-endian integers, in the table's order."""
    kinds = bytes(isinstance(k, tuple) for k in table)
    keys = _array(int.from_bytes(k[1], "big") if isinstance(k, tuple) else k for k in table)
    counts = _array(table.values())
    if sys.byteorder == "little":
        keys.byteswap()
        counts.byteswap()
    return kinds + keys.tobytes() + counts.tobytes()


def unpack(data: bytes) -> dict:
    """The table :func:`pack` packed; sqlite3.DatabaseError if ``data`` is not one."""
    n, rest = divmod(len(data), _ENTRY)
    if rest or any(kind > 1 for kind in data[:n]):
        raise sqlite3.DatabaseError(f"damaged host template table ({len(data)} bytes)")
    keys, counts = _array(), _array()
    keys.frombytes(data[n:9 * n])
    counts.frombytes(data[9 * n:])
    if sys.byteorder == "little":
        keys.byteswap()
        counts.byteswap()
    return {(("page", k.to_bytes(8, "big")) if kind else k): c
            for kind, k, c in zip(data[:n], keys, counts)}


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
        self._tables: dict[str, dict] = {}  # unpacked, valid while _version holds
        self._version = None

    @classmethod
    def in_jobdir(cls, jobdir: str, *args, **kwargs) -> LocalTemplateStore:
        """The store of the crawl whose JOBDIR is ``jobdir`` (the file need not exist yet)."""
        return cls(os.path.join(jobdir, FILENAME), *args, **kwargs)

    def _connection(self) -> sqlite3.Connection:
        if self.db is None:
            # two workers opening a new file at once: switching it to WAL and creating the
            # table can answer SQLITE_BUSY at once, without the busy handler; retried until
            # busy_seconds are over
            deadline = time.monotonic() + self.busy_seconds
            while True:
                db = sqlite3.connect(self.path, timeout=self.busy_seconds, isolation_level=None)
                try:
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=NORMAL")  # survives kill -9, not power loss
                    db.executescript(SCHEMA)
                    break
                except sqlite3.Error as exc:
                    db.close()
                    if (getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_BUSY
                            or time.monotonic() >= deadline):
                        raise
                    time.sleep(0.01)
            self.db = db
        return self.db

    def close(self) -> None:
        self._tables.clear()
        if self.db is not None:
            self.db.close()
            self.db = None

    def _run(self, work, *args, write: bool = True):
        """``work(db, *args)`` in one transaction (a write transaction from the start with
        ``write``), the unpacked tables dropped first if another connection wrote the file.
        On an error the transaction is rolled back, the unpacked tables dropped and the error
        raised; on an sqlite3.Error the connection is closed too (the next call opens the file
        again)."""
        try:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                version = db.execute("PRAGMA data_version").fetchone()[0]
                if version != self._version:
                    self._tables.clear()
                    self._version = version
                result = work(db, *args)
                db.execute("COMMIT")
            except BaseException:
                self._tables.clear()
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return result
        except sqlite3.Error:
            self.close()
            raise

    def _read(self, db, host: str) -> dict:
        """``host``'s table ({} for an unknown host), not to be changed."""
        table = self._tables.get(host)
        if table is None:
            row = db.execute("SELECT tab FROM hosts WHERE host = ?", (host,)).fetchone()
            table = unpack(row[0]) if row else {}
        return table

    def _observe(self, db, host: str, distinct: list[int]) -> dict:
        """Count the page in ``host``'s table (created if new, the least recently used host
        beyond ``max_hosts`` evicted) and mark the host as the most recently used; returns
        the table."""
        used = db.execute("SELECT COALESCE(MAX(used), 0) + 1 FROM hosts").fetchone()[0]
        row = db.execute("UPDATE hosts SET used = ? WHERE host = ? RETURNING tab",
                         (used, host)).fetchone()
        if row is None:
            db.execute("INSERT INTO hosts (host, used, tab) VALUES (?, ?, x'')", (host, used))
            if db.execute("SELECT COUNT(*) FROM hosts").fetchone()[0] > self.max_hosts:
                victim = db.execute("DELETE FROM hosts WHERE id = (SELECT id FROM hosts "
                                    "ORDER BY used LIMIT 1) RETURNING host").fetchone()[0]
                self._tables.pop(victim, None)
            table = {}
        else:
            table = self._tables.get(host)
            if table is None:
                table = unpack(row[0])
        count_page(table, distinct, self.max_blocks)
        db.execute("UPDATE hosts SET tab = ? WHERE host = ?", (pack(table), host))
        self._tables[host] = table
        return table

    def __len__(self) -> int:
        """Hosts in the store."""
        return self._run(lambda db: db.execute("SELECT COUNT(*) FROM hosts").fetchone()[0],
                         write=False)

    def observe(self, host: str, hashes: Iterable[int]) -> None:
        """Count one page of ``host`` with these block hashes (duplicates count once; a page
        with the same set of blocks as one counted before is not counted)."""
        self.learn(host, hashes)

    def learn(self, host: str, hashes: Iterable[int]) -> set[int]:
        """:meth:`observe` this page, then its :meth:`templates`, in one transaction.
        OverflowError for a hash outside ``0 <= h < 2**64``."""
        hashes = list(hashes)
        distinct = list(dict.fromkeys(hashes))
        if not distinct:
            return set()
        table = self._run(self._observe, host, distinct)
        return {h for h in hashes if table.get(h, 0) >= self.min_pages}

    def templates(self, host: str, hashes: Iterable[int]) -> set[int]:
        """Those of ``hashes`` seen on at least ``min_pages`` pages of ``host`` (no counting)."""
        table = self._run(self._read, host, write=False)
        return {h for h in hashes if table.get(h, 0) >= self.min_pages}

    def count(self, host: str, block: int) -> int:
        """Pages of ``host`` block hash ``block`` was seen on (0 if unknown or evicted)."""
        return self._run(self._read, host, write=False).get(block, 0)
