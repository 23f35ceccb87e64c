"""Exact layout counting: each component's solutions by mine count, combined with the
outside cells into the weight of every layout of a position (seed 002, step 3).

The undecided frontier splits into components (cells linked through shared numbers).
Each component is enumerated once, by a search over its classes of interchangeable cells
(:func:`tabulate`), which counts its solutions *by mine count* and, per mine count, how
many of them mine each cell.  Components combine by a convolution over mine counts,
weighted by ``C(outside cells, mines left)`` (:func:`combine`).  Everything stays in
Python integers, so "weight 0" is a proof; on boards so large that the outside binomials
run to tens of thousands of bits, those are cut to their leading bits, which leaves
every weight within ``2 ** -255`` of the exact one and zero only when that is
(:data:`ROUNDED_BITS`).

This one engine serves every caller: the strategy's exact counts (:func:`count`, with the
tables that the lookahead, the endgame and closed regions read), the odds of every cell
(:func:`probabilities`, the analysis), the layouts drawn uniformly at random
(:mod:`kaboom.solver.sampling`, the server's referee) and the mine totals behind
reasons (:mod:`kaboom.solver.reasons`).  Component tables are kept by their constraints
(:class:`LayoutCounter`): between two moves of a game most components do not change,
and the lookahead counts again only the one a click touches.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from math import comb

from kaboom.solver._kernels.counting import (
    MAX_CELLS,
    assignments,
    classes,
    reachable,
    tally,
    weigh,
)
from kaboom.solver.budget import Budget
from kaboom.solver.cache import CachePool, RecentCache, SizedCache
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError
from kaboom.solver.frontier import Constraint, Frontier, frontier_of
from kaboom.solver.position import Cell, Position

__all__ = [
    "COMBINE_WORK",
    "MAX_NODES",
    "ROUNDED_BITS",
    "Combination",
    "Count",
    "LayoutCounter",
    "Listing",
    "Probabilities",
    "Table",
    "TooBig",
    "Varying",
    "combination",
    "combine",
    "count",
    "float_shift",
    "mine_totals",
    "probabilities",
    "solutions",
    "tabulate",
    "total_weight",
    "untouched",
]

Key = tuple[Constraint, ...]
"""A component's constraints, sorted: the same component whatever the order given."""

MAX_NODES = 1_000_000
"""Search nodes a component may take when counting for the odds or a draw, whose time
the budget bounds between components: a few tens of milliseconds."""

COMBINE_WORK = 2_000_000
"""The most work a combination takes (about 0.1 s): Expert positions need a few
hundred, 100x100 ones up to about 400,000.  A 256x256 board with 119 small components
and 64,000 outside cells needed 73 million exactly (4 s a count, and the lookahead
counts again for every candidate), so the strategy gives it to the SAT engine, whose
time is budgeted; with the binomials cut (:data:`ROUNDED_BITS`) it fits."""

ROUNDED_BITS = 256
"""The leading bits the odds and the draws keep of the outside binomials (the smallest
keeps this many, the others more): weights within ``2 ** -255`` of the exact ones."""

_FLOAT_BITS = 1000
"""Layout counts up to 2**1000 meet floats as they are (a float ends near 2**1024)."""


def float_shift(total: int) -> int:
    """Bits to drop from layout counts of this size before they meet a float.  Counts
    are exact integers, past a float's range on large boards (1e308 layouts: 40x40 with
    400 mines); below 2**1000 nothing is dropped, so a score computed as
    ``(w >> s) * x / (total >> s)`` is the plain ``w * x / total``, bit for bit."""
    return max(0, total.bit_length() - _FLOAT_BITS)


class TooBig(Exception):
    """A component needed more search, or had more solutions to list, than its limits
    allow (:meth:`LayoutCounter.table`, :meth:`LayoutCounter.listing`), or a combination
    of components more work than the strategy allows (``COMBINE_WORK``)."""


