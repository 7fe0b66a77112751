"""The single-machine frontier: the lease/acknowledge queue and seen set in one SQLite file.

Scrapy's ``JOBDIR`` disk queue loses its pending requests on ``kill -9`` (its queue state
is written only on a graceful close; notes/stack.md section 6). Here every push, pop and
acknowledge is its own committed SQLite transaction (WAL journal), so a killed crawl resumes
with exactly the requests not acknowledged: queued ones, and leased ones, which
:meth:`LocalFrontier.open` puts back into the queue (one process per ``JOBDIR``: an
exclusive ``flock`` on the database makes a second one fail at once). Same interface and
order as :class:`wackycrawl.distributed.leasequeue.LeaseQueue` (higher priority first, FIFO
within one), parked requests with their not-before time included; leases never expire
while the process lives.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from wackycrawl.distributed.leasequeue import Leased

FILENAME = "wacky-frontier.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS queue (id TEXT PRIMARY KEY, prio INTEGER NOT NULL,
    seq INTEGER NOT NULL, payload BLOB NOT NULL, token TEXT);
CREATE TABLE IF NOT EXISTS seen (fp BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dead (reason TEXT, id TEXT, payload BLOB);
"""
# parked requests: not_before (time.time() seconds) and host; added to files of older versions
PARKED_COLUMNS = (("not_before", "REAL"), ("host", "TEXT"))
_READY = "token IS NULL AND not_before IS NULL"


class FrontierLockedError(RuntimeError):
    """Another live process already uses this frontier file."""


def _take_lock(path: str):
    """The open lock file of frontier ``path``, exclusively flock'ed; FrontierLockedError if
    another live process holds it."""
    lock = open(path + ".lock", "a")  # noqa: SIM115 - held while the frontier is open
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise FrontierLockedError(f"{path} is used by another process") from None
    return lock


