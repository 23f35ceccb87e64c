"""The group method (seeds 000 and 001): subset and overlap reductions to a fixpoint.

A *group* is a set of undecided covered cells and the number of mines among them; each
open number gives one.  Repeating three rules until nothing changes decides many cells
cheaply, without search:

* a group with 0 mines is all safe, one with as many mines as cells is all mines;
* if group A lies inside group B, then B - A holds ``B.mines - A.mines`` mines;
* if A and B overlap and ``B.mines - |B - A| == A.mines``, the overlap holds all of A's
  mines: A - B is safe and B - A is all mines.

It is sound but not complete (no mine count, no search); the strategy falls back to
exact counting or the SAT engine when it stalls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kaboom.solver._kernels.groups import reduce
from kaboom.solver.frontier import Constraint, frontier_of
from kaboom.solver.position import Cell, Position

__all__ = ["Group", "GroupResult", "deduce", "reduce_groups"]


@dataclass(frozen=True, slots=True)
class Group:
    """Exactly ``mines`` of ``cells`` are mines."""

    cells: frozenset[Cell]
    mines: int


@dataclass(frozen=True, slots=True)
class GroupResult:
    """Cells the group method proved, and the groups left undecided."""

    safe: frozenset[Cell]
    mines: frozenset[Cell]
    groups: tuple[Group, ...]
    trivial: bool = False
    """True when the single-group rules alone found the safe cells."""


def deduce(position: Position, known: Mapping[Cell, bool] | None = None) -> GroupResult:
    """Runs the group method on the open numbers of ``position`` (mine count unused)."""
    return reduce_groups(frontier_of(position, known).constraints)


def reduce_groups(
    constraints: Iterable[Constraint | Group],
    max_rounds: int = 50,
    *,
    stop_at_safe: bool = False,
) -> GroupResult:
    """Applies the trivial, subset and overlap rules until nothing changes (at most
    ``max_rounds`` rounds of the pair rules; compiled:
    :func:`kaboom.solver._kernels.groups.reduce`).

    ``stop_at_safe`` returns as soon as a safe cell is known (a player only needs one);
    ``trivial`` in the result then says the pair rules were not needed.  Raises
    :class:`InvalidPositionError` when the groups contradict each other.
    """
    groups, safe, mines, trivial = reduce(list(constraints), max_rounds, stop_at_safe)
    return GroupResult(
        frozenset(safe),
        frozenset(mines),
        tuple(Group(cells, m) for cells, m in groups),
        trivial and bool(safe),
    )
