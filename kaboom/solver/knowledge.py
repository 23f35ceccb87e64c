"""What is certain about a position: every covered cell is safe, a mine, or unknown.

The classification puts the position to the SAT solver (:mod:`kaboom.solver.cnf`).  The
outside cells (next to no number) are one class whose mines are only counted, never
enumerated.  Three things keep it fast on large boards (measured, see
docs/benchmarks.md):

* cells decided earlier are folded into the numbers and the count, never re-encoded;
* the cells are classified with the per-number clauses alone first; the count
  constraint is added only over the still-undecided cells, and only when it can bind;
* one incremental solver answers every query of a phase through assumptions, and every
  model it returns settles "can be a mine" / "can be safe" for all cells at once.

Out of budget the answer says which cells it could not settle.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field

from kaboom.solver.budget import Budget
from kaboom.solver.cache import CachePool, SizedCache
from kaboom.solver.cnf import CountEncoding, OutOfTime, SatSolver
from kaboom.solver.counting import TooBig, mine_totals
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import Constraint, Frontier, components, frontier_of
from kaboom.solver.position import COVERED_CHARS, Cell, Position

__all__ = ["Knowledge", "KnowledgeEngine", "Status", "classify"]

class Status(enum.StrEnum):
    """What every consistent layout says about one covered cell."""

    SAFE = "s"
    MINE = "m"
    UNKNOWN = "u"


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The status of every covered cell of one position.

    ``safe`` and ``mines`` hold every proven cell, outside cells included.  ``unresolved``
    holds the cells the budget ran out on: they count as unknown, but nothing was proven
    about them; ``complete`` is true when there are none.  Unknown outside cells are kept
    as one class (``outside_unknown``) and listed only when :attr:`unknown` is read.
    """

    safe: frozenset[Cell]
    mines: frozenset[Cell]
    frontier_unknown: frozenset[Cell]
    """The frontier cells proven unknown: a mine in some layouts, safe in others."""
    unresolved: frozenset[Cell] = frozenset()
    outside_unknown: bool = False
    frontier: Frontier | None = field(default=None, repr=False, compare=False)
    """The position's frontier, the cells decided before the analysis folded in."""
    stats: dict[str, int] = field(default_factory=dict, compare=False)
    """What the classification met, for logs and benchmarks: cells on the frontier and
    outside, components, SAT calls."""

    @property
    def complete(self) -> bool:
        """Whether every covered cell was settled (no cell is ``unresolved``)."""
        return not self.unresolved

    @property
    def unknown(self) -> frozenset[Cell]:
        """Every cell proven unknown, the outside class included."""
        if self.outside_unknown and self.frontier is not None:
            return self.frontier_unknown | frozenset(self.frontier.outside)
        return self.frontier_unknown

    @property
    def outside(self) -> frozenset[Cell]:
        """The undecided cells next to no open number (one class)."""
        return frozenset(self.frontier.outside) if self.frontier is not None else frozenset()

    def status(self, cell: Cell) -> Status:
        """What is known of ``cell`` (unknown for an unresolved one)."""
        if cell in self.safe:
            return Status.SAFE
        if cell in self.mines:
            return Status.MINE
        return Status.UNKNOWN

    def status_rows(self, position: Position) -> list[str]:
        """Rows with ``s``/``m``/``u`` for covered cells (``?`` for those the budget did
        not settle) and the board character elsewhere."""
        safe, mines, unresolved = self.safe, self.mines, self.unresolved
        out = []
        for y, row in enumerate(position.rows):
            chars = []
            for x, ch in enumerate(row):
                if ch not in COVERED_CHARS:
                    chars.append(ch)
                elif (x, y) in safe:
                    chars.append("s")
                elif (x, y) in mines:
                    chars.append("m")
                elif (x, y) in unresolved:
                    chars.append("?")
                else:
                    chars.append("u")
            out.append("".join(chars))
        return out

    def decided(self) -> dict[Cell, bool]:
        """The proven cells as ``{cell: is_mine}``."""
        out = dict.fromkeys(self.safe, False)
        out.update(dict.fromkeys(self.mines, True))
        return out


@dataclass(slots=True)
class _Result:
    safe: set[Cell] = field(default_factory=set)
    mines: set[Cell] = field(default_factory=set)
    unknown: set[Cell] = field(default_factory=set)
    unresolved: set[Cell] = field(default_factory=set)
    calls: int = 0
    models: list[int] = field(default_factory=list)  # mine totals of the models seen


