"""The games table and each game's undo records: every write a compare-and-set on the
game's ``version``, in one transaction with its record, so two processes racing on one
game can never both be acknowledged."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from kaboom.server.errors import GameNotFoundError
from kaboom.server.game import Game, Step
from kaboom.server.store.codec import game_from_json, state, step_from_json, step_to_json
from kaboom.server.store.faults import read_again

__all__ = ["GameRows"]

MOVE_OF_STEP = {
    "sqlite": "json_extract(step, '$.move')",
    "postgresql": "(step::json->>'move')",
}
"""A step record's move string, taken out by the database: listing moves then parses no
JSON in Python, where it holds the GIL that every other request needs."""


class GameRows:
    """The SQL of games and their records, over a backend's transactions (``_tx``, whose
    cursor takes ``?`` placeholders)."""

    dialect = "sqlite"

    def _tx(self, write: bool = True) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def create(self, game: Game) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO games (id, state, version, status, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (game.id, state(game), game.version, game.status.value, time.time()),
            )

    @read_again
    def get(self, game_id: str) -> Game:
        with self._tx(write=False) as cur:
            row = cur.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"no game with id {game_id!r}")
        return game_from_json(row[0])

    @staticmethod
    def _tell(cur: Any, game: Game, stored: str) -> None:
        """Tells the other processes of ``game`` (stored as ``stored``), in the change's
        own transaction (PostgreSQL's ``NOTIFY``; a SQLite file is asked instead)."""

    def _swap(self, cur: Any, before: Game, after: Game) -> bool:
        stored = state(after)
        cur.execute(
            "UPDATE games SET state = ?, version = ?, status = ?, updated_at = ?"
            " WHERE id = ? AND version = ?",
            (stored, after.version, after.status.value, time.time(), after.id,
             before.version),
        )
        if cur.rowcount != 1:
            return False
        self._tell(cur, after, stored)
        return True

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
                (after.id, after.moves, step_to_json(step)),
            )
            return True

    def commit_undo(self, before: Game, after: Game) -> bool:
        with self._tx() as cur:
            if not self._swap(cur, before, after):
                return False
            cur.execute("DELETE FROM steps WHERE game_id = ? AND n > ?", (after.id, after.moves))
            return True

    @read_again
    def last_step(self, game: Game) -> Step:
        with self._tx(write=False) as cur:
            row = cur.execute(
                "SELECT step FROM steps WHERE game_id = ? AND n = ?", (game.id, game.moves)
            ).fetchone()
        if row is None:
            raise GameNotFoundError(f"game {game.id!r} has no move to undo")
        return step_from_json(row[0])

    @read_again
    def steps(self, game_id: str, offset: int, limit: int) -> list[Step]:
        """The undo records of moves ``offset + 1`` to ``offset + limit`` (the first move
        is move 1), in order: a replay page.  Only those rows are read, so a page costs
        the same however long the game."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                "SELECT step FROM steps WHERE game_id = ? AND n > ? AND n <= ? ORDER BY n",
                (game_id, offset, offset + limit),
            ).fetchall()
        return [step_from_json(r[0]) for r in rows]

    @read_again
    def moves(self, game_id: str, offset: int, limit: int) -> list[str]:
        """Moves ``offset + 1`` to ``offset + limit`` in order, as move strings
        (``reveal 3 4``); only those rows are read."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                f"SELECT {MOVE_OF_STEP[self.dialect]} FROM steps"
                " WHERE game_id = ? AND n > ? AND n <= ? ORDER BY n",
                (game_id, offset, offset + limit),
            ).fetchall()
        return [str(r[0]) for r in rows]

    @read_again
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

