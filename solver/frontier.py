"""The open numbers of a position as linear constraints over the undecided covered cells.

Every algorithm starts here: each open number ``n`` becomes "exactly ``n - known mines``
of these undecided cells are mines".  Cells already decided (known safe or known mine,
from an earlier analysis) are folded in, which keeps the systems small on large boards.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from solver.errors import InvalidPositionError
from solver.position import COVERED_CHARS, Cell, Position

__all__ = ["Constraint", "Frontier", "components", "frontier_of"]

_DIGITS = frozenset("012345678")
_COVERED_FLAT = COVERED_CHARS


@functools.cache
def _neighbour_table(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Flat indices of each cell's neighbours, computed once per board size."""
    out = []
    for y in range(height):
        for x in range(width):
            out.append(
                tuple(
                    ny * width + nx
                    for ny in range(max(0, y - 1), min(height, y + 2))
                    for nx in range(max(0, x - 1), min(width, x + 2))
                    if nx != x or ny != y
                )
            )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Constraint:
    """Exactly ``mines`` of ``cells`` are mines (``cells`` sorted, no duplicates)."""

    cells: tuple[Cell, ...]
    mines: int


@dataclass(frozen=True, slots=True)
class Frontier:
    """A position reduced to constraints over its undecided cells.

    ``cells`` are the undecided frontier cells, ``outside`` the undecided cells next to no
    open number, and ``mines_left`` the mines among ``cells`` and ``outside`` together.
    """

    constraints: tuple[Constraint, ...]
    cells: tuple[Cell, ...]
    outside: tuple[Cell, ...]
    mines_left: int
    known: Mapping[Cell, bool]


def frontier_of(position: Position, known: Mapping[Cell, bool] | None = None) -> Frontier:
    """Reduces ``position`` to constraints, folding in ``known`` decided cells.

    ``known`` maps covered cells to ``True`` (mine) or ``False`` (safe); those cells leave
    the system.  Raises :class:`InvalidPositionError` when a number cannot be satisfied.
    """
    rows = position.rows
    width = position.width
    known = {c: m for c, m in (known or {}).items() if rows[c[1]][c[0]] in COVERED_CHARS}
    flat = "".join(rows)
    around = _neighbour_table(width, position.height)
    covered = _COVERED_FLAT
    constraints: dict[tuple[Cell, ...], int] = {}
    in_frontier: set[Cell] = set()
    touched: set[int] = set()
    for idx, ch in enumerate(flat):
        if ch not in _DIGITS:
            continue
        cells: list[Cell] = []
        mines = int(ch)
        for nb in around[idx]:
            if flat[nb] not in covered:
                continue
            touched.add(nb)
            c = (nb % width, nb // width)
            k = known.get(c)
            if k is None:
                cells.append(c)
            elif k:
                mines -= 1
        if not cells:
            if mines != 0:
                raise InvalidPositionError(
                    f"the number at ({idx % width}, {idx // width}) cannot be satisfied"
                )
            continue
        if mines < 0 or mines > len(cells):
            raise InvalidPositionError(
                f"the number at ({idx % width}, {idx // width}) cannot be satisfied"
            )
        key = tuple(sorted(cells, key=lambda c: (c[1], c[0])))
        prev = constraints.get(key)
        if prev is not None and prev != mines:
            raise InvalidPositionError(
                f"the numbers around ({idx % width}, {idx // width}) contradict each other"
            )
        constraints[key] = mines
        in_frontier.update(cells)
    outside = tuple(
        (i % width, i // width)
        for i, ch in enumerate(flat)
        if ch in covered and i not in touched and (i % width, i // width) not in known
    )
    known_mines = sum(1 for c, m in known.items() if m)
    mines_left = position.mines - known_mines
    frontier_cells = tuple(sorted(in_frontier, key=lambda c: (c[1], c[0])))
    if mines_left < 0 or mines_left > len(frontier_cells) + len(outside):
        raise InvalidPositionError("the mine count does not fit the covered cells")
    return Frontier(
        constraints=tuple(Constraint(k, v) for k, v in constraints.items()),
        cells=frontier_cells,
        outside=outside,
        mines_left=mines_left,
        known=known,
    )


def components(
    constraints: Iterable[Constraint],
) -> list[tuple[tuple[Cell, ...], list[Constraint]]]:
    """Splits constraints into independent groups: cells linked through shared numbers.

    Returns ``(cells, constraints)`` per component, cells sorted row-major.
    """
    parent: dict[Cell, Cell] = {}

    def find(c: Cell) -> Cell:
        root = c
        while parent[root] != root:
            root = parent[root]
        while parent[c] != root:
            parent[c], c = root, parent[c]
        return root

    cons = list(constraints)
    for con in cons:
        for c in con.cells:
            parent.setdefault(c, c)
        first = find(con.cells[0])
        for c in con.cells[1:]:
            r = find(c)
            if r != first:
                parent[r] = first
    groups: dict[Cell, tuple[list[Cell], list[Constraint]]] = {}
    for c in parent:
        groups.setdefault(find(c), ([], []))[0].append(c)
    for con in cons:
        groups[find(con.cells[0])][1].append(con)
    out = []
    for cells, cs in groups.values():
        cells.sort(key=lambda c: (c[1], c[0]))
        out.append((tuple(cells), cs))
    out.sort(key=lambda g: (g[0][0][1], g[0][0][0]))
    return out
