"""Per-game knowledge for the screen driver, behind one small interface, found by name.

A :class:`Profile` says how to start a game and find its window, what a cell of that
game looks like (a palette for the digits plus rules over
:class:`~kaboom.bots.desktop.look.CellLook` statistics), how many mines a board has, and
how to start the next game.  Grid detection, capture, clicking and the play loop are shared.

Profiles are plugins: each one, built-in or from another package, is a class named in
the ``kaboom.desktop_profiles`` entry-point group (``name = "module:Class"`` in that
package's ``pyproject.toml``), and :func:`find_profile` loads it by that name.

The contract is values in, values out: :meth:`Profile.calibrate` returns what a
capture's covered and open surfaces look like (told apart by the board's structure,
:mod:`~kaboom.bots.desktop.calibration`), :meth:`Profile.classify` returns one cell's
character.  The base class's :meth:`Profile.read` (final) owns the state: when to
calibrate, the calibration kept once established, the memo of cell readings.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import ClassVar, final

import numpy as np

from kaboom.bots.desktop.calibration import (
    Calibration,
    UnsureError,
    board_problem,
    cell_key,
    measure,
    surfaces,
)
from kaboom.bots.desktop.grid import Grid, find_grid
from kaboom.bots.desktop.input import Pointer
from kaboom.bots.desktop.look import RGB, CellLook, colour_distance, look_at
from kaboom.bots.desktop.screen import Screen, Window
from kaboom.solver import Position

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOST",
    "PLAYING",
    "WON",
    "Calibration",
    "MinesUnreadError",
    "Profile",
    "UnreadableCellError",
    "UnsureError",
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


class MinesUnreadError(UnreadableCellError):
    """Raised when the board shows the loss the profile declares (:attr:`Profile.exploded`)
    but ``classify`` cannot read a cell of it: the profile has no reader for the game's
    mines.  The game is lost all the same."""

    def __init__(self, cell: tuple[int, int], look: CellLook, sign: tuple[int, int]) -> None:
        RuntimeError.__init__(
            self, f"the game is lost (cell {sign} shows the exploded mine), but the "
                  f"profile's classify reads nothing at {cell} ({look}): teach it the "
                  "game's mines ('X' for the one stepped on, '*' for the others)")
        self.cell = cell
        self.look = look
        self.sign = sign


class Profile(ABC):
    """One desktop Minesweeper: how to launch it, see it, count its mines and restart it.

    Subclasses set :attr:`name`, :attr:`window_pattern` and :attr:`palette` and define
    :meth:`mine_count`; every other attribute and method has a default that a game may
    override (docs/desktop.md lists them and what each returns).  :meth:`read` is final:
    it owns the calibration and the memo of cell readings, whatever is overridden.
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
    raised_tiles: ClassVar[bool | None] = None
    """Whether covered tiles stand raised (a light top-left edge) over open cells: ``True``
    for bevelled tiles, ``False`` when a raised look means nothing (flat tiles; mines or
    marks drawn raised), ``None`` when the profile does not say."""
    covered_colour: ClassVar[RGB | None] = None
    """The covered tiles' surface colour, when the game's theme fixes it."""
    open_colour: ClassVar[RGB | None] = None
    """The open cells' surface colour, when the game's theme fixes it."""
    exploded: ClassVar[RGB | None] = None
    """A colour only a lost board shows (the square of the mine stepped on): with it, a
    loss is recognised even where ``classify`` reads no mine."""
    exploded_share: ClassVar[float] = 0.3
    """How much of a cell must be :attr:`exploded` to count."""

    def __init__(self) -> None:
        # the base class's own state; overrides never touch it (they return values)
        self._calibration: Calibration | None = None
        self._memo: dict[bytes, str | None] = {}
        self._pitch: tuple[float, float] | None = None

    @property
    def calibration(self) -> Calibration | None:
        """The calibration the reader holds: from the last capture until it is
        established (covered and open both seen and the board made sense), then kept."""
        return self._calibration

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
        """What the covered and open surfaces look like in this capture; raises
        :class:`UnsureError` when it cannot tell.  Returns a value and keeps nothing:
        :meth:`read` decides when to ask and keeps what it answers.

        The default tells them apart by the board's structure and what the profile
        declares (:mod:`~kaboom.bots.desktop.calibration`), never by which is larger.
        """
        return surfaces(measure(image, grid, self.palette, self.ink_threshold),
                        self.covered_colour, self.open_colour, self.raised_tiles)

    def classify(self, look: CellLook, calibration: Calibration) -> str | None:
        """The board character for a cell (``#F012345678*X?!``), or ``None`` if unsure.

        The default reads a covered tile (``F`` if it carries ink), and on the open
        surface a ``0`` or the palette digit with the most ink.  Games with mines,
        marks or coloured cells to tell apart override it.
        """
        cal = calibration
        if cal.is_covered(look):
            return "#" if look.ink_share < cal.covered_ink + 0.05 else "F"
        if cal.open is not None and not cal.is_open(look):
            return None
        digits = {k: v for k, v in look.ink.items() if k in "12345678" and v >= 0.004}
        if digits:  # (a small digit on a big square is a few per cent of it)
            return max(digits, key=lambda k: digits[k])
        return "0" if look.ink_share < 0.03 else None

    @final
    def read(self, image: np.ndarray, grid: Grid) -> list[str]:
        """Classifies every cell; raises :class:`UnreadableCellError` on the first doubt
        (:class:`MinesUnreadError` if the board shows the profile's loss sign) and
        :class:`UnsureError` when the surfaces cannot be told apart.

        Until the calibration is established, every capture calibrates again, and what
        it says must agree with what earlier captures said; then it is kept.
        Identical pixels always get the same answer, so results are memoised on the
        cell's raw bytes: a board usually shows a dozen distinct cell images.
        """
        pitch = (grid.pitch_x, grid.pitch_y)
        if pitch != self._pitch:  # another tile size: another look
            self._pitch = pitch
            self._keep(None)
        held = self._calibration
        fresh = held is None or held.open is None
        if fresh:
            cal = self.calibrate(image, grid)
            if held is not None and (colour_distance(cal.covered, held.covered) > 30
                                     or abs(cal.relief - held.relief) > 10):
                self._keep(None)
                raise UnsureError(f"this capture's covered surface {cal.covered} relief "
                                  f"{cal.relief:.0f} is not the one read before "
                                  f"({held.covered} relief {held.relief:.0f})")
            if cal != held:
                self._keep(cal)
        rows = self._classify_all(image, grid)
        if fresh and self._calibration is not None and self._calibration.open is not None:
            problem = board_problem(rows, self.zeros_open_around)
            if problem:  # a calibration is established only on a board that makes sense
                self._keep(held)
                raise UnsureError(f"the board read with surfaces covered "
                                  f"{cal.covered} and open {cal.open} makes no sense: {problem}")
        return rows

    def _keep(self, calibration: Calibration | None) -> None:
        self._calibration = calibration
        self._memo.clear()

    def _classify_all(self, image: np.ndarray, grid: Grid) -> list[str]:
        cal = self._calibration
        assert cal is not None
        rows = []
        for y in range(grid.rows):
            row = []
            for x in range(grid.cols):
                key, pixels = cell_key(image, grid, x, y)
                if key not in self._memo:
                    self._memo[key] = self.classify(
                        look_at(pixels, self.palette, self.ink_threshold), cal)
                ch = self._memo[key]
                if ch is None:
                    raise self._unreadable(image, grid, (x, y))
                row.append(ch)
            rows.append("".join(row))
        return rows

    def _unreadable(self, image: np.ndarray, grid: Grid,
                    cell: tuple[int, int]) -> UnreadableCellError:
        """The error for a cell ``classify`` cannot read: a missing mine reader when the
        board shows the loss the profile declares (:attr:`exploded`)."""
        look = look_at(cell_key(image, grid, *cell)[1], self.palette, self.ink_threshold)
        lost = self.loss_sign(image, grid)
        if lost is not None:
            return MinesUnreadError(cell, look, lost)
        return UnreadableCellError(cell, look)

    @final
    def loss_sign(self, image: np.ndarray, grid: Grid) -> tuple[int, int] | None:
        """The cell that shows the profile's declared loss sign (:attr:`exploded`), or
        ``None``: a loss recognised without reading any mine."""
        if self.exploded is None:
            return None
        colour = np.asarray(self.exploded, dtype=np.int32)
        for c in grid.cells():
            pixels = cell_key(image, grid, *c)[1][..., :3].astype(np.int32)
            near = np.sqrt(((pixels - colour) ** 2).sum(axis=2)) <= 60
            if near.mean() >= self.exploded_share:
                return c
        return None

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
