"""A game's session in this process: its warm referee, its lock, and how a change computed
on it commits.

Any number of server processes may share one store.  A change is computed from the game
as stored and committed only if the game is still at that version (compare-and-set); the
loser of a race is computed again on the fresh game, so every acknowledged change is in
the game's history, and what the lost try taught the referee is forgotten.  Within one
process, the session's lock keeps a game's changes from racing at all.  Sessions live in
a bounded cache; an evicted one is rebuilt from the board, so nothing correct depends on
it (the moves and the assistant both use it through :meth:`Sessions.referee` and
:meth:`Sessions.change`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TypeVar

from kaboom.server.config import Settings
from kaboom.server.errors import ConflictError, StoreConnectionLostError, StoreUnavailableError
from kaboom.server.game import Game, Referee
from kaboom.server.metrics import STORE_RACES
from kaboom.server.players import check_player
from kaboom.server.store import GameStore, same_game
from kaboom.solver import BudgetExceededError, CachePool

__all__ = ["Changed", "Sessions"]

Record = TypeVar("Record")
"""What a change hands its commit besides the two games (a move's undo step, or nothing)."""

Compute = Callable[[Referee, Game], tuple[Game, Record]]
Commit = Callable[[Game, Game, Record], bool]

_RETRIES = 8
"""Times a change is computed again after losing a race to another change before the
answer is 409."""


@dataclass(frozen=True, slots=True)
class Changed:
    """A committed change: the game as stored before it, and after."""

    before: Game
    after: Game


@dataclass(slots=True)
class _Session:
    referee: Referee
    lock: threading.Lock
    game: Game | None = None
    """The game as this process last stored it: a change computes on it first, saving a
    read, and the compare-and-set on its version catches any change made elsewhere."""


class Sessions:
    """The sessions of the games this process works on, least recently used first out."""

    def __init__(self, store: GameStore, settings: Settings,
                 committed: Callable[[Game], None] = lambda game: None) -> None:
        self.store = store
        self.settings = settings
        self.committed = committed
        """Called with the game as stored after each change this process commits."""
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._guard = threading.Lock()
        self.pool = CachePool(settings.cache_mb << 20)

    def _session(self, game_id: str) -> _Session:
        with self._guard:
            s = self._sessions.get(game_id)
            if s is not None:
                self._sessions.move_to_end(game_id)
                return s
            referee = Referee(self.settings.count_encoding, self.settings.move_budget_s,
                              cache_bytes=self.settings.game_cache_mb << 20, pool=self.pool)
            s = self._sessions[game_id] = _Session(referee, threading.Lock())
            while len(self._sessions) > self.settings.cached_games or (
                len(self._sessions) > 1 and self._known_cells() > self.settings.cached_cells
            ):
                old_id, old = self._sessions.popitem(last=False)
                if old.lock.locked():  # in use: keep it
                    self._sessions[old_id] = old
                    break
            return s

    def _known_cells(self) -> int:
        return sum(len(s.referee.engine.known) for s in self._sessions.values())

    @contextmanager
    def referee(self, game: Game) -> Iterator[Referee]:
        """The game's referee, under the game's lock, up to date with ``game`` (what it
        learned before an undo made here or elsewhere is forgotten)."""
        session = self._session(game.id)
        with session.lock:
            session.referee.sync(game)
            yield session.referee

    def change(self, game_id: str, token: str | None, compute: Compute[Record],
               commit: Commit[Record]) -> Changed:
        """Computes a change on the stored game (only the player's ``token`` may make
        one) and commits it by compare-and-set, computing again on the fresh game when
        another process got there first."""
        session = self._session(game_id)
        with session.lock:
            remembered, session.game = session.game, None
            for _ in range(_RETRIES):
                stored = remembered is None
                game = self.store.get(game_id) if remembered is None else remembered
                remembered = None
                mark = session.referee.mark()
                try:
                    check_player(game.player_hash, token)
                    new, record = compute(session.referee, game)
                except Exception as exc:
                    session.referee.rollback(mark)  # nothing learned from a change not made
                    if stored or isinstance(exc, BudgetExceededError):
                        raise
                    continue  # the remembered game may be out of date: decide on the stored one
                new = replace(new, version=game.version + 1)
                try:
                    committed = _commit_surviving(self.store, commit, game, new, record)
                except BaseException:  # it may be in, or not: believe only what is proven
                    session.referee.rollback(mark)
                    raise
                if committed:
                    session.game = new
                    self.committed(new)
                    return Changed(game, new)
                STORE_RACES.labels("change").inc()
                session.referee.rollback(mark)
            raise ConflictError("the game kept changing under this change; try again")


def _commit_surviving(store: GameStore, commit: Commit[Record], before: Game, after: Game,
                      record: Record) -> bool:
    """``commit``, the compare-and-set of ``after`` on ``before``, once more if the
    connection died before its answer came.  The game read again (on a fresh connection)
    tells which it was: committed (the stored game is ``after``), not (still at
    ``before``'s version: committed once more), or another change came first (False, as
    any lost race).  A store that fails again is a 503 that says the change may be in."""
    try:
        return commit(before, after, record)
    except StoreConnectionLostError:
        pass
    try:
        stored = store.get(after.id)
        if same_game(stored, after):
            return True
        return stored.version == before.version and commit(before, after, record)
    except StoreUnavailableError as exc:
        raise StoreUnavailableError(
            "the connection to the game store was lost during this change, and whether it"
            " was stored cannot be told now: read the game before trying again") from exc
