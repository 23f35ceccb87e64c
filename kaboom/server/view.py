"""What the page shows of a game, in words: cell names, badges, the banner, the status.

The templates (``kaboom/web/templates/``) lay these out; the HTML routes and any later page
(an analyser) render a game through :class:`GameView`, so a rule of what is shown is
written once, here, and never in the browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kaboom.server.game import Game
from kaboom.solver import PRESETS, Analysis, GameStatus, LossReason, Position, Proof, to_link
from kaboom.solver.position import COVERED_CHARS

__all__ = ["ANALYSER_TOOLS", "PRESET_LABELS", "CellView", "GameView", "PositionView", "Role",
           "cell_label", "cycled", "percent", "position_link", "preset_of", "proof_marks"]

Role = Literal["player", "spectator"]

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

PRESET_LABELS = {"beginner": "Beginner", "intermediate": "Intermediate", "expert": "Expert"}
"""The presets the page offers, in its order, with their names for people."""

_REASONS = {
    LossReason.CERTAIN_MINE: "that cell was certainly a mine; the open numbers prove it.",
    LossReason.GUESS_WHILE_SAFE: "you guessed while a safe cell existed, and Kaboom punishes"
    " that.",
    LossReason.OUTSIDE_GUESS: "a guess outside the frontier while frontier cells were still"
    " undecided.",
    LossReason.FORCED_GUESS: "no safe cell existed, so it was a forced guess, and the fair odds"
    " went against you.",
}


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


def preset_of(width: int, height: int, mines: int) -> str | None:
    """The preset with this size and mine count, or None for a custom game."""
    for name in PRESET_LABELS:
        if PRESETS[name] == (width, height, mines):
            return name
    return None


@dataclass(frozen=True, slots=True)
class CellView:
    """One cell as drawn: its board character and, in a debug game, the solver's view."""

    x: int
    y: int
    state: str
    knowledge: str | None = None
    p: float | None = None
    marks: str = ""
    """Extra classes: ``proof`` (the loss's safe cell), ``reason``, ``hint``, ``guess``."""

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


