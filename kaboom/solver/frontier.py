"""The open numbers of a position as linear constraints over the undecided covered cells.

Every algorithm starts here: each open number ``n`` becomes "exactly ``n - known mines``
of these undecided cells are mines".  Cells already decided (known safe or known mine,
from an earlier analysis) are folded in, which keeps the systems small on large boards.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from kaboom.solver._kernels.frontier import Closure
from kaboom.solver._kernels.frontier import components as link
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.position import COVERED_CHARS, Cell, Position, cells_by_index, row_major

__all__ = [
    "Component",
    "Constraint",
    "Frontier",
    "FrontierTracker",
    "components",
    "count_around",
    "covered_mask",
    "fold_constraints",
    "frontier_of",
]

_IS_COVERED = np.zeros(256, dtype=bool)
_IS_COVERED[[ord(ch) for ch in COVERED_CHARS]] = True


def covered_mask(position: Position) -> np.ndarray:
    """``out[y, x]``: whether the cell is covered (marks included); one table lookup per
    cell, where ``np.isin`` sorts its arguments on every call."""
    board = np.frombuffer(position.flat.encode("ascii"), dtype=np.uint8)
    out: np.ndarray = _IS_COVERED[board].reshape(position.height, position.width)
    return out


def count_around(mask: np.ndarray) -> np.ndarray:
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


class Constraint(NamedTuple):
    """Exactly ``mines`` of ``cells`` are mines (``cells`` sorted, no duplicates).

    A named tuple rather than a frozen dataclass: a game makes hundreds of thousands, and
    a tuple is built (and hashed) several times faster."""

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
    """One per open number next to an undecided cell, over those cells, the decided ones
    folded in (two numbers over the same cells merged)."""
    cells: tuple[Cell, ...]
    mines_left: int
    known: Mapping[Cell, bool]
    """The decided cells folded in (``True``: a mine)."""
    outside_count: int
    width: int = field(default=1, repr=False)
    """The board's width, which reads the flat indices of ``outside_flat``."""
    outside_flat: tuple[int, ...] = field(default=(), repr=False, compare=False)
    """The outside cells as flat indices ``y * width + x``, row-major."""
    height: int = field(default=1, repr=False)
    """The board's height."""
    _memo: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    @property
    def outside(self) -> tuple[Cell, ...]:
        """The outside cells as ``(x, y)``, row-major, built on first use."""
        got = self._memo.get("outside")
        if got is None:
            cells = cells_by_index(self.width, self.height)
            got = self._memo["outside"] = tuple([cells[i] for i in self.outside_flat])
        assert isinstance(got, tuple)
        return got

    def components(self) -> list[tuple[tuple[Cell, ...], list[Constraint]]]:
        """:func:`components` of :attr:`constraints`, linked once: a guess counts them
        and then looks for closed regions among them.  Shared, so not to be changed."""
        got = self._memo.get("components")
        if got is None:
            got = self._memo["components"] = link(self.constraints)
        assert isinstance(got, list)
        return got

    def fold(self, more: Mapping[Cell, bool]) -> Frontier:
        """This frontier with more decided cells taken out (``True``: a mine).

        Cheaper than reducing the whole board again when a caller already holds the
        frontier of the same position.  Raises :class:`InvalidPositionError`
        when a number or the mine count cannot be satisfied any more.
        """
        more = {c: m for c, m in more.items() if c not in self.known}
        if not more:
            return self
        constraints = fold_constraints(self.constraints, more)
        w = self.width
        every = cells_by_index(w, self.height)
        outside_flat = tuple([i for i in self.outside_flat if every[i] not in more])
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
            height=self.height,
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


def _live_constraints(
    position: Position, live: np.ndarray, known: Mapping[Cell, bool]
) -> tuple[dict[tuple[Cell, ...], int], set[Cell]]:
    """The constraints of the numbers at flat indices ``live``, each over its undecided
    covered neighbours (``known`` folded in), and the cells they cover; raises
    :class:`InvalidPositionError` for a number that cannot be satisfied."""
    flat, width = position.flat, position.width
    around = _neighbour_table(width, position.height)[live].tolist()
    constraints: dict[tuple[Cell, ...], int] = {}
    in_frontier: set[Cell] = set()
    for idx, nbs in zip(live.tolist(), around):
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
    return constraints, in_frontier


