"""One-move lookahead: what revealing a cell is expected to teach.

A guess is judged not only by its safety but by the position it leads to.  For every
number the cell could show, the position with that number added is counted again (the
components the cell does not touch come from the counting cache), which gives, per
possible number, how many layouts show it, how many cells it proves safe and how safe
the best next guess would be.  Seed 002 (step 4) scores the expected count of newly safe
cells; JSMinesweeper scores "progress" (P(some cell is proven safe)) and "secondary
safety" (the chance to survive this click and the best next one); both are read off an
:class:`Outlook`.  A cell that can show only one number is *dead*: clicking it teaches
nothing but its own safety, so another click can always be played first.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from kaboom.solver import counting
from kaboom.solver._kernels.lookahead import living_lows
from kaboom.solver.frontier import Constraint, components
from kaboom.solver.position import Cell

__all__ = ["Branch", "Outlook", "outlook"]


@dataclass(frozen=True, slots=True)
class Branch:
    """The cell is safe and shows ``mines`` more mines than its known neighbours."""

    mines: int
    weight: int
    """Consistent layouts in which this happens."""
    cleared: int
    """Cells then proven safe (outside cells included)."""
    best: float
    """Safety of the safest undecided cell afterwards (1.0 when none is left)."""
    second: float
    """Safety of the second safest (equal to ``best`` when only one is left)."""
    safe: frozenset[Cell]
    """The frontier cells then proven safe."""
    sole: Cell | None = None
    """The living frontier cell then strictly safer than every other cell, when there
    is another (with ``around`` only)."""


@dataclass(frozen=True, slots=True)
class Outlook:
    """Every number a cell could show, with what each would lead to."""

    cell: Cell
    total: int
    """Consistent layouts of the position before the click (the cell's mines included)."""
    branches: tuple[Branch, ...]

    @property
    def safety(self) -> float:
        return sum(b.weight for b in self.branches) / self.total

    @property
    def dead(self) -> bool:
        """Only one number is possible: the click teaches nothing but its own safety."""
        return len(self.branches) <= 1

    @property
    def progress(self) -> float:
        """P(the cell is safe and its number proves some other cell safe)."""
        return sum(b.weight for b in self.branches if b.cleared) / self.total

    @property
    def expected_cleared(self) -> float:
        """Expected count of cells the click proves safe (seed 002's score)."""
        s = counting.float_shift(self.total)
        return sum((b.weight >> s) * b.cleared for b in self.branches) / (self.total >> s)

    @property
    def secondary(self) -> float:
        """P(surviving this click and then the safest next one)."""
        s = counting.float_shift(self.total)
        return sum((b.weight >> s) * b.best for b in self.branches) / (self.total >> s)

    def blended(self, best_weight: float = 4.0) -> float:
        """``secondary`` with the next safety blended with the runner-up's (JSMinesweeper:
        a position with two good follow-ups is worth more than one with a single one)."""
        k, s = best_weight, counting.float_shift(self.total)
        return sum(
            (b.weight >> s) * (k * b.best + b.second) / (k + 1) for b in self.branches
        ) / (self.total >> s)

    def hybrid(self, weight: float) -> float:
        """Progress scored as in seed 002 (a number that proves a cell safe is worth
        ``1 + weight`` times one that does not), a number that does not weighted further
        by the safety of the guess it leaves."""
        s = counting.float_shift(self.total)
        return sum(
            (b.weight >> s) * (1.0 + weight if b.cleared else b.best) for b in self.branches
        ) / (self.total >> s)

    def sole_safest(self) -> Cell | None:
        """The living cell that is the single safest next click whatever this cell
        shows (JSMinesweeper's dominating tile), if any."""
        soles = {b.sole for b in self.branches}
        return soles.pop() if len(soles) == 1 else None

    def common_safe(self) -> frozenset[Cell]:
        """Frontier cells proven safe whatever the number: safe whenever this cell is."""
        if not self.branches:
            return frozenset()
        out = self.branches[0].safe
        for b in self.branches[1:]:
            out &= b.safe
        return out


def outlook(
    constraints: Sequence[Constraint],
    outside: Collection[Cell],
    mines_left: int,
    total: int,
    cell: Cell,
    free: Sequence[Cell],
    node_limit: int = 20_000,
    base: counting.Count | None = None,
    around: Callable[[Cell], frozenset[Cell]] | None = None,
) -> Outlook:
    """The outlook of revealing ``cell`` in the position given by ``constraints`` over the
    undecided cells, the undecided ``outside`` cells and ``mines_left``.

    ``free`` lists the cell's undecided covered neighbours and ``total`` the position's
    layout count.  ``base`` may pass the position's count: the components the click
    does not touch keep their tables, only the others are counted again.  A number
    whose count exceeds ``node_limit`` is left out (its branch is missing, which only
    lowers the scores).

    ``around`` (a cell's undecided covered neighbours) makes the next
    safeties count *living* cells only (JSMinesweeper): a cell whose number the rest
    already fixes teaches nothing, so a branch that proves only such cells safe still
    leaves a guess to make.
    """
    kept: list[counting.Table] = []
    if base is not None:
        kept, constraints = counting.untouched(base.tables, {cell, *free})
    rest = _without(constraints, cell)
    n_out = len(outside) - (cell in outside) - sum(1 for c in free if c in outside)
    # The cell's number links the same cells whatever it shows: split the components
    # once, then put each possible number in place of this placeholder.
    shown = Constraint(tuple(sorted(free)), 0)
    groups = [cs for _, cs in components([*rest, shown] if free else rest)]
    varying = [counting.Varying(cs, shown, node_limit) if any(con is shown for con in cs)
               else None for cs in groups]
    index = None if around is None else _index(
        [con.cells for t in kept for con in t.constraints]
        + [con.cells for cs in groups for con in cs]
    )
    branches = []
    for v in range(len(free) + 1):
        try:
            tables = kept + [
                counting.tabulate(cs, node_limit) if vary is None else vary.table(v)
                for cs, vary in zip(groups, varying, strict=True)
            ]
            cnt = counting.combine(tables, n_out, mines_left)
        except (ValueError, counting.TooBig):
            continue
        lows = None if around is None or index is None else _living_lows(
            cnt, n_out, around, index, cell
        )
        branches.append(_branch(v, cnt, n_out, lows))
        if not free:
            break
    return Outlook(cell, total, tuple(branches))


def _without(constraints: Sequence[Constraint], cell: Cell) -> list[Constraint]:
    """The constraints with ``cell`` revealed safe: out of each, and of the system."""
    rest = []
    for con in constraints:
        if cell in con.cells:
            cells = tuple(c for c in con.cells if c != cell)
            if cells:
                rest.append(Constraint(cells, con.mines))
        else:
            rest.append(con)
    return rest


def _index(cell_sets: list[tuple[Cell, ...]]) -> dict[Cell, list[tuple[Cell, ...]]]:
    """Each cell's numbers (as their cells): the same whatever the clicked cell shows."""
    out: dict[Cell, list[tuple[Cell, ...]]] = {}
    for cells in cell_sets:
        for c in cells:
            out.setdefault(c, []).append(cells)
    return out


def _living_lows(
    cnt: counting.Count,
    n_out: int,
    around: Callable[[Cell], frozenset[Cell]],
    index: dict[Cell, list[tuple[Cell, ...]]],
    clicked: Cell,
) -> list[tuple[int, Cell]] | None:
    """The two lowest mine weights, with their cells, among the frontier cells that are
    neither certain mines nor *dead*: a cell is dead when its undecided neighbours are
    none, or exactly the undecided cells of one number (whose count then fixes what it
    would show).
    ``None`` when every cell left is dead: then one of them must be guessed
    (compiled: :func:`kaboom.solver._kernels.lookahead.living_lows`)."""
    out_open = n_out > 0 and 0 < cnt.outside_mine_weight < cnt.weight
    return living_lows(cnt.mine_weight, cnt.weight, out_open, around, index, clicked)


def _branch(
    v: int, cnt: counting.Count, n_out: int, lows: list[tuple[int, Cell]] | None = None
) -> Branch:
    weight = cnt.weight
    safe = frozenset([c for c, w in cnt.mine_weight.items() if w == 0])
    cleared = len(safe)
    out_w = cnt.outside_mine_weight
    if n_out and out_w == 0:
        cleared += n_out
    # the two lowest mine weights among the cells that are not certain mines
    low1 = low2 = weight
    for w in cnt.mine_weight.values() if lows is None else (w for w, _ in lows):
        if w < low2:
            if w < low1:
                low1, low2 = w, low1
            else:
                low2 = w
    if n_out and out_w < low2:
        if out_w < low1:
            low1, low2 = out_w, (low1 if n_out == 1 else out_w)
        else:
            low2 = out_w
    if low1 == weight:  # nothing undecided is left but mines: the rest is certain
        return Branch(v, weight, cleared, 1.0, 1.0, safe)
    if low2 == weight:  # a single undecided cell left
        low2 = low1
    sole = lows[0][1] if lows and lows[0][0] == low1 < low2 else None
    return Branch(v, weight, cleared, 1 - low1 / weight, 1 - low2 / weight, safe, sole)
