"""Known sgt-mines layouts and what the board must show after given clicks."""

from __future__ import annotations

import random
from collections.abc import Iterable

from kaboom.solver.position import Cell
from tests.oracle import number_at


def random_layout(
    rng: random.Random, width: int, height: int, mines: int
) -> tuple[frozenset[Cell], Cell]:
    """A random layout and a start cell showing 0 (so the game opens an area); a
    ``ValueError`` when 1,000 draws found none (a board too crowded for one: it looped
    for ever)."""
    cells = [(x, y) for y in range(height) for x in range(width)]
    for _ in range(1000):
        layout = frozenset(rng.sample(cells, mines))
        zeros = [c for c in cells if c not in layout and number_at(layout, *c) == 0]
        if zeros:
            return layout, rng.choice(zeros)
    raise ValueError(f"no layout of {width}x{height}/{mines} in 1,000 draws had a cell showing 0")


def _neighbours(x: int, y: int, width: int, height: int) -> Iterable[Cell]:
    for ny in range(max(0, y - 1), min(height, y + 2)):
        for nx in range(max(0, x - 1), min(width, x + 2)):
            if (nx, ny) != (x, y):
                yield nx, ny


def opened_by(
    layout: frozenset[Cell], width: int, height: int, clicks: Iterable[Cell]
) -> set[Cell]:
    """Cells open after revealing ``clicks`` (safe cells), with zeros opening around."""
    opened: set[Cell] = set()
    stack = list(clicks)
    while stack:
        c = stack.pop()
        if c in opened:
            continue
        opened.add(c)
        if number_at(layout, *c) == 0:
            stack.extend(n for n in _neighbours(*c, width, height) if n not in opened)
    return opened


def expected_rows(layout: frozenset[Cell], width: int, height: int, opened: set[Cell],
                  won: bool = False) -> list[str]:
    """The board text: numbers where open, ``F`` on mines once won, ``#`` elsewhere."""
    rows = []
    for y in range(height):
        row = ""
        for x in range(width):
            if (x, y) in opened:
                row += str(number_at(layout, x, y))
            elif won and (x, y) in layout:
                row += "F"
            else:
                row += "#"
        rows.append(row)
    return rows
