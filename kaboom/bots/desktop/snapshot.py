"""One look at a game window: the grid found, each cell's reading, and a picture of both.

This is the reader run alone (``kaboom bot desktop look``), for whoever adds a game: it
never clicks, and a cell the profile cannot classify is shown, not raised.  When the
surfaces cannot be told apart, or the board read with them makes no sense, it says
"unsure" and why, and shows no reading at all.  It tells a board it cannot read from a
finished one: a lost board (a loss sign, or an ``X`` read) whose mines are read, or not,
and a board with no covered tile left.  The report lists each distinct cell image once
with the statistics its reading came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kaboom.bots.desktop.calibration import (
    Calibration,
    NoCoveredTileError,
    UnsureError,
    board_problem,
)
from kaboom.bots.desktop.grid import Grid
from kaboom.bots.desktop.look import CellLook, look_at
from kaboom.bots.desktop.profile import LOST, PLAYING, WON, MinesUnreadError, Profile
from kaboom.bots.desktop.screen import Window
from kaboom.solver import Cell, KaboomError, Position

__all__ = ["UNREAD", "Snapshot", "take_snapshot"]

UNREAD = "~"
"""How a cell the profile cannot classify is shown."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A capture, the grid found in it and what the profile reads in every cell."""

    window: Window
    image: np.ndarray
    grid: Grid
    calibration: Calibration | None
    readings: dict[Cell, str]
    looks: dict[Cell, CellLook]
    kinds: dict[Cell, int]
    """Cell -> index of its distinct image (cells with identical pixels share one)."""
    unsure: str | None = None
    """Why nothing was read (the surfaces could not be told apart), or ``None``."""
    board: str = PLAYING
    """What the board is, in words: ``playing``, ``lost (…)``, ``won (…)``, ``finished:
    …`` (no covered tile left to learn from), or ``cannot read: …``."""

    @property
    def finished(self) -> bool:
        """Whether the board is a finished game's (read, or refused for that reason)."""
        return self.board.startswith((LOST, WON, "finished"))

    @property
    def rows(self) -> list[str]:
        return ["".join(self.readings[x, y] for x in range(self.grid.cols))
                for y in range(self.grid.rows)]

    def report(self) -> str:
        """The grid, the calibration, the board as read and one line per distinct image."""
        g, w = self.grid, self.window
        lines = [f"window {w.name!r} {w.width}x{w.height} at {w.x},{w.y}",
                 f"grid {g.cols}x{g.rows} cells, pitch {g.pitch_x:g}x{g.pitch_y:g} px, "
                 f"first cell at {g.left:g},{g.top:g} in the window"]
        lines.append(f"board: {self.board}")
        if self.unsure is not None:
            lines.append(f"unsure: {self.unsure}")
        elif self.calibration is not None:
            c = self.calibration
            lines.append(f"calibration: covered {c.covered} relief {c.relief:.0f}, open "
                         f"{c.open if c.open is not None else 'not seen yet'}")
        lines += ["", *self.rows, ""]
        unread = sum(ch == UNREAD for ch in self.readings.values())
        lines.append(f"{len(set(self.kinds.values()))} distinct cell images "
                     f"({unread} cells unreadable, shown as {UNREAD}):")
        seen: set[int] = set()
        for cell, kind in self.kinds.items():
            if kind in seen:
                continue
            seen.add(kind)
            count = sum(k == kind for k in self.kinds.values())
            lk = self.looks[cell]
            ink = ", ".join(f"{k} {v:.2f}" for k, v in sorted(lk.ink.items(),
                                                                key=lambda kv: -kv[1])[:3])
            lines.append(f"  {self.readings[cell]}  x{count:<4d} e.g. {cell}: surface "
                         f"{lk.surface} relief {lk.relief:.0f} ink {lk.ink_share:.2f}"
                         + (f" ({ink})" if ink else ""))
        return "\n".join(lines)

    def save_png(self, path: str | Path) -> None:
        """Writes the capture with the grid drawn over it and each cell's reading in its
        corner (red where the profile is unsure)."""
        from PIL import Image, ImageDraw

        picture = Image.fromarray(np.ascontiguousarray(self.image[..., :3]))
        draw = ImageDraw.Draw(picture)
        for (x, y), ch in self.readings.items():
            x0, y0, x1, y1 = self.grid.rect(x, y)
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=(255, 0, 255))
            colour = (255, 0, 0) if ch == UNREAD else (255, 0, 255)
            draw.rectangle((x0 + 1, y0 + 1, x0 + 8, y0 + 11), fill=(255, 255, 255))
            draw.text((x0 + 2, y0), ch, fill=colour)
        picture.save(path)


