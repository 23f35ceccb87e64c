"""A game's record (every board read, the first and last captures, the clicks) and its check.

``kaboom bot desktop play --record DIR`` writes one folder a game (``DIR/game-001``, …,
numbered on after the games already in ``DIR``, so a record is never overwritten):

* ``reads.txt``: every reading the driver accepted (two captures that agreed, with the
  open cells' numbers kept), in order, each a ``read N at T s`` line (seconds since the
  game's start), the board's rows as text and a blank line; the last one is read after
  the game ended;
* ``clicks.txt``: every click, ``T s reveal|flag|chord X Y``;
* ``first.png`` and ``last.png``: the captures (of the window) of the first and the last
  accepted reading;
* ``game.json``: the profile, the game's record (:meth:`GameRecord.to_json`) and
  ``grids``, each grid the board was read in (window coordinates, as the captures) from
  the reading it was first used in.

``kaboom bot desktop check DIR`` checks a finished game's reads against its final board:
the layout of the mines is what the final board shows (after a loss every mine is drawn;
after a win the covered cells are the mines), and every cell of every read must agree
with it (a number counts the mines around it, a mine is a mine, a covered cell was never
read open before).  This is how a profile's author verifies a new profile.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kaboom.bots.desktop.grid import Grid
from kaboom.solver import Cell, Move, MoveKind
from kaboom.solver.position import neighbours

__all__ = ["Check", "Recorder", "check_game", "game_folders"]

_DIGITS = "012345678"
_MINES = "*X"


class Recorder:
    """Writes the record of each game a session plays into ``folder``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.games = len(game_folders(self.folder))
        self._game: Path | None = None
        self._start = 0.0
        self._reads = 0
        self._last: np.ndarray | None = None
        self._grids: list[dict[str, object]] = []

    def start(self) -> None:
        """Opens the record of the next game."""
        self.games += 1
        self._game = self.folder / f"game-{self.games:03d}"
        self._game.mkdir(parents=True, exist_ok=True)
        for name in ("reads.txt", "clicks.txt"):
            (self._game / name).write_text("")
        self._start = time.monotonic()
        self._reads = 0
        self._last = None
        self._grids = []

    def read(self, rows: list[str] | tuple[str, ...], image: np.ndarray, grid: Grid) -> None:
        """Keeps one board read, its capture if it is the first, and its grid if it is
        not the last one's."""
        if self._game is None:
            return
        self._reads += 1
        if not self._grids or self._grids[-1]["grid"] != _grid_json(grid):
            self._grids.append({"from_read": self._reads, "grid": _grid_json(grid)})
        with open(self._game / "reads.txt", "a") as f:
            f.write(f"read {self._reads} at {time.monotonic() - self._start:.3f} s\n"
                    + "\n".join(rows) + "\n\n")
        if self._reads == 1:
            _save_png(image, self._game / "first.png")
        self._last = image

    def click(self, move: Move) -> None:
        if self._game is None:
            return
        with open(self._game / "clicks.txt", "a") as f:
            f.write(f"{time.monotonic() - self._start:.3f} s {move.kind.value} "
                    f"{move.x} {move.y}\n")

    def finish(self, summary: dict[str, object]) -> Path | None:
        """Writes the last capture and ``game.json``; returns the game's folder."""
        game, self._game = self._game, None
        if game is None:
            return None
        if self._last is not None:
            _save_png(self._last, game / "last.png")
        (game / "game.json").write_text(json.dumps({**summary, "grids": self._grids},
                                                   indent=1) + "\n")
        return game


def _grid_json(grid: Grid) -> dict[str, object]:
    """A grid as JSON: its fields, and every cell's box edges (``x``: the columns' left
    edges and the last one's right edge; ``y`` likewise), as :meth:`Grid.rect` cuts."""
    return {"cols": grid.cols, "rows": grid.rows, "left": grid.left, "top": grid.top,
            "pitch_x": grid.pitch_x, "pitch_y": grid.pitch_y,
            "x": [grid.rect(i, 0)[0] for i in range(grid.cols)] + [grid.rect(grid.cols - 1, 0)[2]],
            "y": [grid.rect(0, j)[1] for j in range(grid.rows)] + [grid.rect(0, grid.rows - 1)[3]]}


def _save_png(image: np.ndarray, path: Path) -> None:
    from PIL import Image

    Image.fromarray(np.ascontiguousarray(image[..., :3])).save(path)


def game_folders(folder: str | Path) -> list[Path]:
    """The game records in ``folder``: itself if it is one, else its ``game-*`` folders."""
    folder = Path(folder)
    if (folder / "reads.txt").exists():
        return [folder]
    return sorted(p for p in folder.glob("game-*") if (p / "reads.txt").exists())


