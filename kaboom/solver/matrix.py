"""The matrix method (seed 001): Gaussian elimination over the frontier, then row reading.

Rows are open numbers, columns undecided frontier cells, the right side the number
minus known mines.  After reduction to row echelon form (exact fractions), a row
``sum(a_i x_i) = b`` with ``x_i`` in {0, 1} decides its cells when ``b`` equals the
largest value the left side can take (every positive-coefficient cell a mine, every
negative one safe) or the smallest (the mirror image); this covers the seed's four
reading rules.  Decided cells are substituted and the elimination repeated until no
row decides anything.  Sound, not complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import Constraint, frontier_of
from kaboom.solver.position import Cell, Position, row_major

__all__ = ["MatrixResult", "deduce", "eliminate", "read_rows", "solve_matrix"]

Row = list[Fraction]


@dataclass(frozen=True, slots=True)
class MatrixResult:
    """Cells the matrix method proved."""

    safe: frozenset[Cell]
    mines: frozenset[Cell]


def deduce(position: Position, known: Mapping[Cell, bool] | None = None) -> MatrixResult:
    """Runs the matrix method on the open numbers of ``position``."""
    return solve_matrix(frontier_of(position, known).constraints)


def eliminate(rows: list[Row]) -> list[Row]:
    """Reduced row echelon form (the last entry of each row is the right side)."""
    rows = [list(r) for r in rows]
    if not rows:
        return rows
    width = len(rows[0]) - 1
    lead = 0
    for col in range(width):
        pivot = next((i for i in range(lead, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[lead], rows[pivot] = rows[pivot], rows[lead]
        p = rows[lead][col]
        rows[lead] = [v / p for v in rows[lead]]
        for i in range(len(rows)):
            if i != lead and rows[i][col] != 0:
                f = rows[i][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[lead], strict=True)]
        lead += 1
        if lead == len(rows):
            break
    return [r for r in rows if any(r)]


def read_rows(rows: Iterable[Row]) -> dict[int, bool]:
    """Columns decided by single rows: ``{column: is_mine}``."""
    out: dict[int, bool] = {}
    for row in rows:
        coeffs, b = row[:-1], row[-1]
        high = sum(a for a in coeffs if a > 0)
        low = sum(a for a in coeffs if a < 0)
        if b > high or b < low:
            raise InvalidPositionError("the numbers contradict each other")
        if b == high:
            out.update({j: a > 0 for j, a in enumerate(coeffs) if a != 0})
        elif b == low:
            out.update({j: a < 0 for j, a in enumerate(coeffs) if a != 0})
    return out


def solve_matrix(constraints: Iterable[Constraint]) -> MatrixResult:
    """Eliminates and reads rows, substituting decided cells, until nothing changes."""
    cons = [(list(con.cells), con.mines) for con in constraints]
    decided: dict[Cell, bool] = {}
    while True:
        cells = sorted({c for cs, _ in cons for c in cs}, key=row_major)
        col = {c: j for j, c in enumerate(cells)}
        rows: list[Row] = []
        for cs, m in cons:
            row = [Fraction(0)] * (len(cells) + 1)
            for c in cs:
                row[col[c]] = Fraction(1)
            row[-1] = Fraction(m)
            rows.append(row)
        found = read_rows(eliminate(rows))
        if not found:
            break
        new = {cells[j]: m for j, m in found.items()}
        decided.update(new)
        cons = [
            ([c for c in cs if c not in new], m - sum(1 for c in cs if new.get(c)))
            for cs, m in cons
        ]
        cons = [(cs, m) for cs, m in cons if cs]
        if not cons:
            break
    return MatrixResult(
        frozenset(c for c, m in decided.items() if not m),
        frozenset(c for c, m in decided.items() if m),
    )
