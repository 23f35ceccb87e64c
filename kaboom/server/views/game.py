"""A game as one viewer's page shows it: the board's cells, the counters' and banner's
words, the marks a loss or a replay draws.

The templates (``kaboom/web/templates/``) lay these out; a rule of what is shown is written
once, here, and never in the browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kaboom.server.assistance import Hint
from kaboom.server.game import Game
from kaboom.server.views.cell import CellView, Overlay, overlay_of, percent
from kaboom.solver import PRESETS, Analysis, Cell, Position, Proof, to_link
from kaboom.solver.position import GameStatus, LossReason

__all__ = ["PRESET_LABELS", "GameView", "Role", "changed", "hint_words", "named", "position_link",
           "preset_of"]

Role = Literal["player", "spectator"]
"""Whether the viewer holds the game's player token."""

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


def preset_of(width: int, height: int, mines: int) -> str | None:
    """The preset with this size and mine count, or None for a custom game."""
    for name in PRESET_LABELS:
        if PRESETS[name] == (width, height, mines):
            return name
    return None


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
    replay_at: int | None = None
    """The move a finished game's replay shows (``game.rows`` are then that board)."""
    replay_move: str = ""
    """The move that led to the replay's board (``reveal 3 4``)."""
    best: bool = False
    """Whether this won game is the fastest win its viewer's browser counted on its preset
    (:mod:`kaboom.server.statistics`)."""
    overlay: Overlay | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.analysis is not None:
            object.__setattr__(self, "overlay", overlay_of(self.analysis))

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

    def marks(self) -> dict[Cell, str]:
        """Classes drawn on cells by the game itself: the loss's safe cell and, once its
        proof is known, the numbers that prove it; on the replay's board before the losing
        click, that click too."""
        out: dict[Cell, str] = {}
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
        text = f"Move {at} of {n}: {named(self.replay_move)}." if self.replay_move else ""
        loss, proof = self.game.loss, self.loss_proof
        if at == n - 1 and loss is not None and loss.safe_cell is not None and proof:
            sx, sy = loss.safe_cell
            text += (f" Next, the losing click at ({loss.x}, {loss.y}), while ({sx}, {sy}) was"
                     f" provably safe: {proof.text}.")
        return text

    def cell(self, x: int, y: int, marks: dict[Cell, str]) -> CellView:
        return CellView.of(x, y, self.game.rows[y][x], self.overlay, marks.get((x, y), ""))

    def rows(self) -> Iterator[list[CellView]]:
        """Every cell, row by row."""
        marks = self.marks()
        for y in range(self.game.rules.height):
            yield [self.cell(x, y, marks) for x in range(self.game.rules.width)]

    def cells(self, changed: Iterable[Cell]) -> list[CellView]:
        """The cells at ``changed``, as drawn now."""
        marks = self.marks()
        return [self.cell(x, y, marks) for x, y in changed]


def named(move: str) -> str:
    """``reveal 3 4`` as ``reveal (3, 4)``."""
    kind, _, xy = move.partition(" ")
    return f"{kind} ({xy.replace(' ', ', ')})" if xy else move


def _on(flag: bool) -> str:
    """A checkbox's value in a form: present when on."""
    return "on" if flag else ""


_SHOWN_MINES = str.maketrans({"*": "#", "X": "#", "!": "F"})
"""A finished board's mines as the position before them: covered (a wrong flag a flag)."""


def position_link(rows: Sequence[str], mines: int) -> str:
    """The analyser's address of a board a game shows (a finished one's mines covered
    again, so the solver sees the position the player saw)."""
    board = tuple(row.translate(_SHOWN_MINES) for row in rows)
    return "/analyse?p=" + to_link(Position(len(board[0]), len(board), mines, board))


def changed(before: GameView, after: GameView) -> list[Cell]:
    """The cells drawn differently in two views of one board size: their character or
    their marks, row by row."""
    where = {(x, y) for y, (a, b) in enumerate(zip(before.game.rows, after.game.rows,
                                                     strict=True))
             if a != b for x, (p, q) in enumerate(zip(a, b, strict=True)) if p != q}
    marks_before, marks_after = before.marks(), after.marks()
    where |= {xy for xy in marks_before.keys() | marks_after.keys()
              if marks_before.get(xy) != marks_after.get(xy)}
    return sorted(where, key=lambda xy: (xy[1], xy[0]))


def hint_words(found: Hint) -> str:
    """A hint in words, for the reason line."""
    names = [f"({x}, {y})" for x, y in found.cells]
    if found.kind == "safe" and found.proof is not None:
        return f"Hint: {names[0]} is safe: {found.proof.text}."
    if found.kind == "first_click":
        return f"Hint: the first click is always safe; {names[0]} is a good start."
    text = "Hint: no cell is provably safe, so the next click is a forced guess."
    if found.probability is not None and names:
        shown = ", ".join(names) if len(names) <= 6 else (
            f"{', '.join(names[:6])} and {len(names) - 6} more")
        text += f" The best odds: {percent(found.probability)} mine, at {shown}."
    return text