@dataclass(frozen=True, slots=True)
class GameView:
    """A game as one viewer's page shows it."""

    game: Game
    move_limit: int
    role: Role
    loss_proof: Proof | None = None
    """The proof of the loss's safe cell, when the game was lost by ignoring one."""
    analysis: Analysis | None = None
    """The debug overlay's analysis of this very board, when it is drawn."""
    note: str = ""
    """A sticky note for the message line (a link to a game that is gone)."""
    replay_at: int | None = None
    """The move a finished game's replay shows (``game.rows`` are then that board)."""
    replay_move: str = ""
    """The move that led to the replay's board (``reveal 3 4``)."""
    best: bool = False
    """Whether this won game is the fastest win its viewer's browser counted on its preset
    (:mod:`kaboom.server.routes.statistics`)."""
    overlay: tuple[list[str], list[list[float | None] | None]] | None = field(
        default=None, init=False, repr=False, compare=False)
    """The analysis's status and probability rows, worked out once for every cell."""

    def __post_init__(self) -> None:
        if self.analysis is not None:
            object.__setattr__(self, "overlay", (self.analysis.status_rows(),
                                                 self.analysis.probability_rows()))

    @property
    def preset(self) -> str | None:
        r = self.game.rules
        return preset_of(r.width, r.height, r.mines)

    @property
    def same_board(self) -> dict[str, object] | None:
        """The new-game fields of this game's board again (once its seed is public)."""
        r = self.game.rules
        if self.seed is None:
            return None
        return {"width": r.width, "height": r.height, "mines": r.mines,
                "first_click": r.first_click, "forced_guess": r.forced_guess,
                "outside_guess": _on(r.outside_guess), "question_marks": _on(r.question_marks),
                "debug": _on(r.debug), "seed": str(self.seed)}

    @property
    def playing(self) -> bool:
        return self.game.status is GameStatus.PLAYING

    @property
    def status_text(self) -> str:
        if self.playing:
            return "Playing" if self.role == "player" else "Watching"
        return "Won" if self.game.status is GameStatus.WON else "Lost"

    @property
    def started(self) -> bool:
        """The clock runs from the first reveal."""
        return self.game.started_at is not None

    @property
    def seed(self) -> int | None:
        """The seed others may replay: shown once public."""
        return self.game.rules.seed if self.game.seed_shown else None

    @property
    def badges(self) -> list[str]:
        r, g = self.game.rules, self.game
        words = [f"{r.width}×{r.height}, {r.mines} mines"]
        if r.first_click == "opening":
            words.append("opening")
        if r.forced_guess == "fair":
            words.append("fair guesses")
        if r.outside_guess:
            words.append("outside guesses forced")
        if not r.question_marks:
            words.append("no ?")
        left = self.move_limit - g.moves
        if self.playing and left <= self.move_limit / 10:
            words.append(f"{left} move{'' if left == 1 else 's'} left")
        return words

    @property
    def loss_words(self) -> str:
        loss = self.game.loss
        if loss is None:
            return ""
        why = _REASONS.get(loss.reason)
        return f"Boom at ({loss.x}, {loss.y}): {why}" if why else f"Boom at ({loss.x}, {loss.y})."

    @property
    def won_words(self) -> str:
        g = self.game
        text = f"{g.elapsed_ms() / 1000:.1f} s, {g.moves} moves"
        if g.forced_guesses:
            text += f", {g.forced_guesses} forced guess{'es' if g.forced_guesses > 1 else ''}"
        return text + (". Assisted, so not counted in statistics." if g.assisted else ".")

    @property
    def best_words(self) -> str:
        preset = self.preset
        return f"Your best {PRESET_LABELS[preset]} time!" if self.best and preset else ""

    def marks(self) -> dict[tuple[int, int], str]:
        """Classes drawn on cells by the game itself: the loss's safe cell and, once its
        proof is known, the numbers that prove it; on the replay's board before the losing
        click, that click too."""
        out: dict[tuple[int, int], str] = {}
        loss, n = self.game.loss, self.game.moves
        at = n if self.replay_at is None else self.replay_at
        if loss is None or loss.safe_cell is None or at < n - 1:
            return out
        out[loss.safe_cell] = "proof"
        if self.loss_proof is not None:
            for xy, _ in self.loss_proof.numbers:
                out[xy] = "reason"
            if at == n - 1:
                out[loss.x, loss.y] = "guess"
        return out

    @property
    def analyse_link(self) -> str:
        """The analyser's address of the board shown (the replay's step)."""
        return position_link(self.game.rows, self.game.rules.mines)

    @property
    def replay_move_shown(self) -> int | None:
        """The move whose board a finished game shows (its last, until the replay steps)."""
        if self.replay_at is not None:
            return self.replay_at
        return None if self.playing else self.game.moves

    @property
    def replay_words(self) -> str:
        """What the replay bar says of the move it shows."""
        n = self.game.moves
        at = n if self.replay_at is None else self.replay_at
        if at == 0:
            return f"The first board (move 0 of {n})."
        text = f"Move {at} of {n}: {_named(self.replay_move)}." if self.replay_move else ""
        loss, proof = self.game.loss, self.loss_proof
        if at == n - 1 and loss is not None and loss.safe_cell is not None and proof:
            sx, sy = loss.safe_cell
            text += (f" Next, the losing click at ({loss.x}, {loss.y}), while ({sx}, {sy}) was"
                     f" provably safe: {proof.text}.")
        return text

    def cell(self, x: int, y: int, marks: dict[tuple[int, int], str]) -> CellView:
        ch = self.game.rows[y][x]
        if self.overlay is None or ch not in COVERED_CHARS:
            return CellView(x, y, ch, marks=marks.get((x, y), ""))
        status, probability = self.overlay
        if status[y][x] not in KNOWLEDGE_WORDS:  # "?": the analysis did not settle it
            return CellView(x, y, ch, marks=marks.get((x, y), ""))
        prow = probability[y]
        return CellView(x, y, ch, status[y][x], None if prow is None else prow[x],
                        marks.get((x, y), ""))

    def rows(self) -> Iterator[list[CellView]]:
        """Every cell, row by row."""
        marks = self.marks()
        for y in range(self.game.rules.height):
            yield [self.cell(x, y, marks) for x in range(self.game.rules.width)]

    def cells(self, changed: Iterable[tuple[int, int]]) -> list[CellView]:
        """The cells at ``changed``, as drawn now."""
        marks = self.marks()
        return [self.cell(x, y, marks) for x, y in changed]


