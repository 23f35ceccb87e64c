"""A position in CNF for PySAT: binomial clauses for each number, a totalizer for the count.

This is the only module that imports PySAT.  Each open number becomes the *binomial*
CNF of "exactly k of these cells" (every (n-k+1)-subset holds a mine, every
(k+1)-subset holds a safe cell); the global mine count becomes either a
Bailleux-Boufkhad totalizer or Minicard's native AtMost constraints (selectable, see
:class:`CountEncoding`).  A :class:`SatSolver` is one
incremental solver: its constraints go in once, and every query of a phase is answered
through assumptions.  Every call may be bounded by a
:class:`~kaboom.solver.budget.Budget`: a watchdog interrupts the solver
(``solve_limited(expect_interrupt=True)``, which also releases the GIL) and the call
raises :class:`OutOfTime`.
"""

from __future__ import annotations

import enum
import itertools
import threading
import time
from collections.abc import Iterable

from pysat.card import ITotalizer
from pysat.solvers import Minicard, Minisat22

from kaboom.solver.budget import Budget
from kaboom.solver.frontier import Constraint
from kaboom.solver.position import Cell

__all__ = ["NATIVE_NUMBERS_FROM", "TOTALIZER_CLAUSES", "CountEncoding", "OutOfTime", "SatSolver"]

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


class CountEncoding(enum.StrEnum):
    """How the global mine count is put to the SAT solver."""

    TOTALIZER = "totalizer"
    """Bailleux & Boufkhad's totalizer in plain CNF, solved by Minisat 2.2."""
    NATIVE = "native"
    """Minicard's native cardinality constraints (AtMost on literals)."""


class OutOfTime(Exception):
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


class SatSolver:
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

    def __enter__(self) -> SatSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_var(self) -> int:
        self.top += 1
        return self.top

    # ------------------------------------------------------------- constraints
    def add_all(self, constraints: Iterable[Constraint]) -> None:
        """Adds every constraint, looking at the clock as it goes; raises ``OutOfTime``."""
        for i, con in enumerate(constraints):
            if i % _CHECK_EVERY == _CHECK_EVERY - 1 and self.budget.expired():
                raise OutOfTime
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
            v = self.new_var()
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
        sel = self.new_var()
        pads = [self.new_var() for _ in range(n - k)]
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
            v = self.new_var()
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
        sel = self.new_var()
        pads = [self.new_var() for _ in range(k)]
        for d in pads:
            self.solver.add_clause([-sel, d])
            self.solver.add_clause([sel, -d])
        self.solver.add_atmost([-v for v in range(1, n + 1)] + pads, n)
        return [sel]

    # ------------------------------------------------------------- queries
    def solve(self, assumptions: list[int]) -> list[int] | None:
        """Returns a model, ``None`` when unsatisfiable; raises ``OutOfTime``."""
        if self.budget.expired():
            raise OutOfTime
        self.calls += 1
        result = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        if result is None:
            raise OutOfTime
        return self.solver.get_model() if result else None

    def mines_in(self, model: list[int]) -> int:
        n = len(self.cells)
        return sum(1 for v in model[:n] if v > 0)
