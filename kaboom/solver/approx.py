"""Approximate mine probabilities by iterative rescaling (seeds 000 and 001).

Each frontier cell starts at ``1 - prod(1 - mines/size)`` over the constraints it is
in; then every constraint's cells are rescaled, in turn, so they sum to its mine count,
until nothing moves.  Cheap and order-preserving in most positions, but not exact: it
is the fallback when exact counting runs out of budget, and the baseline the
calibration report compares against.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kaboom.solver.frontier import frontier_of
from kaboom.solver.position import Cell, Position

__all__ = ["ApproxProbabilities", "approximate", "iterate"]


@dataclass(frozen=True, slots=True)
class ApproxProbabilities:
    """Estimated mine probability per undecided covered cell; ``outside`` is shared."""

    cells: dict[Cell, float]
    outside: float | None

    def of(self, cell: Cell) -> float:
        return self.cells[cell]


def approximate(
    position: Position,
    known: Mapping[Cell, bool] | None = None,
    *,
    rounds: int = 50,
    tolerance: float = 1e-4,
) -> ApproxProbabilities:
    """Estimates the mine probability of every covered cell of ``position``.

    Cells in ``known`` get 0.0 or 1.0.  Raises ``InvalidPositionError`` when a number
    cannot be satisfied.
    """
    fr = frontier_of(position, known)
    prob = iterate([(con.cells, con.mines) for con in fr.constraints], rounds, tolerance)
    outside: float | None = None
    if fr.outside:
        rest = fr.mines_left - sum(prob.values())
        outside = min(1.0, max(0.0, rest / len(fr.outside)))
        for c in fr.outside:
            prob[c] = outside
    for c, m in fr.known.items():
        prob[c] = 1.0 if m else 0.0
    return ApproxProbabilities(prob, outside)


def iterate(
    groups: Sequence[tuple[Sequence[Cell], int]], rounds: int = 50, tolerance: float = 1e-4
) -> dict[Cell, float]:
    """Seed 000's iteration over ``(cells, mines)`` groups: start each cell at
    ``1 - prod(1 - mines/size)``, then rescale group after group, ``rounds`` times at
    most or until no value moves more than ``tolerance``."""
    prob: dict[Cell, float] = {}
    for cells, mines in groups:
        ratio = mines / len(cells)
        for c in cells:
            prob[c] = 1.0 - (1.0 - prob.get(c, 0.0)) * (1.0 - ratio)
    for _ in range(rounds):
        moved = 0.0
        for cells, mines in groups:
            total = sum(prob[c] for c in cells)
            if total <= 0.0:
                continue
            scale = mines / total
            for c in cells:
                new = min(1.0, prob[c] * scale)
                moved = max(moved, abs(new - prob[c]))
                prob[c] = new
        if moved < tolerance:
            break
    return prob