def frontier_of(position: Position, known: Mapping[Cell, bool] | None = None) -> Frontier:
    """Reduces ``position`` to constraints, folding in ``known`` decided cells.

    ``known`` maps covered cells to ``True`` (mine) or ``False`` (safe); those cells leave
    the system.  Raises :class:`InvalidPositionError` when a number cannot be satisfied.
    """
    rows = position.rows
    width, height = position.width, position.height
    known = {c: m for c, m in (known or {}).items() if rows[c[1]][c[0]] in COVERED_CHARS}
    flat = position.flat
    board = np.frombuffer(flat.encode("ascii"), dtype=np.uint8).reshape(height, width)
    covered = _IS_COVERED[board]
    digits = (board >= ord("0")) & (board <= ord("8"))
    known_safe = np.zeros_like(covered)
    known_mine = np.zeros_like(covered)
    for (x, y), m in known.items():
        (known_mine if m else known_safe)[y, x] = True
    undecided = covered & ~known_safe & ~known_mine
    # Only numbers next to an undecided cell say anything new; the others are checked
    # in bulk (their known mines must match) and skipped.
    live = digits & (count_around(undecided) > 0)
    dead = digits & ~live
    if np.any((board[dead] - ord("0")) != count_around(known_mine)[dead]):
        wrong = dead & ((board - ord("0")) != count_around(known_mine))
        y, x = (int(v[0]) for v in np.nonzero(wrong))
        raise InvalidPositionError(f"the number at ({x}, {y}) cannot be satisfied")
    constraints, in_frontier = _live_constraints(position, np.flatnonzero(live), known)
    out_mask = undecided & (count_around(digits) == 0)
    outside_flat = tuple(np.flatnonzero(out_mask).tolist())
    known_mines = sum(1 for c, m in known.items() if m)
    mines_left = position.mines - known_mines
    frontier_cells = tuple(sorted(in_frontier, key=row_major))
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
        height=height,
    )




@dataclass(eq=False, slots=True)
class Component:
    """Numbers linked through shared cells: their constraints (merged where two cover
    the same cells) and the cells they cover, row-major.

    ``memo`` holds what was computed on it (the group method's result, the counting
    table): a tracked component lives until a move changes one of its numbers.
    """

    cells: tuple[Cell, ...]
    constraints: tuple[Constraint, ...]
    numbers: tuple[int, ...] = ()
    """The open numbers it comes from (flat indices), when tracked."""
    memo: dict[str, object] = field(default_factory=dict)


