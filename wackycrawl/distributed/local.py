"""The single-machine frontier: the lease/acknowledge queue and seen set in one SQLite file.

Scrapy's ``JOBDIR`` disk queue loses its pending requests on ``kill -9`` (its queue state
is written only on a graceful close; notes/stack.md section 6). Here every push, pop and
acknowledge is its own committed SQLite transaction (WAL journal), so a killed crawl resumes
with exactly the requests not acknowledged: queued ones, and leased ones, which
:meth:`LocalFrontier.open` puts back into the queue (one process per ``JOBDIR``: an
exclusive ``flock`` on the database makes a second one fail at once). Same interface and
order as :class:`wackycrawl.distributed.leasequeue.LeaseQueue` (higher priority first, FIFO
within one); leases never expire while the process lives.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import sqlite3

from wackycrawl.distributed.leasequeue import Leased

FILENAME = "wacky-frontier.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS queue (id TEXT PRIMARY KEY, prio INTEGER NOT NULL,
    seq INTEGER NOT NULL, payload BLOB NOT NULL, token TEXT);
CREATE INDEX IF NOT EXISTS queue_order ON queue (token, prio, seq);
CREATE TABLE IF NOT EXISTS seen (fp BLOB PRIMARY KEY) WITHOUT ROWID;
"""


class FrontierLockedError(RuntimeError):
    """Another live process already uses this frontier file."""


class LocalFrontier:
    """Queue and seen set in ``<directory>/wacky-frontier.sqlite``; :meth:`open` first.

    Raises FrontierLockedError (open) if another process holds the file, sqlite3.Error on a
    damaged database.
    """

    def __init__(self, directory: str, worker: str = "local"):
        self.path = os.path.join(directory, FILENAME)
        self.worker = worker
        self.db: sqlite3.Connection | None = None
        self._lock = None
        self._tokens = itertools.count()
        self._seq = 0

    def open(self) -> int:
        """Open (creating) the file; returns the leases of a dead run put back in the queue."""
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._lock = open(self.path + ".lock", "a")  # noqa: SIM115 - held while open
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise FrontierLockedError(f"{self.path} is used by another process") from None
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # survives kill -9, not power loss
        self.db.executescript(SCHEMA)
        self._seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM queue").fetchone()[0]
        return self.db.execute("UPDATE queue SET token = NULL WHERE token IS NOT NULL").rowcount

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def push(self, rid: str, priority: int, payload: bytes) -> bool:
        """Queue a request; False if ``rid`` is already queued (a leased one is re-queued)."""
        self._seq += 1
        cur = self.db.execute(
            "INSERT INTO queue (id, prio, seq, payload) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET prio = excluded.prio, seq = excluded.seq, "
            "payload = excluded.payload, token = NULL WHERE token IS NOT NULL",
            (rid, -priority, self._seq, payload))
        return cur.rowcount == 1

    def pop(self) -> Leased | None:
        token = f"{self.worker}#{next(self._tokens)}"
        row = self.db.execute(
            "UPDATE queue SET token = ? WHERE id = (SELECT id FROM queue WHERE token IS NULL "
            "ORDER BY prio, seq LIMIT 1) RETURNING id, payload", (token,)).fetchone()
        return Leased(row[0], token, row[1]) if row else None

    def ack(self, rid: str, token: str, requeue: bool = False) -> bool:
        sql = ("UPDATE queue SET token = NULL" if requeue else "DELETE FROM queue") + \
            " WHERE id = ? AND token = ?"
        return self.db.execute(sql, (rid, token)).rowcount == 1

    def renew(self, leases: list[tuple[str, str]]) -> int:
        """Leases of a live local process never expire: all are still held."""
        return len(leases)

    def reclaim(self, limit: int = 1000) -> int:
        return 0

    def queued(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM queue WHERE token IS NULL").fetchone()[0]

    def in_flight(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM queue WHERE token IS NOT NULL").fetchone()[0]

    # the seen set (the dupefilter's store)
    def add(self, fp: bytes) -> bool:
        """Record a fingerprint; True if it was new."""
        return self.db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (fp,)).rowcount == 1

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM seen").fetchone()[0]
