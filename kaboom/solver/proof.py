"""Why a covered cell is certain: a minimal set of open numbers (and the mine count) that
forces it, said in words a player can check on the board.

A proof is an unsatisfiable core of the opposite claim: "(6, 6) is a mine" contradicts
the 2 at (4, 5) and the 1 at (5, 5).  The numbers are taken as the board shows them
(no earlier deduction folded in), so a proof stands on its own.  The minimal sets are
:mod:`kaboom.solver.reasons`'; this module chooses the numbers to offer, in order of
distance from the cell (near ones are kept, far ones dropped first), and words the
answer.  A proof is *minimal*: dropping any one of its numbers, or the count, leaves
the cell undecided (unless ``minimal`` says a check ran out of conflicts, which only the
count's pigeonhole-like queries do).  It is not always the *smallest* such set.
"""

from __future__ import annotations

from dataclasses import dataclass

from kaboom.solver.budget import Budget
from kaboom.solver.errors import InvalidPositionError, NoProofError
from kaboom.solver.frontier import Constraint
from kaboom.solver.position import Cell, Position, covered_count, row_major
from kaboom.solver.reasons import (
    Conflict,
    join_words,
    mines_text,
    minimal_conflict,
    minimise_with_count,
    numbers_near,
    xy,
)

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
    took too long (the SAT check hit its conflict limit)."""

    @property
    def text(self) -> str:
        """The proof in one sentence, cells named ``(column, row)``."""
        at = xy(self.cell)
        if not self.numbers:
            if self.mine:
                all_ = mines_text(self.count)
                return f"the {self.covered} covered cells hold all {all_}, so {at} is one"
            return f"no mines are left, so {at} is safe"
        names = join_words([f"the {n} at {xy(c)}" for c, n in self.numbers])
        verb = "leaves" if len(self.numbers) == 1 else "leave"
        need = "needs" if len(self.numbers) == 1 else "need"
        if self.count is None:
            if self.mine:
                return f"{names} {need} a mine at {at}"
            return f"{names} {verb} no room for a mine at {at}"
        mines = mines_text(self.count)
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
        found = minimise_with_count(
            position, {cell: found.claim == 0}, found, [con for _, con in near], budget)
        return _proof(position, cell, found, near, cells, count, budget)
    raise NoProofError(f"({x}, {y}) is not decided: the numbers and the count allow both")


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
            f"the numbers at {', '.join(xy(c) for c, _ in chosen)}{where} cannot all be"
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


def _numbers(position: Position, cell: Cell, radius: int) -> list[tuple[Cell, Constraint]]:
    """:func:`~kaboom.solver.reasons.numbers_near`, refusing a number that cannot hold
    on its own (it would contradict either claim)."""
    near = numbers_near(position, cell, radius)
    for c, con in near:
        if con.mines > len(con.cells):
            raise InvalidPositionError(f"the number at {xy(c)} cannot be satisfied")
    return near
