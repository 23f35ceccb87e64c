"""The one entry point every client uses: what to play now in a position.

``decide(position)`` returns a :class:`Decision`: the moves to play, whether they are
proven, which algorithm found them and why.  Deduction is complete: whenever any
covered cell is provably safe given every number and the total mine count, the
decision is a set of certain safe reveals.  Otherwise it is the best guess the chosen
profile can find.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from solver.approx import approximate
from solver.budget import Budget
from solver.knowledge import classify
from solver.position import Cell, Move, Position

__all__ = ["Decision", "decide", "decide_rows"]


@dataclass(frozen=True, slots=True)
class Decision:
    """Moves to play now, in order, with how they were found."""

    moves: tuple[Move, ...]
    reason: str
    algorithm: str
    certain: bool
    probabilities: dict[Cell, float] | None = None


def _probabilities(position: Position, known: dict[Cell, bool]) -> dict[Cell, float]:
    try:
        from solver.probability import probabilities as exact
    except ImportError:  # the exact module is not there yet
        return approximate(position, known).cells
    return dict(exact(position, known=known).cells)


def decide(
    position: Position,
    *,
    outside_guess: bool = True,
    probabilities: bool = False,
    flag_mines: bool = False,
    budget_s: float | None = None,
    profile: str = "strong",
    first_click: str = "safe",
) -> Decision:
    """Chooses the moves to play in ``position``.

    ``outside_guess=False`` keeps guesses on the frontier unless the frontier is empty or
    all mines (Kaboom's default rule).  ``probabilities`` attaches per-cell mine
    probabilities; ``flag_mines`` adds flags on proven, unflagged mines; ``first_click``
    (``safe`` or ``opening``) picks the first cell for that first-click rule.
    """
    if position.is_start:
        cell = _first_cell(position, first_click)
        return Decision((Move.reveal(*cell),), f"first click ({first_click})", "first", True)
    knowledge = classify(position, budget=Budget(budget_s))
    moves: list[Move] = []
    if flag_mines:
        moves += [Move.flag(*c) for c in sorted(knowledge.mines) if position.char(*c) != "F"]
    safe = [c for c in position.covered() if c in knowledge.safe and position.char(*c) != "F"]
    probs = _probabilities(position, knowledge.decided()) if probabilities or not safe else None
    if safe:
        moves += [Move.reveal(*c) for c in safe]
        return Decision(tuple(moves), "certain: SAT engine", "sat", True, probs)
    assert probs is not None
    candidates = _guess_candidates(position, knowledge.mines, outside_guess)
    if not candidates:
        return Decision(tuple(moves), "nothing left to reveal", "none", True, probs)
    best = min(candidates, key=lambda c: (probs.get(c, 1.0), c[1], c[0]))
    moves.append(Move.reveal(*best))
    reason = f"guess: lowest mine probability {probs.get(best, 1.0):.3f}"
    return Decision(tuple(moves), reason, "guess", False, probs if probabilities else None)


def decide_rows(rows: Sequence[str], mines: int, **kw: object) -> Decision:
    """``decide`` for the API's board format: a list of row strings and the mine count."""
    return decide(Position.from_rows(rows, mines), **kw)  # type: ignore[arg-type]


def _first_cell(position: Position, first_click: str) -> Cell:
    if first_click == "opening" and position.width >= 5 and position.height >= 5:
        return 2, 2
    return 0, 0


def _guess_candidates(
    position: Position, mines: frozenset[Cell], outside_guess: bool
) -> list[Cell]:
    covered = [c for c in position.covered() if c not in mines and position.char(*c) != "F"]
    if outside_guess:
        return covered
    frontier = set(position.frontier())
    inside = [c for c in covered if c in frontier]
    return inside or covered
