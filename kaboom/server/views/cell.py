"""One cell as a page draws it: its character, the overlay's status and odds, its words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from kaboom.solver import Analysis
from kaboom.solver.position import COVERED_CHARS

__all__ = ["KNOWLEDGE_WORDS", "CellView", "Overlay", "cell_label", "overlay_of", "percent"]

_WORDS = {
    "#": "covered",
    "F": "flagged",
    "?": "question mark",
    "0": "no mines around",
    "X": "the mine that exploded",
    "*": "a mine",
    "!": "a wrong flag",
}
KNOWLEDGE_WORDS = {"s": "safe", "m": "mine", "u": "unknown"}

Overlay: TypeAlias = tuple[list[str], list[list[float | None] | None]]
"""An analysis's status rows and probability rows, worked out once for every cell."""


def overlay_of(analysis: Analysis) -> Overlay:
    return analysis.status_rows(), analysis.probability_rows()


def percent(p: float) -> str:
    """A probability in [0, 1] as a percentage for people."""
    value = p * 100
    if value in (0, 100):
        return f"{value:g} %"
    return f"{value:.{2 if value < 1 or value > 99 else 1}f} %"


def cell_label(x: int, y: int, ch: str, knowledge: str | None = None,
               p: float | None = None) -> str:
    """A cell's name for screen readers: ``row 3, column 5: 2`` (counted from 0)."""
    text = f"row {y}, column {x}: {_WORDS.get(ch, ch)}"
    if knowledge:
        text += f", {KNOWLEDGE_WORDS[knowledge]}"
    if p is not None:
        text += f", {percent(p)} mine"
    return text


@dataclass(frozen=True, slots=True)
class CellView:
    """One cell as drawn: its board character and, under an overlay, the solver's view."""

    x: int
    y: int
    state: str
    knowledge: str | None = None
    p: float | None = None
    marks: str = ""
    """Extra classes: ``proof`` (the loss's safe cell), ``reason``, ``hint``, ``guess``."""

    @classmethod
    def of(cls, x: int, y: int, ch: str, overlay: Overlay | None, marks: str = "") -> CellView:
        """The cell with the overlay's status and odds when it is covered and settled
        (``?`` in the status rows: the analysis did not settle it, and it is left
        unmarked)."""
        if overlay is None or ch not in COVERED_CHARS:
            return cls(x, y, ch, marks=marks)
        status, probability = overlay
        if status[y][x] not in KNOWLEDGE_WORDS:
            return cls(x, y, ch, marks=marks)
        prow = probability[y]
        return cls(x, y, ch, status[y][x], None if prow is None else prow[x], marks)

    @property
    def label(self) -> str:
        return cell_label(self.x, self.y, self.state, self.knowledge, self.p)

    @property
    def shade(self) -> int | None:
        """The probability in tenths, for the overlay's heat map (CSS cannot read data-p)."""
        return None if self.p is None else round(self.p * 10)

    @property
    def title(self) -> str | None:
        if self.knowledge is None:
            return None
        words = f"({self.x}, {self.y}) {KNOWLEDGE_WORDS[self.knowledge]}"
        return words if self.p is None else f"{words}: {percent(self.p)} mine"
