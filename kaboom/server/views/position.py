"""A position in the analyser (``/analyse``) as its page shows it: the board with the
analysis drawn as the overlay, the verdict and advice in words, a guess's chance to win
and the other best guesses', the proof outlined, and what a click on a cell does."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from kaboom.server.views.cell import CellView, Overlay, overlay_of
from kaboom.server.views.game import named
from kaboom.solver import Analysis, Cell, Position, Proof, WinChance, to_link

__all__ = ["ANALYSER_TOOLS", "GuessRow", "PositionView", "cycled", "percent", "proof_marks"]

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


def percent(p: float) -> str:
    """A chance in percent, one decimal: ``41.2 %``."""
    return f"{100 * p:.1f} %"


@dataclass(frozen=True, slots=True)
class GuessRow:
    """One guess of the analyser's list: the cell, its chance to win in words, and how
    it compares with the recommended guess on the same layouts (empty for that one)."""

    cell: Cell
    chance: str
    compared: str


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

    @property
    def win_chance(self) -> str:
        """The recommended guess's chance to win the game in words, or why it is not
        given; empty when the move is not a guess."""
        found = self.analysis.recommendation
        if found is None or found.certain:
            return ""
        odds = found.chances
        if odds is None:
            return f"Its chance to win the game is not given: {found.no_chances}." \
                if found.no_chances else ""
        how = ("exactly, with best play after" if odds.exact else
               f"over {odds.rollouts} layouts drawn at random, the same for each guess,"
               f" with the solver ({odds.policy}) playing on")
        return f"Its chance to win the game: {_chance(odds.chances[0], odds.exact)}, {how}."

    def other_guesses(self) -> list[GuessRow]:
        """The next best guesses with their chances to win, each compared with the
        recommended guess on the same layouts."""
        found = self.analysis.recommendation
        odds = found.chances if found is not None else None
        if odds is None:
            return []
        first = odds.chances[0]
        rows = []
        for c in odds.chances[1:]:
            d = odds.difference(c.cell, first.cell)
            compared = _points(d.estimate)
            if not odds.exact:
                compared += f" (95 %: {100 * d.low:+.1f} to {100 * d.high:+.1f} points)"
            rows.append(GuessRow(c.cell, _chance(c, odds.exact), compared))
        return rows

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


def _chance(c: WinChance, exact: bool) -> str:
    """``41.2 % (95 %: 38.0-44.4 %)``, or the exact chance alone."""
    if exact:
        return percent(c.chance)
    return f"{percent(c.chance)} (95 %: {100 * c.low:.1f}\u2013{percent(c.high)})"


def _points(d: float) -> str:
    """A difference of chances in points: ``2.1 points lower than the recommended
    guess``."""
    if abs(d) < 5e-4:
        return "level with the recommended guess"
    return f"{100 * abs(d):.1f} points {'higher' if d > 0 else 'lower'} than the recommended guess"
