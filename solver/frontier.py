"""The open numbers of a position as linear constraints over the undecided covered cells.

Every algorithm starts here: each open number ``n`` becomes "exactly ``n - known mines``
of these undecided cells are mines".  Cells already decided (known safe or known mine,
from an earlier analysis) are folded in, which keeps the systems small on large boards.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from solver.errors import InvalidPositionError
from solver.position import COVERED_CHARS, Cell, Position

__all__ = ["Constraint", "Frontier", "components", "fold_constraints", "frontier_of"]

_HASH, _FLAG, _QUESTION = (ord(ch) for ch in "#F?")
assert frozenset("#F?") == frozenset(COVERED_CHARS)


def _around(mask: np.ndarray) -> np.ndarray:
    """For each cell, how many of its eight neighbours are set in ``mask``."""
    h, w = mask.shape
    m = np.zeros((h + 2, w + 2), dtype=np.int16)  # np.pad costs more than the sums
    m[1 : h + 1, 1 : w + 1] = mask
    return (
        m[:h, :w]
        + m[:h, 1 : w + 1]
        + m[:h, 2:]
        + m[1 : h + 1, :w]
        + m[1 : h + 1, 2:]
        + m[2:, :w]
        + m[2:, 1 : w + 1]
        + m[2:, 2:]
    )


@functools.lru_cache(maxsize=16)
def _neighbour_table(width: int, height: int) -> np.ndarray:
    """Flat indices of each cell's neighbours, row-major, padded with -1: one row of 8
    per cell.  Built with numpy (a tuple per cell took seconds on 256x256 under load,
    inside a move's budget) and kept for a few board sizes only (2 MB each at 256x256;
    one per size played would grow without bound)."""
    idx = np.full((height + 2, width + 2), -1, dtype=np.int32)
    idx[1 : height + 1, 1 : width + 1] = np.arange(width * height).reshape(height, width)
    shifts = [(dy, dx) for dy in (0, 1, 2) for dx in (0, 1, 2) if (dy, dx) != (1, 1)]
    table = np.stack([idx[dy : dy + height, dx : dx + width] for dy, dx in shifts], axis=-1)
    return table.reshape(width * height, 8)


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
    The outside cells are built only when asked for: on large boards there are thousands
    and most callers need only ``outside_count``.
    """

    constraints: tuple[Constraint, ...]
    cells: tuple[Cell, ...]
    mines_left: int
    known: Mapping[Cell, bool]
    outside_count: int
    width: int = field(default=1, repr=False)
    outside_flat: tuple[int, ...] = field(default=(), repr=False, compare=False)
    _memo: dict[str, tuple[Cell, ...]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def outside(self) -> tuple[Cell, ...]:
        got = self._memo.get("outside")
        if got is None:
            w = self.width
            got = self._memo["outside"] = tuple((i % w, i // w) for i in self.outside_flat)
        return got

    def fold(self, more: Mapping[Cell, bool]) -> Frontier:
        """This frontier with more decided cells taken out (``True``: a mine).

        Cheaper than :func:`frontier_of` on the whole board again when a caller already
        holds the frontier of the same position.  Raises :class:`InvalidPositionError`
        when a number or the mine count cannot be satisfied any more.
        """
        more = {c: m for c, m in more.items() if c not in self.known}
        if not more:
            return self
        constraints = fold_constraints(self.constraints, more)
        w = self.width
        outside_flat = tuple(i for i in self.outside_flat if (i % w, i // w) not in more)
        cells = tuple(c for c in self.cells if c not in more)
        mines_left = self.mines_left - sum(1 for m in more.values() if m)
        if mines_left < 0 or mines_left > len(cells) + len(outside_flat):
            raise InvalidPositionError("the mine count does not fit the covered cells")
        return Frontier(
            constraints=constraints,
            cells=cells,
            mines_left=mines_left,
            known={**self.known, **more},
            outside_count=len(outside_flat),
            width=w,
            outside_flat=outside_flat,
        )

    def outside_cell(self, i: int) -> Cell:
        """The ``i``-th outside cell, row-major, without building the whole tuple."""
        flat = self.outside_flat[i]
        return flat % self.width, flat // self.width


def fold_constraints(
    constraints: Iterable[Constraint], known: Mapping[Cell, bool]
) -> tuple[Constraint, ...]:
    """``constraints`` with the ``known`` cells taken out (``True``: a mine), merged
    where they now cover the same cells.  Raises :class:`InvalidPositionError` when a
    number cannot be satisfied any more or two numbers contradict each other."""
    folded: dict[tuple[Cell, ...], int] = {}
    for con in constraints:
        cells = tuple(c for c in con.cells if c not in known)
        mines = con.mines - sum(1 for c in con.cells if known.get(c))
        if mines < 0 or mines > len(cells):
            raise InvalidPositionError("the numbers cannot be satisfied")
        if not cells:
            continue
        prev = folded.get(cells)
        if prev is not None and prev != mines:
            raise InvalidPositionError("the numbers contradict each other")
        folded[cells] = mines
    return tuple(Constraint(k, v) for k, v in folded.items())


def frontier_of(position: Position, known: Mapping[Cell, bool] | None = None) -> Frontier:
    """Reduces ``position`` to constraints, folding in ``known`` decided cells.

    ``known`` maps covered cells to ``True`` (mine) or ``False`` (safe); those cells leave
    the system.  Raises :class:`InvalidPositionError` when a number cannot be satisfied.
    """
    rows = position.rows
    width, height = position.width, position.height
    known = {c: m for c, m in (known or {}).items() if rows[c[1]][c[0]] in COVERED_CHARS}
    flat = "".join(rows)
    board = np.frombuffer(flat.encode("ascii"), dtype=np.uint8).reshape(height, width)
    covered = (board == _HASH) | (board == _FLAG) | (board == _QUESTION)  # cheaper than isin
    digits = (board >= ord("0")) & (board <= ord("8"))
    known_safe = np.zeros_like(covered)
    known_mine = np.zeros_like(covered)
    for (x, y), m in known.items():
        (known_mine if m else known_safe)[y, x] = True
    undecided = covered & ~known_safe & ~known_mine
    # Only numbers next to an undecided cell say anything new; the others are checked
    # in bulk (their known mines must match) and skipped.
    live = digits & (_around(undecided) > 0)
    dead = digits & ~live
    if np.any((board[dead] - ord("0")) != _around(known_mine)[dead]):
        y, x = (int(v[0]) for v in np.nonzero(dead & ((board - ord("0")) != _around(known_mine))))
        raise InvalidPositionError(f"the number at ({x}, {y}) cannot be satisfied")
    live_idx = np.flatnonzero(live)
    around = _neighbour_table(width, height)[live_idx].tolist()
    constraints: dict[tuple[Cell, ...], int] = {}
    in_frontier: set[Cell] = set()
    for idx, nbs in zip(live_idx.tolist(), around):
        cells: list[Cell] = []
        mines = int(flat[idx])
        for nb in nbs:
            if nb < 0 or flat[nb] not in COVERED_CHARS:
                continue
            c = (nb % width, nb // width)
            k = known.get(c)
            if k is None:
                cells.append(c)
            elif k:
                mines -= 1
        if mines < 0 or mines > len(cells):
            raise InvalidPositionError(
                f"the number at ({idx % width}, {idx // width}) cannot be satisfied"
            )
        key = tuple(cells)  # neighbour tables are row-major, so already sorted
        prev = constraints.get(key)
        if prev is not None and prev != mines:
            raise InvalidPositionError(
                f"the numbers around ({idx % width}, {idx // width}) contradict each other"
            )
        constraints[key] = mines
        in_frontier.update(cells)
    out_mask = undecided & (_around(digits) == 0)
    outside_flat = tuple(np.flatnonzero(out_mask).tolist())
    known_mines = sum(1 for c, m in known.items() if m)
    mines_left = position.mines - known_mines
    frontier_cells = tuple(sorted(in_frontier, key=lambda c: (c[1], c[0])))
    if mines_left < 0 or mines_left > len(frontier_cells) + len(outside_flat):
        raise InvalidPositionError("the mine count does not fit the covered cells")
    return Frontier(
        constraints=tuple(Constraint(k, v) for k, v in constraints.items()),
        cells=frontier_cells,
        mines_left=mines_left,
        known=known,
        outside_count=len(outside_flat),
        width=width,
        outside_flat=outside_flat,
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
