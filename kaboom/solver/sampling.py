"""Random layouts of a position: drawn uniformly from its exact counts, or by the SAT
solver when counting is too large.

Every layout consistent with the position is equally likely: the components' mine
counts are drawn jointly with the outside's, each combination as often as the layouts
it has (:class:`~kaboom.solver.counting.Combination`), then one of each component's
solutions with its count, uniformly (a bisection in its
:class:`~kaboom.solver.counting.Listing`), then the outside mines uniformly, cell by cell
as they are asked about (:class:`Layout`).  All of it is integer arithmetic on the
counts, so the draw is exact.  The server's referee draws the mines this way at the
moment a click needs them; a :class:`LayoutSampler` counts once and then draws as many
layouts as wanted, each for a few bisections.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import TypedDict, Unpack

import numpy as np

from kaboom.solver.budget import Budget
from kaboom.solver.cnf import CountEncoding, OutOfTime, SatSolver
from kaboom.solver.counting import (
    MAX_NODES,
    Combination,
    LayoutCounter,
    Listing,
    TooBig,
    combination,
)
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError
from kaboom.solver.frontier import Frontier, frontier_of
from kaboom.solver.position import Cell, Position

__all__ = [
    "LISTED",
    "DrawOptions",
    "Layout",
    "LayoutSampler",
    "draw_layout",
    "random_layout",
    "sample_layout",
    "sampler",
]

LISTED = 200_000
"""Solutions (as mines per class) a component may list to be drawn from; past it, or
past :data:`~kaboom.solver.counting.MAX_NODES`, the position is too large to draw from
exactly."""


class Layout(AbstractSet[Cell]):
    """The mines of one drawn layout, with the outside cells decided only when asked.

    A reveal looks at a handful of cells, but the outside of a large board holds
    thousands of mines.  Each outside cell asked about is a mine with probability
    (outside mines not yet placed) / (outside cells not yet asked): drawing without
    replacement one cell at a time, which gives the same uniform subset whatever order
    the cells are asked in, since the outside cells are exchangeable.  Iterating (to show
    a lost board) decides all of them.  ``outside`` may pass the frontier's outside cells
    (flat indices) as a set, shared by many layouts of one position.
    """

    def __init__(self, mines: set[Cell], fr: Frontier, rest: int, rng: random.Random,
                 outside: AbstractSet[int] | None = None) -> None:
        self._mines = mines
        self._fr = fr
        self._outside = set(fr.outside_flat) if outside is None else outside
        self._asked: dict[int, bool] = {}
        self._cells_left = fr.outside_count
        self._mines_left = rest
        self._rng = rng

    def __contains__(self, cell: object) -> bool:
        if cell in self._mines:
            return True
        if not isinstance(cell, tuple):
            return False
        flat = cell[1] * self._fr.width + cell[0]
        if flat not in self._outside:
            return False
        got = self._asked.get(flat)
        if got is None:
            got = self._rng.randrange(self._cells_left) < self._mines_left
            self._asked[flat] = got
            self._cells_left -= 1
            self._mines_left -= got
        return got

    def materialize(self) -> frozenset[Cell]:
        """Every mine of the layout, the outside ones decided now."""
        width = self._fr.width
        unasked = [i for i in self._fr.outside_flat if i not in self._asked]
        picks = np.random.default_rng(self._rng.getrandbits(64)).choice(
            len(unasked), size=self._mines_left, replace=False
        )
        outside = {i for i, m in self._asked.items() if m}
        outside.update(unasked[j] for j in picks.tolist())
        return frozenset(self._mines | {(i % width, i // width) for i in outside})

    def __iter__(self) -> Iterator[Cell]:
        return iter(self.materialize())

    def __len__(self) -> int:
        return len(self._mines) + self._mines_left + sum(self._asked.values())


class LayoutSampler:
    """Draws layouts of one position, each consistent layout as likely as any other:
    counted once (see :func:`sampler`), then a few bisections a layout."""

    def __init__(self, counted: Combination, listings: list[Listing]) -> None:
        self._counted = counted
        self._listings = listings
        fr = counted.frontier
        self._known_mines = {c for c, m in fr.known.items() if m}
        self._outside = frozenset(fr.outside_flat)
        last = counted.prefix[-1]
        self._totals = _running([w * b for w, b in zip(last, counted.outside)])
        self._given: dict[tuple[int, int], tuple[list[int], list[int]]] = {}

    @property
    def frontier(self) -> Frontier:
        """The position's frontier, with the known and fixed cells folded in."""
        return self._counted.frontier

    def draw(self, rng: random.Random) -> Layout:
        """One layout, its outside cells decided as they are asked about."""
        counted = self._counted
        j = _pick(rng, self._totals)
        held = counted.lows[-1] + j  # mines in the components
        mines = set(self._known_mines)
        t = held
        for i in range(len(self._listings) - 1, -1, -1):
            ks, running = self._mines_given(i, t)
            k = ks[_pick(rng, running)]
            listed, weights = self._listings[i].by_mines[k]
            for cls, m in zip(self._listings[i].classes, listed[_pick(rng, weights)]):
                if m:
                    mines.update(rng.sample(cls, m))
            t -= k
        fr = counted.frontier
        return Layout(mines, fr, fr.mines_left - held, rng, self._outside)

    def sample(self, rng: random.Random) -> frozenset[Cell]:
        """One layout with every cell decided."""
        return self.draw(rng).materialize()

    def _mines_given(self, i: int, t: int) -> tuple[list[int], list[int]]:
        """Component ``i``'s possible mine counts when the components up to it hold
        ``t``, with running weights: its solutions times the ways of those before it."""
        got = self._given.get((i, t))
        if got is None:
            table, before = self._counted.tables[i], self._counted.prefix[i]
            low = self._counted.lows[i]
            ks = [k for k in table.totals if 0 <= t - k - low < len(before)]
            ks = [k for k in ks if before[t - k - low]]
            got = self._given[(i, t)] = (
                ks, _running([table.totals[k] * before[t - k - low] for k in ks]))
        return got