@dataclass(frozen=True, slots=True)
class Table:
    """The solutions of one component, counted by their number of mines."""

    cells: tuple[Cell, ...]
    """The component's cells, in the order of each list of ``cell_counts``."""
    totals: dict[int, int]
    """``totals[k]``: the solutions with ``k`` mines (only the ``k`` some solution has)."""
    cell_counts: dict[int, list[int]]
    """``cell_counts[k][i]``: how many of the ``k``-mine solutions mine ``cells[i]``."""
    constraints: tuple[Constraint, ...] = ()
    """The component's constraints, sorted: what a counter keeps the table by."""

    @property
    def nbytes(self) -> int:
        """Rough bytes held (what a cache holding it pays): a count per cell per total."""
        return 400 + 100 * len(self.constraints) + 60 * len(self.cells) * (1 + len(self.totals))


@dataclass(frozen=True, slots=True)
class Listing:
    """Every solution of one component as mines per class of interchangeable cells
    (``classes``, each a tuple of cells): ``by_mines[k]`` holds the ``k``-mine ones and
    their running weights (a class of ``n`` cells with ``j`` mines is ``C(n, j)``
    solutions), so that one of them is drawn with a single bisection."""

    classes: tuple[tuple[Cell, ...], ...]
    by_mines: dict[int, tuple[list[tuple[int, ...]], list[int]]]
    """Per number of mines, the solutions (mines per class, in the order of ``classes``)
    and their running weights."""

    @property
    def nbytes(self) -> int:
        """Rough bytes held (what a cache holding it pays): the classes' cells and every
        solution listed."""
        listed = sum(len(a) for a, _ in self.by_mines.values())
        cells = sum(map(len, self.classes))
        return 400 + 60 * cells + listed * (100 + 8 * len(self.classes))


class LayoutCounter:
    """Component tables and listings, kept by their constraints within ``cache_bytes``
    (drawing on ``pool``, a private one when none is given), or, with ``entries``, the
    most recently used ``entries`` of each whatever their size (the strategy's tables,
    looked up a hundred times a game).

    A game's positions share most of their components, so each is counted once while
    it lasts.  A table found once is returned whatever node limit is asked later (the
    strategy's decisions have always been made so)."""

    def __init__(self, cache_bytes: int = 128 << 20, pool: CachePool | None = None, *,
                 entries: int | None = None) -> None:
        self._tables: SizedCache[Key, Table] | RecentCache[Key, Table]
        self._listings: SizedCache[Key, Listing] | RecentCache[Key, Listing]
        if entries is not None:
            self._tables, self._listings = RecentCache(entries), RecentCache(entries)
            return
        pool = pool or CachePool(cache_bytes)
        self._tables = SizedCache(lambda t: t.nbytes, cache_bytes, pool)
        self._listings = SizedCache(lambda s: s.nbytes, cache_bytes, pool)

    def table(self, constraints: Iterable[Constraint], node_limit: int = 200_000) -> Table:
        """The component's table; raises :class:`TooBig` past ``node_limit`` nodes."""
        key: Key = tuple(sorted(constraints))
        return self._cached(key) or self._keep(key, _enumerate(key, node_limit))

    def listing(self, constraints: Iterable[Constraint], node_limit: int, limit: int) -> Listing:
        """The component's solutions by class; raises :class:`TooBig` past ``node_limit``
        nodes or ``limit`` assignments."""
        key: Key = tuple(sorted(constraints))
        found = self._listings.get(key)
        if found is None:
            found = self._listings[key] = _list(key, node_limit, limit)
        return found

    def clear(self) -> None:
        """Forgets every table and listing kept."""
        self._tables.clear()
        self._listings.clear()

    def _cached(self, key: Key) -> Table | None:
        return self._tables.get(key)

    def _keep(self, key: Key, table: Table) -> Table:
        self._tables[key] = table
        return table


_SHARED = LayoutCounter(entries=4096)
"""The strategy's tables, shared by every game of the process (a bench plays thousands)."""


def tabulate(
    constraints: Sequence[Constraint],
    node_limit: int = 200_000,
    counter: LayoutCounter | None = _SHARED,
) -> Table:
    """Enumerates one connected component, its table kept in ``counter`` (by default the
    process's shared one; ``None`` keeps nothing); raises :class:`TooBig` past
    ``node_limit``."""
    if counter is None:
        return _enumerate(tuple(sorted(constraints)), node_limit)
    return counter.table(constraints, node_limit)


