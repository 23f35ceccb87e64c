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
from solver.errors import BudgetExceededError, IllegalMoveError, InvalidMoveError
from solver.knowledge import Knowledge
from solver.position import Cell, Move, Position
from solver.probability import probabilities
from solver.proof import Proof, prove

__all__ = ["Analysis", "GameService", "Hint", "Replay"]


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the debug overlay shows: the status of every cell and, when affordable,
    every covered cell's exact mine probability."""

    knowledge: Knowledge
    status: list[str]
    probability: list[list[float | None] | None]
    exact: bool


@dataclass(frozen=True, slots=True)
class Hint:
    """What to play next: a proven safe cell with its proof; on an untouched board any
    cell (the first click is safe); else a forced guess among the ``cells`` with the
    lowest mine ``probability`` (``None`` when it could not be computed in time)."""

    kind: str  # "safe", "first_click" or "forced_guess"
    cells: tuple[Cell, ...]
    proof: Proof | None = None
    probability: float | None = None


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished game from its first board: each move with the cells it changed, as
    ``(x, y, before, after)``, so a page can step forwards and back."""

    start: tuple[str, ...]
    moves: tuple[tuple[str, tuple[tuple[int, int, str, str], ...]], ...]


_HINT_CANDIDATES = 8
"""Safe cells whose proofs a hint compares, to show the shortest of them."""


_HINT_CELLS = 32
"""At most this many equally good guesses are named (the outside may have thousands)."""


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
            game = self._assisted(game)
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

    def proof(self, game_id: str, cell: Cell) -> tuple[Game, Proof]:
        """The proof of a covered cell.  During a game it is assistance (the game is
        marked assisted); after the game it is free and proves the cell in the position
        before the last move, where the loss was decided."""
        session = self._session(game_id)
        with session.lock:
            game = self.store.get(game_id)
            if game.status == "playing":
                position = game.position
                game = self._assisted(game)
            else:
                position = self._before_last(game)
        width, height = position.width, position.height
        if not (0 <= cell[0] < width and 0 <= cell[1] < height):
            raise InvalidMoveError(f"({cell[0]}, {cell[1]}) is off the {width}x{height} board")
        return game, prove(position, cell, Budget(self.settings.analysis_budget_s))

    def hint(self, game_id: str) -> tuple[Game, Hint]:
        """A proven safe cell with the shortest proof among a few, or the best odds of a
        forced guess; marks the game assisted."""
        session = self._session(game_id)
        with session.lock:
            game = self.store.get(game_id)
            if game.status != "playing":
                raise IllegalMoveError(f"the game is over ({game.status}); no hint to give")
            game = self._assisted(game)
            position = game.position
            if position.is_start:
                middle = (position.width // 2, position.height // 2)
                return game, Hint("first_click", (middle,))
            budget = Budget(self.settings.analysis_budget_s)
            knowledge = session.referee.engine.classify(position, budget)
            safe = sorted(
                (c for c in knowledge.safe if position.is_covered(*c) and position.char(*c) != "F"),
                key=lambda c: (c[1], c[0]),
            )
            if safe:
                proofs = [prove(position, c, budget) for c in safe[:_HINT_CANDIDATES]]
                best = min(proofs, key=lambda p: (len(p.numbers), p.count is not None))
                return game, Hint("safe", (best.cell,), best)
            try:
                probs = probabilities(
                    position,
                    known=session.referee.engine.known,
                    budget=budget,
                    counter=session.referee.counter,
                )
            except BudgetExceededError:
                return game, Hint("forced_guess", ())
        odds = {c: p for c, p in probs.cells.items() if position.char(*c) != "F"}
        frontier = set(position.frontier())
        if not game.rules.outside_guess and any(odds.get(c, 1.0) < 1.0 for c in frontier):
            # A guess off the frontier would lose outright while the frontier has a chance.
            odds = {c: p for c, p in odds.items() if c in frontier}
        low = min(odds.values())
        best = sorted((c for c, p in odds.items() if p <= low + 1e-12), key=lambda c: (c[1], c[0]))
        return game, Hint("forced_guess", tuple(best[:_HINT_CELLS]), probability=low)

    def replay(self, game_id: str) -> tuple[Game, Replay]:
        """The moves of a finished game, rebuilt from their undo records."""
        game = self.store.get(game_id)
        if game.status == "playing":
            raise IllegalMoveError("the game is still being played; its replay comes at the end")
        steps = self.store.steps(game_id)
        rows = [list(r) for r in game.rows]
        moves = []
        for step in reversed(steps):
            cells = tuple((x, y, ch, rows[y][x]) for x, y, ch in step.cells)
            for x, y, ch in step.cells:
                rows[y][x] = ch
            moves.append((step.move, cells))
        moves.reverse()
        return game, Replay(tuple("".join(r) for r in rows), tuple(moves))

    def _assisted(self, game: Game) -> Game:
        if game.assisted:
            return game
        game = replace(game, assisted=True)
        self.store.save(game)
        return game

    def _before_last(self, game: Game) -> Position:
        """The position the last move was played on (the board before a loss showed)."""
        if game.moves == 0:
            return game.position
        return self.store.last_step(game).undo(game).position

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
