"""Games as a service: load, apply a move, commit it if nobody else did first, answer.

Any number of server processes may share one store.  A change is computed from the game
as stored and committed only if the game is still at that version (compare-and-set); the
loser of a race is computed again on the fresh game, so every acknowledged move is in the
game's history, and what the lost try taught the referee is forgotten.  Within one
process, a lock per game keeps its moves from racing at all.
Each game's :class:`Referee` (its warm engines) lives in a bounded in-memory cache, is
rebuilt when evicted, and forgets what it learned when another process undid a move.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from kaboom.server.admission import Gate
from kaboom.server.assistance import Assistant
from kaboom.server.config import Settings
from kaboom.server.errors import (
    ConflictError,
    MoveLimitError,
    StoreConnectionLostError,
    StoreUnavailableError,
)
from kaboom.server.game import Game, Referee, Rules, Step
from kaboom.server.history import History
from kaboom.server.metrics import (
    GAMES_CREATED,
    GAMES_ENDED,
    GAMES_EXPIRED,
    MOVES_OUT_OF_TIME,
    SAT_FALLBACK_LAYOUTS,
    STORE_RACES,
)
from kaboom.server.players import Players, check_player, token_hash
from kaboom.server.store import GameStore, same_game
from kaboom.server.watcher import Watcher
from kaboom.solver import Budget, BudgetExceededError, CachePool, GameStatus, IllegalMoveError, Move

__all__ = ["GameService"]

_Record = TypeVar("_Record")
"""What a change hands its commit besides the two games (a move's undo step, or nothing)."""


@dataclass(slots=True)
class _Session:
    referee: Referee
    lock: threading.Lock
    game: Game | None = None
    """The game as this process last stored it: a move computes on it first, saving a
    read, and the compare-and-set on its version catches any change made elsewhere."""


_RETRIES = 8
"""Times a change is computed again after losing a race to another change before the
answer is 409."""


def _commit_surviving(store: GameStore, commit: Callable[[Game, Game, _Record], bool],
                      before: Game, after: Game, record: _Record) -> bool:
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


class GameService:
    """Creates games and applies their moves; its parts answer the rest: who may move a
    game (:attr:`players`), its history (:attr:`history`), assistance (:attr:`assistant`)
    and waiting for a change (:attr:`watcher`)."""

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._guard = threading.Lock()
        self.players = Players(store)
        self.watcher = Watcher(store, settings.long_poll_interval_s, settings.long_poll_max_s)
        self.history = History(store)
        self.assistant = Assistant(self)
        self.pool = CachePool(settings.cache_mb << 20)
        self.gate = Gate(settings.solver_threads, settings.queued_moves, settings.queued_total)

    def session(self, game_id: str) -> _Session:
        with self._guard:
            s = self._sessions.get(game_id)
            if s is None:
                referee = Referee(
                    self.settings.count_encoding,
                    self.settings.move_budget_s,
                    cache_bytes=self.settings.game_cache_mb << 20,
                    pool=self.pool,
                )
                s = _Session(referee, threading.Lock())
                self._sessions[game_id] = s
                while len(self._sessions) > self.settings.cached_games or (
                    len(self._sessions) > 1 and self._known_cells() > self.settings.cached_cells
                ):
                    old_id, old = self._sessions.popitem(last=False)
                    if old.lock.locked():  # in use: keep it
                        self._sessions[old_id] = old
                        break
            else:
                self._sessions.move_to_end(game_id)
            return s

    def _known_cells(self) -> int:
        return sum(len(s.referee.engine.known) for s in self._sessions.values())

    # ------------------------------------------------------------------ games
    def create(self, rules: Rules) -> tuple[Game, str]:
        """Stores a new game; returns it with the player's token (shown only here)."""
        if rules.seed == 0:
            rules = replace(rules, seed=secrets.randbits(63) or 1, seeded=False)
        else:
            rules = replace(rules, seeded=True)
        token = secrets.token_urlsafe(24)
        game = Game.new(secrets.token_urlsafe(24), rules)  # 192 random bits each
        game = replace(game, player_hash=token_hash(token))
        self.store.create(game)
        GAMES_CREATED.inc()
        self.watcher.changed(game.id)
        return game, token

    def get(self, game_id: str) -> Game:
        return self.store.get(game_id)

    # ------------------------------------------------------------------ changes
    def change(
        self,
        game_id: str,
        token: str | None,
        compute: Callable[[Referee, Game], tuple[Game, _Record]],
        commit: Callable[[Game, Game, _Record], bool],
    ) -> Game:
        """Computes a change on the stored game and commits it by compare-and-set,
        computing again on the fresh game when another process got there first."""
        session = self.session(game_id)
        with session.lock:
            remembered, session.game = session.game, None
            for _ in range(_RETRIES):
                stored = remembered is None
                game = self.store.get(game_id) if remembered is None else remembered
                remembered = None
                mark = session.referee.mark()
                try:
                    check_player(game.player_hash, token)
                    new, step = compute(session.referee, game)
                except Exception as exc:
                    session.referee.rollback(mark)  # nothing learned from a move not made
                    if stored or isinstance(exc, BudgetExceededError):
                        raise
                    continue  # the remembered game may be out of date: decide on the stored one
                new = replace(new, version=game.version + 1)
                if _commit_surviving(self.store, commit, game, new, step):
                    session.game = new
                    self.watcher.changed(game_id)
                    return new
                STORE_RACES.labels("change").inc()
                session.referee.rollback(mark)
            raise ConflictError("the game kept changing under this move; try again")

    def move_limit(self, rules: Rules) -> int:
        """The moves a game with ``rules`` may keep: the history a move stores is bounded
        by the board, not by how long a client keeps clicking."""
        cells = rules.width * rules.height
        return max(self.settings.move_limit_min, self.settings.move_limit_per_cell * cells)

    def play(
        self, game_id: str, move: Move, token: str | None, budget: Budget | None = None
    ) -> Game:
        """Plays ``move``; ``budget`` (default: the move budget from now) bounds it all.
        A move past the game's :meth:`move_limit` is refused before the referee sees it."""
        budget = budget or Budget(self.settings.move_budget_s)

        def compute(referee: Referee, game: Game) -> tuple[Game, Step]:
            limit = self.move_limit(game.rules)
            if game.moves >= limit and game.status is GameStatus.PLAYING:
                way_out = ("undo a move to make room, or start a new game" if game.undo_allowed
                           else "start a new game to play on")
                raise MoveLimitError(
                    f"the game has made the {limit} moves a {game.rules.width}x"
                    f"{game.rules.height} game may keep; nothing changed: {way_out}"
                )
            before = referee.timeouts, referee.fallback_layouts
            try:
                return referee.apply(game, move, budget)
            finally:  # the fairness fallbacks, for the operator to see how often they apply
                MOVES_OUT_OF_TIME.inc(referee.timeouts - before[0])
                SAT_FALLBACK_LAYOUTS.inc(referee.fallback_layouts - before[1])

        game = self.change(game_id, token, compute, self.store.commit_move)
        if game.status is not GameStatus.PLAYING:  # a finished game refuses moves: this ended it
            GAMES_ENDED.labels(game.status.value).inc()
        return game

    def undo(self, game_id: str, token: str | None) -> Game:
        def compute(referee: Referee, game: Game) -> tuple[Game, None]:
            if not game.undo_allowed:
                raise IllegalMoveError("undo is offered after a loss or in a debug game")
            return referee.undo(game, self.store.last_step(game)), None

        return self.change(
            game_id, token, compute, lambda before, after, _: self.store.commit_undo(before, after)
        )

    # ------------------------------------------------------------------ expiry
    def expire(self, now: float | None = None) -> int:
        """Deletes finished games and idle games past their settings' ages."""
        now = time.time() if now is None else now
        removed = self.store.expire(
            now - self.settings.finished_expiry_s, now - self.settings.idle_expiry_s
        )
        GAMES_EXPIRED.inc(removed)
        return removed
