"""Per-game knowledge for the screen driver, behind one small interface, found by name.

A :class:`Profile` says how to start a game and find its window, what a cell of that
game looks like (a palette for the digits plus rules over :class:`~bots.desktop.look.CellLook`
statistics), how many mines a board has, and how to start the next game.  Grid
detection, capture, clicking and the play loop are shared, so adding a game means
writing one profile module and decorating its class with :func:`register`.

Profiles calibrate themselves from the screen: :meth:`Profile.calibrate` learns the
covered and open surfaces (colour and relief) from the cells of the first screenshot,
and classification compares each cell to those learned references and to the
palette, never to fixed pixel coordinates.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bots.desktop.grid import Grid, find_grid
from bots.desktop.input import Pointer
from bots.desktop.look import RGB, CellLook, colour_distance, look_at
from bots.desktop.screen import Screen, Window
from solver.position import Position

__all__ = [
    "LOST",
    "PLAYING",
    "WON",
    "Calibration",
    "Profile",
    "UnreadableCellError",
    "find_profile",
    "profile_names",
    "register",
]

PLAYING, WON, LOST = "playing", "won", "lost"


class UnreadableCellError(RuntimeError):
    """Raised when a cell matches no known state (mid-animation, covered by a menu...)."""

    def __init__(self, cell: tuple[int, int], look: CellLook) -> None:
        super().__init__(f"cannot classify cell {cell}: {look}")
        self.cell = cell
        self.look = look


@dataclass(frozen=True, slots=True)
class Calibration:
    """What this game's surfaces look like on this screen, learned from a screenshot."""

    covered: RGB
    relief: float
    open: RGB | None