class Varying:
    """One component's tables while one of its constraints, ``shown``, holds each count
    of mines in turn (the lookahead's clicked cell: its number links the same cells
    whatever it shows).

    ``table(v)`` is ``tabulate`` of the component with ``shown`` holding ``v`` mines,
    kept tables (in ``counter``) and all; the tables not yet kept come from one search
    that counts the solutions apart by ``shown``'s mines
    (:func:`kaboom.solver._kernels.counting.tally` with ``split``).  Its nodes include
    each single search's, so within ``node_limit`` none of those would have failed;
    past it, each value is searched alone, as before.
    """

    def __init__(self, constraints: Sequence[Constraint], shown: Constraint,
                 node_limit: int, counter: LayoutCounter = _SHARED) -> None:
        self._others = sorted([con for con in constraints if con is not shown])
        self._cells = shown.cells
        self._node_limit = node_limit
        self._counter = counter
        self._found: list[tuple[dict[int, int], dict[int, list[int]]]] | None = None
        self._cells_found: tuple[Cell, ...] = ()
        self._searched = False

    def table(self, v: int) -> Table:
        """The table with ``v`` mines among ``shown``'s cells; raises :class:`TooBig`."""
        number = Constraint(self._cells, v)
        others = self._others
        at = bisect.bisect_right(others, number)  # where a stable sort puts it
        key: Key = (*others[:at], number, *others[at:])
        table = self._counter._cached(key)
        if table is not None:
            return table
        if not self._searched:
            self._searched = True
            classes, cons_of = _classes(key)
            split = next(j for j, con in enumerate(key) if con is number)
            found = tally(cons_of, [len(c) for c in classes], [m for _, m in key],
                          [len(cells) for cells, _ in key], self._node_limit, split)
            if found is not None:
                self._found = found
                self._cells_found = tuple(c for cls in classes for c in cls)
        if self._found is None:
            return self._counter._keep(key, _enumerate(key, self._node_limit))
        totals, cell_counts = self._found[v]
        return self._counter._keep(key, Table(self._cells_found, totals, cell_counts, key))


def _classes(key: Key) -> tuple[list[list[Cell]], list[list[int]]]:
    """The cells of ``key``'s constraints in classes, in search order, and the
    constraints (indices into ``key``) of each class (shared lists: not to be changed).
    They depend on the constraints' cells only, so the lookahead's branches, which
    differ in one number, share them."""
    cells = tuple(cells for cells, _ in key)
    if len(set().union(*cells)) > MAX_CELLS:  # rare, and a cache entry could be a
        return classes(cells)  # megabyte (a whole 256x256 board)
    return _classes_of(cells)


@functools.lru_cache(maxsize=1024)
def _classes_of(
    key: tuple[tuple[Cell, ...], ...],
) -> tuple[list[list[Cell]], list[list[int]]]:
    """:func:`_classes` over the constraints' cells ``key``.

    Cells that lie in exactly the same constraints are interchangeable: they form one
    class, assigned a mine count k at once with multiplicity C(size, k).  Classes go in
    breadth-first order through shared constraints, so each constraint is completed
    (and checked) soon after its first class is assigned (compiled:
    :func:`kaboom.solver._kernels.counting.classes`).
    """
    return classes(key)


def _search_args(key: Key) -> tuple[list[list[Cell]], list[list[int]], list[int], list[int],
                                    list[int]]:
    """The classes, and the search's arguments: each class's constraints and size, each
    constraint's mines and cells."""
    classes, cons_of = _classes(key)
    return (classes, cons_of, [len(c) for c in classes], [m for _, m in key],
            [len(cells) for cells, _ in key])


def _enumerate(key: Key, node_limit: int) -> Table:
    classes, cons_of, sizes, need, room = _search_args(key)
    found = tally(cons_of, sizes, need, room, node_limit)
    if found is None:
        raise TooBig
    totals, cell_counts = found
    cells = [c for cls in classes for c in cls]
    return Table(tuple(cells), totals, cell_counts, key)


def _list(key: Key, node_limit: int, limit: int) -> Listing:
    """:meth:`LayoutCounter.listing` of the sorted constraints ``key``."""
    classes, cons_of, sizes, need, room = _search_args(key)
    found = assignments(cons_of, sizes, need, room, node_limit, limit)
    if found is None:
        raise TooBig
    grouped: dict[int, tuple[list[tuple[int, ...]], list[int]]] = {}
    for assignment in found:
        listed, running = grouped.setdefault(sum(assignment), ([], []))
        listed.append(assignment)
        weight = math.prod(map(comb, sizes, assignment))
        running.append(weight + (running[-1] if running else 0))
    return Listing(tuple(map(tuple, classes)), grouped)


