"""Per-game knowledge for the screen driver, behind one small interface, found by name.

A :class:`Profile` says how to start a game and find its window, what a cell of that
game looks like (a palette for the digits plus rules over
:class:`~kaboom.bots.desktop.look.CellLook` statistics), how many mines a board has, and
how to start the next game.  Grid detection, capture, clicking and the play loop are shared.

Profiles are plugins: each one, built-in or from another package, is a class named in
the ``kaboom.desktop_profiles`` entry-point group (``name = "module:Class"`` in that
package's ``pyproject.toml``), and :func:`find_profile` loads it by that name.

The contract is values in, values out: :meth:`Profile.calibrate` returns what a
capture's covered and open surfaces look like (told apart by the board's structure),
:meth:`Profile.classify` returns one cell's character.  The base class's
:meth:`Profile.read` (final) owns the state: when to calibrate, the calibration kept
once established, the memo of cell readings.  The contract has a version
(:data:`CONTRACT_VERSION`); a profile declares the one it is written for and is
refused when it is loaded if that is not this one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
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
from kaboom.bots.desktop.contract import (
    CONTRACT_VERSION,
    MIGRATION_NOTES,
    ProfileContractError,
    check_contract,
)
from kaboom.bots.desktop.grid import Grid, find_grid
from kaboom.bots.desktop.input import Pointer
from kaboom.bots.desktop.look import RGB, CellLook, colour_distance, look_at
from kaboom.bots.desktop.screen import Screen, Window
from kaboom.solver import Cell, Position

__all__ = [
    "CONTRACT_VERSION",
    "ENTRY_POINT_GROUP",
    "LOST",
    "PLAYING",
    "WON",
    "Calibration",
    "MinesUnreadError",
    "Profile",
    "ProfileContractError",
    "UnreadableCellError",
    "UnsureError",
    "find_profile",
    "locate_colour",
    "profile_names",
]

PLAYING = "playing"
"""The outcome of a game still under way (:meth:`Profile.outcome`)."""
WON = "won"
"""The outcome of a won game."""
LOST = "lost"
"""The outcome of a lost game."""

ENTRY_POINT_GROUP = "kaboom.desktop_profiles"
"""The entry-point group that names every desktop game profile."""


class UnreadableCellError(RuntimeError):
    """Raised when a cell matches no known state (mid-animation, covered by a menu...):
    :meth:`Profile.classify` answered ``None``.  ``cell`` is the cell and ``look`` what
    it looked like."""

    def __init__(self, cell: tuple[int, int], look: CellLook) -> None:
        super().__init__(f"cannot classify cell {cell}: {look}")
        self.cell = cell
        self.look = look


class MinesUnreadError(UnreadableCellError):
    """Raised when the board shows a loss sign (:meth:`Profile.loss_sign`) but
    ``classify`` cannot read some of its cells.  The game is lost all the same.

    The message says what is unread.  When no cell of the board reads as a mine, the
    profile has no reader for the game's mines; when some do, it reads them, and the
    unread cells show something else (the game's own message drawn over the board, as
    a rule).  ``cell`` and ``look`` are the first unread cell's, ``unread`` every unread
    cell, ``mines`` how many cells read as mines (``*`` or ``X``), ``sign`` the loss
    sign in words.
    """

    def __init__(self, unread: Sequence[Cell], look: CellLook, sign: str, mines: int) -> None:
        cell = unread[0]
        cells = f"{cell}" if len(unread) == 1 else f"{len(unread)} cells, {_span(unread)}"
        if mines:
            why = (f"the profile reads the game's mines ({mines} cells read '*' or 'X'), so "
                   f"something else is drawn at {cells} ({look}): a message the game draws "
                   "over the board? The profile reads it or tells it apart "
                   "(docs/desktop.md, 'A message inside the board')")
        else:
            why = (f"the profile's classify reads nothing at {cells} ({look}) and no cell "
                   "as a mine: teach it the game's mines ('X' for the one stepped on, '*' "
                   "for the others)")
        RuntimeError.__init__(self, f"the game is lost ({sign}); {why}")
        self.why = why
        """What is unread, and what to do about it."""
        self.cell = cell
        self.look = look
        self.sign = sign
        self.unread = tuple(unread)
        self.mines = mines


def _span(cells: Sequence[Cell]) -> str:
    """Where cells lie: from the top-left corner of their box to its bottom-right."""
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    return f"({min(xs)}, {min(ys)}) to ({max(xs)}, {max(ys)})"


class Profile(ABC):
    """One desktop Minesweeper: how to launch it, see it, count its mines and restart it.

    Subclasses set :attr:`contract`, :attr:`name`, :attr:`window_pattern` and
    :attr:`palette` and define :meth:`mine_count`; every other attribute and method has a
    default that a game may override (docs/desktop.md lists them and what each
    returns).  :meth:`read` is final: it owns the calibration and the memo of cell
    readings, whatever is overridden.  Making a profile checks its class against the
    contract (:class:`ProfileContractError`).
    """

    contract: ClassVar[int]
    """The profile contract the class is written for: :data:`CONTRACT_VERSION`."""
    name: ClassVar[str]
    """The game's name for ``--game`` (and the entry point's name)."""
    window_pattern: ClassVar[str]
    """Regex matched against window names and WM_CLASS."""
    palette: ClassVar[Mapping[str, RGB]]
    """Named ink colours the cell rules refer to (digits, flag, mine)."""
    ink_threshold: ClassVar[float] = 80.0
    """How far from a cell's surface colour (Euclidean RGB distance) a pixel counts as
    ink (:attr:`CellLook.ink_share`)."""
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
    """How much of a cell must be :attr:`exploded` to count: the share of the cell's
    whole box (:meth:`Grid.rect`, edges included) whose pixels are within 60 (Euclidean
    RGB distance) of the colour."""
    loss_window: ClassVar[str | None] = None
    """A regex on the title of a window the game opens when a game is lost ("Game
    over"): a window of the game's own over the board that matches it ends the game as
    lost, where another would stop it."""

    def __init__(self) -> None:
        _check(type(self))
        # the base class's own state; overrides never touch it (they return values)
        self._calibration: Calibration | None = None
        self._memo: dict[bytes, str | None] = {}
        self._exploded: dict[bytes, bool] = {}
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
        """The game's window: by default the largest whose title or ``WM_CLASS`` matches
        :attr:`window_pattern`, waiting up to ``timeout`` seconds for it to appear;
        raises :class:`WindowNotFoundError`."""
        return screen.find_window(self.window_pattern, timeout)

    def next_game_id(self, game_id: str | None, index: int) -> str | None:
        """The id of game number ``index`` (0-based) in a series started from ``game_id``."""
        return game_id

    def new_game(self, pointer: Pointer, window: Window, image: np.ndarray,
                 grid: Grid | None) -> None:
        """Starts a new game in the running window (default: the usual ``F2``).

        Asked for every game of a series after the first that is not launched afresh
        (:meth:`next_game_id`), after :meth:`dismiss`.  ``image`` is a capture of the
        window as it is now and ``grid`` the last board found in it (window
        coordinates), so a game whose new-game action is a button or a face can find it
        on the screen (:func:`locate_colour`).  The pointer rests over the window's top
        edge, so the window has the keyboard (with no window manager, focus follows the
        pointer).
        """
        pointer.key("F2")

    def dismiss(self, screen: Screen, pointer: Pointer, window: Window,
                dialogs: Sequence[Window]) -> None:
        """Closes what the game put over its board when a game ended (a "You won"
        dialog, a high-score table), before :meth:`new_game` starts the next one.

        ``dialogs`` are the game's own windows over the board (same ``WM_CLASS``),
        topmost first; ``screen`` finds and captures windows (a dialog's button with
        :func:`locate_colour` on ``screen.capture_window(dialog)``, then
        ``pointer.click(dialog, x, y)``).  Asked only when such windows cover the board
        between games.  The default presses Escape over each, which closes most
        toolkits' dialogs.  The board must be uncovered afterwards, or the series stops
        saying what still covers it.
        """
        for dialog in dialogs:
            pointer.move(dialog.x + dialog.width // 2, dialog.y + dialog.height // 2)
            pointer.key("Escape")
            time.sleep(0.1)

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
        declares (docs/desktop.md, "How the calibration decides"), never by which is
        larger.
        """
        return surfaces(measure(image, grid, self.palette, self.ink_threshold),
                        self.covered_colour, self.open_colour, self.raised_tiles)

    def classify(self, look: CellLook, calibration: Calibration) -> str | None:
        """The board character for a cell, or ``None`` if unsure (never a guess).

        The characters are :class:`~kaboom.solver.Position`'s: ``#`` covered, ``F``
        flagged, ``?`` marked, ``0``-``8`` open with that many mines around, ``*`` a mine
        shown after a loss, ``X`` the mine stepped on, ``!`` a flag where no mine was.

        The default reads a covered tile: plain ``#``; with ink, ``F`` when at least a
        third of the ink is the palette's ``"flag"`` colour, ``?`` when it is its
        ``"?"`` colour, and ``None`` for other ink (a message drawn over the board is
        no flag).  On the open surface it reads ``0`` or the palette digit with the
        most ink.  Games with mines, marks or coloured cells to tell apart override it.
        """
        cal = calibration
        if cal.is_covered(look):
            if look.ink_share < cal.covered_ink + 0.05:
                return "#"
            for mark, char in (("flag", "F"), ("?", "?")):
                if look.ink.get(mark, 0.0) >= max(0.01, look.ink_share / 3):
                    return char
            return None
        if cal.open is not None and not cal.is_open(look):
            return None
        digits = {k: v for k, v in look.ink.items() if k in "12345678" and v >= 0.004}
        if digits:  # (a small digit on a big square is a few per cent of it)
            return max(digits, key=lambda k: digits[k])
        return "0" if look.ink_share < 0.03 else None

    @final
    def read(self, image: np.ndarray, grid: Grid) -> list[str]:
        """Classifies every cell; raises :class:`UnreadableCellError` for a cell
        ``classify`` cannot read (:class:`MinesUnreadError` if the board shows a loss
        sign) and :class:`UnsureError` when the surfaces cannot be told apart.

        Until the calibration is established, every capture calibrates again, and what
        it says must agree with what earlier captures said; then it is kept.
        Identical pixels always get the same answer, so results are memoised on the
        cell's raw bytes: a board usually shows a dozen distinct cell images.
        """
        pitch = (grid.pitch_x, grid.pitch_y)
        if pitch != self._pitch:  # another tile size: another look
            self._pitch = pitch
            self._exploded.clear()
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
        rows, unread = [], []
        for y in range(grid.rows):
            row = []
            for x in range(grid.cols):
                key, pixels = cell_key(image, grid, x, y)
                if key not in self._memo:
                    self._memo[key] = self.classify(
                        look_at(pixels, self.palette, self.ink_threshold), cal)
                ch = self._memo[key]
                if ch is None:
                    unread.append((x, y))
                row.append(ch or "~")
            rows.append("".join(row))
        if unread:
            raise self._unreadable(image, grid, unread, rows)
        return rows

    def _unreadable(self, image: np.ndarray, grid: Grid, unread: list[Cell],
                    rows: list[str]) -> UnreadableCellError:
        """The error for cells ``classify`` cannot read: on a board that shows a loss
        sign, one that says whether the profile reads this game's mines."""
        look = look_at(cell_key(image, grid, *unread[0])[1], self.palette, self.ink_threshold)
        sign = self.loss_sign(image, grid)
        if sign is not None:
            mines = sum(row.count("*") + row.count("X") for row in rows)
            return MinesUnreadError(unread, look, sign, mines)
        return UnreadableCellError(unread[0], look)

    def loss_sign(self, image: np.ndarray, grid: Grid) -> str | None:
        """The sign of a lost game this capture shows, in words, or ``None``.

        The driver asks it of every reading it accepts: a sign ends the game as lost,
        even where :meth:`classify` reads every cell (a game whose exploded mine looks
        like a digit), and a board with cells ``classify`` cannot read is lost all the
        same (:class:`MinesUnreadError`).  The default finds the cell that is
        :attr:`exploded` (the share :attr:`exploded_share` of its box in that colour,
        give or take 60), and is ``None`` when the profile declares no such colour.
        Override it for a sign elsewhere in the capture: the face above the board, a
        banner (:func:`locate_colour`).  A sign only a lost game shows, never a board
        under way: a false sign ends a game.
        """
        if self.exploded is None:
            return None
        colour = np.asarray(self.exploded, dtype=np.int32)
        for c in grid.cells():
            key, pixels = cell_key(image, grid, *c)
            if key not in self._exploded:
                rgb = pixels[..., :3].astype(np.int32)
                near = ((rgb - colour) ** 2).sum(axis=2) <= 60 ** 2
                self._exploded[key] = bool(near.mean() >= self.exploded_share)
            if self._exploded[key]:
                return f"cell {c} shows the exploded colour {self.exploded}"
        return None

    def outcome(self, position: Position) -> str:
        """``won``, ``lost`` or ``playing``, judged from the board alone.

        ``position`` is the board as read (:class:`~kaboom.solver.Position`: its text
        ``rows``, one character a cell as :meth:`classify` answers, and its ``mines``,
        as :meth:`mine_count` counts them).  The default: lost when a cell reads ``X``;
        won when the cells still covered (``#``, ``?``) and flagged are as many as the
        mines; playing otherwise.  A loss sign (:meth:`loss_sign`) ends a game as lost
        whatever this answers.
        """
        if any("X" in row for row in position.rows):
            return LOST
        unflagged = sum(row.count("#") + row.count("?") for row in position.rows)
        if unflagged + len(position.flags()) == position.mines:
            return WON
        return PLAYING

    # ------------------------------------------------------------------ helpers
    def near(self, a: RGB, b: RGB | None, tolerance: float = 30.0) -> bool:
        """Whether colour ``a`` is within ``tolerance`` of ``b`` (Euclidean distance in
        RGB, :func:`colour_distance`; 30 by default); never when ``b`` is ``None``."""
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

    Raises :class:`ValueError` for an unknown name, an entry point that cannot be
    imported or does not name a :class:`Profile` subclass, and
    :class:`ProfileContractError` (a ``ValueError``) for a profile not written for this
    contract.
    """
    eps = _entry_points()
    if name not in eps:
        known = ", ".join(sorted(eps)) or "none"
        raise ValueError(f"unknown game {name!r}; known games: {known}")
    where = f"{eps[name].value}, from {_distribution(eps[name])}"
    try:
        cls = eps[name].load()
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] in ("bots", "solver", "server"):
            raise ProfileContractError(
                f"profile {name!r} ({where}) cannot be loaded: it imports {exc.name!r}, a "
                "package of Kaboom before contract 2 (everything is kaboom.bots.desktop "
                f"now); migrate it with {MIGRATION_NOTES}, then declare "
                f"contract = {CONTRACT_VERSION}") from exc
        raise ValueError(f"profile {name!r} ({where}) cannot be imported: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Profile)):
        raise ValueError(f"the {ENTRY_POINT_GROUP} entry point {name!r} "
                         f"({eps[name].value}) is not a Profile subclass")
    check_contract(cls, Profile, where)
    _CHECKED.add(cls)
    return cls()


def _distribution(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"the package {dist.name} {dist.version}" if dist is not None else "an unknown package"


_CHECKED: set[type[Profile]] = set()


def _check(cls: type[Profile]) -> None:
    """Checks a profile class against the contract when its first instance is made."""
    if cls not in _CHECKED:
        check_contract(cls, Profile)
        _CHECKED.add(cls)


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
