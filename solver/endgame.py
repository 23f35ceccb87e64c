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

from solver.position import Cell, Position

__all__ = ["Endgame", "best_move", "layouts"]


def layouts(
    position: Position, known: Mapping[Cell, bool] | None = None, limit: int = 100_000
) -> list[frozenset[Cell]] | None:
    """Every placement of the remaining mines on the undecided cells that fits all numbers.

    Cells in ``known`` keep their status.  A backtracking search over the cells, pruned
    by every number and the mine count, lists the placements (the seed's brute force
    tries all ``C(cells, mines)`` of them; the result is the same).  Returns ``None``
    when there are more than ``limit`` placements or the search takes more than
    ``20 * limit`` steps.
    """
    known = dict(known or {})
    covered = position.covered()
    fixed = frozenset(c for c in covered if known.get(c))
    free = [c for c in covered if c not in known]
    left = position.mines - len(fixed)
    if left < 0 or left > len(free):
        return []
    index = {c: i for i, c in enumerate(free)}
    need: list[int] = []
    room: list[int] = []
    cons_of: list[list[int]] = [[] for _ in free]
    for (x, y), n in position.numbers():
        around = [c for c in position.neighbours(x, y) if position.is_covered(*c)]
        cells = [index[c] for c in around if c in index]
        m = n - sum(1 for c in around if c in fixed)
        if m < 0 or m > len(cells):
            return []
        if cells:
            for i in cells:
                cons_of[i].append(len(need))
            need.append(m)
            room.append(len(cells))
    # numbers' cells first (constrained, prune early), then the unconstrained ones
    order = sorted(range(len(free)), key=lambda i: (not cons_of[i], free[i][1], free[i][0]))
    out: list[frozenset[Cell]] = []
    chosen: list[Cell] = []
    steps = 0
    budget = 20 * limit

    class _Full(Exception):
        pass

    def place(k: int, mines: int) -> None:
        nonlocal steps
        steps += 1
        if steps > budget:
            raise _Full
        if k == len(order):
            if mines == left:
                if len(out) >= limit:
                    raise _Full
                out.append(frozenset(chosen) | fixed)
            return
        cells_left = len(order) - k
        if mines > left or mines + cells_left < left:
            return
        i = order[k]
        cs = cons_of[i]
        for j in cs:
            room[j] -= 1
        if all(need[j] <= room[j] for j in cs):
            place(k + 1, mines)
        if mines < left and all(need[j] > 0 for j in cs):
            for j in cs:
                need[j] -= 1
            chosen.append(free[i])
            place(k + 1, mines + 1)
            chosen.pop()
            for j in cs:
                need[j] += 1
        for j in cs:
            room[j] += 1

    try:
        place(0, 0)
    except _Full:
        return None
    return out


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
                if w is not None and w > best:
                    best = w
                    if best >= 1.0:
                        break
        self._memo[state] = best
        return best

    def _after(self, cell: Cell, state: frozenset[int]) -> float | None:
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
