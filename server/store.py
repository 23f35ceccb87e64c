"""Where games live: SQLite by default (survives restarts), in memory for tests.

A move is committed (game row updated, undo record appended, in one transaction)
before it is answered, so an answered move is never lost.  The undo record holds only
the cells the move changed and the counters before it, not a copy of the board.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Protocol

from server.game import Game, Loss, Rules, Step
from solver.errors import GameNotFoundError

__all__ = ["GameStore", "MemoryStore", "SqliteStore", "game_from_dict", "game_to_dict"]


class GameStore(Protocol):
    """Keeps games and their undo records."""

    def create(self, game: Game) -> None: ...
    def get(self, game_id: str) -> Game: ...
    def save_move(self, game: Game, step: Step) -> None: ...
    def last_step(self, game: Game) -> Step: ...
    def steps(self, game_id: str) -> list[Step]: ...
    def save_undo(self, game: Game) -> None: ...
    def save(self, game: Game) -> None: ...
    def close(self) -> None: ...


def game_to_dict(game: Game) -> dict[str, Any]:
    # Field by field rather than dataclasses.asdict: asdict deep-copies every row
    # string, which was a tenth of an Expert reveal's time.
    loss = game.loss
    return {
        "id": game.id,
        "rules": {f: getattr(game.rules, f) for f in Rules.__dataclass_fields__},
        "rows": list(game.rows),
        "status": game.status,
        "moves": game.moves,
        "forced_guesses": game.forced_guesses,
        "assisted": game.assisted,
        "started_at": game.started_at,
        "elapsed_final_ms": game.elapsed_final_ms,
        "loss": None
        if loss is None
        else {"x": loss.x, "y": loss.y, "reason": loss.reason, "safe_cell": loss.safe_cell},
        "created_at": game.created_at,
    }


def game_from_dict(data: dict[str, Any]) -> Game:
    loss = data.get("loss")
    safe = loss.get("safe_cell") if loss else None
    return Game(
        id=data["id"],
        rules=Rules(**data["rules"]),
        rows=tuple(data["rows"]),
        status=data["status"],
        moves=data["moves"],
        forced_guesses=data["forced_guesses"],
        assisted=data["assisted"],
        started_at=data["started_at"],
        elapsed_final_ms=data["elapsed_final_ms"],
        loss=Loss(loss["x"], loss["y"], loss["reason"], tuple(safe) if safe else None)
        if loss
        else None,
        created_at=data["created_at"],
    )


def _step_to_json(step: Step) -> str:
    before = game_to_dict(step.before)
    before["rows"] = []  # the changed cells restore the board
    return json.dumps({"move": step.move, "cells": step.cells, "before": before})


def _step_from_json(text: str) -> Step:
    data = json.loads(text)
    before = game_from_dict(data["before"])
    return Step(data["move"], tuple(tuple(c) for c in data["cells"]), before)


class SqliteStore:
    """Games in one SQLite file (WAL mode); safe to share between threads."""

    def __init__(self, path: str | Path, synchronous: str = "NORMAL") -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL"}:
            raise ValueError(f"unknown synchronous mode {synchronous!r}")
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, state TEXT NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS steps (game_id TEXT NOT NULL, n INTEGER NOT NULL,"
                " step TEXT NOT NULL, PRIMARY KEY (game_id, n))"
            )

    def create(self, game: Game) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO games (id, state) VALUES (?, ?)",
                (game.id, json.dumps(game_to_dict(game))),
            )

    def get(self, game_id: str) -> Game:
        with self._lock:
            row = self._db.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"no game with id {game_id!r}")
        return game_from_dict(json.loads(row[0]))

    def save(self, game: Game) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE games SET state = ? WHERE id = ?",
                (json.dumps(game_to_dict(game)), game.id),
            )

    def save_move(self, game: Game, step: Step) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "UPDATE games SET state = ? WHERE id = ?",
                    (json.dumps(game_to_dict(game)), game.id),
                )
                self._db.execute(
                    "INSERT OR REPLACE INTO steps (game_id, n, step) VALUES (?, ?, ?)",
                    (game.id, game.moves, _step_to_json(step)),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def last_step(self, game: Game) -> Step:
        with self._lock:
            row = self._db.execute(
                "SELECT step FROM steps WHERE game_id = ? AND n = ?", (game.id, game.moves)
            ).fetchone()
        if row is None:
            raise GameNotFoundError(f"game {game.id!r} has no move to undo")
        return _step_from_json(row[0])

    def steps(self, game_id: str) -> list[Step]:
        """Every move's undo record, first move first (a replay reads them back)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT step FROM steps WHERE game_id = ? ORDER BY n", (game_id,)
            ).fetchall()
        return [_step_from_json(row[0]) for row in rows]

    def save_undo(self, game: Game) -> None:
        """Stores the game after an undo and drops the undone move's record."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "DELETE FROM steps WHERE game_id = ? AND n > ?", (game.id, game.moves)
                )
                self._db.execute(
                    "UPDATE games SET state = ? WHERE id = ?",
                    (json.dumps(game_to_dict(game)), game.id),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()


class MemoryStore(SqliteStore):
    """The same store on an in-memory database, for tests and benchmarks."""

    def __init__(self) -> None:
        super().__init__(":memory:", synchronous="OFF")
