"""Closed regions: parts of the board that are a game of their own.

A component of the frontier is *closed* when none of its cells touches an undecided
covered cell outside it: no click elsewhere can ever show a number next to it.  If, in
addition, every solution of the component holds the same number of mines, the layout
inside it is independent of the rest of the board (each of its solutions combines with
exactly the same outside layouts).  The chance to win is then the product of the
region's and the rest's, so the region can be played now, and played perfectly: the
exact win-probability search of :mod:`kaboom.solver.endgame` over the region's solutions,
however large the rest of the board (seed 002, step 5: "also usable on a closed region
with a known mine count"; JSMinesweeper's isolated edges).
"""

from __future__ import annotations

from dataclasses import dataclass

from kaboom.solver import counting
from kaboom.solver.endgame import Endgame
from kaboom.solver.frontier import Constraint, Frontier
from kaboom.solver.position import COVERED_CHARS, Cell, Position, neighbour_lists

__all__ = ["Region", "best_move", "closed_regions", "solutions"]


@dataclass(frozen=True, slots=True)
class Region:
    """A closed component whose solutions all hold ``mines`` mines."""

    cells: tuple[Cell, ...]
    constraints: tuple[Constraint, ...]
    mines: int
    count: int
    """Its number of solutions."""


def closed_regions(
    position: Position,
    frontier: Frontier,
    max_solutions: int = 1_000,
    node_limit: int = 20_000,
) -> list[Region]:
    """The closed, fixed-mine-count components with at most ``max_solutions`` solutions.

    ``frontier`` is the position's, with every decided cell folded in (its ``known``).
    """
    out = []
    width, rows, known = position.width, position.rows, frontier.known
    around = neighbour_lists(width, position.height)
    for cells, cons in frontier.components():
        members = set(cells)
        if any(
            rows[n[1]][n[0]] in COVERED_CHARS and n not in members and n not in known
            for c in cells
            for n in around[c[1] * width + c[0]]
        ):
            continue
        try:
            table = counting.tabulate(cons, node_limit)
        except counting.TooBig:
            continue
        if len(table.totals) != 1:
            continue
        (mines, count), = table.totals.items()
        if count <= max_solutions:
            out.append(Region(cells, tuple(cons), mines, count))
    return out


def solutions(region: Region) -> list[frozenset[Cell]]:
    """Every placement of mines on the region's cells that fits its constraints."""
    found = counting.solutions(region.constraints, max(1, region.count), node_limit=10**6)
    assert found is not None  # the region's count was made by the same search
    return found


def best_move(
    position: Position, region: Region, node_limit: int = 20_000
) -> tuple[Cell, float] | None:
    """The cell with the best chance to clear the region, and that chance; ``None``
    when the search is too large.

    The region's cells see no undecided cell outside it, so the number a cell would
    show differs between two solutions exactly as their mines next to it do.
    """
    game = Endgame(position, solutions(region), list(region.cells), node_limit)
    return game.best()
