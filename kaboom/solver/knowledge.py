"""What is certain about a position: every covered cell is safe, a mine, or unknown.

This is Kaboom's SAT engine and the only module that imports PySAT.  Each open number
becomes the *binomial* CNF of "exactly k of these cells" (every (n-k+1)-subset holds a
mine, every (k+1)-subset holds a safe cell); the global mine count becomes either a
Bailleux-Boufkhad totalizer or Minicard's native AtMost constraints (selectable, see
:class:`CountEncoding`).  The outside cells (next to no number) are one class whose
mines are only counted, never enumerated.

Three things keep it fast on large boards (measured, see docs/benchmarks.md):

* cells decided earlier are folded into the numbers and the count, never re-encoded;
* the cells are classified with the per-number clauses alone first; the count
  constraint is added only over the still-undecided cells, and only when it can bind;
* one incremental solver answers every query of a phase through assumptions, and every
  model it returns settles "can be a mine" / "can be safe" for all cells at once.

Every call may be bounded by a :class:`~kaboom.solver.budget.Budget`: a watchdog interrupts the
solver (``solve_limited(expect_interrupt=True)``, which also releases the GIL), and the
answer then says which cells it could not settle.
"""

from __future__ import annotations

import enum
import itertools
import random
import threading
import time
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field

from pysat.card import ITotalizer
from pysat.solvers import Minicard, Minisat22

from kaboom.solver.budget import Budget
from kaboom.solver.cache import CachePool, SizedCache
from kaboom.solver.counting import TooBig, mine_totals
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError
from kaboom.solver.frontier import Constraint, Frontier, components, frontier_of
from kaboom.solver.position import COVERED_CHARS, Cell, Position

__all__ = [
    "Conflict",
    "CountEncoding",
    "Knowledge",
    "KnowledgeEngine",
    "Status",
    "classify",
    "minimal_conflict",
    "random_layout",
]

TOTALIZER_CLAUSES = 2_000_000
"""Largest totalizer built (estimated clauses).  It grows with cells x bound and is built
in one call that neither checks the clock nor releases the GIL: 256x256 at 50 % mines
would take tens of millions of clauses and gigabytes.  Past this the count is put as
Minicard's native constraints, whose size grows with the cells alone."""

NATIVE_NUMBERS_FROM = 1000
"""Cells from which a Minicard solver takes the numbers as native constraints too: two
calls per number instead of up to 140 binomial clauses, which on a 26,000-cell frontier
is the difference between building the formula in a second or in a fraction of one."""

_CHECK_EVERY = 256
"""Constraints encoded between two looks at the clock."""


class Status(enum.StrEnum):
    """What every consistent layout says about one covered cell."""

    SAFE = "s"
    MINE = "m"
    UNKNOWN = "u"


class CountEncoding(enum.StrEnum):
    """How the global mine count is put to the SAT solver."""

    TOTALIZER = "totalizer"
    """Bailleux & Boufkhad's totalizer in plain CNF, solved by Minisat 2.2."""
    NATIVE = "native"
    """Minicard's native cardinality constraints (AtMost on literals)."""


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
    unresolved: frozenset[Cell] = frozenset()
    outside_unknown: bool = False
    frontier: Frontier | None = field(default=None, repr=False, compare=False)
    stats: dict[str, int] = field(default_factory=dict, compare=False)

    @property
    def complete(self) -> bool:
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


class _OutOfTime(Exception):
    """The budget ran out inside a SAT call."""


