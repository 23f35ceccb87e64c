"""Where games live: SQLite by default (a file, nothing to install), PostgreSQL to share
one store between many server processes, in memory for tests.  The page's statistics
(the games each browser finished) and the creation buckets live beside them.

Every change is a compare-and-set: it commits only if the stored game is still at the
``version`` it was computed from, in one transaction with its undo record, so two
processes racing on one game can never both be acknowledged.  An acknowledged change is
committed before it is answered, so it is never lost.  The undo record holds only the
cells the move changed and the counters before it, not a copy of the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from kaboom.server.game import Game, Step
from kaboom.server.store.codec import game_from_dict, game_to_dict, same_game
from kaboom.server.store.counted import Tally
from kaboom.server.store.faults import StoreOpenError
from kaboom.server.store.feed import Feed, Told
from kaboom.server.store.postgres import PostgresStore
from kaboom.server.store.sqlite import MemoryStore, SqliteStore

__all__ = [
    "Feed",
    "GameStore",
    "MemoryStore",
    "PostgresStore",
    "SqliteStore",
    "StoreOpenError",
    "Tally",
    "Told",
    "game_from_dict",
    "game_to_dict",
    "is_postgres",
    "open_store",
    "same_game",
    "sqlite_file",
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
    def feed(self) -> Feed: ...
    def close(self) -> None: ...


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
