"""Where games live: SQLite by default (a file, nothing to install), PostgreSQL to share
one store between many server processes, in memory for tests.  The page's statistics
(the games each browser finished) live beside them.

Every change is a compare-and-set: it commits only if the stored game is still at the
``version`` it was computed from, in one transaction with its undo record, so two
processes racing on one game can never both be acknowledged.  An acknowledged change is
committed before it is answered, so it is never lost.  The undo record holds only the
cells the move changed and the counters before it, not a copy of the board.

A database that cannot answer is the server's own error, never a 500: down, restarting
or a connection lost is :class:`StoreUnavailableError` (503), a full disk
:class:`StoreFullError` (507).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from kaboom.server import migrations
from kaboom.server.errors import (
    GameNotFoundError,
    StoreConnectionLostError,
    StoreFullError,
    StoreUnavailableError,
)
from kaboom.server.game import Game, Rules, Step
from kaboom.solver import GameStatus, KaboomError, Loss, LossReason

__all__ = [
    "GameStore",
    "MemoryStore",
    "PostgresStore",
    "SqliteStore",
    "Tally",
    "game_from_dict",
    "game_to_dict",
    "open_store",
    "same_game",
]


class GameStore(Protocol):
    """Keeps games and their undo records; every write is a compare-and-set on
    ``Game.version`` and returns whether it committed."""

    dialect: str
    disk_full: bool

    def schema_version(self) -> int: ...
    def create(self, game: Game) -> None: ...
    def get(self, game_id: str) -> Game: ...
    def commit_move(self, before: Game, after: Game, step: Step) -> bool: ...
    def commit_undo(self, before: Game, after: Game) -> bool: ...
    def commit(self, before: Game, after: Game) -> bool: ...
    def last_step(self, game: Game) -> Step: ...
    def steps(self, game_id: str, offset: int, limit: int) -> list[Step]: ...
    def moves(self, game_id: str, offset: int, limit: int) -> list[str]: ...
    def versions(self, game_ids: Sequence[str]) -> dict[str, int]: ...
    def expire(self, finished_before: float, idle_before: float) -> int: ...
    def take_token(self, client: str, now: float, rate: float, burst: float,
                   cost: float = 1.0) -> float: ...
    def count_game(self, browser: str, game_id: str, preset: str, won: bool,
                   elapsed_ms: int) -> bool: ...
    def tallies(self, browser: str, game_id: str) -> list[Tally]: ...
    def forget_counted(self, browser: str) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Tally:
    """The games one browser counted on one preset, and what they hold of one game."""

    preset: str
    played: int
    won: int
    best_ms: int | None
    """The fastest win's time."""
    has_game: bool
    """Whether the game asked about is among them."""
    game_won_ms: int | None
    """Its time, when it counted as a win."""


def game_to_dict(game: Game) -> dict[str, Any]:
    # Field by field rather than dataclasses.asdict: asdict deep-copies every row
    # string, which was a tenth of an Expert reveal's time.
    loss = game.loss
    return {
        "id": game.id,
        "rules": {f: getattr(game.rules, f) for f in Rules.__dataclass_fields__},
        "rows": list(game.rows),
        "status": game.status.value,
        "moves": game.moves,
        "forced_guesses": game.forced_guesses,
        "assisted": game.assisted,
        "started_at": game.started_at,
        "elapsed_final_ms": game.elapsed_final_ms,
        "loss": None
        if loss is None
        else {"x": loss.x, "y": loss.y, "reason": loss.reason, "safe_cell": loss.safe_cell},
        "created_at": game.created_at,
        "version": game.version,
        "undos": game.undos,
        "player_hash": game.player_hash,
    }


def game_from_dict(data: dict[str, Any]) -> Game:
    loss = data.get("loss")
    safe = loss.get("safe_cell") if loss else None
    return Game(
        id=data["id"],
        rules=Rules(**data["rules"]),
        rows=tuple(data["rows"]),
        status=GameStatus(data["status"]),
        moves=data["moves"],
        forced_guesses=data["forced_guesses"],
        assisted=data["assisted"],
        started_at=data["started_at"],
        elapsed_final_ms=data["elapsed_final_ms"],
        loss=Loss(loss["x"], loss["y"], LossReason(loss["reason"]), tuple(safe) if safe else None)
        if loss
        else None,
        created_at=data["created_at"],
        version=data.get("version", 0),
        undos=data.get("undos", 0),
        player_hash=data.get("player_hash", ""),
    )


def _step_to_json(step: Step) -> str:
    before = game_to_dict(step.before)
    before["rows"] = []  # the changed cells restore the board
    record: dict[str, Any] = {"move": step.move, "cells": step.cells, "before": before}
    if step.after is not None:
        record["after"] = step.after
    return json.dumps(record)


