"""Exact mine probabilities and uniform sampling of consistent layouts.

The frontier splits into independent components (cells linked through shared numbers).
Each component is enumerated once, its solutions grouped by their number of mines; the
components are then combined by a convolution over mine counts, each total weighted by
the number of ways to put the remaining mines on the outside cells, C(outside, rest).
That is seed 002's method; it is exact, and the weights are kept in log space so that
boards of any size stay in floating-point range.

The same tables give *exactly uniform* samples of consistent layouts: pick each
component's mine count from its conditional weight, then one of its solutions with that
count uniformly, then the outside mines uniformly.  The server uses this to decide where
the mines are at the moment a click needs them.

Enumeration is bounded (solutions per component, and the budget).  When a component is
too large, :func:`probabilities` gives up (``None``) and :func:`sample_layout` falls back
to the SAT engine's randomised layout, which is consistent but not exactly uniform.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from kaboom.solver.budget import Budget
from kaboom.solver.cache import CachePool, SizedCache
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError
from kaboom.solver.frontier import Constraint, Frontier, components, frontier_of
from kaboom.solver.position import Cell, Position

__all__ = [
    "ComponentCount",
    "Layout",
    "LayoutCounter",
    "Probabilities",
    "count_component",
    "draw_layout",
    "probabilities",
    "sample_layout",
]

MAX_STATES = 400_000
"""DP states per component before counting gives up (memory and time bound)."""

MAX_COUNT_BYTES = 96 << 20
"""Estimated memory of one component's tables before counting gives up."""

MAX_TABLE_ENTRIES = 4_000_000
"""Log-weights (8 bytes each) the convolution over components may hold: it grows with
components x the range of their mine totals, 1.7 GB on a 256x256 board with a lattice
of 7,000 numbers.  Past this the position is too large to count and the caller falls
back to a SAT layout."""


@dataclass(frozen=True, slots=True)
class ComponentCount:
    """Every solution of one component, counted by its number of mines.

    Built by a transfer-matrix dynamic programme over the cells in breadth-first order:
    the state after each cell is the mine sums of the numbers still partly assigned, so
    the work grows with the width of the frontier, not with the number of solutions.
    """

    cells: tuple[Cell, ...]
    counts: Mapping[int, int]
    _layers: list[list[tuple[int, int, int]]] = field(repr=False)
    """Per step: transitions (state before, value, state after), states numbered per layer."""
    _forward: list[list[dict[int, int]]] = field(repr=False)
    """Per layer (0 = before any cell): per state, prefix mine count -> ways."""
    _order: tuple[int, ...] = field(repr=False)
    nbytes: int = 0
    """Estimated memory of the tables (what a cache holding them pays)."""

    @property
    def solutions(self) -> Mapping[int, int]:
        return self.counts

    def count(self, k: int) -> int:
        return self.counts.get(k, 0)

    def sample(self, k: int, rng: random.Random) -> int:
        """A uniform ``k``-mine solution as a bitmask over ``cells``."""
        n = len(self._order)
        state, left, mask = 0, k, 0
        for p in range(n - 1, -1, -1):
            options = [
                (before, v)
                for before, v, after in self._layers[p]
                if after == state and left - v >= 0
            ]
            weights = [self._forward[p][before].get(left - v, 0) for before, v in options]
            before, v = options[rng.choices(range(len(options)), weights=weights)[0]]
            if v:
                mask |= 1 << self._order[p]
            state, left = before, left - v
        return mask

    def hits(self, k: int) -> list[int]:
        """For each cell, how many ``k``-mine solutions put a mine on it."""
        n = len(self._order)
        back: list[dict[int, int]] = [{0: 1}]  # after the last step: the single final state
        out = [0] * len(self.cells)
        for p in range(n - 1, -1, -1):
            width = len(self._forward[p])
            prev: list[dict[int, int]] = [{} for _ in range(width)]
            hit = 0
            for before, v, after in self._layers[p]:
                for rest, ways in back[after].items():
                    acc = prev[before]
                    acc[rest + v] = acc.get(rest + v, 0) + ways
                    if v:
                        for a, f in self._forward[p][before].items():
                            if a + 1 + rest == k:
                                hit += f * ways
            out[self._order[p]] = hit
            back = prev
        return out


