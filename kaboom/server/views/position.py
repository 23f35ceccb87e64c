"""A position in the analyser (``/analyse``) as its page shows it: the board with the
analysis drawn as the overlay, the verdict and advice in words, the proof outlined, and
what a click on a cell does."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from kaboom.server.views.cell import CellView, Overlay, overlay_of
from kaboom.server.views.game import named
from kaboom.solver import Analysis, Cell, Position, Proof, to_link

__all__ = ["ANALYSER_TOOLS", "PositionView", "cycled", "proof_marks"]

ANALYSER_TOOLS = ("cycle", "#", "F", *"012345678", "why")
"""What a click on a cell of the analyser does: cycle its value, set one, or show why."""
_CYCLE = "#012345678F"


def cycled(ch: str) -> str:
    """The next value of a cell clicked in the analyser: covered, 0-8, flag, covered."""
    return _CYCLE[(_CYCLE.find(ch) + 1) % len(_CYCLE)]


def proof_marks(proof: Proof | None) -> dict[Cell, str]:
    """The classes that outline a proof in the analyser: its numbers (``reason``) and its
    cell (``hint`` when safe, ``guess`` when a mine)."""
    if proof is None:
        return {}
    out = {xy: "reason" for xy, _ in proof.numbers}
    out[proof.cell] = "guess" if proof.mine else "hint"
    return out


@dataclass(frozen=True, slots=True)
class PositionView:
    """A position in the analyser (``/analyse``): its analysis and, when a decided
    cell's reason is shown, that proof (the recommended move's, unless another was asked)."""

    analysis: Analysis
    proof: Proof | None = None
    focus: tuple[int, int] = (0, 0)
    """The board's one tab stop: the cell edited last."""
    error: str = ""
    pasted: bool = False
    """The text was just pasted (its panel stays open)."""
    overlay: Overlay = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "overlay", overlay_of(self.analysis))

    @property
    def position(self) -> Position:
        return self.analysis.position

    @property
    def link(self) -> str:
        return to_link(self.position)

    @property
    def text(self) -> str:
        return "\n".join(self.position.rows)

    @property
    def shown_proof(self) -> Proof | None:
        found = self.analysis.recommendation
        return self.proof or (found.proof if found else None)

    @property
    def verdict(self) -> str:
        """The analysis in one sentence: what is settled, or why no layout fits."""
        a = self.analysis
        if a.impossible:
            why = a.contradiction
            return ("No layout fits this position: " + why.text + "." if why else
                    "No layout fits this position (the reason did not fit the time budget).")
        status = "".join(self.overlay[0])
        safe, mines = status.count("s"), status.count("m")
        text = (f"{safe} safe cell{'s' if safe != 1 else ''}, {mines} certain"
                f" mine{'s' if mines != 1 else ''}, {status.count('u')} undecided.")
        if a.knowledge is None:
            return "Not analysed."
        if not a.complete:
            text += " The analysis ran out of time: the cells left unmarked may be safe or mines."
        elif not a.exact:
            text += " The exact probabilities did not fit the time budget."
        return text

    @property
    def advice(self) -> str:
        """The recommended move and the solver's reason for it."""
        found = self.analysis.recommendation
        if self.analysis.impossible:
            return ""
        if found is None:
            return "No move recommended: the analysis did not settle enough in its time budget."
        moves = ", ".join(named(str(m)) for m in found.moves[:8])
        more = f" and {len(found.moves) - 8} more" if len(found.moves) > 8 else ""
        if found.certain:
            return f"Play {moves}{more}: proven safe ({found.reason})."
        return f"No cell is safe: the best guess is {moves}{more} ({found.reason})."

    def marks(self) -> dict[Cell, str]:
        """The outlined cells: a proof's cell and numbers, or an impossible position's."""
        why = self.analysis.contradiction
        if why is not None:
            return {xy: "reason" for xy, _ in why.numbers}
        return proof_marks(self.shown_proof)

    def rows(self) -> Iterator[list[CellView]]:
        """Every cell, row by row, with the analysis drawn as the debug overlay."""
        marks = self.marks()
        for y, row in enumerate(self.position.rows):
            yield [CellView.of(x, y, ch, self.overlay, marks.get((x, y), ""))
                   for x, ch in enumerate(row)]
