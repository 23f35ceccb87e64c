"""The SQLite backend: the default store, one file that nothing needs installing for."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kaboom.server.errors import StoreFullError, StoreUnavailableError
from kaboom.server.store.faults import Fault, StoreOpenError
from kaboom.server.store.feed import SqliteFeed
from kaboom.server.store.sql import SqlStore

__all__ = ["LOCK_WAIT_S", "MemoryStore", "SqliteStore"]

LOCK_WAIT_S = 30.0
"""How long opening or writing a SQLite store waits for another process's lock."""


def _switch_to_wal(db: sqlite3.Connection, deadline: float) -> None:
    """Puts the file in WAL mode, retrying until ``deadline``: when several processes
    open a new file together, SQLite may refuse the switch at once ("database is
    locked") without waiting on the busy timeout.  One of two processes opening a new
    file at the same moment failed so in 1-4 % of tries, and a server of two processes
    started together on a new file then failed to start."""
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class SqliteStore(SqlStore):
    """Games in one SQLite file (WAL mode).  Safe to share between threads, and between
    processes: each write takes the database's write lock (``BEGIN IMMEDIATE``)."""

    _UNAVAILABLE = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR,
                              sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN})
    """Primary result codes of a file that cannot be used now: another process's lock held
    past the busy timeout, a disk failing or remounted read-only, a file gone."""

    def __init__(self, path: str | Path, synchronous: str = "NORMAL") -> None:
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL"}:
            raise ValueError(f"unknown synchronous mode {synchronous!r}")
        self._lock = threading.Lock()
        db: sqlite3.Connection | None = None
        try:
            if str(path) != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            db = self._db = sqlite3.connect(
                str(path), check_same_thread=False, isolation_level=None, timeout=LOCK_WAIT_S
            )
            _switch_to_wal(db, deadline=time.monotonic() + LOCK_WAIT_S)
            db.execute(f"PRAGMA synchronous={synchronous}")
            with self._tx() as cur:
                has = cur.execute(
                    "SELECT 1 FROM sqlite_master WHERE type='table' AND name='games'"
                ).fetchone()
                self._migrate(cur, has is not None)
        except (OSError, sqlite3.Error, StoreUnavailableError, StoreFullError) as exc:
            # a folder, not a database, a lock held long, a full disk
            if db is not None:
                db.close()
            raise StoreOpenError(f"cannot open the SQLite database {path}: {exc}") from exc

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Cursor]:
        with self._lock, self._answering(write):
            cur = self._db.cursor()
            try:
                # Reads see the last commit without a transaction; writes take the lock
                # at once so two processes never both read-then-write on a stale snapshot.
                cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield cur
                cur.execute("COMMIT")
            finally:
                if self._db.in_transaction:  # an error, or a COMMIT the disk refused
                    self._db.rollback()
                cur.close()

    def _fault(self, exc: Exception) -> Fault | None:
        if not isinstance(exc, sqlite3.Error):
            return None
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code
        if code == sqlite3.SQLITE_FULL:
            return "disk_full"
        return "unavailable" if code in self._UNAVAILABLE else None

    def data_version(self) -> int:
        """SQLite's count that moves when another connection (another process) commits to
        the file, and not for this store's own commits."""
        with self._lock, self._answering(write=False):
            return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def feed(self) -> SqliteFeed:
        """Other processes' changes, asked for: :class:`SqliteFeed`."""
        return SqliteFeed(self.data_version)

    def close(self) -> None:
        with self._lock:
            self._db.close()


class MemoryStore(SqliteStore):
    """The same store on an in-memory database, for tests and benchmarks."""

    def __init__(self) -> None:
        super().__init__(":memory:", synchronous="OFF")