def _named(move: str) -> str:
    """``reveal 3 4`` as ``reveal (3, 4)``."""
    kind, _, xy = move.partition(" ")
    return f"{kind} ({xy.replace(' ', ', ')})" if xy else move


def _on(flag: bool) -> str:
    """A checkbox's value in a form: present when on."""
    return "on" if flag else ""


def changed_cells(before: Sequence[str], after: Sequence[str]) -> list[tuple[int, int]]:
    """The cells whose character differs between two boards of one size."""
    out: list[tuple[int, int]] = []
    for y, (a, b) in enumerate(zip(before, after, strict=True)):
        if a != b:
            out.extend((x, y) for x, (p, q) in enumerate(zip(a, b, strict=True)) if p != q)
    return out


def is_covered(ch: str) -> bool:
    return ch in COVERED_CHARS


_SHOWN_MINES = str.maketrans({"*": "#", "X": "#", "!": "F"})
"""A finished board's mines as the position before them: covered (a wrong flag a flag)."""


def position_link(rows: Sequence[str], mines: int) -> str:
    """The analyser's address of a board a game shows (a finished one's mines covered
    again, so the solver sees the position the player saw)."""
    board = tuple(row.translate(_SHOWN_MINES) for row in rows)
    return "/analyse?p=" + to_link(Position(len(board[0]), len(board), mines, board))


ANALYSER_TOOLS = ("cycle", "#", "F", *"012345678", "why")
"""What a click on a cell of the analyser does: cycle its value, set one, or show why."""
_CYCLE = "#012345678F"


def cycled(ch: str) -> str:
    """The next value of a cell clicked in the analyser: covered, 0-8, flag, covered."""
    return _CYCLE[(_CYCLE.find(ch) + 1) % len(_CYCLE)]


def proof_marks(proof: Proof | None) -> dict[tuple[int, int], str]:
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
    overlay: tuple[list[str], list[list[float | None] | None]] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "overlay", (self.analysis.status_rows(),
                                             self.analysis.probability_rows()))

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
        moves = ", ".join(_named(str(m)) for m in found.moves[:8])
        more = f" and {len(found.moves) - 8} more" if len(found.moves) > 8 else ""
        if found.certain:
            return f"Play {moves}{more}: proven safe ({found.reason})."
        return f"No cell is safe: the best guess is {moves}{more} ({found.reason})."

    def marks(self) -> dict[tuple[int, int], str]:
        """The outlined cells: a proof's cell and numbers, or an impossible position's."""
        why = self.analysis.contradiction
        if why is not None:
            return {xy: "reason" for xy, _ in why.numbers}
        return proof_marks(self.shown_proof)

    def rows(self) -> Iterator[list[CellView]]:
        """Every cell, row by row, with the analysis drawn as the debug overlay."""
        marks, (status, probability) = self.marks(), self.overlay
        for y, row in enumerate(self.position.rows):
            prow = probability[y]
            yield [
                CellView(x, y, ch, status[y][x], None if prow is None else prow[x],
                         marks.get((x, y), ""))
                if ch in COVERED_CHARS and status[y][x] in KNOWLEDGE_WORDS
                else CellView(x, y, ch, marks=marks.get((x, y), ""))
                for x, ch in enumerate(row)
            ]