def count_component(
    cells: Sequence[Cell],
    constraints: Sequence[Constraint],
    budget: Budget | None = None,
    limit: int = MAX_STATES,
) -> ComponentCount:
    """Counts the solutions of one component by mine number (see :class:`ComponentCount`).

    Raises :class:`BudgetExceededError` when the budget or the state ``limit`` runs out,
    and :class:`InvalidPositionError` when the component has no solution.
    """
    budget = budget or Budget(None)
    index = {c: i for i, c in enumerate(cells)}
    targets = [con.mines for con in constraints]
    members = [[index[c] for c in con.cells] for con in constraints]
    cell_cons: list[list[int]] = [[] for _ in cells]
    for j, m in enumerate(members):
        for i in m:
            cell_cons[i].append(j)
    order = _bfs_order(len(cells), members, cell_cons)
    pos = {i: p for p, i in enumerate(order)}
    first = [min(pos[i] for i in m) for m in members]
    last = [max(pos[i] for i in m) for m in members]
    size_left = [len(m) for m in members]  # unassigned cells per constraint, updated per step
    open_before: tuple[int, ...] = ()
    states: list[tuple[int, ...]] = [()]
    forward: list[list[dict[int, int]]] = [[{0: 1}]]
    layers: list[list[tuple[int, int, int]]] = []
    total_states = 0
    nbytes = 0
    for p, i in enumerate(order):
        for j in cell_cons[i]:
            size_left[j] -= 1
        open_after = tuple(j for j in range(len(members)) if first[j] <= p < last[j])
        mine = set(cell_cons[i])
        closing = [j for j in cell_cons[i] if last[j] == p]
        new_index: dict[tuple[int, ...], int] = {}
        new_states: list[tuple[int, ...]] = []
        new_forward: list[dict[int, int]] = []
        trans: list[tuple[int, int, int]] = []
        for s_idx, state in enumerate(states):
            sums = dict(zip(open_before, state))
            for v in (0, 1):
                ok = True
                upd = dict(sums)
                for j in mine:
                    t = upd.get(j, 0) + v
                    if t > targets[j] or t + size_left[j] < targets[j]:
                        ok = False
                        break
                    upd[j] = t
                if not ok:
                    continue
                if any(upd.get(j, 0) != targets[j] for j in closing):
                    continue
                key = tuple(upd.get(j, 0) for j in open_after)
                a_idx = new_index.get(key)
                if a_idx is None:
                    a_idx = new_index[key] = len(new_states)
                    new_states.append(key)
                    new_forward.append({})
                acc = new_forward[a_idx]
                for a, ways in forward[p][s_idx].items():
                    acc[a + v] = acc.get(a + v, 0) + ways
                trans.append((s_idx, v, a_idx))
        total_states += len(new_states)
        nbytes += _STATE_BYTES * len(new_states) + _TRANSITION_BYTES * len(trans)
        nbytes += _ENTRY_BYTES * sum(len(f) for f in new_forward)
        if total_states > limit or nbytes > MAX_COUNT_BYTES or (p & 15 == 0 and budget.expired()):
            raise BudgetExceededError(f"a component of {len(cells)} cells is too large")
        if not new_states:
            raise InvalidPositionError("no layout fits the numbers")
        layers.append(trans)
        forward.append(new_forward)
        states = new_states
        open_before = open_after
    counts = dict(forward[-1][0])
    return ComponentCount(tuple(cells), counts, layers, forward, tuple(order), nbytes)


# Rough CPython sizes: a state's dict and key tuple, a transition tuple, a dict entry
# with its (often big) integer.
_STATE_BYTES, _TRANSITION_BYTES, _ENTRY_BYTES = 300, 90, 110


def _bfs_order(n: int, members: list[list[int]], cell_cons: list[list[int]]) -> list[int]:
    """Orders cells so that constraints fill up early and prune the search."""
    order: list[int] = []
    seen = [False] * n
    for start in range(n):
        if seen[start]:
            continue
        seen[start] = True
        queue = [start]
        while queue:
            i = queue.pop(0)
            order.append(i)
            for j in cell_cons[i]:
                for o in members[j]:
                    if not seen[o]:
                        seen[o] = True
                        queue.append(o)
    return order


class LayoutCounter:
    """Counts components, remembering them across positions of one game.

    Components untouched by a move keep the same constraints, so their enumeration is
    reused; only the few a click changed are counted again.
    """

    def __init__(self, cache_bytes: int = 128 << 20, pool: CachePool | None = None) -> None:
        self._cache: SizedCache[tuple[Constraint, ...], ComponentCount] = SizedCache(
            lambda c: 1024 + c.nbytes, cache_bytes, pool
        )

    def count(
        self, cells: Sequence[Cell], constraints: Sequence[Constraint], budget: Budget
    ) -> ComponentCount:
        key = tuple(sorted(constraints, key=lambda c: c.cells))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        result = count_component(cells, constraints, budget)
        self._cache[key] = result
        return result

    def clear(self) -> None:
        self._cache.clear()


