"""Exact layout counting over the frontier, component by component (seed 002, step 3).

The undecided frontier splits into components (cells linked through shared numbers).
Each component is enumerated once by backtracking, counting its solutions *by mine
count* and, per mine count, how many solutions mine each cell.  Components combine by a
convolution over mine counts, weighted by ``C(outside cells, mines left)``; everything
stays in exact Python integers, so "probability 0" is a proof.

Component tables are cached by their constraints: between two moves of a game most
components do not change, and the lookahead re-counts only the one a click touches.
This module is the strategy's fast engine (it exposes the per-component tables that
lookahead and the endgame need); :mod:`kaboom.solver.probability` is the public exact module.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from math import comb

from kaboom.solver._kernels.counting import MAX_CELLS, assignments, classes, tally, weigh
from kaboom.solver.frontier import Constraint

__all__ = [
    "Count", "Table", "TooBig", "Varying", "combine", "count", "float_shift", "solutions",
    "tabulate", "total_weight", "untouched",
]

Key = tuple[Constraint, ...]
"""A component's constraints, sorted: the same component whatever the order given."""


_FLOAT_BITS = 1000
"""Layout counts up to 2**1000 meet floats as they are (a float ends near 2**1024)."""


def float_shift(total: int) -> int:
    """Bits to drop from layout counts of this size before they meet a float.  Counts
    are exact integers, past a float's range on large boards (1e308 layouts: 40x40 with
    400 mines); below 2**1000 nothing is dropped, so a score computed as
    ``(w >> s) * x / (total >> s)`` is the plain ``w * x / total``, bit for bit."""
    return max(0, total.bit_length() - _FLOAT_BITS)


class TooBig(Exception):
    """A component needed more search than the node limit allows."""


@dataclass(frozen=True, slots=True)
class Table:
    """Solutions of one component: ``totals[k]`` solutions with ``k`` mines, and
    ``cell_counts[k][i]`` of them mine ``cells[i]``; ``constraints`` are the
    component's."""

    cells: tuple[tuple[int, int], ...]
    totals: dict[int, int]
    cell_counts: dict[int, list[int]]
    constraints: tuple[Constraint, ...] = ()


@dataclass(frozen=True, slots=True)
class Count:
    """Exact weights of the whole position.

    ``weight`` is the number of consistent layouts; ``mine_weight[c]`` those that mine
    frontier cell ``c``; ``outside_mine_weight`` those that mine one given outside cell.
    """

    weight: int
    mine_weight: dict[tuple[int, int], int]
    outside: int
    outside_mine_weight: int
    tables: tuple[Table, ...] = ()
    """The component tables it combines."""

    def probability(self, cell: tuple[int, int]) -> float:
        w = self.mine_weight.get(cell)
        if w is None:
            return self.outside_probability
        return w / self.weight

    @property
    def outside_probability(self) -> float:
        return self.outside_mine_weight / self.weight if self.outside else 1.0

    def safe(self) -> list[tuple[int, int]]:
        return [c for c, w in self.mine_weight.items() if w == 0]

    def mines(self) -> list[tuple[int, int]]:
        return [c for c, w in self.mine_weight.items() if w == self.weight]


_CACHE: OrderedDict[Key, Table] = OrderedDict()
_CACHE_SIZE = 4096


def tabulate(constraints: Sequence[Constraint], node_limit: int = 200_000) -> Table:
    """Enumerates one connected component; raises :class:`TooBig` past ``node_limit``."""
    key: Key = tuple(sorted(constraints))
    table = _CACHE.get(key)
    if table is not None:
        _CACHE.move_to_end(key)
        return table
    return _remember(key, _enumerate(key, node_limit))


def _remember(key: Key, table: Table) -> Table:
    _CACHE[key] = table
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return table


class Varying:
    """One component's tables while one of its constraints, ``shown``, holds each count
    of mines in turn (the lookahead's clicked cell: its number links the same cells
    whatever it shows).

    ``table(v)`` is ``tabulate`` of the component with ``shown`` holding ``v`` mines,
    cache and all; the tables the cache does not hold come from one search that counts
    the solutions apart by ``shown``'s mines (:func:`kaboom.solver._kernels.counting.tally` with
    ``split``).  Its nodes include each single search's, so within ``node_limit`` none
    of those would have failed; past it, each value is searched alone, as before.
    """

    def __init__(self, constraints: Sequence[Constraint], shown: Constraint,
                 node_limit: int) -> None:
        self._others = sorted([con for con in constraints if con is not shown])
        self._cells = shown.cells
        self._node_limit = node_limit
        self._found: list[tuple[dict[int, int], dict[int, list[int]]]] | None = None
        self._cells_found: tuple[tuple[int, int], ...] = ()
        self._searched = False

    def table(self, v: int) -> Table:
        """The table with ``v`` mines among ``shown``'s cells; raises :class:`TooBig`."""
        number = Constraint(self._cells, v)
        others = self._others
        at = bisect.bisect_right(others, number)  # where a stable sort puts it
        key: Key = (*others[:at], number, *others[at:])
        table = _CACHE.get(key)
        if table is not None:
            _CACHE.move_to_end(key)
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
            return _remember(key, _enumerate(key, self._node_limit))
        totals, cell_counts = self._found[v]
        return _remember(key, Table(self._cells_found, totals, cell_counts, key))