def take_snapshot(profile: Profile, window: Window, image: np.ndarray,
                  game_id: str | None = None) -> Snapshot:
    """Finds the grid in ``image`` (a capture of ``window``), calibrates on it as the
    profile does and reads every cell; ``game_id`` tells the mine count, so a won board
    is told from one under way.  Raises
    :class:`~kaboom.bots.desktop.grid.GridNotFoundError`."""
    grid = profile.find_grid(image)
    unsure = None
    no_covered = False
    calibration: Calibration | None = None
    try:
        calibration = profile.calibrate(image, grid)
    except UnsureError as exc:
        unsure, no_covered = str(exc), isinstance(exc, NoCoveredTileError)
    readings: dict[Cell, str] = {}
    looks: dict[Cell, CellLook] = {}
    kinds: dict[Cell, int] = {}
    index: dict[bytes, int] = {}
    seen: dict[int, tuple[CellLook, str]] = {}
    for cell in grid.cells():
        x0, y0, x1, y1 = grid.rect(*cell)
        pixels = image[y0:y1, x0:x1]
        key = pixels.tobytes() + bytes((x1 - x0, y1 - y0))
        kind = kinds[cell] = index.setdefault(key, len(index))
        if kind not in seen:
            look = look_at(pixels, profile.palette, profile.ink_threshold)
            ch = None if calibration is None else profile.classify(look, calibration)
            seen[kind] = look, UNREAD if ch is None else ch
        looks[cell], readings[cell] = seen[kind]
    rows = ["".join(readings[x, y] for x in range(grid.cols)) for y in range(grid.rows)]
    if calibration is not None and calibration.open is not None and UNREAD not in "".join(rows):
        problem = board_problem(rows, profile.zeros_open_around)
        if problem:
            unsure = f"the board read with these surfaces makes no sense: {problem}"
    board = _board(profile, image, grid, rows, looks, unsure, no_covered, game_id)
    if unsure is not None:
        readings = dict.fromkeys(readings, UNREAD)
    return Snapshot(window, image, grid, calibration, readings, looks, kinds, unsure, board)


def _board(profile: Profile, image: np.ndarray, grid: Grid, rows: list[str],
           looks: dict[Cell, CellLook], unsure: str | None, no_covered: bool,
           game_id: str | None) -> str:
    """What the board is, from what was read and the loss sign (:attr:`Snapshot.board`)."""
    if no_covered:
        return ("finished: no covered tile is left (every cell open, or open and mines); "
                "the reader learns the covered tiles' look from a board that has some, so "
                "look at one under way")
    sign = profile.loss_sign(image, grid)
    if unsure is not None:
        return f"{LOST} ({sign}), and unsure" if sign else f"cannot read: unsure ({unsure})"
    unread = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == UNREAD]
    if unread:
        if sign:
            mines = sum(row.count("*") + row.count("X") for row in rows)
            return f"{LOST} ({sign}); {MinesUnreadError(unread, looks[unread[0]], sign, mines).why}"
        return f"cannot read: {len(unread)} cells classify does not know (shown {UNREAD})"
    exploded = next(((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row)
                     if ch == "X"), None)
    if sign or exploded:
        return f"{LOST} ({sign or f'cell {exploded} reads X'})"
    try:
        mines = profile.mine_count(game_id, grid.cols, grid.rows)
        outcome = profile.outcome(Position.from_rows(rows, mines))
    except (ValueError, KaboomError):  # no count for this size, or no such board
        return f"{PLAYING} (or won: no mine count to tell; pass --game-id)"
    if outcome == WON:
        return f"{WON} (the cells still covered are the {mines} mines)"
    return outcome
