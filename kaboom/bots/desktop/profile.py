"""Per-game knowledge for the screen driver, behind one small interface, found by name.

A :class:`Profile` says how to start a game and find its window, what a cell of that
game looks like (a palette for the digits plus rules over
:class:`~kaboom.bots.desktop.look.CellLook` statistics), how many mines a board has, and
how to start the next game.  Grid detection, capture, clicking and the play loop are shared.

Profiles are plugins: each one, built-in or from another package, is a class named in
the ``kaboom.desktop_profiles`` entry-point group (``name = "module:Class"`` in that
package's ``pyproject.toml``), and :func:`find_profile` loads it by that name.

Profiles calibrate themselves from the screen: :meth:`Profile.calibrate` learns the
covered and open surfaces from what repeats on the board (the tiles of a new game are
all covered; what the first clicks open is the open surface), by colour and by relief,
so flat tiles and games whose open and covered cells share a grey work alike.
Classification compares each cell with those learned references and with the
palette, never with fixed pixel coordinates.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import ClassVar

import numpy as np

from kaboom.bots.desktop.grid import Grid, find_grid
from kaboom.bots.desktop.input import Pointer
from kaboom.bots.desktop.look import RGB, CellLook, colour_distance, look_at
from kaboom.bots.desktop.screen import Screen, Window
from kaboom.solver.position import Position

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOST",
    "PLAYING",
    "WON",
    "Calibration",
    "Profile",
    "UnreadableCellError",
    "find_profile",
    "locate_colour",
    "profile_names",
]

PLAYING, WON, LOST = "playing", "won", "lost"

ENTRY_POINT_GROUP = "kaboom.desktop_profiles"
"""The entry-point group that names every desktop game profile."""


class UnreadableCellError(RuntimeError):
    """Raised when a cell matches no known state (mid-animation, covered by a menu...)."""

    def __init__(self, cell: tuple[int, int], look: CellLook) -> None:
        super().__init__(f"cannot classify cell {cell}: {look}")
        self.cell = cell
        self.look = look


@dataclass(frozen=True, slots=True)
class Calibration:
    """What this game's surfaces look like on this screen, learned from the board.

    ``relief`` is how much lighter a covered tile's top-left edge is than its surface
    (0 for flat tiles); ``open`` is ``None`` until an open cell has been seen.
    """

    covered: RGB
    relief: float
    open: RGB | None
    covered_ink: float = 0.0
    """The ink share of a plain covered tile (a bevel's shadow may reach its middle)."""


@dataclass(slots=True)
class _Cluster:
    """Plain cells (no ink) of one surface colour and relief, while calibrating."""

    surface: RGB
    reliefs: list[float] = field(default_factory=list)
    inks: list[float] = field(default_factory=list)
    count: int = 0

    @property
    def relief(self) -> float:
        return float(np.median(self.reliefs))

    @property
    def ink(self) -> float:
        return float(np.median(self.inks))


def _same_surface(a: CellLook, c: _Cluster) -> bool:
    return (colour_distance(a.surface, c.surface) <= 30
            and abs(a.relief - c.relief) <= max(8.0, 0.35 * max(a.relief, c.relief)))


class Profile(ABC):
    """One desktop Minesweeper: how to launch it, see it, count its mines and restart it.

    Subclasses set :attr:`name`, :attr:`window_pattern` and :attr:`palette` and define
    :meth:`mine_count`; every other method has a default that a game may override
    (docs/desktop.md lists them, with examples).
    """

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
        """The command line that starts the game, or ``None`` if it cannot be launched.

        Called only to launch; a game that prepares files for its launch (a settings
        file, a browser profile) does it here.
        """
        return None

    def can_launch(self, game_id: str | None) -> bool:
        """Whether :meth:`launch` can start game ``game_id``, asked before attaching to a
        running window; it must not prepare anything.  Raises ``ValueError`` for an id
        the game does not take.  The default asks :meth:`command`, so a game whose
        ``command`` prepares files overrides it."""
        return self.command(game_id) is not None

    def environment(self) -> dict[str, str]:
        """Extra environment variables for the game process."""
        return {}

    def launch(self, game_id: str | None, display: str) -> subprocess.Popen[bytes] | None:
        """Starts the game on ``display`` in a session of its own; returns the process
        (the caller ends it and everything in its process group)."""
        cmd = self.command(game_id)
        if cmd is None:
            return None
        env = {**os.environ, **self.environment(), "DISPLAY": display}
        return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)

    def stop(self, process: subprocess.Popen[bytes]) -> None:
        """Ends a game :meth:`launch` started, and every process it started in turn (a
        browser's helpers would otherwise outlive it): SIGTERM to its process group, then
        SIGKILL to whatever is left once the game has exited (or after five seconds)."""
        group = process.returncode is None and _leads_group(process.pid)
        _signal(process, group, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)
        _signal(process, group, signal.SIGKILL)
        process.wait(5)
        deadline = time.monotonic() + 5
        while group and _group_running(process.pid) and time.monotonic() < deadline:
            time.sleep(0.01)  # SIGKILL lands when the process next runs

    def find_window(self, screen: Screen, timeout: float = 10.0) -> Window:
        return screen.find_window(self.window_pattern, timeout)

    def next_game_id(self, game_id: str | None, index: int) -> str | None:
        """The id of game number ``index`` (0-based) in a series started from ``game_id``."""
        return game_id

    def new_game(self, pointer: Pointer, window: Window, image: np.ndarray,
                 grid: Grid | None) -> None:
        """Starts a new game in the running window (default: the usual ``F2``).

        ``image`` is a capture of the window as it is now and ``grid`` the last board
        found in it (window coordinates), so a game whose new-game action is a button
        or a face can find it on the screen (:func:`locate_colour`).  The pointer rests
        over the window's top edge, so the window has the keyboard (with no window
        manager, focus follows the pointer).
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

        Cells without ink are grouped by surface colour and relief.  The covered
        surface is the largest group (all of a new game's board), unless another large
        group stands clearly more raised (a bevelled tile, when an opening is bigger
        than the covered rest); the open surface is the largest other group, once
        a click has opened something.
        """
        looks: dict[bytes, CellLook] = {}
        counts: Counter[bytes] = Counter()
        for c in grid.cells():  # a board shows few distinct cell images: measure each once
            x0, y0, x1, y1 = grid.rect(*c)
            cell = image[y0:y1, x0:x1]
            key = cell.tobytes() + bytes((x1 - x0, y1 - y0))
            if key not in looks:
                looks[key] = look_at(cell, self.palette, self.ink_threshold)
            counts[key] += 1
        if not looks:
            raise RuntimeError(f"{self.name}: no cells to calibrate on")
        # plain cells only: a mine, a flag or a digit is no guide to the surface.
        # "Plain" is as inky as the commonest image, at most (a bevel's shadow may
        # reach into a covered tile's middle).
        measured = [(looks[key], n) for key, n in counts.most_common()]
        base = measured[0][0].ink_share
        clusters: list[_Cluster] = []
        for look, n in measured:
            if look.ink_share >= base + 0.05:
                continue
            home = next((c for c in clusters if _same_surface(look, c)), None)
            if home is None:
                home = _Cluster(look.surface)
                clusters.append(home)
            home.reliefs.extend([look.relief] * n)
            home.inks.extend([look.ink_share] * n)
            home.count += n
        clusters.sort(key=lambda c: -c.count)
        covered = clusters[0]
        sizeable = [c for c in clusters if c.count >= max(2, 0.1 * covered.count)]
        raised = max(sizeable, key=lambda c: c.relief)
        if raised.relief >= covered.relief + max(10.0, 0.5 * covered.relief):
            covered = raised
        rest = [c for c in clusters if c is not covered and c.relief < covered.relief + 10]
        opened = next((c for c in rest if c.count >= 2), None)  # not one hovered tile
        self.calibration = Calibration(
            covered.surface, covered.relief,
            opened.surface if opened else None, covered.ink)
        self._memo.clear()
        return self.calibration

    def is_covered(self, look: CellLook) -> bool:
        """Whether a cell shows the covered surface (it may carry a flag or a mark)."""
        cal = self.calibration
        assert cal is not None, "calibrate() first"
        return self.near(look.surface, cal.covered) and look.relief >= 0.5 * cal.relief

    def is_open(self, look: CellLook) -> bool:
        """Whether a cell shows the open surface (empty, or with a digit on it)."""
        cal = self.calibration
        assert cal is not None, "calibrate() first"
        return (cal.open is not None and self.near(look.surface, cal.open)
                and not self.is_covered(look))

    def classify(self, look: CellLook) -> str | None:
        """The board character for a cell (``#F012345678*X?!``), or ``None`` if unsure.

        The default reads a covered tile (``F`` if it carries ink), and on the open
        surface a ``0`` or the palette digit with the most ink.  Games with mines,
        marks or coloured cells to tell apart override it.
        """
        cal = self.calibration
        if self.is_covered(look):
            assert cal is not None
            return "#" if look.ink_share < cal.covered_ink + 0.05 else "F"
        if cal is not None and cal.open is not None and not self.is_open(look):
            return None
        digits = {k: v for k, v in look.ink.items() if k in "12345678" and v >= 0.004}
        if digits:  # (a small digit on a big square is a few per cent of it)
            return max(digits, key=lambda k: digits[k])
        return "0" if look.ink_share < 0.03 else None

    def read(self, image: np.ndarray, grid: Grid) -> list[str]:
        """Classifies every cell; raises :class:`UnreadableCellError` on the first doubt.

        Identical pixels always get the same answer, so results are memoised on the
        cell's raw bytes: a board usually shows a dozen distinct cell images.
        """
        if self.calibration is None or self.calibration.open is None:
            # until an open cell has been seen, keep learning (the first click shows one)
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