@dataclass(frozen=True, slots=True)
class _Tables:
    """Log-space weights of the component mine counts (see the module docstring)."""

    frontier: Frontier
    comps: list[ComponentCount]
    ks: list[list[int]]  # mine counts each component can take
    logw: list[np.ndarray]  # log(number of solutions) per entry of ks
    lo: list[int]  # smallest prefix sum before component i
    back: list[np.ndarray]  # R_i(t) for t in [lo[i], hi[i]]; back[m] is the outside weight
    total: float  # log of the number of consistent layouts


def _log_binom_row(n: int, ks: np.ndarray) -> np.ndarray:
    out = np.full(ks.shape, -np.inf)
    ok = (ks >= 0) & (ks <= n)
    k = ks[ok].astype(float)
    out[ok] = (
        math.lgamma(n + 1)
        - np.array([math.lgamma(x + 1) for x in k])
        - np.array([math.lgamma(n - x + 1) for x in k])
    )
    return out


def _tables(
    position: Position,
    known: Mapping[Cell, bool] | None,
    budget: Budget,
    counter: LayoutCounter | None,
    fixed: Mapping[Cell, bool] | None = None,
    base: Frontier | None = None,
) -> _Tables:
    if budget.expired():
        raise BudgetExceededError("no time left to count the layouts")
    merged = {**(known or {}), **(fixed or {})}
    fr = base.fold(merged) if base is not None else frontier_of(position, merged)
    counter = counter or LayoutCounter()
    comps = []
    for cells, cons in components(fr.constraints):
        if budget.expired():
            raise BudgetExceededError("the components were not counted in time")
        comps.append(counter.count(cells, cons, budget))
    ks = [sorted(c.counts) for c in comps]
    logw = [np.log(np.array([c.count(k) for k in kk], dtype=float)) for c, kk in zip(comps, ks)]
    lo = [0]
    hi = [0]
    for kk in ks:
        lo.append(lo[-1] + kk[0])
        hi.append(hi[-1] + kk[-1])
    if sum(h - lo_ + 1 for lo_, h in zip(lo, hi)) > MAX_TABLE_ENTRIES:
        raise BudgetExceededError(f"{len(comps)} components are too many to count exactly")
    outside = fr.outside_count
    m = len(comps)
    back: list[np.ndarray] = [np.empty(0)] * (m + 1)
    t = np.arange(lo[m], hi[m] + 1)
    back[m] = _log_binom_row(outside, fr.mines_left - t)
    for i in range(m - 1, -1, -1):
        if i & 63 == 0 and budget.expired():
            raise BudgetExceededError("the components were not combined in time")
        width = hi[i] - lo[i] + 1
        acc = np.full(width, -np.inf)
        for k, lw in zip(ks[i], logw[i]):
            # t in [lo[i], hi[i]] maps to t + k in back[i + 1]'s range starting at lo[i + 1]
            start = lo[i] + k - lo[i + 1]
            acc = np.logaddexp(acc, lw + back[i + 1][start : start + width])
        back[i] = acc
    total = float(back[0][0])
    if not math.isfinite(total):
        raise InvalidPositionError("no layout fits the numbers and the mine count")
    return _Tables(fr, comps, ks, logw, lo, back, total)


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Exact mine probability of every covered cell; outside cells share one value."""

    cells: Mapping[Cell, float]
    outside: float | None
    log_layouts: float
    """Natural log of the number of consistent layouts."""

    def of(self, cell: Cell) -> float:
        return self.cells[cell]


def probabilities(
    position: Position,
    *,
    known: Mapping[Cell, bool] | None = None,
    budget: Budget | None = None,
    counter: LayoutCounter | None = None,
) -> Probabilities:
    """Returns the exact mine probability of every covered cell.

    Raises :class:`BudgetExceededError` when a component is too large to count in the
    budget, and :class:`InvalidPositionError` when no layout fits.
    """
    budget = budget or Budget(None)
    tab = _tables(position, known, budget, counter)
    fr, m = tab.frontier, len(tab.comps)
    out: dict[Cell, float] = {c: (1.0 if v else 0.0) for c, v in fr.known.items()}
    forward = np.zeros(1)  # F_i(t) for t in [lo[i], hi[i]]
    for i in range(m):
        if budget.expired():
            raise BudgetExceededError("the probabilities were not computed in time")
        width_next = len(tab.back[i + 1])
        nxt = np.full(width_next, -np.inf)
        comp = tab.comps[i]
        probs = np.zeros(len(comp.cells))
        for k, lw in zip(tab.ks[i], tab.logw[i]):
            start = tab.lo[i] + k - tab.lo[i + 1]
            seg = forward + lw
            nxt[start : start + len(forward)] = np.logaddexp(nxt[start : start + len(forward)], seg)
            pk = float(
                np.exp(_logsumexp(seg + tab.back[i + 1][start : start + len(forward)]) - tab.total)
            )
            if pk > 0:
                probs += pk * np.array(comp.hits(k), dtype=float) / comp.count(k)
        for c, p in zip(comp.cells, probs):
            out[c] = float(min(1.0, max(0.0, p)))
        forward = nxt
    outside_p: float | None = None
    n_out = fr.outside_count
    if n_out:
        t = np.arange(tab.lo[m], tab.lo[m] + len(forward))
        rest = fr.mines_left - t
        weights = np.exp(forward + tab.back[m] - tab.total)
        outside_p = float(np.sum(weights * rest) / n_out)
        outside_p = min(1.0, max(0.0, outside_p))
        for c in fr.outside:
            out[c] = outside_p
    return Probabilities(out, outside_p, tab.total)


def _logsumexp(a: np.ndarray) -> float:
    if a.size == 0:
        return -math.inf
    top = float(np.max(a))
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.sum(np.exp(a - top))))


def _pick(rng: random.Random, logits: Sequence[float]) -> int:
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    return rng.choices(range(len(weights)), weights=weights)[0]


class Layout(AbstractSet[Cell]):
    """The mines of one drawn layout, with the outside cells decided only when asked.

    A reveal looks at a handful of cells, but the outside of a large board holds
    thousands of mines.  Each outside cell asked about is a mine with probability
    (outside mines not yet placed) / (outside cells not yet asked): drawing without
    replacement one cell at a time, which gives the same uniform subset whatever order
    the cells are asked in, since the outside cells are exchangeable.  Iterating (to show
    a lost board) decides all of them.
    """

    def __init__(self, mines: set[Cell], fr: Frontier, rest: int, rng: random.Random) -> None:
        self._mines = mines
        self._fr = fr
        self._outside = set(fr.outside_flat)
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


def draw_layout(
    position: Position,
    rng: random.Random,
    *,
    fixed: Mapping[Cell, bool] | None = None,
    known: Mapping[Cell, bool] | None = None,
    budget: Budget | None = None,
    counter: LayoutCounter | None = None,
    base: Frontier | None = None,
) -> Layout:
    """Draws a consistent layout uniformly at random, deciding outside cells lazily.

    ``fixed`` forces cells to be mines (``True``) or safe (``False``) — a click's cell,
    say; the draw is then uniform among the layouts that agree.  ``base`` may pass the
    frontier of ``position`` already built by the caller (it saves a board scan).
    Raises :class:`InvalidPositionError` when no layout agrees, and
    :class:`BudgetExceededError` when counting does not fit the budget.
    """
    budget = budget or Budget(None)
    tab = _tables(position, known, budget, counter, fixed, base)
    fr = tab.frontier
    mines: set[Cell] = {c for c, v in fr.known.items() if v}
    t = 0
    for i, comp in enumerate(tab.comps):
        logits = [
            lw + float(tab.back[i + 1][t + k - tab.lo[i + 1]])
            for k, lw in zip(tab.ks[i], tab.logw[i])
        ]
        k = tab.ks[i][_pick(rng, logits)]
        mask = comp.sample(k, rng)
        mines.update(c for j, c in enumerate(comp.cells) if mask >> j & 1)
        t += k
    return Layout(mines, fr, fr.mines_left - t, rng)


def sample_layout(
    position: Position,
    rng: random.Random,
    *,
    fixed: Mapping[Cell, bool] | None = None,
    known: Mapping[Cell, bool] | None = None,
    budget: Budget | None = None,
    counter: LayoutCounter | None = None,
) -> frozenset[Cell]:
    """Draws a consistent layout uniformly at random; returns all its mine cells.

    The same draw as :func:`draw_layout`, with every outside cell decided.
    """
    return draw_layout(
        position, rng, fixed=fixed, known=known, budget=budget, counter=counter
    ).materialize()
