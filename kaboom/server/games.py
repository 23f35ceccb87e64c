"""Games as stored values: create one, read it, play a move, undo one, expire old ones.

Each change is computed on the game's session (its warm referee) and committed by
compare-and-set (:mod:`kaboom.server.sessions`), so any number of processes may share the
store.  Nothing here waits for a turn or knows HTTP: the application layer
(:mod:`kaboom.server.application`) runs these on its solver threads.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import replace

from kaboom.server.config import Settings
from kaboom.server.errors import MoveLimitError
from kaboom.server.game import Game, Referee, Rules, Step
from kaboom.server.metrics import (
    GAMES_CREATED,
    GAMES_ENDED,
    GAMES_EXPIRED,
    MOVES_OUT_OF_TIME,
    SAT_FALLBACK_LAYOUTS,
)
from kaboom.server.players import token_hash
from kaboom.server.sessions import Changed, Sessions
from kaboom.server.store import GameStore
from kaboom.solver import Budget, IllegalMoveError, Move
from kaboom.solver.position import GameStatus

__all__ = ["Games"]


class Games:
    """Creates games and changes them, on ``sessions`` (its own when none is given)."""

    def __init__(self, store: GameStore, settings: Settings,
                 sessions: Sessions | None = None) -> None:
        self.store = store
        self.settings = settings
        self.sessions = sessions or Sessions(store, settings)

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
        return game, token

    def get(self, game_id: str) -> Game:
        return self.store.get(game_id)

    def move_limit(self, rules: Rules) -> int:
        """The moves a game with ``rules`` may keep: the history a move stores is bounded
        by the board, not by how long a client keeps clicking."""
        cells = rules.width * rules.height
        return max(self.settings.move_limit_min, self.settings.move_limit_per_cell * cells)

    def play(self, game_id: str, move: Move, token: str | None,
             budget: Budget | None = None) -> Changed:
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

        changed = self.sessions.change(game_id, token, compute, self.store.commit_move)
        if changed.after.status is not GameStatus.PLAYING:  # a finished game refuses moves
            GAMES_ENDED.labels(changed.after.status.value).inc()
        return changed

    def undo(self, game_id: str, token: str | None) -> Changed:
        """Takes back the last move (after a loss, or in a debug game)."""

        def compute(referee: Referee, game: Game) -> tuple[Game, None]:
            if not game.undo_allowed:
                raise IllegalMoveError("undo is offered after a loss or in a debug game")
            return referee.undo(game, self.store.last_step(game)), None

        return self.sessions.change(
            game_id, token, compute, lambda before, after, _: self.store.commit_undo(before, after)
        )

    def expire(self, now: float | None = None) -> int:
        """Deletes finished games and idle games past their settings' ages."""
        now = time.time() if now is None else now
        removed = self.store.expire(
            now - self.settings.finished_expiry_s, now - self.settings.idle_expiry_s
        )
        GAMES_EXPIRED.inc(removed)
        return removed
