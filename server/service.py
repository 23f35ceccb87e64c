"""Games as a service: load, lock, apply a move, persist, answer.

One lock per game serialises its moves; each game's :class:`Referee` (its warm engines)
lives in a bounded in-memory cache and is rebuilt from the board when evicted.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

from server.config import Settings
from server.game import Game, Referee, Rules
from server.store import GameStore
from solver.budget import Budget
from solver.errors import BudgetExceededError, IllegalMoveError
from solver.knowledge import Knowledge
from solver.position import Move
from solver.probability import probabilities

__all__ = ["Analysis", "GameService"]


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the debug overlay shows: the status of every cell and, when affordable,
    every covered cell's exact mine probability."""

    knowledge: Knowledge
    status: list[str]
    probability: list[list[float | None] | None]
    exact: bool


@dataclass(slots=True)
class _Session:
    referee: Referee
    lock: threading.Lock


class GameService:
    """Creates games and applies moves to them."""

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._guard = threading.Lock()
        self._versions: dict[str, int] = {}

    def _session(self, game_id: str) -> _Session:
        with self._guard:
            s = self._sessions.get(game_id)
            if s is None:
                s = _Session(
                    Referee(self.settings.count_encoding, self.settings.move_budget_s),
                    threading.Lock(),
                )
                self._sessions[game_id] = s
                while len(self._sessions) > self.settings.cached_games:
                    old_id, old = self._sessions.popitem(last=False)
                    if old.lock.locked():  # in use: keep it
                        self._sessions[old_id] = old
                        break
            else:
                self._sessions.move_to_end(game_id)
            return s

    def create(self, rules: Rules) -> Game:
        if rules.seed == 0:
            rules = replace(rules, seed=secrets.randbits(63))
        game = Game.new(secrets.token_urlsafe(24), rules)  # 192 random bits
        self.store.create(game)
        return game

    def get(self, game_id: str) -> Game:
        return self.store.get(game_id)

    def play(self, game_id: str, move: Move) -> Game:
        session = self._session(game_id)
        with session.lock:
            game = self.store.get(game_id)
            new, step = session.referee.apply(game, move)
            self.store.save_move(new, step)
        self._versions[game_id] = new.moves
        return new

    def undo(self, game_id: str) -> Game:
        session = self._session(game_id)
        with session.lock:
            game = self.store.get(game_id)
            if not game.undo_allowed:
                raise IllegalMoveError("undo is offered after a loss or in a debug game")
            step = self.store.last_step(game)
            new = session.referee.undo(game, step)
            self.store.save_undo(new)
        self._versions[game_id] = -new.moves - 1  # any change wakes the watchers
        return new

    def analyse(self, game_id: str) -> tuple[Game, Analysis]:
        session = self._session(game_id)
        with session.lock:
            game = self.store.get(game_id)
            if game.status != "playing":
                raise IllegalMoveError(f"the game is over ({game.status}); nothing to analyse")
            if not game.assisted:
                game = replace(game, assisted=True)
                self.store.save(game)
            position = game.position
            referee = session.referee
            knowledge = referee.engine.classify(position, Budget(self.settings.analysis_budget_s))
            rows: list[list[float | None] | None]
            try:
                probs = probabilities(
                    position,
                    known=referee.engine.known,
                    budget=Budget(self.settings.analysis_budget_s),
                    counter=referee.counter,
                )
                rows = [
                    [
                        probs.cells.get((x, y)) if position.is_covered(x, y) else None
                        for x in range(position.width)
                    ]
                    for y in range(position.height)
                ]
                exact = True
            except BudgetExceededError:
                rows = [None] * position.height
                exact = False
        return game, Analysis(knowledge, knowledge.status_rows(position), rows, exact)

    async def wait_for_change(self, game_id: str, moves: int, timeout: float) -> Game:
        """Returns the game once its move count differs from ``moves`` (or at timeout)."""
        deadline = time.monotonic() + min(timeout, self.settings.long_poll_max_s)
        game = self.store.get(game_id)
        while game.moves == moves and game.status == "playing":
            seen = self._versions.get(game_id)
            while self._versions.get(game_id) == seen:
                if time.monotonic() >= deadline:
                    return game
                await asyncio.sleep(0.05)
            game = self.store.get(game_id)
        return game
