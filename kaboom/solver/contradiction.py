"""Why no layout fits a position: a minimal set of its open numbers, and the mine count
when it is needed, that cannot all hold.

*Minimal*: drop any one of the numbers (or the count) and some layout fits the rest.
It is not always the *smallest* such set.  The search is that of proofs
(:mod:`kaboom.solver.reasons`) with nothing claimed: first a number that cannot hold
alone (a 3 with two covered neighbours), then a core among the numbers alone, and only
when the numbers can all hold together, one among the numbers and the count.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError
from kaboom.solver.frontier import Constraint, components
from kaboom.solver.position import Cell, Position, covered_count, row_major
from kaboom.solver.reasons import (
    Conflict,
    join_words,
    mines_text,
    minimal_conflict,
    minimise_with_count,
    number_constraint,
    possible_totals,
    xy,
)

__all__ = ["Contradiction", "why_impossible"]


@dataclass(frozen=True, slots=True)
class Contradiction:
    """The reason ``position`` has no layout: ``numbers`` as ``((x, y), n)`` row-major,
    and ``count``, the board's mine count, when the reason needs it (else ``None``)."""

    numbers: tuple[tuple[Cell, int], ...]
    count: int | None = None
    covered: int = 0
    """Covered cells on the board (for the words of a count that does not fit)."""
    minimal: bool = True
    """False in the rare case a number was kept because a component was too wide to
    count whether it could go."""

    @property
    def text(self) -> str:
        """The reason in one sentence, cells named ``(column, row)``."""
        if not self.numbers:
            return (f"{mines_text(self.count)} do not fit in the {self.covered} covered"
                    f" cell{'s' if self.covered != 1 else ''}")
        names = join_words([f"the {n} at {xy(c)}" for c, n in self.numbers])
        if len(self.numbers) == 1 and self.count is None:
            n = self.numbers[0][1]
            return f"{names} cannot hold: it asks for {mines_text(n)} and has fewer covered cells"
        hold = "cannot hold" if len(self.numbers) == 1 else (
            "cannot both hold" if len(self.numbers) == 2 else "cannot all hold")
        if self.count is None:
            return f"{names} {hold}"
        return f"with {mines_text(self.count)} in all, {names} {hold}"


def why_impossible(position: Position, budget: Budget | None = None) -> Contradiction | None:
    """The minimal reason no layout fits ``position``, or ``None`` when one does.

    Raises :class:`~kaboom.solver.errors.BudgetExceededError` when the budget runs out.
    """
    covered = covered_count(position.rows)
    offered = []
    for c, n in position.numbers():
        con = number_constraint(position, c)
        if con is None:
            continue
        if con.mines > len(con.cells):
            return Contradiction(((c, n),), covered=covered)
        offered.append((c, con))
    numbers = [con for _, con in offered]
    cells = {c for con in numbers for c in con.cells}
    found = minimal_conflict(cells, numbers, [{}], budget=budget)
    count = None
    if found is None:
        if position.mines > covered:
            return Contradiction((), position.mines, covered)
        found = _count_conflict(position, numbers, covered, budget)
        if found is None:
            return None
        found = minimise_with_count(position, {}, found, numbers, budget)
        count = position.mines
    used = sorted((offered[i][0] for i in found.constraints), key=row_major)
    return Contradiction(
        tuple((c, int(position.rows[c[1]][c[0]])) for c in used), count, covered, found.minimal)


class _Part(NamedTuple):
    """One component of the numbers: the mines it needs at least, the cells it keeps
    safe at least, and every mine total it can hold."""

    numbers: list[Constraint]
    needs: int
    keeps_safe: int
    totals: frozenset[int]


def _count_conflict(position: Position, numbers: list[Constraint], covered: int,
                    budget: Budget | None) -> Conflict | None:
    """Numbers that, with the mine count, admit no layout (not yet minimal), or ``None``
    when a layout fits; the numbers alone are known to fit.

    Each component's possible mine totals are counted exactly, by the engine that
    counts every layout.  The count fails when the components need more mines than there are
    (the reason: the components that need the most, until they need too many), or keep
    more cells safe than the mines leave (likewise), or, rarely, when it falls in a gap
    between their totals (then all the numbers).  A SAT solver proving "at most 100
    mines" over thousands of numbers faces a pigeonhole query: on a 256x256 board it
    found nothing in 30 s.  A component too wide to count falls back to it."""
    parts = []
    try:
        for cells, cons in components(numbers):
            totals = possible_totals(cons, budget)
            parts.append(_Part(cons, min(totals), len(cells) - max(totals), totals))
    except BudgetExceededError:
        if budget is not None and budget.expired():
            raise
        return _sat_conflict(position, numbers, covered, budget)
    mines = position.mines
    index: dict[Constraint, list[int]] = {}
    for i, con in enumerate(numbers):
        index.setdefault(con, []).append(i)

    def beyond(size: Callable[[_Part], int], limit: int) -> Conflict:
        """The numbers of the largest parts by ``size`` until theirs sum past ``limit``,
        less the smallest of them that the others do without."""
        kept: list[_Part] = []
        total = 0
        for part in sorted(parts, key=size, reverse=True):
            if total > limit:
                break
            kept.append(part)
            total += size(part)
        needed = []
        for part in sorted(kept, key=size):
            if total - size(part) > limit:
                total -= size(part)
            else:
                needed.append(part)
        chosen = {i for part in needed for con in part.numbers for i in index[con]}
        return Conflict(0, tuple(sorted(chosen)), True)

    if sum(p.needs for p in parts) > mines:
        return beyond(lambda p: p.needs, mines)
    if sum(p.keeps_safe for p in parts) > covered - mines:
        return beyond(lambda p: p.keeps_safe, covered - mines)
    reach = 1  # bit t set: t mines among the numbers' cells is possible
    for part in parts:
        reach = functools.reduce(lambda acc, k: acc | (reach << k), part.totals, 0)
    free = covered - len({c for con in numbers for c in con.cells})
    low = max(0, mines - free)
    if reach >> low & ((1 << (mines - low + 1)) - 1):
        return None
    return Conflict(0, tuple(range(len(numbers))), True)


def _sat_conflict(position: Position, numbers: list[Constraint], covered: int,
                  budget: Budget | None) -> Conflict | None:
    """:func:`_count_conflict` by the SAT solver, for components too wide to count."""
    cells = {c for con in numbers for c in con.cells}
    bounds = (max(0, position.mines - (covered - len(cells))), position.mines)
    return minimal_conflict(cells, numbers, [{}], bounds, budget, minimise=False)