def _classify_cells(sat: SatSolver, result: _Result, base: list[int] | None = None) -> None:
    """Splits ``sat.cells`` into safe / mine / unknown using model reuse."""
    base = base or []
    can_mine: set[int] = set()
    can_safe: set[int] = set()
    n = len(sat.cells)

    def absorb(model: list[int]) -> None:
        for v in model[:n]:
            if v > 0:
                can_mine.add(v)
            else:
                can_safe.add(-v)
        result.models.append(sum(1 for v in model[:n] if v > 0))

    pending = list(sat.cells)
    try:
        model = sat.solve(base)
        if model is None:
            raise InvalidPositionError("no layout of mines fits these numbers and the count")
        absorb(model)
        while pending:
            c = pending[-1]
            v = sat.var[c]
            if v not in can_mine:
                model = sat.solve([*base, v])
                if model is None:
                    result.safe.add(c)
                    sat.solver.add_clause([-v])
                    pending.pop()
                    continue
                absorb(model)
            if v not in can_safe:
                model = sat.solve([*base, -v])
                if model is None:
                    result.mines.add(c)
                    sat.solver.add_clause([v])
                    pending.pop()
                    continue
                absorb(model)
            result.unknown.add(c)
            pending.pop()
    except OutOfTime:
        result.unresolved.update(pending)


@dataclass(slots=True)
class _Local:
    """Phase 1 on one component: its cells by status, and what is known of the fewest and
    most mines its undecided cells can hold under the component's numbers alone.

    ``seen_low``/``seen_high`` are achieved by models already found; the exact bounds
    cost a count or more SAT calls, so they are computed only when the mine count could
    bind (:meth:`bounds`) and then kept with the cached component.
    """

    cells: tuple[Cell, ...]
    cons: list[Constraint]
    safe: frozenset[Cell]
    mines: frozenset[Cell]
    unknown: frozenset[Cell]
    unresolved: frozenset[Cell]
    seen_low: int
    seen_high: int
    calls: int
    exact: tuple[int, int] | None = None

    @property
    def undecided(self) -> int:
        return len(self.unknown) + len(self.unresolved)

    def bounds(self, encoding: CountEncoding, budget: Budget) -> tuple[int, int]:
        """The fewest and most mines of the undecided cells (conservative, ``(0,
        undecided)``, where the budget ran out)."""
        if self.exact is not None:
            return self.exact
        got = self._bounds(encoding, budget)
        if got is None:  # out of time: conservative, and not kept
            return 0, self.undecided
        self.exact = got
        return got

    def _bounds(self, encoding: CountEncoding, budget: Budget) -> tuple[int, int] | None:
        if self.unresolved:
            return None
        if not self.unknown:
            return 0, 0
        fixed = len(self.mines)
        # A small bounded count settles both at once.  Proving "fewer than k mines"
        # unsatisfiable took Minicard 5.4 s on a 65-cell component where this takes 4 ms.
        try:
            counts = mine_totals(self.cons, _BOUNDS_NODES)
            return min(counts) - fixed, max(counts) - fixed
        except TooBig:
            pass
        lo, hi = self.seen_low + fixed, self.seen_high + fixed
        with SatSolver(self.cells, encoding, budget) as sat:
            try:
                sat.add_all(self.cons)
                while (m := sat.solve(sat.at_most(lo - 1))) is not None:
                    lo = sat.mines_in(m)
                while (m := sat.solve(sat.at_least(hi + 1))) is not None:
                    hi = sat.mines_in(m)
            except OutOfTime:
                return None
        return lo - fixed, hi - fixed


def _classify_component(
    cells: tuple[Cell, ...], cons: list[Constraint], encoding: CountEncoding, budget: Budget
) -> _Local:
    r = _Result()
    calls = 0
    if budget.expired():  # no solver built for nothing: the cells stay unresolved
        r.unresolved.update(cells)
    else:
        with SatSolver(cells, encoding, budget) as sat:
            try:
                sat.add_all(cons)
                _classify_cells(sat, r)
            except OutOfTime:
                r.unresolved.update(cells)
            calls = sat.calls
    fixed = len(r.mines)
    seen_low = min(r.models, default=fixed) - fixed
    seen_high = max(r.models, default=fixed) - fixed
    return _Local(
        cells,
        cons,
        frozenset(r.safe),
        frozenset(r.mines),
        frozenset(r.unknown),
        frozenset(r.unresolved),
        seen_low,
        seen_high,
        calls,
    )


_BOUNDS_NODES = 20_000
"""Search nodes allowed for :meth:`_Local.bounds` before the SAT queries take over."""


