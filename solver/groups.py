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

from solver.errors import InvalidPositionError
from solver.frontier import Constraint, frontier_of
from solver.position import Cell, Position

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
    """Applies the trivial, subset and overlap rules until nothing changes.

    ``stop_at_safe`` returns as soon as a safe cell is known (a player only needs one);
    ``trivial`` in the result then says the pair rules were not needed.  Raises
    :class:`InvalidPositionError` when the groups contradict each other.
    """
    groups: dict[frozenset[Cell], int] = {}
    for con in constraints:
        _add(groups, frozenset(con.cells), con.mines)
    safe: set[Cell] = set()
    mines: set[Cell] = set()
    trivial = True
    for _ in range(max_rounds):
        changed = _settle(groups, safe, mines)
        if stop_at_safe and safe:
            break
        trivial = False
        changed |= _pairs(groups)
        if not changed:
            break
    else:
        _settle(groups, safe, mines)
    return GroupResult(
        frozenset(safe),
        frozenset(mines),
        tuple(Group(cells, m) for cells, m in groups.items()),
        trivial and bool(safe),
    )


def _add(groups: dict[frozenset[Cell], int], cells: frozenset[Cell], mines: int) -> bool:
    if mines < 0 or mines > len(cells):
        raise InvalidPositionError("the numbers contradict each other")
    if not cells:
        return False
    prev = groups.get(cells)
    if prev is not None:
        if prev != mines:
            raise InvalidPositionError("the numbers contradict each other")
        return False
    groups[cells] = mines
    return True


def _settle(groups: dict[frozenset[Cell], int], safe: set[Cell], mines: set[Cell]) -> bool:
    """Decides all-safe and all-mine groups and folds decided cells into the rest."""
    changed = False
    while True:
        new_safe: set[Cell] = set()
        new_mines: set[Cell] = set()
        for cells, m in groups.items():
            if m == 0:
                new_safe |= cells
            elif m == len(cells):
                new_mines |= cells
        if new_safe & new_mines:
            raise InvalidPositionError("the numbers contradict each other")
        if not new_safe and not new_mines:
            return changed
        changed = True
        safe |= new_safe
        mines |= new_mines
        decided = new_safe | new_mines
        old = list(groups.items())
        groups.clear()
        for cells, m in old:
            if cells & decided:
                _add(groups, cells - decided, m - len(cells & new_mines))
            else:
                _add(groups, cells, m)


def _pairs(groups: dict[frozenset[Cell], int]) -> bool:
    """One pass of the subset and overlap rules over groups that share a cell."""
    by_cell: dict[Cell, list[frozenset[Cell]]] = {}
    for cells in groups:
        for c in cells:
            by_cell.setdefault(c, []).append(cells)
    seen: set[tuple[frozenset[Cell], frozenset[Cell]]] = set()
    found: list[tuple[frozenset[Cell], int]] = []
    for members in by_cell.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                key = (a, b) if hash(a) <= hash(b) else (b, a)
                if key in seen:
                    continue
                seen.add(key)
                found.extend(_combine(a, groups[a], b, groups[b]))
    changed = False
    for cells, m in found:
        if cells in groups and groups[cells] != m:
            raise InvalidPositionError("the numbers contradict each other")
        changed |= _add(groups, cells, m)
    # A group that has a proper sub-group is replaced by the difference.
    if changed:
        for cells in sorted(groups, key=len):
            if cells not in groups:
                continue
            for other in list(groups):
                if other is not cells and cells < other:
                    m = groups.pop(other)
                    _add(groups, other - cells, m - groups[cells])
    return changed


def _combine(
    a: frozenset[Cell], ma: int, b: frozenset[Cell], mb: int
) -> list[tuple[frozenset[Cell], int]]:
    if a <= b:
        return [(b - a, mb - ma)]
    if b <= a:
        return [(a - b, ma - mb)]
    only_a, only_b = a - b, b - a
    # Mines forced into the overlap by each side; if one side's bound is tight, split.
    if mb - len(only_b) == ma:
        return [(only_a, 0), (only_b, mb - ma)]
    if ma - len(only_a) == mb:
        return [(only_b, 0), (only_a, ma - mb)]
    return []
