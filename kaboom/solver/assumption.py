"""The assumption method (seed 003, listing 3): assume, propagate, find the contradiction.

For each undecided frontier cell, assume it is a mine and propagate the trivial rules
(a number with all its mines placed makes its other cells safe; one with as many
unknown cells as missing mines makes them all mines).  If that ends in a contradiction
(a number over- or under-filled, or more mines than the count allows), the cell is
safe; likewise assuming it safe proves a mine.  Decided cells feed the next round.
Sound; stronger than the group method, still not complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kaboom.solver.frontier import Constraint, frontier_of
from kaboom.solver.position import Cell, Position, row_major

__all__ = ["AssumptionResult", "deduce", "propagate", "solve_assumptions"]


@dataclass(frozen=True, slots=True)
class AssumptionResult:
    """Cells the assumption method proved."""

    safe: frozenset[Cell]
    mines: frozenset[Cell]


def deduce(position: Position, known: Mapping[Cell, bool] | None = None) -> AssumptionResult:
    """Runs the assumption method on ``position`` (numbers and the mine count)."""
    fr = frontier_of(position, known)
    return solve_assumptions(fr.constraints, len(fr.outside), fr.mines_left)


def propagate(
    constraints: list[Constraint], assigned: dict[Cell, bool], mines_left: int | None = None,
    outside: int = 0,
) -> dict[Cell, bool] | None:
    """Extends ``assigned`` by the trivial rules; ``None`` on a contradiction."""
    assigned = dict(assigned)
    changed = True
    while changed:
        changed = False
        for con in constraints:
            open_cells = [c for c in con.cells if c not in assigned]
            need = con.mines - sum(1 for c in con.cells if assigned.get(c))
            if need < 0 or need > len(open_cells):
                return None
            if open_cells and (need == 0 or need == len(open_cells)):
                for c in open_cells:
                    assigned[c] = need > 0
                changed = True
    if mines_left is not None:
        placed = sum(1 for m in assigned.values() if m)
        unassigned = len({c for con in constraints for c in con.cells} - assigned.keys())
        if placed > mines_left or placed + unassigned + outside < mines_left:
            return None
    return assigned


def solve_assumptions(
    constraints: Iterable[Constraint], outside: int = 0, mines_left: int | None = None
) -> AssumptionResult:
    """Tries both assumptions on every cell, repeating while anything is decided."""
    cons = list(constraints)
    cells = sorted({c for con in cons for c in con.cells}, key=row_major)
    decided = propagate(cons, {}, mines_left, outside) or {}
    progress = True
    while progress:
        progress = False
        for c in cells:
            if c in decided:
                continue
            for guess in (True, False):
                if propagate(cons, {**decided, c: guess}, mines_left, outside) is None:
                    more = propagate(cons, {**decided, c: not guess}, mines_left, outside)
                    if more is not None:
                        decided = more
                        progress = True
                    break
    return AssumptionResult(
        frozenset(c for c, m in decided.items() if not m),
        frozenset(c for c, m in decided.items() if m),
    )