def _classes(key: Key) -> tuple[list[list[tuple[int, int]]], list[list[int]]]:
    """The cells of ``key``'s constraints in classes, in search order, and the
    constraints (indices into ``key``) of each class (shared lists: not to be changed).
    They depend on the constraints' cells only, so the lookahead's branches, which
    differ in one number, share them."""
    cells = tuple(cells for cells, _ in key)
    if len(set().union(*cells)) > MAX_CELLS:  # the search refuses it: not worth a
        return classes(cells)  # cache entry of a megabyte (a whole 256x256 board)
    return _classes_of(cells)


@functools.lru_cache(maxsize=1024)
def _classes_of(
    key: tuple[tuple[tuple[int, int], ...], ...],
) -> tuple[list[list[tuple[int, int]]], list[list[int]]]:
    """:func:`_classes` over the constraints' cells ``key``.

    Cells that lie in exactly the same constraints are interchangeable: they form one
    class, assigned a mine count k at once with multiplicity C(size, k).  Classes go in
    breadth-first order through shared constraints, so each constraint is completed
    (and checked) soon after its first class is assigned (compiled:
    :func:`kaboom.solver._kernels.counting.classes`).
    """
    return classes(key)


def _enumerate(key: Key, node_limit: int) -> Table:
    classes, cons_of = _classes(key)
    sizes = [len(c) for c in classes]
    found = tally(cons_of, sizes, [m for _, m in key], [len(cells) for cells, _ in key],
                  node_limit)
    if found is None:
        raise TooBig
    totals, cell_counts = found
    cells = [c for cls in classes for c in cls]
    return Table(tuple(cells), totals, cell_counts, key)


def solutions(
    constraints: Sequence[Constraint], limit: int, node_limit: int | None = None
) -> list[frozenset[tuple[int, int]]] | None:
    """Every set of mines on the constraints' cells that satisfies them all, or
    ``None`` when there are more than ``limit`` or the search needs more than
    ``node_limit`` nodes (default ``20 * limit``)."""
    key: Key = tuple(sorted(constraints))
    if not key:
        return [frozenset()]
    classes, cons_of = _classes(key)
    most = 2**62  # the search counts in C longs; no list that long would fit in memory
    nodes = 20 * limit if node_limit is None else node_limit
    found = assignments(cons_of, [len(c) for c in classes], [m for _, m in key],
                        [len(cells) for cells, _ in key], min(nodes, most), min(limit, most))
    if found is None:
        return None
    # a class of n cells with k mines is C(n, k) layouts: count them before listing any
    # (itertools.product holds each class's combinations at once)
    if sum(math.prod(map(math.comb, map(len, classes), a)) for a in found) > limit:
        return None
    out: list[frozenset[tuple[int, int]]] = []
    for assignment in found:
        parts = [itertools.combinations(cls, k) for cls, k in zip(classes, assignment)]
        out += [frozenset(c for pick in picks for c in pick)
                for picks in itertools.product(*parts)]
    return out


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


COMBINE_WORK = 2_000_000
"""The most work :func:`count` combines exactly (about 0.1 s): Expert positions need a
few hundred, 100x100 ones up to about 400,000; a 256x256 board with 119 small components
and 64,000 outside cells needed 73 million (4 s a count, and the lookahead counts again
for every candidate), so it goes to the SAT engine, whose time is budgeted."""


def _combine_work(tables: Sequence[Table], outside: int, mines_left: int) -> int:
    """Steps of :func:`combine`: a pass over the possible mine totals per component, each
    a product with a binomial of about ``outside`` bits (words of 64)."""
    top = min(mines_left, sum(max(t.totals, default=0) for t in tables)) + 1
    return (len(tables) + 1) * top * (outside // 64 + 1)


def untouched(
    tables: Sequence[Table], cells: AbstractSet[tuple[int, int]]
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


def combine(tables: Sequence[Table], outside: int, mines_left: int) -> Count:
    """Exact layout weights of the components ``tables`` with ``outside`` unconstrained
    cells and ``mines_left`` mines among them all; ``ValueError`` when no layout fits.

    Each component's mine counts are convolved with the others' and weighted by the
    ways ``C(outside, mines_left - k)`` to put the rest outside (compiled:
    :func:`kaboom.solver._kernels.counting.weigh`)."""
    found = weigh([t.totals for t in tables], [t.cell_counts for t in tables], outside,
                  mines_left, _ways)
    if found is None:
        raise ValueError("no layout fits these numbers and the mine count")
    weight, outside_mine, by_table = found
    assert by_table is not None
    mine_weight: dict[tuple[int, int], int] = {}
    for table, acc in zip(tables, by_table, strict=True):
        mine_weight.update(zip(table.cells, acc, strict=True))
    return Count(weight, mine_weight, outside, outside_mine, tuple(tables))


def total_weight(dists: Sequence[dict[int, int]], outside: int, mines_left: int) -> int:
    """The number of layouts only (no per-cell weights): components with these
    mine-count distributions (``Table.totals``) and ``outside`` unconstrained cells."""
    found = weigh(list(dists), None, outside, mines_left, _ways)
    return 0 if found is None else found[0]


@functools.lru_cache(maxsize=8192)
def _ways(n: int, k: int) -> int:
    """``C(n, k)``, remembered: a game asks for the same few (outside cells, mines
    left) again and again, and each is a big integer."""
    return comb(n, k)