@dataclass(slots=True)
class Check:
    """What :func:`check_game` found."""

    folder: Path
    outcome: str
    reads: int = 0
    right: int = 0
    wrong: list[str] = field(default_factory=list)
    """One line per cell read wrong (read number, cell, what was read, what it is)."""
    unchecked: str | None = None
    """Why the record cannot be checked (an unfinished game, an impossible final board)."""
    layout_shown: bool = True
    """Whether the final board showed every mine; if not, the reads were checked against
    the final board (numbers unchanged, nothing re-covered), itself a possible position."""

    @property
    def ok(self) -> bool:
        return self.unchecked is None and not self.wrong

    def report(self) -> str:
        head = f"{self.folder.name} ({self.outcome}): "
        if self.unchecked is not None:
            return head + f"not checked: {self.unchecked}"
        against = ("" if self.layout_shown else
                   " (against the final board: it does not show the mines)")
        lines = [head + f"{self.reads} reads, {self.right + len(self.wrong)} cells read: "
                        f"{self.right} right, {len(self.wrong)} wrong{against}"]
        lines += [f"  {w}" for w in self.wrong[:20]]
        if len(self.wrong) > 20:
            lines.append(f"  … and {len(self.wrong) - 20} more")
        return "\n".join(lines)


def _reads(text: str) -> list[list[str]]:
    return [block.splitlines()[1:] for block in re.split(r"\n\n+", text.strip()) if block]


def _clicks(text: str) -> list[tuple[float, str, Cell]]:
    out = []
    for line in text.splitlines():
        t, _, kind, x, y = line.split()
        out.append((float(t), kind, (int(x), int(y))))
    return out


def _read_times(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"^read \d+ at ([\d.]+) s$", text, re.MULTILINE)]


def _layout(meta: dict[str, object], reads: list[list[str]], read_times: list[float],
            clicks: list[tuple[float, str, Cell]]) -> set[Cell] | str:
    """The mines the final board shows, or why it does not show them."""
    final = reads[-1]
    cells = {(x, y): ch for y, row in enumerate(final) for x, ch in enumerate(row)}
    if meta["outcome"] == "lost":
        mines = {c for c, ch in cells.items() if ch in _MINES + "F"}
    else:  # won: the cells left covered are the mines, less what was clicked since
        since = read_times[-1]
        opened = {c for t, kind, c in clicks if t > since and kind == MoveKind.REVEAL.value}
        mines = {c for c, ch in cells.items() if ch in "#F?" + _MINES} - opened
    if len(mines) != meta["mines"]:
        return f"the final board shows {len(mines)} mines of {meta['mines']}"
    return mines


def check_game(folder: str | Path) -> Check:
    """Checks one game's reads against the layout its final board shows, or, when it
    does not show one (sgt-mines keeps its mines hidden after a loss), against the final
    board itself, which must then be a position some layout fits."""
    folder = Path(folder)
    meta = json.loads((folder / "game.json").read_text())
    text = (folder / "reads.txt").read_text()
    reads, times = _reads(text), _read_times(text)
    check = Check(folder, str(meta["outcome"]), reads=len(reads))
    if meta["outcome"] not in ("won", "lost") or not reads:
        check.unchecked = f"the game ended {meta['outcome']}, not won or lost"
        return check
    width, height = len(reads[-1][0]), len(reads[-1])
    layout = _layout(meta, reads, times, _clicks((folder / "clicks.txt").read_text()))
    if isinstance(layout, str):
        problem = _impossible(reads[-1], int(str(meta["mines"])))
        if problem:
            check.unchecked = f"{layout}, and the final board is no position: {problem}"
            return check
        check.layout_shown = False
        final = reads[-1]
        truth = {(x, y): ch for y, row in enumerate(final) for x, ch in enumerate(row)}
    else:
        truth = {(x, y): _truth((x, y), layout, width, height)
                 for y in range(height) for x in range(width)}
    seen_open: set[Cell] = set()
    for n, rows in enumerate(reads, 1):
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                want = truth[x, y]
                if ch in _DIGITS:
                    ok = want == ch
                    seen_open.add((x, y))
                elif ch in _MINES:
                    ok = want in _MINES or (not check.layout_shown and want == "F")
                elif ch == "!":  # a flag where no mine is
                    ok = want not in _MINES
                else:  # covered, flagged or marked: never after it was read open
                    ok = (x, y) not in seen_open
                if ok:
                    check.right += 1
                else:
                    check.wrong.append(f"read {n}, cell {x},{y}: read {ch!r}, is {want!r}")
    return check


def _impossible(rows: list[str], mines: int) -> str | None:
    """Why no layout of ``mines`` mines fits ``rows`` (the exploded mine counted as one),
    or ``None``."""
    from kaboom.solver import KaboomError, Position, classify

    try:
        classify(Position.from_rows(tuple(r.replace("X", "F") for r in rows), mines))
    except KaboomError as exc:
        return str(exc)
    return None


def _truth(cell: Cell, mines: set[Cell], width: int, height: int) -> str:
    if cell in mines:
        return "*"
    return str(sum(n in mines for n in neighbours(*cell, width, height)))