def classify(
    position: Position,
    *,
    known: Mapping[Cell, bool] | None = None,
    encoding: CountEncoding = CountEncoding.TOTALIZER,
    budget: Budget | None = None,
) -> Knowledge:
    """Classifies every covered cell of ``position`` as safe, mine or unknown.

    Uses all open numbers and the total mine count.  ``known`` may pass cells decided on
    an earlier position of the same game (a :class:`KnowledgeEngine` keeps them, and
    each component's result, between a game's positions).  Raises
    :class:`InvalidPositionError` when no layout fits the position.
    """
    return _classify(position, known, encoding, budget or Budget(None), None)


def _classify(
    position: Position,
    known: Mapping[Cell, bool] | None,
    encoding: CountEncoding,
    budget: Budget,
    cache: MutableMapping[tuple[Constraint, ...], _Local] | None,
) -> Knowledge:
    """:func:`classify`, with ``cache`` the per-component results of earlier calls (a
    component's local status depends only on its numbers)."""
    fr = frontier_of(position, known)
    res = _Result()
    for c, m in fr.known.items():
        (res.mines if m else res.safe).add(c)
    stats = {"frontier": len(fr.cells), "outside": fr.outside_count}
    if budget.expired():  # not even the components split: nothing proven beyond ``known``
        res.unresolved.update(fr.cells)
        res.unresolved.update(fr.outside)
        return _knowledge(res, fr, False, stats)
    locals_ = _each_component(fr, encoding, budget, cache, res)
    stats["components"] = len(locals_)
    outside_unknown = _with_count(position, fr, locals_, encoding, budget, res, stats)
    stats["calls"] = res.calls
    return _knowledge(res, fr, outside_unknown, stats)


def _knowledge(res: _Result, fr: Frontier, outside_unknown: bool,
               stats: dict[str, int]) -> Knowledge:
    return Knowledge(
        safe=frozenset(res.safe),
        mines=frozenset(res.mines),
        frontier_unknown=frozenset(res.unknown),
        unresolved=frozenset(res.unresolved),
        outside_unknown=outside_unknown,
        frontier=fr,
        stats=stats,
    )


def _each_component(
    fr: Frontier,
    encoding: CountEncoding,
    budget: Budget,
    cache: MutableMapping[tuple[Constraint, ...], _Local] | None,
    res: _Result,
) -> list[_Local]:
    """Phase 1: each component under its own numbers, with its own small solver (or as
    ``cache`` kept it); what they prove goes into ``res``."""
    locals_: list[_Local] = []
    for cells, cons in components(fr.constraints):
        key = tuple(sorted(cons, key=lambda c: c.cells))
        local = cache.get(key) if cache is not None else None
        if local is None:
            local = _classify_component(cells, cons, encoding, budget)
            res.calls += local.calls
            if cache is not None and not local.unresolved:
                cache[key] = local
        res.safe |= local.safe
        res.mines |= local.mines
        res.unknown |= local.unknown
        res.unresolved |= local.unresolved
        locals_.append(local)
    return locals_


def _with_count(
    position: Position,
    fr: Frontier,
    locals_: list[_Local],
    encoding: CountEncoding,
    budget: Budget,
    res: _Result,
    stats: dict[str, int],
) -> bool:
    """Phase 2: the count, over the cells still undecided, only when it can bind; then
    the outside cells.  Updates ``res``; returns whether the outside cells are unknown."""
    outside = fr.outside_count
    high = fr.mines_left - sum(len(loc.mines) for loc in locals_)
    low = high - outside
    binds, kmin, kmax = _binds(locals_, low, high, outside, encoding, budget)
    count_sat: SatSolver | None = None
    try:
        if binds:
            if high < 0 or low > kmax:
                raise InvalidPositionError("the mine count does not fit the numbers")
            sub = frontier_of(position, {**fr.known, **_decided(fr, res)})
            n = len(sub.cells)
            count_sat = SatSolver(sub.cells, encoding, budget, bound=max(high, n - low) + 1)
            phase2 = _Result()
            try:
                count_sat.add_all(sub.constraints)
                count_sat.add_count(max(0, low), high)
                _classify_cells(count_sat, phase2)
            except OutOfTime:
                phase2.unresolved.update(sub.cells)
            res.safe |= phase2.safe
            res.mines |= phase2.mines
            res.unknown = phase2.unknown
            res.unresolved = phase2.unresolved
            res.models = phase2.models
            stats["count_cells"] = len(sub.cells)
        if not outside:
            return False
        can_mine, can_safe = _outside_status(count_sat, res.models, low, high, kmin, kmax)
    finally:
        if count_sat is not None:
            res.calls += count_sat.calls
            count_sat.close()
    if can_mine is False and can_safe is False:
        raise InvalidPositionError("no layout fits the outside cells")
    if can_mine is None or can_safe is None:
        res.unresolved.update(fr.outside)
        return False
    if can_mine and can_safe:
        return True
    (res.safe if can_safe else res.mines).update(fr.outside)
    return False


