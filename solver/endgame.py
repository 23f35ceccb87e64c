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

from solver import counting
from solver.errors import InvalidPositionError
from solver.frontier import Constraint, frontier_of
from solver.position import Cell, Position

__all__ = ["Endgame", "best_move", "layouts"]


def layouts(
    position: Position, known: Mapping[Cell, bool] | None = None, limit: int = 100_000
) -> list[frozenset[Cell]] | None:
    """Every placement of the remaining mines on the undecided cells that fits all numbers.

    Cells in ``known`` keep their status.  The numbers and the mine count (one more
    constraint, over every undecided cell) go to :func:`solver.counting.solutions`
    (the seed's brute force tries all ``C(cells, mines)`` placements; the result is
    the same).  Returns ``None`` when there are more than ``limit`` placements or the
    search takes more than ``20 * limit`` steps.
    """
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
    """The win-probability search over a list of layouts, memoised on layout sets."""

    position: Position
    layouts: Sequence[frozenset[Cell]]
    cells: Sequence[Cell]
    node_limit: int = 20_000

    def __post_init__(self) -> None:
        self._memo: dict[frozenset[int], float] = {}
        self._nodes = 0
        # values[c][i]: the number cell c shows under layout i (or -1: c is a mine there)
        pos = self.position
        self._values: dict[Cell, list[int]] = {}
        for c in self.cells:
            around = list(pos.neighbours(*c))
            self._values[c] = [
                -1 if c in lay else sum(1 for d in around if d in lay) for lay in self.layouts
            ]

    def best(self, first: Iterable[Cell] | None = None) -> tuple[Cell, float] | None:
        """The best cell to click now (among ``first``) and its win probability;
        ``None`` when the search is too large."""
        state = frozenset(range(len(self.layouts)))
        options = list(first) if first is not None else list(self.cells)
        options = [c for c in options if c in self._values and max(self._values[c]) >= 0]
        try:
            scored = [(self._after(c, state), c) for c in options]
        except _Abort:
            return None
        if not scored:
            return None
        # ties (within rounding) go to the safer cell, then to reading order
        top = max(w for w, _ in scored)
        tied = [c for w, c in scored if w >= top - 1e-12]
        cell = min(tied, key=lambda c: (sum(v < 0 for v in self._values[c]), c[1], c[0]))
        return cell, top

    def _win(self, state: frozenset[int]) -> float:
        hit = self._memo.get(state)
        if hit is not None:
            return hit
        self._nodes += 1
        if self._nodes > self.node_limit:
            raise _Abort
        best = 0.0
        undecided = []
        for c, vals in self._values.items():
            mines = sum(1 for i in state if vals[i] < 0)
            if mines == 0:
                # a certainly safe cell that still tells something: play it first
                if len({vals[i] for i in state}) > 1:
                    undecided = [c]
                    break
            elif mines < len(state):
                undecided.append(c)
        if not undecided:
            best = 1.0  # every cell agrees: the rest is certain
        else:
            for c in undecided:
                w = self._after(c, state)
                if w > best:
                    best = w
                    if best >= 1.0:
                        break
        self._memo[state] = best
        return best

    def _after(self, cell: Cell, state: frozenset[int]) -> float:
        """Win probability of clicking ``cell`` in ``state`` and then playing best."""
        vals = self._values[cell]
        split: dict[int, list[int]] = {}
        for i in state:
            v = vals[i]
            if v >= 0:
                split.setdefault(v, []).append(i)
        if not split:
            return 0.0
        total = len(state)
        return sum(len(s) / total * self._win(frozenset(s)) for s in split.values())


class _Abort(Exception):
    """The search went past its node limit."""


def best_move(
    position: Position,
    known: Mapping[Cell, bool],
    candidates: Sequence[Cell],
    *,
    max_layouts: int = 400,
    node_limit: int = 20_000,
) -> tuple[Cell, float] | None:
    """The candidate with the best chance to win the game, and that chance.

    Layouts are equally likely (every cell left is in the search, so no outside cells
    weigh them).  Returns ``None`` when the position is too large to search.
    """
    lays = layouts(position, known, limit=max_layouts)
    if not lays:
        return None
    cells = [c for c in position.covered() if c not in known]
    game = Endgame(position, lays, cells, node_limit)
    return game.best(candidates)