class Profile(ABC):
    """One desktop Minesweeper: how to launch it, see it, count its mines and restart it."""

    name: ClassVar[str]
    window_pattern: ClassVar[str]
    """Regex matched against window names and WM_CLASS."""
    palette: ClassVar[Mapping[str, RGB]]
    """Named ink colours the cell rules refer to (digits, flag, mine)."""
    ink_threshold: ClassVar[float] = 80.0
    stable_gap: ClassVar[float] = 0.04
    """Seconds between the two captures that must agree before a reading is trusted."""
    zeros_open_around: ClassVar[bool] = True
    """Whether the game opens the neighbours of a 0 itself (a reading that shows a 0 next
    to a covered cell is then a half-painted frame)."""
    outside_guess: ClassVar[bool] = True
    """Whether the solver may guess away from the frontier (Kaboom's rules punish it)."""

    def __init__(self) -> None:
        self.calibration: Calibration | None = None
        self._memo: dict[bytes, str | None] = {}

    # ------------------------------------------------------------------ game process
    def command(self, game_id: str | None) -> list[str] | None:
        """The command line that starts the game, or ``None`` if it cannot be launched."""
        return None

    def environment(self) -> dict[str, str]:
        """Extra environment variables for the game process."""
        return {}

    def launch(self, game_id: str | None, display: str) -> subprocess.Popen[bytes] | None:
        """Starts the game on ``display``; returns the process (the caller ends it)."""
        cmd = self.command(game_id)
        if cmd is None:
            return None
        env = {**os.environ, **self.environment(), "DISPLAY": display}
        return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def find_window(self, screen: Screen, timeout: float = 10.0) -> Window:
        return screen.find_window(self.window_pattern, timeout)

    def next_game_id(self, game_id: str | None, index: int) -> str | None:
        """The id of game number ``index`` (0-based) in a series started from ``game_id``."""
        return game_id

    def new_game(self, pointer: Pointer, window: Window) -> None:
        """Starts a new game in the running window (default: the usual ``F2``).

        The pointer rests over the window's top edge, so the window has the keyboard
        (with no window manager, focus follows the pointer).
        """
        pointer.key("F2")

    # ------------------------------------------------------------------ board
    def find_grid(self, image: np.ndarray) -> Grid:
        """The board's lattice in a window screenshot."""
        return find_grid(image)

    @abstractmethod
    def mine_count(self, game_id: str | None, width: int, height: int) -> int:
        """The total number of mines on a ``width`` x ``height`` board."""

    def calibrate(self, image: np.ndarray, grid: Grid) -> Calibration:
        """Learns the covered and open surfaces from the cells in ``image``.

        Covered cells are the raised ones (relief at least half the strongest);
        the open surface is the commonest surface of flat, ink-free cells, if any.
        """
        distinct: dict[bytes, CellLook] = {}
        looks = []
        for c in grid.cells():  # a board shows few distinct cell images: measure each once
            x0, y0, x1, y1 = grid.rect(*c)
            cell = image[y0:y1, x0:x1]
            key = cell.tobytes() + bytes((x1 - x0, y1 - y0))
            if key not in distinct:
                distinct[key] = look_at(cell, self.palette, self.ink_threshold)
            looks.append(distinct[key])
        # plain tiles only (a mine or a flag is no guide to the surface), unless there
        # are none, as on a finished board where every covered cell carries a flag
        plain = [lk for lk in looks if lk.ink_share < 0.05] or looks
        top = max(lk.relief for lk in plain)
        raised = [lk for lk in plain if lk.relief >= 0.5 * top]
        if top <= 0 or not raised:
            raise RuntimeError(f"{self.name}: no covered cells to calibrate on")
        covered = _commonest([lk.surface for lk in raised])
        # (a covered tile with a focus outline may look flat: open is another colour)
        flat = [lk for lk in plain if lk.relief < 0.25 * top and lk.ink_share < 0.05
                and lk.surface != covered]
        relief = float(np.median([lk.relief for lk in raised]))
        opened = _commonest([lk.surface for lk in flat]) if flat else None
        self.calibration = Calibration(covered, relief, opened)
        self._memo.clear()
        return self.calibration

    @abstractmethod
    def classify(self, look: CellLook) -> str | None:
        """The board character for a cell (``#F012345678*X``), or ``None`` if unsure."""

    def read(self, image: np.ndarray, grid: Grid) -> list[str]:
        """Classifies every cell; raises :class:`UnreadableCellError` on the first doubt.

        Identical pixels always get the same answer, so results are memoised on the
        cell's raw bytes: a board usually shows a dozen distinct cell images.
        """
        if self.calibration is None:
            self.calibrate(image, grid)
        elif self.calibration.open is None:  # until a flat cell has been seen, keep learning
            with contextlib.suppress(RuntimeError):  # e.g. no covered tile left
                self.calibrate(image, grid)
        rows = []
        for y in range(grid.rows):
            row = []
            for x in range(grid.cols):
                x0, y0, x1, y1 = grid.rect(x, y)
                cell = image[y0:y1, x0:x1]
                key = cell.tobytes() + bytes((x1 - x0, y1 - y0))
                if key not in self._memo:
                    self._memo[key] = self.classify(look_at(cell, self.palette,
                                                            self.ink_threshold))
                ch = self._memo[key]
                if ch is None:
                    raise UnreadableCellError((x, y), look_at(cell, self.palette,
                                                              self.ink_threshold))
                row.append(ch)
            rows.append("".join(row))
        return rows

    def outcome(self, position: Position) -> str:
        """``won``, ``lost`` or ``playing``, judged from the board alone."""
        if any("X" in row for row in position.rows):
            return LOST
        unflagged = sum(row.count("#") + row.count("?") for row in position.rows)
        if unflagged + len(position.flags()) == position.mines:
            return WON
        return PLAYING

    # ------------------------------------------------------------------ helpers
    def near(self, a: RGB, b: RGB | None, tolerance: float = 30.0) -> bool:
        return b is not None and colour_distance(a, b) <= tolerance


def _commonest(colours: Sequence[RGB]) -> RGB:
    return Counter(colours).most_common(1)[0][0]


_REGISTRY: dict[str, type[Profile]] = {}


def register(cls: type[Profile]) -> type[Profile]:
    """Class decorator: makes a profile findable by its ``name``."""
    _REGISTRY[cls.name] = cls
    return cls


def _load_builtin() -> None:
    from bots.desktop.profiles import kaboom_page, sgt_mines  # noqa: F401  (registers)


def find_profile(name: str) -> Profile:
    """A fresh profile instance for the game called ``name``."""
    _load_builtin()
    try:
        return _REGISTRY[name]()
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown game {name!r}; known games: {known}") from None


def profile_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)
