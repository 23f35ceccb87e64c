"""Minimal reasons: sets of a position's open numbers that, with the mine count, leave a
claim about some cells no layout, each number in the set needed.

Proofs (:mod:`kaboom.solver.proof`: the claim is the opposite of what a cell is) and
impossible positions (:mod:`kaboom.solver.contradiction`: the claim is empty) are both
such sets.  The numbers are taken as the board shows them, no earlier deduction folded
in, so a reason stands on its own; both word their reasons alike (the helpers at the
end).  Without the count a SAT core minimised by deletion finds the set
(:func:`minimal_conflict`); with the count,
dropping one number often leaves a pigeonhole-like query that a SAT solver settles only
after minutes, so :func:`minimise_with_count` counts layouts per component by mine
number instead, with the engine that counts every layout (:mod:`kaboom.solver.counting`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kaboom.solver.budget import Budget
from kaboom.solver.cnf import CountEncoding, OutOfTime, SatSolver
from kaboom.solver.counting import TooBig, mine_totals
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError
from kaboom.solver.frontier import Constraint, components, fold_constraints
from kaboom.solver.position import Cell, Position, covered_count

__all__ = [
    "COUNT_NODES",
    "Conflict",
    "count_allows",
    "join_words",
    "mines_text",
    "minimal_conflict",
    "minimise_with_count",
    "number_constraint",
    "numbers_near",
    "possible_totals",
    "xy",
]

COUNT_NODES = 200_000
"""Search nodes a component may take in :func:`count_allows` before a number is kept
unchecked (the reason then says it may not be minimal)."""


def possible_totals(constraints: Sequence[Constraint], budget: Budget | None) -> frozenset[int]:
    """Every number of mines the cells of one component's ``constraints`` can hold
    (none when they cannot all hold).  Raises :class:`BudgetExceededError` past
    :data:`COUNT_NODES` or when the budget has run out."""
    if budget is not None and budget.expired():
        raise BudgetExceededError("no time left to count the layouts")
    try:
        return mine_totals(constraints, COUNT_NODES)
    except TooBig:
        raise BudgetExceededError("a component is too wide to count") from None


def number_constraint(position: Position, c: Cell) -> Constraint | None:
    """The open number at ``c`` as "exactly n of these covered cells", if it has any
    covered neighbour (a number may ask for more mines than it has cells: that number
    alone cannot hold)."""
    n = position.number(*c)
    if n is None:
        return None
    around = tuple(nb for nb in position.neighbours(*c) if position.is_covered(*nb))
    return Constraint(around, n) if around or n else None


def numbers_near(position: Position, cell: Cell, radius: int) -> list[tuple[Cell, Constraint]]:
    """The open numbers next to a covered cell within ``radius`` of ``cell`` (Chebyshev
    distance), nearest first, each with its constraint."""
    x, y = cell
    out = []
    for ny in range(max(0, y - radius), min(position.height, y + radius + 1)):
        for nx in range(max(0, x - radius), min(position.width, x + radius + 1)):
            con = number_constraint(position, (nx, ny))
            if con is not None:
                out.append(((nx, ny), con))
    out.sort(key=lambda n: _distance(n[0], cell))
    return out


def minimise_with_count(
    position: Position,
    claim: Mapping[Cell, bool],
    found: Conflict,
    numbers: Sequence[Constraint],
    budget: Budget | None,
) -> Conflict:
    """Drops each number of ``found`` (indices into ``numbers``) in turn, latest first,
    wherever the rest with the mine count still leave ``claim`` no layout.  A number
    whose component is too wide to count is kept, and the answer is then not
    ``minimal``."""
    kept = list(found.constraints)
    counts: dict[tuple[Constraint, ...], frozenset[int]] = {}
    minimal = True
    for i in reversed(list(kept)):
        trial = [j for j in kept if j != i]
        try:
            allowed = count_allows(position, claim, [numbers[j] for j in trial], counts, budget)
        except BudgetExceededError:
            if budget is not None and budget.expired():
                raise
            minimal = False  # too wide to count: keep the number
            continue
        if not allowed:
            kept = trial
    return Conflict(found.claim, tuple(kept), minimal)


def count_allows(
    position: Position,
    claim: Mapping[Cell, bool],
    numbers: Sequence[Constraint],
    counts: dict[tuple[Constraint, ...], frozenset[int]] | None = None,
    budget: Budget | None = None,
) -> bool:
    """Whether ``numbers`` and the mine count allow ``claim`` (cells that are mines,
    ``True``, or safe): some mine total of the numbers' cells leaves the rest of the
    covered cells room for the mines that are left.  ``counts`` keeps each component's
    totals between calls.  Raises :class:`BudgetExceededError` when a component takes
    more than :data:`COUNT_NODES` search nodes or the budget runs out."""
    counts = {} if counts is None else counts
    try:
        folded = fold_constraints(numbers, claim)
        totals = 1  # bit t set: t mines among the numbers' cells is possible
        for _, cons in components(folded):
            key = tuple(sorted(cons, key=lambda c: c.cells))
            if key not in counts:
                counts[key] = possible_totals(cons, budget)
            totals = functools.reduce(lambda acc, k: acc | (totals << k), counts[key], 0)
    except InvalidPositionError:
        return False
    touched = {c for con in numbers for c in con.cells} | set(claim)
    free = covered_count(position.rows) - len(touched)
    high = position.mines - sum(claim.values())
    low = max(0, high - free)
    return high >= 0 and bool(totals >> low & ((1 << (high - low + 1)) - 1))


# ------------------------------------------------------- reasons without the count
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
    with SatSolver(cells, CountEncoding.NATIVE, budget) as sat:
        cores = _Cores(sat, constraints, claims, count, budget)
        try:
            found = cores.first()
            if found is None:
                return None
            which, kept = found
            if minimise:
                kept = cores.minimised(which, kept)
        except OutOfTime:
            raise BudgetExceededError("no proof found within the time budget") from None
    index = {s: i for i, s in enumerate(cores.selectors)}
    return Conflict(which, tuple(index[s] for s in kept), minimise and cores.settled)


class _Cores:
    """The unsatisfiable cores of one solver's queries: each constraint behind a
    selector literal (assumed true while it is in the query), the claims and the count
    as assumptions (see :func:`minimal_conflict`)."""

    def __init__(self, sat: SatSolver, constraints: Sequence[Constraint],
                 claims: Sequence[Mapping[Cell, bool]], count: tuple[int, int] | None,
                 budget: Budget) -> None:
        self.sat, self.constraints, self.budget = sat, constraints, budget
        self.bound = [] if count is None else [*sat.at_most(count[1]), *sat.at_least(count[0])]
        self.claims = [[sat.var[c] if m else -sat.var[c] for c, m in claim.items()]
                       for claim in claims]
        self.selectors: list[int] = []
        self.settled = True
        """False once a deletion trial ran out of conflicts."""

    def core(self, claim: list[int], chosen: list[int], conflicts: int = -1) -> set[int] | None:
        """The core of an unsatisfiable query; ``None`` if satisfiable, or unsettled in
        ``conflicts`` (then not :attr:`settled`); raises :class:`OutOfTime`."""
        if self.budget.expired():
            raise OutOfTime
        solver = self.sat.solver
        solver.conf_budget(conflicts)
        result = solver.solve_limited(assumptions=[*claim, *self.bound, *chosen],
                                      expect_interrupt=True)
        if result is None:
            if conflicts < 0 or self.budget.expired():
                raise OutOfTime
            self.settled = False
            return None
        return None if result else set(solver.get_core() or [])

    def first(self) -> tuple[int, list[int]] | None:
        """The first claim a prefix of the constraints contradicts, with the selectors of
        its core; prefixes of 4, 8, 16... constraints, so that a local reason is found
        (and paid for) first."""
        size = 4
        while True:
            for con in self.constraints[len(self.selectors):size]:
                self.selectors.append(self.sat.new_var())
                self.sat.add_exactly(con, self.selectors[-1])
            for i, claim in enumerate(self.claims):
                found = self.core(claim, self.selectors)
                if found is not None:
                    return i, [s for s in self.selectors if s in found]
            if size >= len(self.constraints):
                return None
            size *= 2

    def minimised(self, which: int, kept: list[int]) -> list[int]:
        """``kept`` less each selector, latest first, whose constraint the rest still
        contradict claim ``which`` without (a trial's smaller core drops more)."""
        for s in reversed(list(kept)):
            if s not in kept:
                continue  # a smaller core found on the way already left it out
            trial = [t for t in kept if t != s]
            smaller = self.core(self.claims[which], trial, _TRIAL_CONFLICTS)
            if smaller is not None:
                kept = [t for t in trial if t in smaller]
        return kept


def _distance(a: Cell, b: Cell) -> tuple[int, int, int]:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])), a[1], a[0]


# ---------------------------------------------------------------- the words of a reason
def xy(c: Cell) -> str:
    """A cell as a reason names it: ``(column, row)``."""
    return f"({c[0]}, {c[1]})"


def mines_text(n: int | None) -> str:
    """``1 mine``, ``3 mines``."""
    return "1 mine" if n == 1 else f"{n} mines"


def join_words(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + f" and {parts[-1]}"
