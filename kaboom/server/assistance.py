"""Assistance to the player: the debug overlay's analysis, a cell's proof, a hint.

Any of them during a game marks it assisted (it then counts apart in the statistics);
after the game, proofs are free.  They run on the game's warm referee, under its lock
(:meth:`kaboom.server.sessions.Sessions.referee`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from kaboom.server.config import Settings
from kaboom.server.game import Game, Referee
from kaboom.server.history import History
from kaboom.server.players import check_player
from kaboom.server.sessions import Sessions
from kaboom.solver import (
    Analysis,
    Budget,
    BudgetExceededError,
    Cell,
    GameStatus,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    NoProofError,
    Proof,
    analyse,
    easiest_proof,
    probabilities,
    prove,
)
from kaboom.solver.position import row_major

__all__ = ["ANSWER_SHARE", "Assistant", "Hint", "HintKind"]

HintKind = Literal["safe", "first_click", "forced_guess"]

ANSWER_SHARE = 0.7
"""Share of an analysis's budget the solver may take: the rest is kept for drawing the
answer, 1.3 MB of JSON (or the overlay's HTML) on a 256x256 board."""

_HINT_CELLS = 32
"""At most this many equally good guesses are named (the outside may have thousands)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """What to play next: a proven safe cell with its proof; on an untouched board any
    cell (the first click is safe); else a forced guess among the ``cells`` with the
    lowest mine ``probability`` (``None`` when it could not be computed in time)."""

    kind: HintKind
    cells: tuple[Cell, ...]
    proof: Proof | None = None
    probability: float | None = None


class Assistant:
    """Analyses, proofs and hints of the games on ``sessions``."""

    def __init__(self, sessions: Sessions, history: History, settings: Settings) -> None:
        self.sessions = sessions
        self.store = sessions.store
        self.history = history
        self.settings = settings

    def mark_assisted(self, game_id: str, token: str | None) -> Game:
        """Marks the player's game assisted (once); refused for a finished game."""

        def compute(referee: Referee, game: Game) -> tuple[Game, None]:
            if game.status is not GameStatus.PLAYING:
                raise IllegalMoveError(f"the game is over ({game.status}); nothing to analyse")
            return replace(game, assisted=True), None

        game = self.store.get(game_id)
        check_player(game.player_hash, token)
        if game.assisted and game.status is GameStatus.PLAYING:
            return game
        return self.sessions.change(
            game_id, token, compute, lambda before, after, _: self.store.commit(before, after)
        ).after

    def analyse(self, game_id: str, token: str | None, budget: Budget) -> tuple[Game, Analysis]:
        """The analysis of the player's game (:func:`kaboom.solver.analyse`, without a
        recommended move, on the game's warm engine) within :data:`ANSWER_SHARE` of
        ``budget``; marks it assisted."""
        game = self.mark_assisted(game_id, token)
        with self.sessions.referee(game) as referee:
            analysis = analyse(game.position, budget.share(ANSWER_SHARE), engine=referee.engine,
                               counter=referee.counter, recommend=False)
        if analysis.impossible:  # the referee keeps every game consistent
            raise InvalidPositionError("no layout fits the game's board")
        return game, analysis

    def proof(self, game: Game, cell: Cell, token: str | None, budget: Budget
              ) -> tuple[Game, Proof]:
        """The proof of a covered cell of ``game``.  During a game it is assistance: an
        answer about a covered cell (its proof, or that it is undecided) marks the game
        assisted, which only its player may do; a refused request leaves it as it was.
        After the game it is free and proves the cell in the position before the last
        move, where the loss was decided.  (A game that ends while its proof is computed
        is not marked: its proofs are free by then, and the answer came after the last
        move.)"""
        playing = game.status is GameStatus.PLAYING
        position = game.position if playing else self.history.before_last(game)
        if not (0 <= cell[0] < position.width and 0 <= cell[1] < position.height):
            raise InvalidMoveError(
                f"({cell[0]}, {cell[1]}) is off the {position.width}x{position.height} board")
        try:
            found = prove(position, cell, budget)
        except NoProofError:
            if playing and position.is_covered(*cell):  # "undecided" is an answer too
                self._mark_assisted_if_playing(game.id, token)
            raise
        return (self._mark_assisted_if_playing(game.id, token) if playing else game), found

    def _mark_assisted_if_playing(self, game_id: str, token: str | None) -> Game:
        try:
            return self.mark_assisted(game_id, token)
        except IllegalMoveError:
            game = self.store.get(game_id)
            if game.status is GameStatus.PLAYING:
                raise
            return game

    def hint(self, game_id: str, token: str | None, budget: Budget) -> tuple[Game, Hint]:
        """A proven safe cell with the shortest proof among a few, or the best odds of a
        forced guess; only the player may ask, and the game is marked assisted.  Within
        ``budget``: one that runs out before the position is settled raises
        :class:`BudgetExceededError`, as calling the next click a forced guess then could
        send the player onto a mine."""
        if self.store.get(game_id).status is not GameStatus.PLAYING:
            raise IllegalMoveError("the game is over; no hint to give")
        game = self.mark_assisted(game_id, token)
        position = game.position
        if position.is_start:
            return game, Hint("first_click", ((position.width // 2, position.height // 2),))
        with self.sessions.referee(game) as referee:
            knowledge = referee.engine.classify(position, budget.share(0.5))
            safe = sorted(
                (c for c in knowledge.safe if position.is_covered(*c) and position.char(*c) != "F"),
                key=row_major,
            )
            if safe:
                best = easiest_proof(position, safe, budget)
                return game, Hint("safe", (best.cell,), best)
            if not knowledge.complete:
                raise BudgetExceededError("no hint within the time budget; try again")
            try:
                probs = probabilities(
                    position, known=referee.engine.known, budget=budget, counter=referee.counter
                )
            except BudgetExceededError:
                return game, Hint("forced_guess", ())
        odds = {c: p for c, p in probs.cells.items() if position.char(*c) != "F"}
        frontier = set(position.frontier())
        if not game.rules.outside_guess and any(odds.get(c, 1.0) < 1.0 for c in frontier):
            # A guess off the frontier would lose outright while the frontier has a chance.
            odds = {c: p for c, p in odds.items() if c in frontier}
        low = min(odds.values())
        best_cells = sorted((c for c, p in odds.items() if p <= low + 1e-12), key=row_major)
        return game, Hint("forced_guess", tuple(best_cells[:_HINT_CELLS]), probability=low)