def mine_totals(constraints: Sequence[Constraint], node_limit: int = 200_000) -> frozenset[int]:
    """Every number of mines one component's cells can hold (none when its constraints
    cannot all hold); raises :class:`TooBig` past ``node_limit`` nodes.  The search
    remembers what it found from each class on (compiled:
    :func:`kaboom.solver._kernels.counting.reachable`), so a wide component whose
    solutions are far too many to count one by one (a 2,000-cell frontier) still
    answers."""
    _, cons_of, sizes, need, room = _search_args(tuple(sorted(constraints)))
    found = reachable(cons_of, sizes, need, room, node_limit)
    if found is None:
        raise TooBig
    return frozenset(m for m in range(found.bit_length()) if found >> m & 1)


def solutions(
    constraints: Sequence[Constraint], limit: int, node_limit: int | None = None
) -> list[frozenset[Cell]] | None:
    """Every set of mines on the constraints' cells that satisfies them all, or
    ``None`` when there are more than ``limit``, the search needs more than
    ``node_limit`` nodes (default ``20 * limit``) or the cells are more than
    :data:`~kaboom.solver._kernels.counting.MAX_CELLS` (an endgame's or a closed
    region's search over them would not end)."""
    key: Key = tuple(sorted(constraints))
    if not key:
        return [frozenset()]
    classes, cons_of, sizes, need, room = _search_args(key)
    most = 2**62  # the search counts in C longs; no list that long would fit in memory
    nodes = 20 * limit if node_limit is None else node_limit
    found = assignments(cons_of, sizes, need, room, min(nodes, most), min(limit, most),
                        MAX_CELLS)
    if found is None:
        return None
    # a class of n cells with k mines is C(n, k) layouts: count them before listing any
    # (itertools.product holds each class's combinations at once)
    if sum(math.prod(map(math.comb, sizes, a)) for a in found) > limit:
        return None
    out: list[frozenset[Cell]] = []
    for assignment in found:
        parts = [itertools.combinations(cls, k) for cls, k in zip(classes, assignment)]
        out += [frozenset(c for pick in picks for c in pick)
                for picks in itertools.product(*parts)]
    return out


@dataclass(frozen=True, slots=True)
class Count:
    """Exact weights of the whole position.

    ``weight`` is the number of consistent layouts; ``mine_weight[c]`` those that mine
    frontier cell ``c``; ``outside_mine_weight`` those that mine one given outside cell
    (all divided by ``2 ** shift``: 0 unless the binomials were cut).
    """

    weight: int
    mine_weight: dict[Cell, int]
    outside: int
    outside_mine_weight: int
    tables: tuple[Table, ...] = ()
    """The component tables it combines."""
    shift: int = 0

    def probability(self, cell: Cell) -> float:
        w = self.mine_weight.get(cell)
        if w is None:
            return self.outside_probability
        return w / self.weight

    @property
    def outside_probability(self) -> float:
        return self.outside_mine_weight / self.weight if self.outside else 1.0

    def safe(self) -> list[Cell]:
        return [c for c, w in self.mine_weight.items() if w == 0]


def count(
    components: Iterable[Sequence[Constraint]],
    outside: int,
    mines_left: int,
    node_limit: int = 200_000,
) -> Count:
    """Counts each component and combines them with the outside cells (:func:`combine`).

    Raises :class:`TooBig` when a component is too large or combining them would take
    more than :data:`COMBINE_WORK` steps, ``ValueError`` when no layout fits (callers
    turn it into ``InvalidPositionError``).
    """
    tables = [tabulate(cs, node_limit) for cs in components]
    if _combine_work(tables, outside, mines_left) > COMBINE_WORK:
        raise TooBig
    return combine(tables, outside, mines_left)