def locate_colour(image: np.ndarray, colour: RGB, tolerance: float = 40.0,
                  box: tuple[int, int, int, int] | None = None,
                  min_pixels: int = 20) -> tuple[int, int] | None:
    """The centre ``(x, y)`` of the pixels of ``colour`` in ``image`` (within ``box``,
    ``(x0, y0, x1, y1)``), or ``None`` if fewer than ``min_pixels`` match.

    Finds a game's face or button by its colour wherever the window lays it out.
    """
    x0, y0, x1, y1 = box or (0, 0, image.shape[1], image.shape[0])
    part = image[max(0, y0):y1, max(0, x0):x1, :3].astype(np.int32)
    far = np.sqrt(((part - np.asarray(colour, dtype=np.int32)) ** 2).sum(axis=2))
    ys, xs = np.nonzero(far <= tolerance)
    if len(xs) < min_pixels:
        return None
    return max(0, x0) + round(float(xs.mean())), max(0, y0) + round(float(ys.mean()))


def _entry_points() -> dict[str, EntryPoint]:
    """The profiles installed in this environment, by game name."""
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        other = found.setdefault(ep.name, ep)
        if other.value != ep.value:
            raise ValueError(f"two profiles are installed as {ep.name!r}: "
                             f"{other.value} and {ep.value}")
    return found


