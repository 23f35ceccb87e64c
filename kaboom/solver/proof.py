"""Why a covered cell is certain: a minimal set of open numbers (and the mine count) that
forces it, said in words a player can check on the board.

A proof is an unsatisfiable core of the opposite claim: "(6, 6) is a mine" contradicts
the 2 at (4, 5) and the 1 at (5, 5).  The numbers are taken as the board shows them
(no earlier deduction folded in), so a proof stands on its own.  The SAT work is
:func:`kaboom.solver.knowledge.minimal_conflict`; this module chooses the numbers to offer, in
order of distance from the cell (near ones are kept, far ones dropped first), and words
the answer.  A proof is *minimal*: dropping any one of its numbers, or the count, leaves
the cell undecided (unless ``minimal`` says a check ran out of conflicts, which only the
count's pigeonhole-like queries do).  It is not always the *smallest* such set.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError, InvalidPositionError, NoProofError
from kaboom.solver.frontier import Constraint, components, fold_constraints
from kaboom.solver.knowledge import Conflict, minimal_conflict
from kaboom.solver.position import Cell, Position, covered_count, row_major
from kaboom.solver.probability import count_component

__all__ = ["Proof", "prove"]


@dataclass(frozen=True, slots=True)
class Proof:
    """The reason ``cell`` is safe (``mine`` false) or a mine.

    ``numbers`` are the open numbers used, as ``((x, y), n)`` row-major; ``count`` is the
    board's total mine count when the proof needs it, else ``None``.
    """

    cell: Cell
    mine: bool
    numbers: tuple[tuple[Cell, int], ...]
    count: int | None = None
    covered: int = 0
    """Covered cells on the board (for the words of a proof by the count alone)."""
    minimal: bool = True
    """False in the rare case a number was kept because checking whether it could go
    took too long (see :func:`kaboom.solver.knowledge.minimal_conflict`)."""

    @property
    def text(self) -> str:
        """The proof in one sentence, cells named ``(column, row)``."""
        at = _xy(self.cell)
        if not self.numbers:
            if self.mine:
                all_ = _mines(self.count)
                return f"the {self.covered} covered cells hold all {all_}, so {at} is one"
            return f"no mines are left, so {at} is safe"
        names = _join([f"the {n} at {_xy(c)}" for c, n in self.numbers])
        verb = "leaves" if len(self.numbers) == 1 else "leave"
        need = "needs" if len(self.numbers) == 1 else "need"
        if self.count is None:
            if self.mine:
                return f"{names} {need} a mine at {at}"
            return f"{names} {verb} no room for a mine at {at}"
        mines = _mines(self.count)
        if not self._touches():
            # Every cell away from the named numbers is alike, so all of them share the
            # cell's fate: the mines all lie around the numbers, or none do.
            if self.mine:
                return (
                    f"{names} hold too few of the {mines}: every other covered cell"
                    f", {at} among them, is a mine"
                )
            where = "all be" if self.count != 1 else "be"
            return f"the {mines} must {where} around {names}, so none is left for {at}"
        if self.mine:
            return f"with {mines} in all, {names} {need} a mine at {at}"
        return f"with {mines} in all, {names} {verb} no room for a mine at {at}"

    def _touches(self) -> bool:
        x, y = self.cell
        return any(max(abs(cx - x), abs(cy - y)) == 1 for (cx, cy), _ in self.numbers)


def prove(position: Position, cell: Cell, budget: Budget | None = None) -> Proof:
    """The minimal reason ``cell`` is safe or a mine in ``position``.

    Raises :class:`NoProofError` when the cell is open or the numbers and the count
    leave it undecided, :class:`InvalidPositionError` when the numbers it would name
    cannot be satisfied, :class:`BudgetExceededError` when the budget runs out.
    """
    x, y = cell
    if not position.on_board(x, y) or not position.is_covered(x, y):
        raise NoProofError(f"({x}, {y}) is not a covered cell; only covered cells have proofs")
    # The opposite claims: "a mine" contradicted proves it safe, and the other way round.
    claims = [{cell: True}, {cell: False}]
    # Without the count: the numbers in a growing square around the cell, nearest
    # first, so a local proof costs a local search even on a 100x100 board.
    radius = 2
    while True:
        near = _numbers(position, cell, radius)
        cells = {c for _, con in near for c in con.cells} | {cell}
        found = minimal_conflict(cells, [con for _, con in near], claims, budget=budget)
        if found is not None:
            return _proof(position, cell, found, near, cells, None, budget)
        if radius >= max(position.width, position.height):
            break
        radius *= 2
    cells = {c for _, con in near for c in con.cells} | {cell}
    rest = _covered(position) - len(cells)
    count = (max(0, position.mines - rest), position.mines)
    found = minimal_conflict(cells, [con for _, con in near], claims, count, budget, minimise=False)
    if found is not None:
        found = _minimise_with_count(position, cell, found, [con for _, con in near], budget)
        return _proof(position, cell, found, near, cells, count, budget)
    raise NoProofError(f"({x}, {y}) is not decided: the numbers and the count allow both")


def _minimise_with_count(
    position: Position,
    cell: Cell,
    found: Conflict,
    numbers: list[Constraint],
    budget: Budget | None,
) -> Conflict:
    """Drops each number of a count proof in turn (latest first) wherever the rest still
    leaves the cell one value.  The test counts layouts per component by mine number,
    as the probabilities do: with the count, dropping a number often leaves a
    pigeonhole-like query that a SAT solver settles only after minutes."""
    mine = found.claim == 1
    kept = list(found.constraints)
    counts: dict[tuple[Constraint, ...], frozenset[int]] = {}
    minimal = True
    for i in reversed(list(kept)):
        trial = [j for j in kept if j != i]
        try:
            allowed = _count_allows(
                position, cell, not mine, [numbers[j] for j in trial], counts, budget
            )
        except BudgetExceededError:
            if budget is not None and budget.expired():
                raise
            minimal = False  # too wide to count: keep the number
            continue
        if not allowed:
            kept = trial
    return Conflict(found.claim, tuple(kept), minimal)


def _count_allows(
    position: Position,
    cell: Cell,
    mine: bool,
    numbers: list[Constraint],
    counts: dict[tuple[Constraint, ...], frozenset[int]],
    budget: Budget | None,
) -> bool:
    """Whether ``numbers`` and the mine count allow ``cell`` to be a mine (``mine``) or
    safe: some mine total of the numbers' cells leaves the rest of the covered cells
    room for the mines that are left.  ``counts`` keeps each component's totals."""
    try:
        folded = fold_constraints(numbers, {cell: mine})
        totals = 1  # bit t set: t mines among the numbers' cells is possible
        for cells, cons in components(folded):
            key = tuple(sorted(cons, key=lambda c: c.cells))
            if key not in counts:
                counts[key] = frozenset(count_component(cells, cons, budget, limit=_STATES).counts)
            totals = functools.reduce(lambda acc, k: acc | (totals << k), counts[key], 0)
    except InvalidPositionError:
        return False
    touched = {c for con in numbers for c in con.cells} | {cell}
    free = _covered(position) - len(touched)
    high = position.mines - int(mine)
    low = max(0, high - free)
    return high >= 0 and bool(totals >> low & ((1 << (high - low + 1)) - 1))


