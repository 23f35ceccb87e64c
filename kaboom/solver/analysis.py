"""The analysis of a position: what is certain, the odds, the move to play, and when no
layout fits, why.

:func:`analyse` puts together what the solver already knows how to do, under one
budget: :func:`~kaboom.solver.knowledge.classify` (every covered cell safe, a mine or
unknown), :func:`~kaboom.solver.counting.probabilities` (each one's exact odds),
:func:`~kaboom.solver.advisor.decide` (the move to play, with its reason) and
:func:`~kaboom.solver.proof.prove` (why that move is safe), and when nothing is safe,
:func:`~kaboom.solver.winchance.win_chances` (the chance to win the game after the
guess, and after the other best guesses); for an impossible position,
:func:`~kaboom.solver.contradiction.why_impossible`.  It never answers wrongly: what the
budget did not reach is said to be unsettled (``?``), odds that did not fit are left
out (``exact`` false), a move is recommended only when it is proven safe or the
position was settled in full (a guess while some cell is still unsettled could be a
guess while a safe cell exists), and win chances too few rollouts stand behind are
not given, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kaboom.solver.advisor import decide
from kaboom.solver.budget import Budget
from kaboom.solver.contradiction import Contradiction, why_impossible
from kaboom.solver.counting import LayoutCounter, Probabilities, probabilities
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError
from kaboom.solver.knowledge import Knowledge, KnowledgeEngine, classify
from kaboom.solver.position import Cell, Move, MoveKind, Position, row_major
from kaboom.solver.proof import Proof, prove
from kaboom.solver.strategy import Decision
from kaboom.solver.winchance import WinChances, win_chances

__all__ = ["CHANCE_CANDIDATES", "MIN_ROLLOUTS", "PROOF_CANDIDATES", "Analysis",
           "Recommendation", "analysable", "analyse", "easiest_proof"]

_PLAYABLE = frozenset("#F?012345678")
"""The characters of a position in play (a finished board's ``X``, ``*``, ``!`` are not)."""

# Shares of the time left that each step takes, in order; the last step has the rest
# (without a recommendation, the probabilities).  The classification first and most: it
# is what settles cells, and on a loaded machine most of the time (bench/analyse_time.py).
_CLASSIFY, _PROBABILITIES, _DECIDE = 0.5, 0.5, 0.7

PROOF_CANDIDATES = 8
"""Safe cells whose proofs :func:`easiest_proof` compares."""

CHANCE_CANDIDATES = 3
"""Guesses whose win chances an analysis gives: the recommended one and the next best
(more would share the rollouts the budget allows: about 80 a guess for three on an
Expert position on a loaded machine, ``bench/analyse_time.py --chances``)."""

MIN_ROLLOUTS = 30
"""Rollouts a win chance needs to be given: fewer, and the interval is too wide to say
anything (a position too large for the budget says so instead)."""

_CHANCE_ROLLOUTS = 1000
"""Rollouts the win chances stop at when the budget allows more: a 95 % interval of
about three points either side on Expert."""

TOO_LARGE = "the position is too large to estimate the win chance within the time budget"
FIRST_CLICK = "a first click's chance to win depends on the game's first-click rule"


@dataclass(frozen=True, slots=True)
class Recommendation:
    """The move to play: ``moves`` (several proven safe reveals, or one guess), the
    solver's ``reason``, whether every reveal is proven safe (``certain``), and then the
    ``proof`` of the first one's cell (the easiest of a few; ``None`` if it did not fit
    the budget)."""

    moves: tuple[Move, ...]
    reason: str
    certain: bool
    proof: Proof | None = None
    chances: WinChances | None = None
    """For a guess, when asked for: its chance to win the game and the other best
    guesses', the recommended one first, played on the same layouts."""
    no_chances: str | None = None
    """Why a guess has no :attr:`chances` when they were asked for (the position is too
    large for the budget; a first click)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What :func:`analyse` found.  A position no layout fits has no ``knowledge``: it is
    ``impossible``, and ``contradiction`` says why (``None`` when the reason did not fit
    the budget)."""

    position: Position
    """The position analysed."""
    knowledge: Knowledge | None
    probabilities: Probabilities | None = None
    """Every covered cell's exact mine probability; ``None`` when they did not fit the
    budget, or no layout fits."""
    recommendation: Recommendation | None = None
    """The move to play; ``None`` when none was asked for, or none is one this analysis
    can stand behind."""
    impossible: bool = False
    contradiction: Contradiction | None = None

    @property
    def complete(self) -> bool:
        """Whether every covered cell was settled as safe, a mine or unknown."""
        return self.knowledge is not None and self.knowledge.complete

    @property
    def exact(self) -> bool:
        """Whether every covered cell's exact probability was computed."""
        return self.probabilities is not None

    def status_rows(self) -> list[str]:
        """:meth:`Knowledge.status_rows`; every covered cell ``?`` when impossible."""
        if self.knowledge is not None:
            return self.knowledge.status_rows(self.position)
        return [row.translate(_UNSETTLED) for row in self.position.rows]

    def probability_rows(self) -> list[list[float | None] | None]:
        """Per row, each covered cell's mine probability and ``None`` for open cells; a
        row is ``None`` when the probabilities are not exact."""
        probs, position = self.probabilities, self.position
        if probs is None:
            return [None] * position.height
        return [
            [probs.cells.get((x, y)) if position.is_covered(x, y) else None
             for x in range(position.width)]
            for y in range(position.height)
        ]


_UNSETTLED = str.maketrans(dict.fromkeys("#F?", "?"))


def analysable(rows: Sequence[str], mines: int) -> Position:
    """The position of ``rows`` and ``mines``, checked for analysis.  Raises
    :class:`InvalidPositionError` naming the row and column of the first bad cell (rows
    and columns counted from 0, as cells are named everywhere)."""
    if not rows:
        raise InvalidPositionError("a board needs at least one row")
    width = len(rows[0])
    for y, row in enumerate(rows):
        if len(row) != width:
            raise InvalidPositionError(
                f"row {y} has {len(row)} cells where row 0 has {width}")
        for x, ch in enumerate(row):
            if ch not in _PLAYABLE:
                raise InvalidPositionError(
                    f"row {y}, column {x}: {ch!r} is not a cell of a position in play"
                    " (# covered, F flag, ? question mark, 0-8 open)")
    if width == 0:
        raise InvalidPositionError("row 0 is empty")
    return Position.from_rows(rows, mines)


def analyse(
    position: Position,
    budget: Budget | None = None,
    *,
    engine: KnowledgeEngine | None = None,
    counter: LayoutCounter | None = None,
    recommend: bool = True,
    chances: bool = False,
) -> Analysis:
    """Analyses ``position`` within ``budget``.

    ``engine`` and ``counter`` may carry what a game's earlier positions taught (the
    debug overlay passes the game's warm ones); ``recommend=False`` leaves out the move
    and gives the classification and the probabilities the whole budget; ``chances``
    adds, when the move is a guess, its chance to win the game and the next best
    guesses' (:attr:`Recommendation.chances`), with most of the time left.  Flags are
    the player's notes: a flagged cell proven safe is recommended like any other.  Out
    of budget, it says what it could not settle rather than raise.
    """
    budget = budget or Budget(None)
    try:
        step = budget.share(_CLASSIFY)
        if engine is not None:
            knowledge = engine.classify(position, step)
            known = engine.known
        else:
            knowledge = classify(position, budget=step)
            known = knowledge.decided()
        try:
            probs: Probabilities | None = probabilities(
                position, known=known, counter=counter,
                budget=budget.share(_PROBABILITIES) if recommend else budget)
        except BudgetExceededError:
            probs = None
    except InvalidPositionError:
        return Analysis(position, None, impossible=True,
                        contradiction=_reason(position, budget))
    found = _recommend(position, knowledge, budget, chances, probs) if recommend else None
    return Analysis(position, knowledge, probs, found)


def _reason(position: Position, budget: Budget) -> Contradiction | None:
    try:
        found = why_impossible(position, budget)
    except BudgetExceededError:
        return None
    if found is None:  # classify and the search disagree: a bug, never a guess
        raise AssertionError(f"no reason found for an impossible position:\n{position}")
    return found


def _recommend(position: Position, knowledge: Knowledge, budget: Budget, chances: bool,
               probs: Probabilities | None) -> Recommendation | None:
    """:func:`decide`'s move on the position with its flags lifted, when it is proven
    safe (by this analysis, or by the solver's own deduction, which is sound) or the
    knowledge is complete; with the proof of its first reveal, or for a guess, with
    ``chances``, the win chances."""
    unflagged = position.without_flags()
    try:
        decision = decide(unflagged, budget_s=budget.share(_DECIDE).remaining())
    except (BudgetExceededError, InvalidPositionError):
        return None
    reveals = [m.cell for m in decision.moves if m.kind is MoveKind.REVEAL]
    # A first click is "certain" under the first-click rule only, not in the position.
    proven = decision.certain and decision.algorithm != "first"
    certain = bool(reveals) and (proven or all(c in knowledge.safe for c in reveals))
    safe_exists = any(position.is_covered(*c) for c in knowledge.safe)
    if not certain and (not knowledge.complete or (reveals and safe_exists)
                        or any(c in knowledge.mines for c in reveals)):
        return None  # only a move this analysis can stand behind
    proof = None
    moves = decision.moves
    if certain:
        try:
            proof = easiest_proof(position, reveals, budget)
        except BudgetExceededError:
            proof = None
        else:  # the move whose proof is shown first
            moves = tuple(sorted(moves, key=lambda m: m.cell != proof.cell))
    elif chances and reveals:
        odds, why = _chances(unflagged, decision, knowledge, probs, budget)
        return Recommendation(moves, decision.reason, certain, None, odds, why)
    return Recommendation(moves, decision.reason, certain, proof)


def _chances(position: Position, decision: Decision, knowledge: Knowledge,
             probs: Probabilities | None, budget: Budget) -> tuple[WinChances | None, str | None]:
    """The guess's win chance and the next best guesses' (the lookahead's order when it
    weighed them, then the safest), or why there are none."""
    if position.is_start:
        return None, FIRST_CLICK
    guess = decision.moves[-1].cell
    ranked = [c for c, _ in decision.ranked if c != guess]
    if len(ranked) < CHANCE_CANDIDATES - 1:
        odds = probs.cells if probs is not None else {}
        others = [c for c in position.covered()
                  if c not in knowledge.mines and c != guess and c not in ranked]
        ranked += sorted(others, key=lambda c: (odds.get(c, 1.0), row_major(c)))
    cells = [guess, *ranked[: CHANCE_CANDIDATES - 1]]
    try:
        found = win_chances(position, cells, rollouts=_CHANCE_ROLLOUTS,
                            budget=budget.share(0.9))
    except (BudgetExceededError, InvalidPositionError):
        return None, TOO_LARGE
    if not found.exact and found.rollouts < MIN_ROLLOUTS:
        return None, TOO_LARGE
    return found, None


def easiest_proof(position: Position, safe: list[Cell], budget: Budget | None = None) -> Proof:
    """The proof with the fewest numbers (one without the count first) among the first
    ``PROOF_CANDIDATES`` of the ``safe`` cells, row-major: the one a player checks
    most easily.  Raises :class:`BudgetExceededError` when the budget runs out."""
    proofs = [prove(position, c, budget)
              for c in sorted(safe, key=row_major)[:PROOF_CANDIDATES]]
    return min(proofs, key=lambda p: (len(p.numbers), p.count is not None))