def check_free(directory: str) -> None:
    """Raise FrontierLockedError if another live process uses the frontier in ``directory``
    (a JOBDIR); nothing happens for a directory without one."""
    path = os.path.join(directory, FILENAME)
    if os.path.exists(path + ".lock"):
        _take_lock(path).close()


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
        """Open (creating) the file; returns the leases of a dead run put back in the queue.
        A file this call created is removed again when it cannot be made (a full disk), so
        the next run is not taken for a resume of a crawl that never started."""
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._lock = _take_lock(self.path)
        new = not os.path.exists(self.path)
        try:
            return self._open()
        except (sqlite3.Error, OSError):
            if new:
                self.close()
                for suffix in ("", "-wal", "-shm", "-journal"):
                    try:
                        os.unlink(self.path + suffix)
                    except OSError:
                        pass
            raise

    def _open(self) -> int:
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # survives kill -9, not power loss
        self.db.executescript(SCHEMA)
        have = {row[1] for row in self.db.execute("PRAGMA table_info(queue)")}
        for name, kind in PARKED_COLUMNS:
            if name not in have:
                self.db.execute(f"ALTER TABLE queue ADD COLUMN {name} {kind}")
        self.db.execute("CREATE INDEX IF NOT EXISTS queue_ready ON queue "
                        "(token, not_before, prio, seq)")
        self.db.execute("CREATE INDEX IF NOT EXISTS queue_parked ON queue (not_before)")
        self._seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM queue").fetchone()[0]
        return self.db.execute("UPDATE queue SET token = NULL WHERE token IS NOT NULL").rowcount

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The statements inside as one transaction, committed together or not at all (a
        request recorded as seen is queued too: a full disk cannot keep the one without the
        other, which would lose the link for good)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                try:
                    self.db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def push(self, rid: str, priority: int, payload: bytes, token: str = "",
             delay: float = 0.0, host: str = "") -> bool:
        """As :meth:`LeaseQueue.push`: queue (or with ``delay`` seconds park) a request;
        with ``token``, the caller's lease on ``rid`` ends and the request goes back."""
        self._seq += 1
        not_before = time.time() + delay if delay > 0 else None
        if token:
            cur = self.db.execute(
                "UPDATE queue SET prio = ?, seq = ?, payload = ?, token = NULL, not_before = ?, "
                "host = ? WHERE id = ? AND token = ?",
                (-priority, self._seq, payload, not_before, host, rid, token))
        else:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO queue (id, prio, seq, payload, not_before, host) "
                "VALUES (?, ?, ?, ?, ?, ?)", (rid, -priority, self._seq, payload, not_before, host))
        return cur.rowcount == 1

    def promote(self, rid: str, priority: int, payload: Callable[[], bytes]) -> bool:
        """Give the queued (or parked), not leased request ``rid`` the higher ``priority`` and
        the payload (``payload()``, built only then) of a copy found by a shorter link path
        (DEPTH_PRIORITY: a smaller depth); its place within the priority stays by its first
        queueing. False if ``rid`` is not queued, is leased, or has that priority or a
        higher one."""
        row = self.db.execute("SELECT prio FROM queue WHERE id = ? AND token IS NULL",
                              (rid,)).fetchone()
        if row is None or row[0] <= -priority:
            return False
        return self.db.execute("UPDATE queue SET prio = ?, payload = ? WHERE id = ? AND "
                               "token IS NULL", (-priority, payload(), rid)).rowcount == 1

    def pop(self) -> Leased | None:
        """Lease the first ready request; parked ones whose time has come are ready first."""
        self.db.execute("UPDATE queue SET not_before = NULL WHERE not_before <= ?", (time.time(),))
        token = f"{self.worker}#{next(self._tokens)}"
        row = self.db.execute(
            f"UPDATE queue SET token = ? WHERE id = (SELECT id FROM queue WHERE {_READY} "
            "ORDER BY prio, seq LIMIT 1) RETURNING id, payload", (token,)).fetchone()
        return Leased(row[0], token, row[1]) if row else None

    def ack_and_pop(self, leases: list[tuple[str, str]]) -> tuple[list[bool], Leased | None]:
        """:meth:`ack` each of ``leases`` ``(id, token)``, then :meth:`pop`."""
        return [self.ack(rid, token) for rid, token in leases], self.pop()

    def ack(self, rid: str, token: str, requeue: bool = False, dead: bytes | None = None) -> bool:
        sql = ("UPDATE queue SET token = NULL" if requeue else "DELETE FROM queue") + \
            " WHERE id = ? AND token = ?"
        done = self.db.execute(sql, (rid, token)).rowcount == 1
        if done and dead is not None:
            reason, _, payload = dead.partition(b"\t")
            self.db.execute("INSERT INTO dead VALUES (?, ?, ?)", (reason.decode(), rid, payload))
        return done

    def renew(self, leases: list[tuple[str, str]]) -> int:
        """Leases of a live local process never expire: all are still held."""
        return len(leases)

    def renew_each(self, leases: list[tuple[str, str]]) -> list[bool]:
        return [True] * len(leases)

    def reclaim(self, limit: int = 1000, outage: bool = False) -> int:
        return 0

    def queued(self) -> int:
        return self.db.execute(f"SELECT COUNT(*) FROM queue WHERE {_READY}").fetchone()[0]

    def in_flight(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM queue WHERE token IS NOT NULL").fetchone()[0]

    def parked(self) -> tuple[int, int, float | None]:
        """``(requests, hosts, seconds until the next is due or None)``."""
        n, hosts, first = self.db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT host), MIN(not_before) FROM queue "
            "WHERE token IS NULL AND not_before IS NOT NULL").fetchone()
        return n, hosts, (max(0.0, first - time.time()) if first is not None else None)

    def dead_letters(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM dead").fetchone()[0]

    def clear(self) -> None:
        """Forget the queue and the seen set (SCHEDULER_FLUSH_ON_START, SCHEDULER_PERSIST off)."""
        self.db.execute("DELETE FROM queue")
        self.db.execute("DELETE FROM seen")

    # the seen set (the dupefilter's store)
    def add(self, fp: bytes) -> bool:
        """Record a fingerprint; True if it was new."""
        return self.db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (fp,)).rowcount == 1

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM seen").fetchone()[0]