_STATES = 200_000
"""Counting states a component may take in :func:`_count_allows` before a number is kept
unchecked."""


def _proof(
    position: Position,
    cell: Cell,
    found: Conflict,
    offered: list[tuple[Cell, Constraint]],
    cells: set[Cell],
    count: tuple[int, int] | None,
    budget: Budget | None,
) -> Proof:
    """The proof of ``found``, once its numbers (and ``count``, the range of mines among
    ``cells``) are shown to be possible at all: numbers that contradict each other
    contradict either claim, and would "prove" the cell whatever it is."""
    chosen = [offered[i] for i in found.constraints]
    cons = [con for _, con in chosen]
    if minimal_conflict(cells, cons, [{}], count, budget, minimise=False) is not None:
        where = " and the mine count" if count is not None else ""
        raise InvalidPositionError(
            f"the numbers at {', '.join(_xy(c) for c, _ in chosen)}{where} cannot all be"
            " satisfied"
        )
    used = sorted((c for c, _ in chosen), key=row_major)
    return Proof(
        cell=cell,
        mine=found.claim == 1,  # the claim "safe" was contradicted
        numbers=tuple((c, int(position.rows[c[1]][c[0]])) for c in used),
        count=None if count is None else position.mines,
        covered=_covered(position),
        minimal=found.minimal,
    )


def _covered(position: Position) -> int:
    return covered_count(position.rows)


def _constraint(position: Position, c: Cell) -> Constraint | None:
    """The open number at ``c`` as "exactly n of these covered cells", if it has any."""
    n = position.number(*c)
    if n is None:
        return None
    around = tuple(nb for nb in position.neighbours(*c) if position.is_covered(*nb))
    if n > len(around):
        raise InvalidPositionError(f"the number at {_xy(c)} cannot be satisfied")
    return Constraint(around, n) if around else None


def _numbers(position: Position, cell: Cell, radius: int) -> list[tuple[Cell, Constraint]]:
    """The open numbers next to a covered cell within ``radius`` of ``cell`` (Chebyshev
    distance), nearest first, each with its constraint."""
    x, y = cell
    out = []
    for ny in range(max(0, y - radius), min(position.height, y + radius + 1)):
        for nx in range(max(0, x - radius), min(position.width, x + radius + 1)):
            con = _constraint(position, (nx, ny))
            if con is not None:
                out.append(((nx, ny), con))
    out.sort(key=lambda n: _distance(n[0], cell))
    return out


def _distance(a: Cell, b: Cell) -> tuple[int, int, int]:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])), a[1], a[0]


def _mines(n: int | None) -> str:
    return "1 mine" if n == 1 else f"{n} mines"


def _xy(c: Cell) -> str:
    return f"({c[0]}, {c[1]})"


def _join(parts: list[str]) -> str:
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + f" and {parts[-1]}"