def _running(weights: list[int]) -> list[int]:
    out, total = [], 0
    for w in weights:
        total += w
        out.append(total)
    return out


def _pick(rng: random.Random, running: list[int]) -> int:
    """An index drawn with probability its weight (``running``: the running sums)."""
    return bisect.bisect_right(running, rng.randrange(running[-1]))


def sampler(
    position: Position,
    *,
    fixed: Mapping[Cell, bool] | None = None,
    known: Mapping[Cell, bool] | None = None,
    budget: Budget | None = None,
    counter: LayoutCounter | None = None,
    base: Frontier | None = None,
) -> LayoutSampler:
    """Counts ``position`` for drawing its layouts.

    ``fixed`` forces cells to be mines (``True``) or safe (``False``) — a click's cell,
    say; the draws are then uniform among the layouts that agree.  ``known`` may pass
    cells already decided, ``counter`` the tables of the game's earlier positions, and
    ``base`` the frontier of ``position`` already built (it saves a board scan).  Raises
    :class:`~kaboom.solver.errors.InvalidPositionError` when no layout agrees, and
    :class:`~kaboom.solver.errors.BudgetExceededError` when counting does not fit the
    budget or a component has too many solutions to list (``LISTED``).
    """
    budget = budget or Budget(None)
    counter = counter or LayoutCounter()
    counted = combination(position, known=known, fixed=fixed, budget=budget,
                          counter=counter, base=base)
    listings = []
    for table in counted.tables:
        if budget.expired():
            raise BudgetExceededError("the components were not listed in time")
        try:
            listings.append(counter.listing(table.constraints, MAX_NODES, LISTED))
        except TooBig:
            raise BudgetExceededError("a component has too many solutions to draw from") from None
    return LayoutSampler(counted, listings)


class DrawOptions(TypedDict, total=False):
    """:func:`sampler`'s keyword options, which :func:`draw_layout` and
    :func:`sample_layout` pass on."""

    fixed: Mapping[Cell, bool] | None
    """Cells forced to be mines (``True``) or safe (``False``) in every layout drawn."""
    known: Mapping[Cell, bool] | None
    """Cells already decided (``True``: a mine), which need not be worked out again."""
    budget: Budget | None
    """The time counting may take."""
    counter: LayoutCounter | None
    """The tables of the game's earlier positions, kept and reused."""
    base: Frontier | None
    """The position's frontier, already built (it saves a board scan)."""


def draw_layout(position: Position, rng: random.Random, **options: Unpack[DrawOptions]) -> Layout:
    """Draws one consistent layout uniformly at random, deciding outside cells lazily
    (options and exceptions as :func:`sampler`)."""
    return sampler(position, **options).draw(rng)


def sample_layout(
    position: Position, rng: random.Random, **options: Unpack[DrawOptions]
) -> frozenset[Cell]:
    """Draws one consistent layout uniformly at random; returns all its mine cells
    (options and exceptions as :func:`sampler`)."""
    return sampler(position, **options).sample(rng)


def random_layout(
    position: Position,
    rng: random.Random,
    *,
    fixed: Mapping[Cell, bool] | None = None,
    known: Mapping[Cell, bool] | None = None,
    encoding: CountEncoding = CountEncoding.TOTALIZER,
    budget: Budget | None = None,
    base: Frontier | None = None,
) -> frozenset[Cell]:
    """Finds one consistent layout with randomised solver phases; returns its mines.

    The fallback when exact counting is too large: every layout it returns is
    consistent, but they are not drawn uniformly.  ``base`` may pass the frontier of
    ``position`` (saves a board scan).  Raises :class:`InvalidPositionError` when no
    layout agrees with ``fixed``, :class:`BudgetExceededError` on timeout.
    """
    budget = budget or Budget(None)
    merged = {**(known or {}), **(fixed or {})}
    fr = base.fold(merged) if base is not None else frontier_of(position, merged)
    outside = fr.outside_count
    low, high, n = max(0, fr.mines_left - outside), fr.mines_left, len(fr.cells)
    with SatSolver(fr.cells, encoding, budget, bound=max(high, n - low) + 1) as sat:
        try:
            sat.add_all(fr.constraints)
            sat.add_count(low, high)
            density = fr.mines_left / max(1, n + outside)
            sat.solver.set_phases([v if rng.random() < density else -v for v in range(1, n + 1)])
            model = sat.solve([])
        except OutOfTime:
            raise BudgetExceededError("no layout found within the time budget") from None
    if model is None:
        raise InvalidPositionError("no layout fits the numbers and the mine count")
    mines = {c for c, m in fr.known.items() if m}
    mines.update(c for c, v in zip(fr.cells, model) if v > 0)
    rest = fr.mines_left - sum(1 for v in model[: len(fr.cells)] if v > 0)
    mines.update(fr.outside_cell(i) for i in rng.sample(range(outside), rest))
    return frozenset(mines)