class FrontierTracker:
    """The frontier of successive positions of one game, updated from what changed.

    It holds the single-number deductions (unit propagation): a number that needs
    as many mines as it has undecided cells, or none, decides them, which changes the
    numbers around them in turn.  The result of that closure does not depend on the
    order of the steps, so it is a function of the position alone, and it is what
    keeps the undecided part small: :meth:`frontier` equals
    ``frontier_of(position, decided)`` (tested over random games).

    Between two decisions a game only opens cells, and only the numbers next to them
    change: :meth:`update` compares the rows with the previous ones, recomputes those
    numbers, propagates, and re-links only the components whose numbers changed; the
    other components keep their :attr:`Component.memo`.  Anything else (another
    board, a cell covered again after an undo, the end of a game) starts over.
    """

    def __init__(self) -> None:
        self._rows: tuple[str, ...] | None = None
        self._size = (0, 0, 0)
        self._closure: Closure | None = None
        self._cells: tuple[Cell, ...] = ()
        """Every cell by flat index: a constraint reuses these tuples, not new ones."""
        self._decided: dict[Cell, bool] = {}
        self._safe: set[Cell] = set()
        """The decided cells that are safe: most moves play exactly these."""
        self._comp_of: dict[int, Component] = {}  # open number (flat index) -> component
        self._cons: dict[int, Constraint] = {}
        """Each live number's constraint, kept until its undecided part changes."""
        self._stale: set[int] = set()
        """Numbers changed since the components were last linked: most moves are
        decided by the closure alone, so the components are linked only when asked
        for (the same components, and a kept one keeps its memo either way)."""
        self._components: list[Component] | None = None
        self._frontier: Frontier | None = None

    @property
    def decided(self) -> Mapping[Cell, bool]:
        """The covered cells the single-number rules decide (``True``: a mine)."""
        return self._decided

    @property
    def safe(self) -> Set[Cell]:
        """The covered cells the single-number rules prove safe."""
        return self._safe

    def update(self, position: Position) -> None:
        """Moves to ``position``; raises :class:`InvalidPositionError` when a number or
        the mine count cannot be satisfied."""
        if position.rows is self._rows:
            return
        width, height, mines = size = (position.width, position.height, position.mines)
        flat = position.flat.encode("ascii")
        try:
            closure = self._closure
            if closure is None or size != self._size or not closure.advance(flat):
                closure = self._closure = Closure(width, height, flat)
                if size[:2] != self._size[:2]:
                    self._cells = cells_by_index(width, height)
                self._size = size
                self._decided, self._comp_of, self._cons, self._stale = {}, {}, {}, set()
                self._safe = set()
            changed, decided, opened = closure.take()
            every, safe = self._cells, self._safe
            for i in opened:
                self._decided.pop(every[i], None)
                safe.discard(every[i])
            for i, mine in decided:
                self._decided[every[i]] = mine
                (safe.discard if mine else safe.add)(every[i])
            cons = self._cons
            for j in changed:
                cons.pop(j, None)
            self._stale.update(changed)
            self._components = None
            self._frontier = None
            if not 0 <= mines - closure.mines_decided <= closure.covered - len(self._decided):
                raise InvalidPositionError("the mine count does not fit the covered cells")
        except InvalidPositionError:
            self._closure = None
            self._rows = None
            raise
        self._rows = position.rows

    def components(self) -> list[Component]:
        """The components of the undecided cells, by their first cell, row-major."""
        if self._components is None:
            if self._stale:
                self._relink()
            self._components = sorted(
                set(self._comp_of.values()), key=lambda c: (c.cells[0][1], c.cells[0][0])
            )
        return self._components

    def frontier(self) -> Frontier:
        """The current position's :class:`Frontier`, the decided cells folded in."""
        if self._frontier is None:
            closure = self._closure
            assert closure is not None
            width = self._size[0]
            merged: dict[tuple[Cell, ...], Constraint] = {}
            for j in closure.live_numbers():
                con = self._constraint(closure, j)
                merged.setdefault(con.cells, con)
            near, outside = closure.undecided()
            self._frontier = Frontier(
                constraints=tuple(merged.values()),
                cells=tuple([self._cells[i] for i in near]),
                mines_left=self._size[2] - closure.mines_decided,
                known=dict(self._decided),
                outside_count=len(outside),
                width=width,
                outside_flat=tuple(outside),
                height=self._size[1],
            )
        return self._frontier

    # ------------------------------------------------------------------ internals
    def _constraint(self, closure: Closure, j: int) -> Constraint:
        con = self._cons.get(j)
        if con is None:
            cells, mines = closure.live(j)
            cell = self._cells
            con = self._cons[j] = Constraint(tuple([cell[i] for i in cells]), mines)
        return con

    def _relink(self) -> None:
        """Rebuilds the components that hold a number changed since the last time."""
        closure = self._closure
        assert closure is not None
        comp_of = self._comp_of
        stale, self._stale = self._stale, set()
        seeds = set(stale)
        for i in stale:
            comp = comp_of.get(i)
            if comp is not None:
                for j in comp.numbers:
                    comp_of.pop(j, None)
                seeds.update(comp.numbers)
        every = self._cells
        for members, cells in closure.linked(sorted(seeds)):
            # numbers with the same cells give one constraint (the closure has checked
            # that they agree)
            merged: dict[tuple[Cell, ...], Constraint] = {}
            for j in members:
                con = self._constraint(closure, j)
                merged.setdefault(con.cells, con)
            comp = Component(tuple([every[i] for i in cells]), tuple(merged.values()),
                             tuple(members))
            for j in members:
                comp_of[j] = comp


def components(
    constraints: Iterable[Constraint],
) -> list[tuple[tuple[Cell, ...], list[Constraint]]]:
    """Splits constraints into independent groups: cells linked through shared numbers.

    Returns ``(cells, constraints)`` per component, cells sorted row-major, the
    components by their first cell (compiled: :func:`kaboom.solver._kernels.frontier.components`).
    """
    return link(constraints)
