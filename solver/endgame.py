"""Endgame: exact search over few unknown cells (seed 000's LastTurns, seed 002 step 5).

With few undecided cells left, every consistent layout of them can be listed
(:func:`layouts`, seed 000's brute force).  The state of the game is then just the set
of layouts still possible, so the chance to win from it is

    win(S) = max over cells c of  sum over values v of  P(c shows v | S) * win(S_{c,v})

memoised on ``S`` (seed 002's BoardWinRate).  A cell that is safe in every layout of S
is played at once; the search ends when S agrees on every cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from solver import counting
from solver._kernels import WinSearch
from solver.errors import InvalidPositionError
from solver.frontier import Constraint, Frontier, frontier_of
from solver.position import Cell, Position

__all__ = ["Endgame", "best_move", "layouts"]


def layouts(
    position: Position,
    known: Mapping[Cell, bool] | None = None,
    limit: int = 100_000,
    *,
    frontier: Frontier | None = None,
) -> list[frozenset[Cell]] | None:
    """Every placement of the remaining mines on the undecided cells that fits all numbers.

    Cells in ``known`` keep their status; a caller that holds the position's frontier
    with them folded in passes it as ``frontier`` instead (a guess has it, and reducing
    the board again cost a third of the search).  The numbers and the mine count (one
    more constraint, over every undecided cell) go to :func:`solver.counting.solutions`
    (the seed's brute force tries all ``C(cells, mines)`` placements; the result is the
    same).  Returns ``None`` when there are more than ``limit`` placements or the search
    takes more than ``20 * limit`` steps.
    """
    fr = frontier
    if fr is None:
        try:
            fr = frontier_of(position, known)
        except InvalidPositionError:
            return []
    fixed = frozenset(c for c, m in fr.known.items() if m)
    free = (*fr.cells, *fr.outside)
    if not 0 <= fr.mines_left <= len(free):
        return []
    found = counting.solutions((*fr.constraints, Constraint(free, fr.mines_left)), limit)
    return None if found is None else [fixed | lay for lay in found]


@dataclass
class Endgame:
    """The win-probability search over a list of layouts, memoised on layout sets.

    A set of layouts is a bitset (bit ``i`` for layout ``i``), and for each cell and
    each number it may show, the layouts in which it shows it are one too, so splitting
    a set by a click is an ``&`` per number.  Two bounds prune without changing the
    result: a click can win no more often than it is safe (cells are tried safest
    first and the rest skipped once the best win beats their safety), and a click's
    value stops being summed once what its remaining numbers could add cannot beat the
    best.  The search itself is :class:`solver._kernels.WinSearch` (compiled).
    """

    position: Position
    layouts: Sequence[frozenset[Cell]]
    cells: Sequence[Cell]
    node_limit: int = 20_000

    def __post_init__(self) -> None:
        self._mine, shows = _masks(self.position, self.layouts, self.cells)
        self._search = WinSearch(self._mine, shows, len(self.layouts), self.node_limit)
        self._index = {c: i for i, c in enumerate(self.cells)}
        self._safe_somewhere = {c for c, m in zip(self.cells, shows, strict=True) if m}

    @property
    def nodes(self) -> int:
        """Search nodes visited so far."""
        return int(self._search.nodes)

    def best(self, first: Iterable[Cell] | None = None) -> tuple[Cell, float] | None:
        """The best cell to click now (among ``first``) and its win probability;
        ``None`` when the search is too large."""
        state = (1 << len(self.layouts)) - 1
        total = len(self.layouts)
        options = list(first) if first is not None else list(self.cells)
        options = [c for c in options if c in self._safe_somewhere]
        mines = {c: self._mine[self._index[c]].bit_count() for c in options}
        # safest first; ties (within rounding) go to the safer cell, then reading order
        options.sort(key=lambda c: (mines[c], c[1], c[0]))
        top, scored = 0.0, []
        for c in options:
            if (total - mines[c]) / total < top - 1e-12:
                break
            w = self._search.after(self._index[c], state, top - 1e-9)
            if w is None:
                return None
            scored.append((w, c))
            top = max(top, w)
        if not scored:
            return None
        cell = next(c for w, c in scored if w >= top - 1e-12)
        return cell, top


def _masks(
    position: Position, layouts: Sequence[frozenset[Cell]], cells: Sequence[Cell]
) -> tuple[list[int], list[list[int]]]:
    """Per cell, the layouts (as a bitset) that mine it, and per number it can show,
    the layouts in which it shows it."""
    fixed = frozenset.intersection(*layouts) if layouts else frozenset()
    varying = sorted(set().union(*layouts) - fixed) if layouts else []
    col = {c: j for j, c in enumerate(varying)}
    mined = np.zeros((len(layouts), len(varying) + 1), dtype=np.int8)  # last column: 0
    for i, lay in enumerate(layouts):
        mined[i, [col[c] for c in lay - fixed]] = 1
    # around[j, k]: varying cell j is next to cells[k]; base: the fixed mines next to it
    around = np.zeros((len(varying) + 1, len(cells)), dtype=np.int8)
    base = np.zeros(len(cells), dtype=np.int8)
    for k, c in enumerate(cells):
        for n in position.neighbours(*c):
            if n in fixed:
                base[k] += 1
            elif n in col:
                around[col[n], k] = 1
    shows = mined @ around + base  # shows[i, k]: the number cells[k] shows in layout i
    column = np.array([col.get(c, len(varying)) for c in cells], dtype=np.intp)
    is_mine = mined[:, column].astype(bool)
    is_mine[:, [k for k, c in enumerate(cells) if c in fixed]] = True
    mine_out = _bits(is_mine)
    shows_out: list[list[int]] = [[] for _ in cells]
    shows[is_mine] = -1
    for v in range(9):  # in increasing order, each cell's numbers
        where = shows == v
        present = np.flatnonzero(where.any(axis=0))
        for k, bits in zip(present.tolist(), _bits(where[:, present]), strict=True):
            shows_out[k].append(bits)
    return mine_out, shows_out


def _bits(columns: np.ndarray) -> list[int]:
    """Per column, the int with bit ``i`` set where ``columns[i]`` is."""
    packed = np.packbits(columns, axis=0, bitorder="little").T.tobytes()
    size = (columns.shape[0] + 7) // 8
    return [int.from_bytes(packed[k * size : (k + 1) * size], "little")
            for k in range(columns.shape[1])]


def best_move(
    position: Position,
    known: Mapping[Cell, bool],
    candidates: Sequence[Cell],
    *,
    max_layouts: int = 400,
    node_limit: int = 20_000,
    frontier: Frontier | None = None,
) -> tuple[Cell, float] | None:
    """The candidate with the best chance to win the game, and that chance.

    Layouts are equally likely (every cell left is in the search, so no outside cells
    weigh them); ``frontier`` as for :func:`layouts`.  Returns ``None`` when the
    position is too large to search.
    """
    lays = layouts(position, known, limit=max_layouts, frontier=frontier)
    if not lays:
        return None
    cells = [c for c in position.covered() if c not in known]
    game = Endgame(position, lays, cells, node_limit)
    return game.best(candidates)