def _combine_work(tables: Sequence[Table], outside: int, mines_left: int, bits: int = 0) -> int:
    """Steps of :func:`combine`: a pass over the possible mine totals per component, each
    a product with a binomial of about ``outside`` bits (words of 64).  Cut to ``bits``,
    the binomials keep ``bits`` more than their spread over the totals the components
    can hold, which run from their fewest mines to their most; the products of the
    components' counts add theirs."""
    if not bits:
        top = min(mines_left, sum(max(t.totals, default=0) for t in tables)) + 1
        return (len(tables) + 1) * top * (outside // 64 + 1)
    low = sum(min(t.totals, default=0) for t in tables)
    high = sum(max(t.totals, default=0) for t in tables)
    spread = _log2_binomial_spread(outside, max(0, mines_left - high), mines_left - low)
    products = sum(max(t.totals.values(), default=0).bit_length() for t in tables)
    words = (bits + spread + products) // 64 + 1
    return (len(tables) + 1) * (high - low + 1) * words


def _log2_binomial_spread(n: int, low: int, high: int) -> int:
    """How many bits ``C(n, k)`` spans for ``k`` from ``low`` to ``high`` (log-concave:
    its least at an end, its most at an end or at ``n / 2``)."""
    high = min(high, n)
    if low > high:
        return 0

    def log2(k: int) -> float:
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)

    ends = [log2(low), log2(high)]
    most = log2(n // 2) if low <= n // 2 <= high else max(ends)
    return math.ceil(most - min(ends)) + 1


def untouched(
    tables: Sequence[Table], cells: AbstractSet[Cell]
) -> tuple[list[Table], list[Constraint]]:
    """The tables that share no cell with ``cells`` (still valid after those cells
    change), and the constraints of the others, to be counted again."""
    kept: list[Table] = []
    again: list[Constraint] = []
    for t in tables:
        if cells.isdisjoint(t.cells):
            kept.append(t)
        else:
            again.extend(t.constraints)
    return kept, again


def combine(tables: Sequence[Table], outside: int, mines_left: int, bits: int = 0) -> Count:
    """Layout weights of the components ``tables`` with ``outside`` unconstrained cells
    and ``mines_left`` mines among them all (exact; with ``bits``, the binomials cut to
    that many leading bits); ``ValueError`` when no layout fits.

    Each component's mine counts are convolved with the others' and weighted by the
    ways ``C(outside, mines_left - k)`` to put the rest outside (compiled:
    :func:`kaboom.solver._kernels.counting.weigh`)."""
    found = weigh([t.totals for t in tables], [t.cell_counts for t in tables], outside,
                  mines_left, _ways, bits)
    if found is None:
        raise ValueError("no layout fits these numbers and the mine count")
    assert found.mine is not None
    mine_weight: dict[Cell, int] = {}
    for table, acc in zip(tables, found.mine, strict=True):
        mine_weight.update(zip(table.cells, acc, strict=True))
    return Count(found.weight, mine_weight, outside, found.outside_mine, tuple(tables),
                 found.shift)


def total_weight(dists: Sequence[dict[int, int]], outside: int, mines_left: int) -> int:
    """The number of layouts only (no per-cell weights): components with these
    mine-count distributions (``Table.totals``) and ``outside`` unconstrained cells."""
    found = weigh(list(dists), None, outside, mines_left, _ways)
    return 0 if found is None else found.weight


@functools.lru_cache(maxsize=8192)
def _ways(n: int, k: int) -> int:
    """``C(n, k)``, remembered: a game asks for the same few (outside cells, mines
    left) again and again, and each is a big integer."""
    return comb(n, k)


# ----------------------------------------------------------------- a whole position
@dataclass(frozen=True, slots=True)
class Combination:
    """A position's frontier counted: its component tables and how its layouts spread
    over the mines they hold (the outside binomials cut to their leading bits, as
    ``ROUNDED_BITS`` says).  What a draw of layouts reads."""

    frontier: Frontier
    """The position's frontier, the known and fixed cells folded in."""
    tables: tuple[Table, ...]
    """The tables of the frontier's components."""
    prefix: tuple[list[int], ...]
    """``prefix[i][j]``: the ways for the components before ``tables[i]`` to hold
    ``lows[i] + j`` mines (one more entry than ``tables``: the last for all of them)."""
    lows: tuple[int, ...]
    """``lows[i]``: the fewest mines the components before ``tables[i]`` can hold (one
    more entry than ``tables``)."""
    outside: list[int]
    """``outside[j]``: the ways for the outside cells to hold the rest when the
    components hold ``lows[-1] + j`` mines."""


def combination(
    position: Position,
    *,
    known: Mapping[Cell, bool] | None = None,
    fixed: Mapping[Cell, bool] | None = None,
    budget: Budget | None = None,
    counter: LayoutCounter | None = None,
    base: Frontier | None = None,
) -> Combination:
    """Counts ``position`` with the cells of ``known`` and ``fixed`` as given (``base``:
    its frontier, when the caller has it).

    Raises :class:`BudgetExceededError` when a component or the combination is too
    large, or the budget runs out between components, and
    :class:`InvalidPositionError` when no layout fits."""
    budget = budget or Budget(None)
    fr, tables = _frontier_tables(position, {**(known or {}), **(fixed or {})}, budget,
                                  counter, base)
    _check_work(tables, fr)
    found = weigh([t.totals for t in tables], None, fr.outside_count, fr.mines_left, _ways,
                  ROUNDED_BITS)
    if found is None:
        raise InvalidPositionError("no layout fits the numbers and the mine count")
    return Combination(fr, tuple(tables), tuple(found.prefix), tuple(found.lows),
                       found.binoms)


def _frontier_tables(
    position: Position,
    known: Mapping[Cell, bool],
    budget: Budget,
    counter: LayoutCounter | None,
    base: Frontier | None = None,
) -> tuple[Frontier, list[Table]]:
    """The frontier with ``known`` folded in, and its components' tables."""
    if budget.expired():
        raise BudgetExceededError("no time left to count the layouts")
    fr = base.fold(known) if base is not None else frontier_of(position, known)
    counter = counter or LayoutCounter()
    tables = []
    for _, cons in fr.components():
        if budget.expired():
            raise BudgetExceededError("the components were not counted in time")
        try:
            tables.append(counter.table(cons, MAX_NODES))
        except TooBig:
            raise BudgetExceededError("a component is too large to count") from None
        if not tables[-1].totals:
            raise InvalidPositionError("no layout fits the numbers")
    return fr, tables


def _check_work(tables: Sequence[Table], fr: Frontier) -> None:
    if _combine_work(tables, fr.outside_count, fr.mines_left, ROUNDED_BITS) > COMBINE_WORK:
        raise BudgetExceededError(f"{len(tables)} components are too many to count exactly")


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Exact mine probability of every covered cell; outside cells share one value."""

    cells: Mapping[Cell, float]
    """Every covered cell's probability of holding a mine (0 or 1 for a decided one)."""
    outside: float | None
    """The probability shared by the outside cells (next to no open number), or
    ``None`` when there are none."""
    log_layouts: float
    """Natural log of the number of consistent layouts."""

    def of(self, cell: Cell) -> float:
        """The mine probability of covered ``cell``; raises ``KeyError`` for another."""
        return self.cells[cell]


def probabilities(
    position: Position,
    *,
    known: Mapping[Cell, bool] | None = None,
    budget: Budget | None = None,
    counter: LayoutCounter | None = None,
) -> Probabilities:
    """Returns the exact mine probability of every covered cell (``known`` may pass
    cells already decided; ``counter`` the tables of the game's earlier positions).

    Raises :class:`BudgetExceededError` when a component or the combination is too
    large to count in the budget, and :class:`InvalidPositionError` when no layout fits.
    """
    budget = budget or Budget(None)
    fr, tables = _frontier_tables(position, dict(known or {}), budget, counter)
    _check_work(tables, fr)
    try:
        cnt = combine(tables, fr.outside_count, fr.mines_left, ROUNDED_BITS)
    except ValueError:
        raise InvalidPositionError("no layout fits the numbers and the mine count") from None
    out: dict[Cell, float] = {c: (1.0 if v else 0.0) for c, v in fr.known.items()}
    out.update((c, cnt.probability(c)) for c in cnt.mine_weight)
    outside_p: float | None = None
    if fr.outside_count:
        outside_p = cnt.outside_probability
        out.update(dict.fromkeys(fr.outside, outside_p))
    log_layouts = math.log(cnt.weight) + cnt.shift * math.log(2)
    return Probabilities(out, outside_p, log_layouts)
