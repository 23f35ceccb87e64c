"""The PostgreSQL backend: the store that several server processes (on one host or many)
share, through psycopg 3 and its connection pool."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from kaboom.server.game import Game, Step
from kaboom.server.store.codec import state, step_to_json
from kaboom.server.store.faults import Fault, StoreOpenError
from kaboom.server.store.feed import CHANNEL, PostgresFeed, payload
from kaboom.server.store.sql import SqlStore

__all__ = ["APPLICATION_NAME", "CONNECT_TIMEOUT_S", "POOL_WAIT_S", "PostgresStore"]

APPLICATION_NAME = "kaboom"
"""The pooled connections' ``application_name`` (``pg_stat_activity`` shows it), followed
by the process's id; the listening connection's is
:data:`kaboom.server.store.feed.LISTENER_NAME`."""

CONNECT_TIMEOUT_S = 10
"""How long opening a PostgreSQL store waits for the server to answer at all."""

POOL_WAIT_S = 10.0
"""How long a request waits for a connection from the pool: past it, the database is
taken to be down (a 503), rather than hold the request and its thread."""


class PostgresStore(SqlStore):
    """Games in PostgreSQL through psycopg 3 and its connection pool: the store that
    several server processes (on one host or many) share."""

    dialect = "postgresql"

    def __init__(self, url: str, pool_size: int = 8, wait_s: float = POOL_WAIT_S) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # the base install has SQLite only
            raise StoreOpenError(
                f"PostgreSQL needs the 'postgres' extra ({exc}): in a checkout,"
                " .venv/bin/pip install -e '.[postgres]'"
            ) from exc

        # One plain connection first: the pool retries a refused or wrong URL in the
        # background until its 30 s timeout, and a server that cannot start should say so
        # at once, in one line.
        try:
            psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise StoreOpenError(f"cannot connect to PostgreSQL: {reason}") from None
        self._errors = psycopg
        self._url = url
        # Autocommit: a read is one round trip; a change opens its own transaction.
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            open=True,
            timeout=wait_s,
            name="kaboom",
            kwargs={"autocommit": True,
                    "application_name": f"{APPLICATION_NAME} {os.getpid()}"},
        )
        with self._tx() as cur:
            # Processes starting together must not run the same migration twice.
            cur.execute("SELECT pg_advisory_xact_lock(7031)")
            cur.execute("SELECT to_regclass('games')")
            self._migrate(cur, cur.fetchone()[0] is not None)

    @contextmanager
    def _connection(self, write: bool) -> Iterator[Any]:
        """A connection from the pool.  When one dies (the server restarted, or its
        connection was cut), the pool's idle ones are checked at once: a restart kills
        them all, and each would fail its next request."""
        held: list[Any] = []  # the connection, once the pool gave one

        def lost() -> bool:
            if not (held and held[0].broken):
                return False
            self._pool.check()
            return True

        with self._answering(write, lost), self._pool.connection() as conn:
            held.append(conn)
            yield conn

    def _fault(self, exc: Exception) -> Fault | None:
        if isinstance(exc, self._errors.errors.DiskFull):
            return "disk_full"
        # Connections, shutdowns, a pool with none to give, resources, cancelled statements
        return "unavailable" if isinstance(exc, self._errors.OperationalError) else None

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[Any]:
        with self._connection(write) as conn:
            if not write:
                with conn.cursor() as cur:
                    yield _QmarkCursor(cur)
                return
            with conn.transaction(), conn.cursor() as cur:
                yield _QmarkCursor(cur)

    def commit_move(self, before: Game, after: Game, step: Step) -> bool:
        # One statement, so one round trip in autocommit (the shared version is five:
        # BEGIN, UPDATE, DELETE, INSERT, COMMIT); a statement is atomic on its own.  The
        # step is written only if the compare-and-set updated the game; a record an
        # undone move left under the same number is replaced.  The notice is queued by
        # the updated row's RETURNING, so it goes out when, and only if, all of it commits.
        stored = state(after)
        with self._connection(write=True) as conn:
            row = conn.execute(
                "WITH moved AS (UPDATE games SET state = %s, version = %s, status = %s,"
                " updated_at = %s WHERE id = %s AND version = %s"
                " RETURNING id, pg_notify(%s, %s)),"
                " stale AS (DELETE FROM steps WHERE game_id IN (SELECT id FROM moved)"
                " AND n > %s)"
                " INSERT INTO steps (game_id, n, step) SELECT id, %s, %s FROM moved"
                " ON CONFLICT (game_id, n) DO UPDATE SET step = EXCLUDED.step RETURNING 1",
                (stored, after.version, after.status.value, time.time(), after.id,
                 before.version, CHANNEL, payload(after, stored), after.moves, after.moves,
                 step_to_json(step)),
            ).fetchone()
        return row is not None

    @staticmethod
    def _tell(cur: Any, game: Game, stored: str) -> None:
        cur.execute("SELECT pg_notify(?, ?)", (CHANNEL, payload(game, stored)))

    def feed(self) -> PostgresFeed:
        """The database's notices of every change, on a listening connection of the
        watcher's own."""
        return PostgresFeed(self._url)

    def close(self) -> None:
        self._pool.close()


class _QmarkCursor:
    """A psycopg cursor that takes the ``?`` placeholders the shared SQL is written with."""

    def __init__(self, cur: Any) -> None:
        self._cur = cur

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _QmarkCursor:
        self._cur.execute(sql.replace("?", "%s"), params)
        return self

    def fetchone(self) -> Any:
        return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        rows: list[Any] = self._cur.fetchall()
        return rows

    @property
    def rowcount(self) -> int:
        return int(self._cur.rowcount)
