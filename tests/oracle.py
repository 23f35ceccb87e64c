"""An independent brute-force enumerator: the oracle every algorithm is checked against.

It knows nothing of frontiers, constraints or SAT: it tries every placement of the mines
on the covered cells and keeps those that match every open number.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator

from kaboom.solver.position import COVERED_CHARS, Cell, Position


def layouts(position: Position) -> Iterator[frozenset[Cell]]:
    """Yields every set of mine cells consistent with ``position``."""
    covered = [
        (x, y)
        for y, row in enumerate(position.rows)
        for x, ch in enumerate(row)
        if ch in COVERED_CHARS
    ]
    numbers = [
        ((x, y), int(ch))
        for y, row in enumerate(position.rows)
        for x, ch in enumerate(row)
        if ch.isdigit()
    ]
    for mines in itertools.combinations(covered, position.mines):
        chosen = frozenset(mines)
        if all(
            sum((x + dx, y + dy) in chosen for dx in (-1, 0, 1) for dy in (-1, 0, 1)) == n
            for (x, y), n in numbers
        ):
            yield chosen


def statuses(position: Position) -> dict[Cell, str]:
    """Maps each covered cell to ``s``, ``m`` or ``u`` by enumeration."""
    all_layouts = list(layouts(position))
    assert all_layouts, "the oracle was given an inconsistent position"
    covered = [c for c in position.cells() if position.is_covered(*c)]
    out = {}
    for c in covered:
        hits = sum(c in lay for lay in all_layouts)
        out[c] = "s" if hits == 0 else "m" if hits == len(all_layouts) else "u"
    return out


def probabilities(position: Position) -> dict[Cell, float]:
    """Exact mine probability of each covered cell by enumeration."""
    all_layouts = list(layouts(position))
    covered = [c for c in position.cells() if position.is_covered(*c)]
    return {c: sum(c in lay for lay in all_layouts) / len(all_layouts) for c in covered}


def number_at(mines: frozenset[Cell], x: int, y: int) -> int:
    return sum((x + dx, y + dy) in mines for dx in (-1, 0, 1) for dy in (-1, 0, 1))


def random_position(
    rng: random.Random, width: int, height: int, mines: int, open_fraction: float
) -> tuple[Position, frozenset[Cell]]:
    """A consistent position: a random layout with some safe cells opened and marked."""
    cells = [(x, y) for y in range(height) for x in range(width)]
    layout = frozenset(rng.sample(cells, mines))
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            if (x, y) not in layout and rng.random() < open_fraction:
                row.append(str(number_at(layout, x, y)))
            else:
                row.append(rng.choice("#####F?"))
        rows.append("".join(row))
    return Position.from_rows(rows, mines), layout


def values(
    position: Position, cell: Cell, numbers: Iterable[Cell], count: int | None = None
) -> set[bool]:
    """The values (``True``: a mine) ``cell`` can take when only the open ``numbers``
    named, and the total ``count`` of mines among the covered cells when given, are known.

    Enumerates the covered cells around the named numbers (and the cell); every other
    covered cell is free, so with a count it only has to leave room for the rest.
    """
    named = [((x, y), int(position.rows[y][x])) for x, y in numbers]
    touched = {cell}
    for (x, y), _ in named:
        touched.update(c for c in position.neighbours(x, y) if position.is_covered(*c))
    cells = sorted(touched)
    free = len(position.covered()) - len(cells)
    seen: set[bool] = set()
    for bits in itertools.product((False, True), repeat=len(cells)):
        mines = {c for c, b in zip(cells, bits) if b}
        if count is not None and not 0 <= count - len(mines) <= free:
            continue
        if all(number_at(frozenset(mines), x, y) == n for (x, y), n in named):
            seen.add(cell in mines)
    return seen


def fits(position: Position, numbers: Iterable[Cell], count: int | None = None) -> bool:
    """Whether some layout satisfies the open ``numbers`` named, and the total ``count``
    of mines among the covered cells when given (every other number ignored)."""
    named = [((x, y), int(position.rows[y][x])) for x, y in numbers]
    touched: set[Cell] = set()
    for (x, y), _ in named:
        touched.update(c for c in position.neighbours(x, y) if position.is_covered(*c))
    cells = sorted(touched)
    free = len(position.covered()) - len(cells)
    for bits in itertools.product((False, True), repeat=len(cells)):
        mines = frozenset(c for c, b in zip(cells, bits) if b)
        if count is not None and not 0 <= count - len(mines) <= free:
            continue
        if all(number_at(mines, x, y) == n for (x, y), n in named):
            return True
    return False


def win_chance(position: Position, lays: list[frozenset[Cell]], cells: list[Cell],
               first: Cell | None = None) -> float:
    """The best chance to win with ``lays`` equally likely and ``cells`` left to open
    (``first`` opened first, when given), by plain recursion: no pruning, every cell
    tried.  A set of layouts reached twice is remembered (without it, 14 layouts over
    19 cells took minutes, and the test ran past its timeout)."""
    def shows(c: Cell, lay: frozenset[Cell]) -> int:
        return -1 if c in lay else number_at(lay, *c)

    memo: dict[frozenset[frozenset[Cell]], float] = {}

    def value(state: list[frozenset[Cell]]) -> float:
        key = frozenset(state)
        if key not in memo:
            memo[key] = solve(state)
        return memo[key]

    def solve(state: list[frozenset[Cell]]) -> float:
        undecided = [c for c in cells if len({c in lay for lay in state}) > 1]
        if not undecided:
            return 1.0
        # a click that is always safe and always shows the same number changes nothing
        useful = [c for c in cells if any(c not in lay for lay in state)
                  and len({shows(c, lay) for lay in state}) > 1]
        return max(after(c, state) for c in useful)

    def after(c: Cell, state: list[frozenset[Cell]]) -> float:
        split: dict[int, list[frozenset[Cell]]] = {}
        for lay in state:
            v = shows(c, lay)
            if v >= 0:
                split.setdefault(v, []).append(lay)
        return sum(len(s) / len(state) * value(s) for s in split.values())

    return value(lays) if first is None else after(first, lays)