def find_profile(name: str) -> Profile:
    """A fresh instance of the profile installed as ``name``.

    Raises :class:`ValueError` for an unknown name or an entry point that does not
    name a :class:`Profile` subclass.
    """
    eps = _entry_points()
    if name not in eps:
        known = ", ".join(sorted(eps)) or "none"
        raise ValueError(f"unknown game {name!r}; known games: {known}")
    cls = eps[name].load()
    if not (isinstance(cls, type) and issubclass(cls, Profile)):
        raise ValueError(f"the {ENTRY_POINT_GROUP} entry point {name!r} "
                         f"({eps[name].value}) is not a Profile subclass")
    return cls()


def profile_names() -> list[str]:
    """The names of every installed profile."""
    return sorted(_entry_points())


def _leads_group(pid: int) -> bool:
    """Whether the process leads its own process group, as :meth:`Profile.launch` starts
    games (a ``launch`` override may not)."""
    try:
        return os.getpgid(pid) == pid
    except ProcessLookupError:
        return False


def _group_running(pgid: int) -> bool:
    """Whether a process of the group is still running (orphans' zombies wait for
    whoever adopted them; they hold nothing)."""
    try:
        entries = [e.path for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:  # no /proc: nothing to wait for
        return False
    for path in entries:
        try:
            stat = Path(path, "stat").read_text()
        except OSError:
            continue
        state, _, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            return True
    return False


def _signal(process: subprocess.Popen[bytes], group: bool, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        if group:
            os.killpg(process.pid, sig)
        elif process.poll() is None:
            process.send_signal(sig)