def _binds(locals_: list[_Local], low: int, high: int, outside: int, encoding: CountEncoding,
           budget: Budget) -> tuple[bool, int, int]:
    """Whether the count binds: the fewest or most mines the components can hold
    (returned with it) leave the window ``[low, high]``.  Cheap tests first: the
    trivial bounds (0, undecided) and the models already seen settle most positions
    without the exact bounds."""
    undecided = sum(loc.undecided for loc in locals_)
    if low > 0 or undecided > high:
        kmin = kmax = 0
        for loc in locals_:
            lo_, hi_ = loc.bounds(encoding, budget)
            kmin += lo_
            kmax += hi_
        return kmin < low or kmax > high, kmin, kmax
    kmin = sum(loc.seen_low for loc in locals_)
    kmax = sum(loc.seen_high for loc in locals_)
    if outside and (kmin >= high or kmax <= low):
        kmin = sum(loc.bounds(encoding, budget)[0] for loc in locals_)
        kmax = sum(loc.bounds(encoding, budget)[1] for loc in locals_)
    return False, kmin, kmax


def _outside_status(
    count_sat: SatSolver | None, seen: list[int], low: int, high: int, kmin: int, kmax: int
) -> tuple[bool | None, bool | None]:
    """Whether an outside cell can be a mine, and whether it can be safe: the frontier's
    undecided cells hold between ``low`` and ``high`` mines (the rest are outside).
    Without the count's solver the count does not bind, so the fewest (``kmin``) and
    most (``kmax``) mines they can hold are both achievable in full layouts.  ``None``
    means the budget ran out before it was settled."""
    if count_sat is None:
        return kmin < high, kmax > low
    try:
        can_mine: bool | None = any(t <= high - 1 for t in seen) or (
            count_sat.solve(count_sat.at_most(high - 1)) is not None
        )
    except OutOfTime:
        can_mine = None
    try:
        can_safe: bool | None = any(t >= low + 1 for t in seen) or (
            count_sat.solve(count_sat.at_least(low + 1)) is not None
        )
    except OutOfTime:
        can_safe = None
    return can_mine, can_safe


def _decided(fr: Frontier, res: _Result) -> dict[Cell, bool]:
    out = dict.fromkeys((c for c in fr.cells if c in res.safe), False)
    out.update(dict.fromkeys((c for c in fr.cells if c in res.mines), True))
    return out


def _local_size(local: _Local) -> int:
    """Rough bytes of a cached component: its cell tuples, sets and constraints."""
    return 512 + 250 * len(local.cells) + sum(120 + 60 * len(c.cells) for c in local.cons)


class KnowledgeEngine:
    """Classifies successive positions of one game, remembering decided cells.

    A decided cell never changes while the game only moves forward, so each analysis
    starts from the previous one's certainties.  Call :meth:`forget` after an undo.
    """

    def __init__(
        self,
        encoding: CountEncoding = CountEncoding.TOTALIZER,
        *,
        cache_bytes: int = 64 << 20,
        pool: CachePool | None = None,
    ) -> None:
        self.encoding = encoding
        """The encoding of the mine count in the SAT clauses."""
        self.known: dict[Cell, bool] = {}
        """The cells the last classification decided that are still covered (``True``:
        a mine); a new dict each time, so a caller may keep one to return to."""
        self._components: SizedCache[tuple[Constraint, ...], _Local] = SizedCache(
            _local_size, cache_bytes, pool
        )

    def classify(self, position: Position, budget: Budget | None = None) -> Knowledge:
        """:func:`classify` of ``position``, starting from the cells decided on the
        game's earlier positions, and remembering what it decides; raises as
        :func:`classify` does."""
        knowledge = _classify(position, self.known, self.encoding, budget or Budget(None),
                              self._components)
        self.known = {c: m for c, m in knowledge.decided().items() if position.is_covered(*c)}
        return knowledge

    def forget(self) -> None:
        """Forgets every decided cell and every component's result (after an undo)."""
        self.known = {}  # a new dict: a caller may hold the old one to return to
        self._components.clear()