class _Watchdog:
    """One daemon thread that interrupts solvers whose deadline has passed.

    Starting a timer thread per solver cost milliseconds under load; one shared thread
    with a deadline table costs nothing per call.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._deadlines: dict[int, tuple[float, Minicard | Minisat22]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, solver: Minicard | Minisat22, deadline: float) -> int:
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="sat-watchdog", daemon=True)
                self._thread.start()
            key = id(solver)
            earliest = min((d for d, _ in self._deadlines.values()), default=None)
            self._deadlines[key] = (deadline, solver)
            if earliest is None or deadline < earliest:
                self._cond.notify()  # else the thread already wakes up in time
            return key

    def release(self, key: int) -> None:
        with self._cond:
            self._deadlines.pop(key, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for key, (deadline, solver) in list(self._deadlines.items()):
                    if deadline <= now:
                        solver.interrupt()
                        del self._deadlines[key]
                nxt = min((d for d, _ in self._deadlines.values()), default=None)
                self._cond.wait(None if nxt is None else max(0.0, nxt - now))


_WATCHDOG = _Watchdog()


class _Sat:
    """One incremental solver with cell variables, a count gadget and a watchdog."""

    def __init__(
        self,
        cells: Iterable[Cell],
        encoding: CountEncoding,
        budget: Budget,
        bound: int | None = None,
    ) -> None:
        self.var: dict[Cell, int] = {c: i + 1 for i, c in enumerate(cells)}
        self.cells = list(self.var)
        self.top = len(self.cells)
        n = len(self.cells)
        # ``bound``: the largest count a totalizer would be asked to reach (all cells
        # when unknown); past the clause cap the native constraints take over.
        if encoding is CountEncoding.TOTALIZER and n * min(n, bound or n) > TOTALIZER_CLAUSES:
            encoding = CountEncoding.NATIVE
        self.encoding = encoding
        self.solver: Minicard | Minisat22 = (
            Minicard() if encoding is CountEncoding.NATIVE else Minisat22()
        )
        self._native_numbers = encoding is CountEncoding.NATIVE and n >= NATIVE_NUMBERS_FROM
        self.budget = budget
        self.calls = 0
        self._upper: list[int] = []  # totalizer outputs of sum(x)
        self._lower: list[int] = []  # totalizer outputs of sum(not x)
        deadline = budget.deadline
        self._watch = None if deadline is None else _WATCHDOG.watch(self.solver, deadline)

    def close(self) -> None:
        if self._watch is not None:
            _WATCHDOG.release(self._watch)
        self.solver.delete()

    def __enter__(self) -> _Sat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _new_var(self) -> int:
        self.top += 1
        return self.top

    # ------------------------------------------------------------- constraints
    def add_all(self, constraints: Iterable[Constraint]) -> None:
        """Adds every constraint, looking at the clock as it goes; raises ``_OutOfTime``."""
        for i, con in enumerate(constraints):
            if i % _CHECK_EVERY == _CHECK_EVERY - 1 and self.budget.expired():
                raise _OutOfTime
            self.add_exactly(con)

    def add_exactly(self, con: Constraint, selector: int | None = None) -> None:
        """Adds the encoding of "exactly ``con.mines`` of ``con.cells``"; with a
        ``selector``, the constraint holds only while the selector is assumed true (then
        always binomial clauses, which can carry the selector)."""
        lits = [self.var[c] for c in con.cells]
        n, k = len(lits), con.mines
        if self._native_numbers and selector is None:
            if k < n:
                self.solver.add_atmost(lits, k)
            if k > 0:
                self.solver.add_atmost([-v for v in lits], n - k)
            return
        guard = [] if selector is None else [-selector]
        for subset in itertools.combinations(lits, n - k + 1):
            self.solver.add_clause([*subset, *guard])
        if k < n:
            for subset in itertools.combinations(lits, k + 1):
                self.solver.add_clause([*(-v for v in subset), *guard])

    def add_count(self, low: int, high: int) -> None:
        """Constrains the number of mines among all cell variables to ``[low, high]``."""
        lits = list(range(1, len(self.cells) + 1))
        n = len(lits)
        if self.encoding is CountEncoding.NATIVE:
            if high < n:
                self.solver.add_atmost(lits, high)
            if low > 0:
                self.solver.add_atmost([-v for v in lits], n - low)
            return
        # Totalizer outputs: out[j] is implied by "at least j+1 inputs true".  Outputs up
        # to one past each bound are kept so the outside queries can tighten by one.
        if high < n:
            tot = ITotalizer(lits, ubound=min(n, high + 1), top_id=self.top)
            self.solver.append_formula(tot.cnf.clauses)
            self.top = max(self.top, tot.top_id)
            self._upper = list(tot.rhs)
            self.solver.add_clause([-self._upper[high]])
        if low > 0:
            tot = ITotalizer([-v for v in lits], ubound=min(n, n - low + 1), top_id=self.top)
            self.solver.append_formula(tot.cnf.clauses)
            self.top = max(self.top, tot.top_id)
            self._lower = list(tot.rhs)
            self.solver.add_clause([-self._lower[n - low]])

    def at_most(self, k: int) -> list[int]:
        """Assumptions that force at most ``k`` mines among the cells (k may be -1)."""
        n = len(self.cells)
        if k >= n:
            return []
        if k < 0:
            v = self._new_var()
            self.solver.add_clause([-v])
            return [v]
        if self.encoding is CountEncoding.TOTALIZER:
            if k < len(self._upper):
                return [-self._upper[k]]
            tot = ITotalizer(list(range(1, n + 1)), ubound=k + 1, top_id=self.top)
            self.solver.append_formula(tot.cnf.clauses)
            self.top = max(self.top, tot.top_id)
            self._upper = list(tot.rhs)
            return [-self._upper[k]]
        # Native: AtMost(x + D, n) where the n-k fresh D variables all equal a selector.
        sel = self._new_var()
        pads = [self._new_var() for _ in range(n - k)]
        for d in pads:
            self.solver.add_clause([-sel, d])
            self.solver.add_clause([sel, -d])
        self.solver.add_atmost(list(range(1, n + 1)) + pads, n)
        return [sel]

    def at_least(self, k: int) -> list[int]:
        """Assumptions that force at least ``k`` mines among the cells."""
        n = len(self.cells)
        if k <= 0:
            return []
        if k > n:
            v = self._new_var()
            self.solver.add_clause([-v])
            return [v]
        if self.encoding is CountEncoding.TOTALIZER:
            j = n - k  # at most n-k safe cells
            if j < len(self._lower):
                return [-self._lower[j]]
            tot = ITotalizer([-v for v in range(1, n + 1)], ubound=j + 1, top_id=self.top)
            self.solver.append_formula(tot.cnf.clauses)
            self.top = max(self.top, tot.top_id)
            self._lower = list(tot.rhs)
            return [-self._lower[j]]
        sel = self._new_var()
        pads = [self._new_var() for _ in range(k)]
        for d in pads:
            self.solver.add_clause([-sel, d])
            self.solver.add_clause([sel, -d])
        self.solver.add_atmost([-v for v in range(1, n + 1)] + pads, n)
        return [sel]

    # ------------------------------------------------------------- queries
    def solve(self, assumptions: list[int]) -> list[int] | None:
        """Returns a model, ``None`` when unsatisfiable; raises ``_OutOfTime``."""
        if self.budget.expired():
            raise _OutOfTime
        self.calls += 1
        result = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        if result is None:
            raise _OutOfTime
        return self.solver.get_model() if result else None

    def mines_in(self, model: list[int]) -> int:
        n = len(self.cells)
        return sum(1 for v in model[:n] if v > 0)


@dataclass(slots=True)
class _Result:
    safe: set[Cell] = field(default_factory=set)
    mines: set[Cell] = field(default_factory=set)
    unknown: set[Cell] = field(default_factory=set)
    unresolved: set[Cell] = field(default_factory=set)
    calls: int = 0
    models: list[int] = field(default_factory=list)  # mine totals of the models seen


def _classify_cells(sat: _Sat, result: _Result, base: list[int] | None = None) -> None:
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
    except _OutOfTime:
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
        with _Sat(self.cells, encoding, budget) as sat:
            try:
                sat.add_all(self.cons)
                while (m := sat.solve(sat.at_most(lo - 1))) is not None:
                    lo = sat.mines_in(m)
                while (m := sat.solve(sat.at_least(hi + 1))) is not None:
                    hi = sat.mines_in(m)
            except _OutOfTime:
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
        with _Sat(cells, encoding, budget) as sat:
            try:
                sat.add_all(cons)
                _classify_cells(sat, r)
            except _OutOfTime:
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


def _outside_status(
    count_sat: _Sat | None, seen: list[int], low: int, high: int
) -> tuple[bool | None, bool | None]:
    """Whether an outside cell can be a mine, and whether it can be safe, when the count
    binds: the frontier's undecided cells hold between ``low`` and ``high`` mines (the
    rest are outside).  ``None`` means the budget ran out before it was settled."""
    assert count_sat is not None
    try:
        can_mine: bool | None = any(t <= high - 1 for t in seen) or (
            count_sat.solve(count_sat.at_most(high - 1)) is not None
        )
    except _OutOfTime:
        can_mine = None
    try:
        can_safe: bool | None = any(t >= low + 1 for t in seen) or (
            count_sat.solve(count_sat.at_least(low + 1)) is not None
        )
    except _OutOfTime:
        can_safe = None
    return can_mine, can_safe


def classify(
    position: Position,
    *,
    known: Mapping[Cell, bool] | None = None,
    encoding: CountEncoding = CountEncoding.TOTALIZER,
    budget: Budget | None = None,
    cache: MutableMapping[tuple[Constraint, ...], _Local] | None = None,
) -> Knowledge:
    """Classifies every covered cell of ``position`` as safe, mine or unknown.

    Uses all open numbers and the total mine count.  ``known`` may pass cells decided on
    an earlier position of the same game, and ``cache`` the per-component results of
    earlier calls (a component's local status depends only on its numbers).  Raises
    :class:`InvalidPositionError` when no layout fits the position.
    """
    budget = budget or Budget(None)
    fr = frontier_of(position, known)
    res = _Result()
    for c, m in fr.known.items():
        (res.mines if m else res.safe).add(c)
    outside = fr.outside_count
    if budget.expired():  # not even the components split: nothing proven beyond ``known``
        res.unresolved.update(fr.cells)
        res.unresolved.update(fr.outside)
        return Knowledge(
            frozenset(res.safe), frozenset(res.mines), frozenset(), frozenset(res.unresolved),
            frontier=fr, stats={"frontier": len(fr.cells), "outside": outside},
        )

    # Phase 1: each component under its own numbers, with its own small solver.
    fixed = 0
    locals_: list[_Local] = []
    comps = components(fr.constraints)
    for cells, cons in comps:
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
        fixed += len(local.mines)
        locals_.append(local)

    # Phase 2: the count, over the cells still undecided, only when it can bind.
    high = fr.mines_left - fixed
    low = high - outside
    count_sat: _Sat | None = None
    outside_unknown = False
    stats = {"frontier": len(fr.cells), "outside": outside, "components": len(comps)}
    # The count binds when the fewest or most mines the components can hold leave the
    # window [low, high].  Cheap tests first: the trivial bounds (0, undecided) and the
    # models already seen settle most positions without the exact bounds.
    undecided = sum(loc.undecided for loc in locals_)
    binds = low > 0 or undecided > high
    if binds:
        kmin = kmax = 0
        for loc in locals_:
            lo_, hi_ = loc.bounds(encoding, budget)
            kmin += lo_
            kmax += hi_
        binds = kmin < low or kmax > high
    else:
        kmin = sum(loc.seen_low for loc in locals_)
        kmax = sum(loc.seen_high for loc in locals_)
        if outside and (kmin >= high or kmax <= low):
            kmin = sum(loc.bounds(encoding, budget)[0] for loc in locals_)
            kmax = sum(loc.bounds(encoding, budget)[1] for loc in locals_)
    try:
        if binds:
            if high < 0 or low > kmax:
                raise InvalidPositionError("the mine count does not fit the numbers")
            sub = frontier_of(position, {**fr.known, **_decided(fr, res)})
            n = len(sub.cells)
            count_sat = _Sat(sub.cells, encoding, budget, bound=max(high, n - low) + 1)
            phase2 = _Result()
            try:
                count_sat.add_all(sub.constraints)
                count_sat.add_count(max(0, low), high)
                _classify_cells(count_sat, phase2)
            except _OutOfTime:
                phase2.unresolved.update(sub.cells)
            res.safe |= phase2.safe
            res.mines |= phase2.mines
            res.unknown = phase2.unknown
            res.unresolved = phase2.unresolved
            res.models = phase2.models
            stats["count_cells"] = len(sub.cells)
        if outside:
            can_mine: bool | None
            can_safe: bool | None
            if count_sat is None:
                # The count cannot bind, so the fewest (``kmin``) and most (``kmax``)
                # mines the undecided cells can hold are both achievable in full layouts.
                can_mine, can_safe = kmin < high, kmax > low
            else:
                can_mine, can_safe = _outside_status(count_sat, res.models, low, high)
            if can_mine is False and can_safe is False:
                raise InvalidPositionError("no layout fits the outside cells")
            if can_mine is None or can_safe is None:
                res.unresolved.update(fr.outside)
            elif can_mine and can_safe:
                outside_unknown = True
            else:
                (res.safe if can_safe else res.mines).update(fr.outside)
    finally:
        if count_sat is not None:
            res.calls += count_sat.calls
            count_sat.close()
    stats["calls"] = res.calls
    return Knowledge(
        safe=frozenset(res.safe),
        mines=frozenset(res.mines),
        frontier_unknown=frozenset(res.unknown),
        unresolved=frozenset(res.unresolved),
        outside_unknown=outside_unknown,
        frontier=fr,
        stats=stats,
    )


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
        self.known: dict[Cell, bool] = {}
        self._components: SizedCache[tuple[Constraint, ...], _Local] = SizedCache(
            _local_size, cache_bytes, pool
        )

    def classify(self, position: Position, budget: Budget | None = None) -> Knowledge:
        knowledge = classify(
            position,
            known=self.known,
            encoding=self.encoding,
            budget=budget,
            cache=self._components,
        )
        self.known = {c: m for c, m in knowledge.decided().items() if position.is_covered(*c)}
        return knowledge

    def forget(self) -> None:
        self.known = {}  # a new dict: a caller may hold the old one to return to
        self._components.clear()


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
    with _Sat(fr.cells, encoding, budget, bound=max(high, n - low) + 1) as sat:
        try:
            sat.add_all(fr.constraints)
            sat.add_count(low, high)
            density = fr.mines_left / max(1, n + outside)
            sat.solver.set_phases([v if rng.random() < density else -v for v in range(1, n + 1)])
            model = sat.solve([])
        except _OutOfTime:
            raise BudgetExceededError("no layout found within the time budget") from None
    if model is None:
        raise InvalidPositionError("no layout fits the numbers and the mine count")
    mines = {c for c, m in fr.known.items() if m}
    mines.update(c for c, v in zip(fr.cells, model) if v > 0)
    rest = fr.mines_left - sum(1 for v in model[: len(fr.cells)] if v > 0)
    mines.update(fr.outside_cell(i) for i in rng.sample(range(outside), rest))
    return frozenset(mines)


_TRIAL_CONFLICTS = 20_000
"""Conflicts a deletion trial of :func:`minimal_conflict` may take before the constraint
is kept.  With the count, dropping one number can leave a pigeonhole-like query that
CDCL proves only slowly; measured on Expert endgames, one such trial ran for minutes."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """The answer of :func:`minimal_conflict`: which claim was contradicted, by which
    constraints (indices), and whether every deletion trial was settled (``minimal``)."""

    claim: int
    constraints: tuple[int, ...]
    minimal: bool


def minimal_conflict(
    cells: Iterable[Cell],
    constraints: Sequence[Constraint],
    claims: Sequence[Mapping[Cell, bool]],
    count: tuple[int, int] | None = None,
    budget: Budget | None = None,
    minimise: bool = True,
) -> Conflict | None:
    """The first of the alternative ``claims`` that ``constraints`` contradict, with a
    minimal set of them (preferring early ones) that does; ``None`` when every claim is
    consistent with all of them.

    ``count``, when given, is a ``(low, high)`` range for the mines among ``cells`` that
    holds in every query.  Each constraint gets a selector literal, so one incremental
    solver answers every query by assumptions.  Prefixes of ``constraints`` are added
    and tried in growing sizes, so a local reason is found (and paid for) first; the
    solver's core prunes the set, and each constraint left is dropped in turn, latest
    first, wherever the rest still conflicts (deletion-based minimisation: no single
    constraint can be removed from the answer, though a different, smaller set may
    exist).  A trial that runs out of conflicts keeps its constraint, and the answer
    says it may not be minimal; ``minimise=False`` returns the core unminimised, for a
    caller with a cheaper test of its own.  Raises :class:`BudgetExceededError` on
    timeout.
    """
    budget = budget or Budget(None)
    # Minicard: its native AtMost keeps the count one constraint on boards of any size.
    with _Sat(cells, CountEncoding.NATIVE, budget) as sat:
        bound = [] if count is None else [*sat.at_most(count[1]), *sat.at_least(count[0])]
        lits = [[sat.var[c] if m else -sat.var[c] for c, m in claim.items()] for claim in claims]
        sels: list[int] = []
        settled = True

        def core(claim: list[int], chosen: list[int], conflicts: int = -1) -> set[int] | None:
            """The core of an unsatisfiable query; ``None`` if satisfiable or unsettled."""
            nonlocal settled
            if budget.expired():
                raise _OutOfTime
            sat.solver.conf_budget(conflicts)
            result = sat.solver.solve_limited(
                assumptions=[*claim, *bound, *chosen], expect_interrupt=True
            )
            if result is None:
                if conflicts < 0 or budget.expired():
                    raise _OutOfTime
                settled = False
                return None
            return None if result else set(sat.solver.get_core() or [])

        try:
            found: set[int] | None = None
            which, size = 0, 4
            while found is None:
                for con in constraints[len(sels) : size]:
                    sels.append(sat._new_var())
                    sat.add_exactly(con, sels[-1])
                cores = ((i, core(claim, sels)) for i, claim in enumerate(lits))
                which, found = next(((i, c) for i, c in cores if c is not None), (0, None))
                if size >= len(constraints):
                    break
                size *= 2
            if found is None:
                return None
            kept = [s for s in sels if s in found]
            settled = minimise
            for s in reversed(kept if minimise else []):
                if s not in kept:
                    continue  # a smaller core found on the way already left it out
                trial = [t for t in kept if t != s]
                smaller = core(lits[which], trial, _TRIAL_CONFLICTS)
                if smaller is not None:
                    kept = [t for t in trial if t in smaller]
        except _OutOfTime:
            raise BudgetExceededError("no proof found within the time budget") from None
    index = {s: i for i, s in enumerate(sels)}
    return Conflict(which, tuple(index[s] for s in kept), settled)
