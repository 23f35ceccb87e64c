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
    """The win-probability search over a list of layouts, memoised on layout sets.

    A set of layouts is a bitset (a Python int, bit ``i`` for layout ``i``), and for
    each cell and each number it may show, the layouts in which it shows it are one
    too, so splitting a set by a click is an ``&`` per number.  Two bounds prune
    without changing the result: a click can win no more often than it is safe (cells
    are tried safest first and the rest skipped once the best win beats their
    safety), and a click's value stops being summed once what its remaining numbers
    could add cannot beat the best.
    """

    position: Position
    layouts: Sequence[frozenset[Cell]]
    cells: Sequence[Cell]
    node_limit: int = 20_000

    def __post_init__(self) -> None:
        self._memo: dict[int, float] = {}
        self._nodes = 0
        # per cell: the layouts that mine it, and per number it shows, those that show it
        pos = self.position
        self._mine: dict[Cell, int] = {}
        self._shows: dict[Cell, list[int]] = {}
        for c in self.cells:
            around = list(pos.neighbours(*c))
            mine = 0
            shows: dict[int, int] = {}
            for i, lay in enumerate(self.layouts):
                if c in lay:
                    mine |= 1 << i
                else:
                    v = sum(1 for d in around if d in lay)
                    shows[v] = shows.get(v, 0) | 1 << i
            self._mine[c] = mine
            self._shows[c] = list(shows.values())

    def best(self, first: Iterable[Cell] | None = None) -> tuple[Cell, float] | None:
        """The best cell to click now (among ``first``) and its win probability;
        ``None`` when the search is too large."""
        state = (1 << len(self.layouts)) - 1
        total = len(self.layouts)
        options = list(first) if first is not None else list(self.cells)
        options = [c for c in options if self._shows.get(c)]
        # safest first; ties (within rounding) go to the safer cell, then reading order
        options.sort(key=lambda c: (self._mine[c].bit_count(), c[1], c[0]))
        top, scored = 0.0, []
        try:
            for c in options:
                if (total - self._mine[c].bit_count()) / total < top - 1e-12:
                    break
                w = self._after(c, state, top - 1e-9)
                scored.append((w, c))
                top = max(top, w)
        except _Abort:
            return None
        if not scored:
            return None
        cell = next(c for w, c in scored if w >= top - 1e-12)
        return cell, top

    def _win(self, state: int) -> float:
        hit = self._memo.get(state)
        if hit is not None:
            return hit
        self._nodes += 1
        if self._nodes > self.node_limit:
            raise _Abort
        n = state.bit_count()
        risky: list[tuple[int, Cell]] = []
        for c, mine in self._mine.items():
            mines = (state & mine).bit_count()
            if mines == 0:
                # a certainly safe cell that still tells something: play it first
                if sum(1 for m in self._shows[c] if state & m) > 1:
                    best = self._after(c, state, -1.0)
                    self._memo[state] = best
                    return best
            elif mines < n:
                risky.append((mines, c))
        best = 0.0 if risky else 1.0  # no cell left undecided: the rest is certain
        risky.sort()
        for mines, c in risky:
            if (n - mines) / n <= best:
                break  # no click from here on is safe often enough to win more
            best = max(best, self._after(c, state, best))
        self._memo[state] = best
        return best

    def _after(self, cell: Cell, state: int, floor: float) -> float:
        """Win probability of clicking ``cell`` in ``state`` and then playing best, or
        some value at most ``floor`` when it cannot beat ``floor``."""
        n = state.bit_count()
        left = (n - (state & self._mine[cell]).bit_count()) / n
        got = 0.0
        for shows in self._shows[cell]:
            part = state & shows
            if part:
                share = part.bit_count() / n
                got += share * self._win(part)
                left -= share
                if got + left <= floor:
                    return got
        return got


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
