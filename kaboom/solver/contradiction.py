"""Why no layout fits a position: a minimal set of its open numbers, and the mine count
when it is needed, that cannot all hold.

*Minimal*: drop any one of the numbers (or the count) and some layout fits the rest.
It is not always the *smallest* such set.  The search is that of proofs
(:mod:`kaboom.solver.reasons`) with nothing claimed: first a number that cannot hold
alone (a 3 with two covered neighbours), then a core among the numbers alone, and only
when the numbers can all hold together, one among the numbers and the count.
"""

from __future__ import annotations

from dataclasses import dataclass

from kaboom.solver.budget import Budget
from kaboom.solver.knowledge import minimal_conflict
from kaboom.solver.position import Cell, Position, covered_count, row_major
from kaboom.solver.reasons import (
    join_words,
    mines_text,
    minimise_with_count,
    number_constraint,
    xy,
)

__all__ = ["Contradiction", "contradiction"]


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
    count whether it could go (see :func:`kaboom.solver.reasons.minimise_with_count`)."""

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


def contradiction(position: Position, budget: Budget | None = None) -> Contradiction | None:
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
        rest = covered - len(cells)
        bounds = (max(0, position.mines - rest), position.mines)
        found = minimal_conflict(cells, numbers, [{}], bounds, budget, minimise=False)
        if found is None:
            return None
        found = minimise_with_count(position, {}, found, numbers, budget)
        count = position.mines
    used = sorted((offered[i][0] for i in found.constraints), key=row_major)
    return Contradiction(
        tuple((c, int(position.rows[c[1]][c[0]])) for c in used), count, covered, found.minimal)
