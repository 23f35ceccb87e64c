"""50/50s: guesses no amount of play can avoid, found early.

*Unavoidable pairs.*  If a number says "exactly one mine in {a, b}" and every other cell
next to ``a`` is next to ``b`` too (or is a known mine), and the other way round, then
any number revealed later counts ``a`` and ``b`` together: swapping them maps every
consistent layout to another one.  The pair will have to be guessed at 50 % sooner or
later, whatever else happens, and its outcome is independent of the rest of the board,
so guessing it first costs nothing and can only help: the number under the safe cell may
decide its neighbours.  (JSMinesweeper guesses these at the earliest moment for the same
reason.)

*Pockets* (JSMinesweeper's long-term risk).  Two side-by-side undecided cells whose
distinguishing neighbours (the cells next to one of them only) are all covered form a
50/50 in every layout where those neighbours are mines; likewise a 2x2 block with mines
on a diagonal and mines on its four outer corners.  The layouts in which a cell lies in
such a formed 50/50 are layouts where a guess there is doomed to be a coin flip anyway,
so a mine in them costs less than the cell's probability says.  When *every* layout
that mines a cell is of that kind, the cell is "safe or a 50/50": clicking it now loses
exactly the games any play would lose half of, and gains its number early.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kaboom.solver._kernels.fifty import pocket_places
from kaboom.solver.frontier import Constraint
from kaboom.solver.position import COVERED_CHARS, Cell, Position, neighbour_lists

__all__ = ["Count", "Pocket", "forced_pair", "influence", "pockets"]


def forced_pair(
    position: Position, constraints: Iterable[Constraint], known: Mapping[Cell, bool]
) -> tuple[Cell, Cell] | None:
    """A pair of undecided cells that will always be a 50/50, or ``None``.

    ``constraints`` are over the undecided cells (known cells folded in) and ``known``
    maps decided cells to whether they are mines.
    """
    for con in constraints:
        if len(con.cells) == 2 and con.mines == 1:
            a, b = con.cells
            if _alike(position, known, a, b) and _alike(position, known, b, a):
                return a, b
    return None


def _alike(position: Position, known: Mapping[Cell, bool], a: Cell, b: Cell) -> bool:
    """Every neighbour of ``a`` other than ``b`` touches ``b`` too or is a known mine."""
    width, bx, by = position.width, b[0], b[1]
    for n in neighbour_lists(width, position.height)[a[1] * width + a[0]]:
        if (abs(n[0] - bx) > 1 or abs(n[1] - by) > 1) and not known.get(n):
            return False
    return True


_COVERED = bytes(chr(b) in COVERED_CHARS for b in range(256))
"""A board byte to 1 when the cell is covered, else 0 (``bytes.translate``)."""

Count = Callable[[Mapping[Cell, bool]], int]
"""Layouts of the current position with the given cells forced to mine/safe (0 if none)."""


@dataclass(frozen=True, slots=True)
class Pocket:
    """A place where a 50/50 *may* form: ``cells`` hold exactly ``len(mines)`` of the
    pattern's mines, and every cell able to tell them apart is covered.

    ``weight`` counts the layouts in which it does form: the ``enablers`` (covered cells
    that could tell them apart, not yet known mines) are all mines and the pattern's
    first arrangement holds.  By symmetry the mirrored arrangement has the same count.
    """

    cells: tuple[Cell, ...]
    enablers: tuple[Cell, ...]
    weight: int


def pockets(
    position: Position,
    known: Mapping[Cell, bool],
    mines_left: int,
    count: Count,
    pair_walls: int = 1,
    box_walls: int = 0,
) -> list[Pocket]:
    """Every 2x1, 1x2 and 2x2 pocket of undecided cells that at most ``pair_walls``
    more mines (for a pair; ``box_walls`` for a 2x2 block) would turn into a 50/50
    (JSMinesweeper's long-term risk)."""
    width = position.width
    state = bytearray(position.flat.encode("ascii").translate(_COVERED))
    for (x, y), m in known.items():
        i = y * width + x
        if state[i]:
            state[i] = 2 if m else 3
    places = pocket_places(width, position.height, state, min(pair_walls, mines_left - 1),
                           min(box_walls, mines_left - 2))
    found: list[Pocket] = []
    for x, y, k, missing in places:
        walls = dict.fromkeys(missing, True)
        if k == 2:
            box = ((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1))
            weight = count(walls | {box[0]: True, box[3]: True, box[1]: False, box[2]: False})
            if weight:
                found.append(Pocket(box, missing, weight))
            continue
        other = (x + 1, y) if k == 0 else (x, y + 1)
        weight = count(walls | {(x, y): True, other: False})
        if weight:
            found.append(Pocket(((x, y), other), missing, weight))
    return found




def influence(pockets: Iterable[Pocket], cell: Cell) -> int:
    """Layouts in which ``cell`` lies in (or enables) a 50/50 that will have to be
    guessed anyway: a mine there costs less than its probability says."""
    total = 0
    for p in pockets:
        if cell in p.cells or cell in p.enablers:
            total += p.weight
    return total