def _step_from_json(text: str) -> Step:
    data = json.loads(text)
    before = game_from_dict(data["before"])
    return Step(data["move"], tuple(tuple(c) for c in data["cells"]), before, data.get("after"))


_MOVE_OF_STEP = {
    "sqlite": "json_extract(step, '$.move')",
    "postgresql": "(step::json->>'move')",
}
"""A step record's move string, taken out by the database: listing moves then parses no
JSON in Python, where it holds the GIL that every other request needs."""


def _state(game: Game) -> str:
    return json.dumps(game_to_dict(game), separators=(",", ":"))


def same_game(a: Game, b: Game) -> bool:
    """Whether the two are one stored state (as the store would write them)."""
    return _state(a) == _state(b)


Fault = Literal["unavailable", "connection_lost", "disk_full"]
"""Why the database could not do its part: it cannot answer now, the connection died
during a statement, or its disk is full."""


class _SqlStore:
    """The store's SQL, shared by both backends; subclasses give a transaction context
    (``_tx``) whose cursor takes ``?`` placeholders, and say which of their driver's
    errors are a :data:`Fault` (``_fault``)."""

    dialect = "sqlite"
    disk_full = False
    """Whether this process's last write failed for want of disk space, until a write
    commits: ``/api/health`` says so."""

    def _tx(self, write: bool = True) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fault(self, exc: Exception) -> Fault | None:  # pragma: no cover - abstract
        raise NotImplementedError

    @contextmanager
    def _answering(self, write: bool, lost: Callable[[], bool] = lambda: False,
                   ) -> Iterator[None]:
        """Turns the driver's errors for a database that cannot answer into the server's
        own (503, 507); ``lost`` tells whether the connection died with it.  Counts
        them, and keeps :attr:`disk_full` for ``/api/health``."""
        try:
            yield
        except Exception as exc:
            fault = self._fault(exc)
            if fault is None:
                raise
            if fault == "unavailable" and lost():
                fault = "connection_lost"
            raise self._failed(fault, exc) from exc
        if write and self.disk_full:
            self._note_disk_full(False)

    def _failed(self, fault: Fault, exc: Exception) -> KaboomError:
        # Imported here, not at the top: the CLI imports this module before it prepares
        # the metrics folder (kaboom.server.metrics_folder).
        from kaboom.server.metrics import STORE_FAULTS

        STORE_FAULTS.labels(fault).inc()
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if fault == "disk_full":
            self._note_disk_full(True)
            return StoreFullError(
                "the server's disk is full: nothing new can be stored now (games stored"
                f" before can still be read); nothing changed ({reason})")
        if fault == "connection_lost":
            return StoreConnectionLostError(
                f"the connection to the game store was lost ({reason}); try again")
        return StoreUnavailableError(
            f"the game store cannot answer now ({reason}); nothing changed, try again")

    def _note_disk_full(self, full: bool) -> None:
        from kaboom.server.metrics import STORE_DISK_FULL

        self.disk_full = full
        STORE_DISK_FULL.set(int(full))

    def _migrate(self, cur: Any, has_table: bool) -> None:
        cur.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = cur.execute("SELECT max(version) FROM schema_version").fetchone()
        current = row[0] if row and row[0] is not None else (1 if has_table else 0)
        for n, statements in migrations.pending(current, self.dialect):
            for sql in statements:
                cur.execute(sql)
            cur.execute("DELETE FROM schema_version")
            cur.execute("INSERT INTO schema_version (version) VALUES (?)", (n,))

    def schema_version(self) -> int:
        with self._tx(write=False) as cur:
            return int(cur.execute("SELECT max(version) FROM schema_version").fetchone()[0])

    def create(self, game: Game) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO games (id, state, version, status, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (game.id, _state(game), game.version, game.status.value, time.time()),
            )

    def get(self, game_id: str) -> Game:
        with self._tx(write=False) as cur:
            row = cur.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"no game with id {game_id!r}")
        return game_from_dict(json.loads(row[0]))

    @staticmethod
    def _swap(cur: Any, before: Game, after: Game) -> bool:
        cur.execute(
            "UPDATE games SET state = ?, version = ?, status = ?, updated_at = ?"
            " WHERE id = ? AND version = ?",
            (_state(after), after.version, after.status.value, time.time(), after.id,
             before.version),
        )
        return bool(cur.rowcount == 1)

    def commit(self, before: Game, after: Game) -> bool:
        with self._tx() as cur:
            return self._swap(cur, before, after)

    def commit_move(self, before: Game, after: Game, step: Step) -> bool:
        with self._tx() as cur:
            if not self._swap(cur, before, after):
                return False
            # A record left by an undone move may hold the same number: replace it.
            cur.execute("DELETE FROM steps WHERE game_id = ? AND n >= ?", (after.id, after.moves))
            cur.execute(
                "INSERT INTO steps (game_id, n, step) VALUES (?, ?, ?)",
                (after.id, after.moves, _step_to_json(step)),
            )
            return True

    def commit_undo(self, before: Game, after: Game) -> bool:
        with self._tx() as cur:
            if not self._swap(cur, before, after):
                return False
            cur.execute("DELETE FROM steps WHERE game_id = ? AND n > ?", (after.id, after.moves))
            return True

    def last_step(self, game: Game) -> Step:
        with self._tx(write=False) as cur:
            row = cur.execute(
                "SELECT step FROM steps WHERE game_id = ? AND n = ?", (game.id, game.moves)
            ).fetchone()
        if row is None:
            raise GameNotFoundError(f"game {game.id!r} has no move to undo")
        return _step_from_json(row[0])

    def steps(self, game_id: str, offset: int, limit: int) -> list[Step]:
        """The undo records of moves ``offset + 1`` to ``offset + limit`` (the first move
        is move 1), in order: a replay page.  Only those rows are read, so a page costs
        the same however long the game."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                "SELECT step FROM steps WHERE game_id = ? AND n > ? AND n <= ? ORDER BY n",
                (game_id, offset, offset + limit),
            ).fetchall()
        return [_step_from_json(r[0]) for r in rows]

    def moves(self, game_id: str, offset: int, limit: int) -> list[str]:
        """Moves ``offset + 1`` to ``offset + limit`` in order, as move strings
        (``reveal 3 4``); only those rows are read."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                f"SELECT {_MOVE_OF_STEP[self.dialect]} FROM steps"
                " WHERE game_id = ? AND n > ? AND n <= ? ORDER BY n",
                (game_id, offset, offset + limit),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The stored version of each game that exists (one query, for the watchers)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        with self._tx(write=False) as cur:
            rows = cur.execute(
                f"SELECT id, version FROM games WHERE id IN ({marks})", tuple(game_ids)
            ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def expire(self, finished_before: float, idle_before: float) -> int:
        """Deletes games finished before ``finished_before`` and unfinished games with no
        change since ``idle_before`` (and creation buckets as idle); returns how many
        games.  The condition is checked by the DELETE itself, so a game that changed
        meanwhile is never removed."""
        with self._tx() as cur:
            cur.execute(
                "DELETE FROM steps WHERE game_id IN (SELECT id FROM games WHERE"
                " (status <> 'playing' AND updated_at < ?) OR updated_at < ?)",
                (finished_before, idle_before),
            )
            cur.execute(
                "DELETE FROM games WHERE (status <> 'playing' AND updated_at < ?)"
                " OR updated_at < ?",
                (finished_before, idle_before),
            )
            removed = int(cur.rowcount)
            # a creation bucket untouched that long is full again (unless its refill takes
            # longer than the idle expiry): forgetting it changes nothing
            cur.execute("DELETE FROM create_buckets WHERE updated_at < ?", (idle_before,))
            # a game whose statistics were reset, once it is gone, cannot count again
            cur.execute("DELETE FROM counted_games WHERE browser IS NULL AND game_id NOT IN"
                        " (SELECT id FROM games)")
            return removed

    def take_token(self, client: str, now: float, rate: float, burst: float,
                   cost: float = 1.0) -> float:
        """Takes ``cost`` tokens (``cost`` ≤ ``burst``) from ``client``'s bucket (``burst``
        tokens, refilled at ``rate`` a second, shared by every process on the store);
        returns 0.0 when they were taken, else the seconds until they are there.  One
        statement takes them, so two processes can never both take the last ones.  A
        negative ``cost`` gives tokens back (the next refill caps them at ``burst``)."""
        least, greatest = ("LEAST", "GREATEST") if self.dialect == "postgresql" else ("MIN", "MAX")
        refill = (f"{least}(?, create_buckets.tokens"
                  f" + {greatest}(0, ? - create_buckets.updated_at) * ?)")
        with self._tx() as cur:
            taken = cur.execute(
                "INSERT INTO create_buckets (client, tokens, updated_at) VALUES (?, ?, ?)"
                f" ON CONFLICT (client) DO UPDATE SET tokens = {refill} - ?, updated_at = ?"
                f" WHERE {refill} >= ? RETURNING tokens",
                (client, burst - cost, now, burst, now, rate, cost, now, burst, now, rate, cost),
            ).fetchone()
            if taken is not None:
                return 0.0
            tokens, updated = cur.execute(
                "SELECT tokens, updated_at FROM create_buckets WHERE client = ?", (client,)
            ).fetchone()
        tokens = min(burst, float(tokens) + max(0.0, now - float(updated)) * rate)
        return max(0.0, cost - tokens) / rate

    def count_game(self, browser: str, game_id: str, preset: str, won: bool,
                   elapsed_ms: int) -> bool:
        """Counts a finished game in ``browser``'s statistics, unless it counted already
        (for any browser); returns whether this call counted it.  The key decides, so
        two processes counting it at once count it once."""
        with self._tx() as cur:
            return cur.execute(
                "INSERT INTO counted_games (game_id, browser, preset, won, elapsed_ms)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING RETURNING 1",
                (game_id, browser, preset, int(won), elapsed_ms),
            ).fetchone() is not None

    def tallies(self, browser: str, game_id: str) -> list[Tally]:
        """``browser``'s statistics per preset it counted a game on, and whether (and as
        what) they hold ``game_id``: one query on the browser's index."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                "SELECT preset, count(*), sum(won), min(CASE WHEN won = 1 THEN elapsed_ms END),"
                " count(CASE WHEN game_id = ? THEN 1 END),"
                " min(CASE WHEN game_id = ? AND won = 1 THEN elapsed_ms END)"
                " FROM counted_games WHERE browser = ? GROUP BY preset",
                (game_id, game_id, browser),
            ).fetchall()
        return [Tally(r[0], int(r[1]), int(r[2]), None if r[3] is None else int(r[3]),
                      bool(r[4]), None if r[5] is None else int(r[5])) for r in rows]

    def forget_counted(self, browser: str) -> None:
        """Resets ``browser``'s statistics.  Its games stay known as counted, for no
        browser, so that reopening one does not count it again; each goes when its game
        expires."""
        with self._tx() as cur:
            cur.execute("UPDATE counted_games SET browser = NULL WHERE browser = ?", (browser,))


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


class StoreOpenError(RuntimeError):
    """The store named by the settings cannot be opened (a wrong URL, a server down, a
    file that is not a database)."""


class SqliteStore(_SqlStore):
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

    def close(self) -> None:
        with self._lock:
            self._db.close()


class MemoryStore(SqliteStore):
    """The same store on an in-memory database, for tests and benchmarks."""

    def __init__(self) -> None:
        super().__init__(":memory:", synchronous="OFF")


CONNECT_TIMEOUT_S = 10
"""How long opening a PostgreSQL store waits for the server to answer at all."""

POOL_WAIT_S = 10.0
"""How long a request waits for a connection from the pool: past it, the database is
taken to be down (a 503), rather than hold the request and its thread."""


class PostgresStore(_SqlStore):
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
        # Autocommit: a read is one round trip; a change opens its own transaction.
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            open=True,
            timeout=wait_s,
            name="kaboom",
            kwargs={"autocommit": True},
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
        # undone move left under the same number is replaced.
        with self._connection(write=True) as conn:
            row = conn.execute(
                "WITH moved AS (UPDATE games SET state = %s, version = %s, status = %s,"
                " updated_at = %s WHERE id = %s AND version = %s RETURNING id),"
                " stale AS (DELETE FROM steps WHERE game_id IN (SELECT id FROM moved)"
                " AND n > %s)"
                " INSERT INTO steps (game_id, n, step) SELECT id, %s, %s FROM moved"
                " ON CONFLICT (game_id, n) DO UPDATE SET step = EXCLUDED.step RETURNING 1",
                (_state(after), after.version, after.status.value, time.time(), after.id,
                 before.version, after.moves, after.moves, _step_to_json(step)),
            ).fetchone()
        return row is not None

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


def open_store(url: str, synchronous: str = "NORMAL") -> GameStore:
    """Opens the store named by ``url``: ``postgresql://…`` (or ``postgres://``), a SQLite
    file path (``sqlite:///path`` also accepted), or ``:memory:``."""
    if is_postgres(url):
        return PostgresStore(url)
    path = sqlite_file(url)
    return MemoryStore() if path is None else SqliteStore(path, synchronous=synchronous)


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL store rather than SQLite (see :func:`open_store`)."""
    return url.startswith(("postgresql://", "postgres://"))


def sqlite_file(url: str) -> str | None:
    """The file of a SQLite store's ``url`` (see :func:`open_store`); ``None`` for
    PostgreSQL and ``:memory:``."""
    if is_postgres(url):
        return None
    path = url.removeprefix("sqlite:///")
    return None if path == ":memory:" else path
