"""The screen driver's play loop: read the board, ask the solver, click, verify.

One :class:`DesktopSession` owns the X connections, the game process it started (if
any), the located window and grid.  Each turn it reads the board until two captures
in a row agree (so half-drawn frames and animations are never acted on), asks the
game's :class:`~kaboom.solver.session.Solver` for moves, clicks them nearest-first at the
chosen speed, then re-reads until every click shows its expected effect and no open cell changed.
If that does not happen within ``settle`` seconds it does not click blind: it decides
again from the fresh reading.

Before every read and every batch of clicks it asks the X server where the window is
now and what is stacked above it, and every click is made only if the board's window
holds its point (:meth:`Pointer.click`): a moved window is followed, and a board that
another window covers or that lies off the screen stops the game with the reason
(:class:`BoardHiddenError`) instead of being clicked.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from kaboom.bots.desktop.grid import Grid, GridNotFoundError
from kaboom.bots.desktop.input import Button, ClickRefusedError, Pointer, WindowChangedError
from kaboom.bots.desktop.profile import (
    LOST,
    PLAYING,
    WON,
    MinesUnreadError,
    Profile,
    UnreadableCellError,
    UnsureError,
)
from kaboom.bots.desktop.record import Recorder
from kaboom.bots.desktop.screen import Screen, Window, WindowNotFoundError
from kaboom.solver import Decision, KaboomError, Move, MoveKind, Position, Solver

__all__ = [
    "ERROR",
    "BoardHiddenError",
    "DesktopSession",
    "GameRecord",
    "LostUnreadError",
    "ScreenReadError",
    "UnsureReadError",
    "nearest_first",
]

ERROR = "error"
"""A game's outcome when its board could not be read to the end."""

log = logging.getLogger(__name__)


class ScreenReadError(RuntimeError):
    """Raised when the board cannot be read consistently (window gone, obscured, unknown cells)."""


class UnsureReadError(ScreenReadError):
    """Raised when the reader stays unsure which cells are covered (:class:`UnsureError`
    for a whole read's time): the bot stops rather than act on a guessed board."""


class LostUnreadError(ScreenReadError):
    """Raised when the board shows the loss its profile declares but the profile cannot
    read the game's mines: the game is lost, and the profile lacks a mine reader."""


class BoardHiddenError(ScreenReadError):
    """Raised when the board is covered by another window or lies off the screen.

    ``by_game`` is true when what covers it is a window of the game itself (a "you
    won" dialog, a menu); ``windows`` are the windows over it, topmost first.
    """

    def __init__(self, message: str, by_game: bool = False,
                 windows: tuple[Window, ...] = ()) -> None:
        super().__init__(message)
        self.by_game = by_game
        self.windows = windows


@dataclass(frozen=True, slots=True)
class _Hidden:
    """Why the board cannot be clicked now."""

    reason: str
    by_game: bool = False
    """Whether only windows of the game itself cover it."""
    windows: tuple[Window, ...] = ()


@dataclass(frozen=True, slots=True)
class GameRecord:
    """How one game went on the screen (one line of ``--json``, :meth:`to_json`)."""

    game_id: str | None
    """The id the game was launched with, or ``None`` (attached, or the game's own new
    game)."""
    outcome: str
    """``won``, ``lost`` or ``error``."""
    width: int
    """The board's columns."""
    height: int
    """The board's rows."""
    mines: int
    """The board's mines, as the profile (or ``--mines``) counted them."""
    clicks: int
    """Clicks made."""
    turns: int
    """Batches of clicks: one a decision of the solver."""
    rereads: int
    """Readings taken again: the screen did not show a batch in time, or the solver
    found a reading contradictory."""
    guesses: int
    """Batches that were not proven safe."""
    seconds: float
    """Wall time from the first reading to the end."""
    think_seconds: float = 0.0
    """Of it, the solver's time."""
    last_certain: bool = True
    """Whether the last batch of clicks was proven safe (a loss on a certain move = misread)."""
    final: tuple[str, ...] = field(default=(), repr=False)
    """The last board read, as text rows."""
    error: str | None = None
    """Why the game ended in ``error``."""
    note: str | None = None
    """What the reader could not do in a game that ended all the same (a loss whose
    mines the profile cannot read)."""

    @property
    def moves_per_second(self) -> float:
        """Clicks a second over the whole game (0 for a game of no time)."""
        return self.clicks / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        """The record as JSON values: every field but ``final``, times rounded to the
        millisecond, and ``moves_per_second``."""
        return {
            "game_id": self.game_id, "outcome": self.outcome, "width": self.width,
            "height": self.height, "mines": self.mines, "clicks": self.clicks,
            "turns": self.turns, "rereads": self.rereads, "guesses": self.guesses,
            "seconds": round(self.seconds, 3), "think_seconds": round(self.think_seconds, 3),
            "moves_per_second": round(self.moves_per_second, 2),
            "last_certain": self.last_certain, "error": self.error, "note": self.note,
        }


def nearest_first(moves: list[Move], start: tuple[float, float],
                  centre: Callable[[int, int], tuple[float, float]]) -> list[Move]:
    """Orders moves so each click goes to the nearest remaining cell (greedy tour)."""
    left = list(moves)
    here = start
    tour = []
    while left:
        nxt = min(left, key=lambda m: math.dist(here, centre(m.x, m.y)))
        left.remove(nxt)
        tour.append(nxt)
        here = centre(nxt.x, nxt.y)
    return tour


@dataclass(slots=True)
class _Progress:
    """One game's play so far: the board last read and what a :class:`GameRecord`
    counts."""

    position: Position
    clicks: int = 0
    turns: int = 0
    rereads: int = 0
    guesses: int = 0
    confused: int = 0
    """Readings in a row that contradicted themselves."""
    stalled: int = 0
    """Batches of clicks in a row that left the board unchanged."""
    thinking: float = 0.0
    certain: bool = True
    """Whether the last decision was certain (a loss on one suggests a misread)."""
    last: tuple[Position, list[Move]] | None = None
    """The last turn's board and moves."""


class DesktopSession:
    """Plays one desktop game (a window on an X display) through a :class:`Profile`.

    ``speed`` caps the clicks per second (0 = as fast as the game keeps up);
    ``settle`` is how long to wait for the screen to show a batch of clicks;
    ``flag_mines`` also right-clicks proven mines (the solver never needs flags);
    ``patience`` is how long a covered or off-screen board is waited for before the
    game stops; ``stall`` is how many batches of clicks in a row may leave the board
    exactly as it was before the game stops (a page that only lets its player move,
    a dialog in the way): without it such a game would be clicked for hours;
    ``solver_profile`` is the solver's (``strong``, ``fast`` or a spec such as
    ``strong,ratio=0.85``), not to be confused with ``profile``, the game's;
    ``record`` names a folder to keep each game's record in (``--record``;
    docs/desktop.md describes what it holds).
    """

    def __init__(self, profile: Profile, display: str | None = None, speed: float = 25.0,
                 settle: float = 3.0, mines: int | None = None,
                 flag_mines: bool = False, patience: float = 2.0, stall: int = 5,
                 solver_profile: str = "strong", record: str | Path | None = None) -> None:
        self.profile = profile
        self.solver_profile = solver_profile
        self.display = display or os.environ.get("DISPLAY", ":0")
        self.speed = speed
        self.settle = settle
        self.stable_gap = profile.stable_gap
        self.mines_override = mines
        self.flag_mines = flag_mines
        self.patience = patience
        self.stall = stall
        self.screen = Screen(self.display)
        self.pointer = Pointer(self.display)
        self.process: subprocess.Popen[bytes] | None = None
        self.window: Window | None = None
        self.grid: Grid | None = None  # in window coordinates
        self.game_id: str | None = None
        self.mines = 0
        self._last_click = 0.0
        self._known: Position | None = None
        """This game's last reading: a later one must keep its open cells' numbers."""
        self.loss: str | None = None
        """The loss sign the last reading showed (:meth:`Profile.loss_sign`), or ``None``."""
        self.recorder = Recorder(record) if record is not None else None

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stops the game this session launched (if it did) and closes its X
        connections; a ``with`` block does it on leaving."""
        self._stop_process()
        self.pointer.close()
        self.screen.close()

    def __enter__(self) -> DesktopSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stop_process(self) -> None:
        if self.process is not None:
            self.profile.stop(self.process)
        self.process = None

    # ------------------------------------------------------------------ starting games
    def start(self, game_id: str | None = None, index: int = 0) -> Position:
        """Gets game number ``index`` on screen and returns its first reading.

        A game id always (re)launches the game; otherwise the first game attaches to a
        running window (launching one if there is none) and later games use the
        game's own "new game" action.
        """
        gid = self.profile.next_game_id(game_id, index)
        if gid is not None and self.profile.can_launch(gid):
            self._launch(gid)
        elif index == 0:
            try:
                self.window = self.profile.find_window(self.screen, timeout=0)
            except WindowNotFoundError:
                self._launch(gid)
        else:
            assert self.window is not None
            self._dismiss()
            image = self.screen.capture_window(self.window)
            self.pointer.move(self.window.x + self.window.width // 2, self.window.y + 5)
            self.profile.new_game(self.pointer, self.window, image, self.grid)
        self.game_id = gid
        self._known = None
        self.loss = None
        return self._await_board()

    def _dismiss(self) -> None:
        """Between games: has the profile close the game's own windows over the board
        (:meth:`Profile.dismiss`), then waits for the board to be uncovered."""
        hidden = self._hidden()
        if hidden is None or not hidden.by_game:
            self.check_board()
            return
        assert self.window is not None
        log.info("between games: %s; asking the profile to dismiss it", hidden.reason)
        self.profile.dismiss(self.screen, self.pointer, self.window, hidden.windows)
        try:
            self.check_board()
        except BoardHiddenError as exc:
            raise BoardHiddenError(
                f"{exc} after a game, and the profile's dismiss did not close it",
                exc.by_game, exc.windows) from None

    def _launch(self, gid: str | None) -> None:
        old = self.window
        self._stop_process()
        if old is not None:  # wait for the old window to go away
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    self.screen.refresh(old)
                except WindowNotFoundError:
                    break
                time.sleep(0.05)
        self.process = self.profile.launch(gid, self.display)
        if self.process is None:
            raise WindowNotFoundError(
                f"no window matches {self.profile.window_pattern!r} and {self.profile.name} "
                "cannot be launched without a game id; start it first or pass --game-id")
        self.window = self.profile.find_window(self.screen, timeout=15)

    def _await_board(self, timeout: float = 30.0) -> Position:
        """Waits until the window shows a readable, unfinished board at a steady place
        (pages reflow while they load or hide a banner); locates its grid."""
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        previous: Grid | None = None
        while time.monotonic() < deadline:
            try:
                assert self.window is not None
                self.window = self.screen.refresh(self.window)
                image = self.screen.capture_window(self.window)
                grid = self.profile.find_grid(image)
                if grid != previous:
                    previous = grid
                    time.sleep(0.1)
                    continue
                self.grid = grid
                self.check_board()
                self.mines = self.mines_override or self.profile.mine_count(
                    self.game_id, grid.cols, grid.rows)
                position = self.read(timeout=2.0)
                if self.profile.outcome(position) == PLAYING and self.loss is None:
                    return position
            except (WindowNotFoundError, BoardHiddenError, UnsureReadError):
                raise
            except (GridNotFoundError, UnreadableCellError, ScreenReadError,
                    RuntimeError) as exc:
                last_error = exc
            time.sleep(0.1)
        raise ScreenReadError(f"no playable {self.profile.name} board appeared: {last_error}")

    # ------------------------------------------------------------------ reading
    def read_until(self, want: list[str], timeout: float = 5.0) -> list[str]:
        """Reads until the board shows the rows ``want`` (a game may lag behind its
        clicks) or ``timeout`` seconds pass; returns the last reading, for a caller that
        knows what the board must show (the read tests, ``bench/desktop_read.py``)."""
        deadline = time.monotonic() + timeout
        while True:
            rows = list(self.read().rows)
            if rows == want or time.monotonic() > deadline:
                return rows
            time.sleep(0.05)

    def read(self, timeout: float = 3.0) -> Position:
        """The board as two captures ``stable_gap`` seconds apart agree on it.

        In games that open the neighbours of a 0 themselves, a 0 next to a covered cell
        means the capture caught a repaint half done (the cell's background before its
        digit, say), so such readings are not trusted for the first second either.
        """
        assert self.window is not None and self.grid is not None
        deadline = time.monotonic() + timeout
        patient = time.monotonic() + min(1.0, timeout / 2)
        previous: list[str] | None = None
        error: Exception | None = None
        failures = 0
        while True:
            self.check_board()
            image = self.screen.capture_window(self.window)
            try:
                rows = self.profile.read(image, self.grid)
                failures = 0
            except UnsureError as exc:  # the surfaces: another capture may tell
                rows, error = None, exc
            except UnreadableCellError as exc:
                rows, error = None, exc
                failures += 1
                if failures >= 2:  # the board may have moved (a banner, a scroll)
                    before = self.grid
                    image = self.relocate()
                    if self.grid != before:  # found again: its reading gets the full time
                        deadline = time.monotonic() + timeout
            if rows is not None and rows == previous and (
                    not self.profile.zeros_open_around or _zeros_closed(rows)
                    or time.monotonic() > patient):
                position = Position.from_rows(rows, self.mines)
                if self._known is None or _numbers_kept(self._known, position):
                    self._known = position
                    self.loss = self.profile.loss_sign(image, self.grid)
                    if self.recorder is not None:
                        self.recorder.read(rows, image, self.grid)
                    return position
                # an open cell changed: a flash or a frame of something else, not the
                # game (sgt-mines flashes red when a mine goes off)
                rows, error = None, ScreenReadError("open cells changed their numbers")
            previous = rows
            if time.monotonic() > deadline:
                self._dump(image, f"unsettled: {error}")
                if isinstance(error, UnsureError):
                    raise UnsureReadError(f"unsure: {error}")
                if isinstance(error, MinesUnreadError):  # for all of ``timeout``
                    raise LostUnreadError(str(error))
                raise ScreenReadError(f"board did not settle: {error}")
            # a game may paint one change in several strokes: confirm after a pause
            time.sleep(self.stable_gap)

    def relocate(self) -> np.ndarray:
        """Finds the window and the board again; returns the capture.

        A board found elsewhere replaces the old one only if it has the same size and
        reads where the old place no longer does (a half-painted frame is no reason to
        move).
        """
        assert self.window is not None and self.grid is not None
        self.window = self.screen.refresh(self.window)
        image = self.screen.capture_window(self.window)
        try:
            grid = self.profile.find_grid(image)
        except GridNotFoundError:
            return image
        old = self.grid
        if grid.size == old.size and grid != old and _reads(self.profile, image, grid) \
                and not _reads(self.profile, image, old):
            log.info("board moved: %s -> %s", self.grid, grid)
            self.grid = grid
        return image

    def board_rect(self) -> tuple[int, int, int, int]:
        """The board's box on the screen, ``(x0, y0, x1, y1)`` end-exclusive."""
        assert self.window is not None and self.grid is not None
        x0, y0, _, _ = self.grid.rect(0, 0)
        _, _, x1, y1 = self.grid.rect(self.grid.cols - 1, self.grid.rows - 1)
        return self.window.x + x0, self.window.y + y0, self.window.x + x1, self.window.y + y1

    def _hidden(self) -> _Hidden | None:
        """Why the board cannot be clicked now (off the screen, covered), or ``None``:
        the reason, whether only windows of the game itself cover it, and which.

        Follows the window if it moved (the grid is in window coordinates); raises
        :class:`WindowNotFoundError` if the window is gone.
        """
        assert self.window is not None and self.grid is not None
        window = self.screen.refresh(self.window)
        if (window.x, window.y) != (self.window.x, self.window.y):
            log.info("window moved to %d,%d", window.x, window.y)
        if (window.width, window.height) != (self.window.width, self.window.height):
            self.window = window
            self.relocate()
        self.window = window
        x0, y0, x1, y1 = rect = self.board_rect()
        width, height = self.screen.size
        if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
            return _Hidden(f"the board ({x1 - x0}x{y1 - y0} at {x0},{y0}) is not all on "
                           f"the {width}x{height} screen")
        above = self.screen.covering(window, rect)
        if above:
            own = all(w.wm_class and w.wm_class == window.wm_class for w in above)
            return _Hidden(f"the board is covered by {above[0].name!r}", own, tuple(above))
        return None

    def check_board(self, patience: float | None = None) -> None:
        """Waits up to ``patience`` seconds for the board to be whole on the screen and
        uncovered; raises :class:`ScreenReadError` (a ``BoardHiddenError``) with the
        reason if it is not."""
        deadline = time.monotonic() + (self.patience if patience is None else patience)
        while True:
            why = self._hidden()
            if why is None:
                return
            if time.monotonic() >= deadline:
                raise BoardHiddenError(f"stopped clicking: {why.reason}", why.by_game,
                                       why.windows)
            time.sleep(0.1)

    def _dump(self, image: np.ndarray, why: str) -> None:
        """Saves a capture for post-mortems when ``KABOOM_DESKTOP_DUMP`` names a folder."""
        folder = os.environ.get("KABOOM_DESKTOP_DUMP")
        if not folder:
            return
        from PIL import Image

        os.makedirs(folder, exist_ok=True)
        stem = os.path.join(folder, f"{self.profile.name}-{time.time():.3f}")
        Image.fromarray(image).save(stem + ".png")
        with open(stem + ".txt", "w") as f:
            f.write(f"{why}\ngrid={self.grid}\nwindow={self.window}\n")

    # ------------------------------------------------------------------ acting
    def _screen_centre(self, x: int, y: int) -> tuple[int, int]:
        assert self.window is not None and self.grid is not None
        cx, cy = self.grid.centre(x, y)
        return self.window.x + cx, self.window.y + cy

    def click(self, move: Move, first: bool = True) -> None:
        """Clicks one move, keeping to the speed limit.

        The first click of a batch waits for the board to be whole and uncovered
        (:meth:`check_board`).  Every click is aimed at the window, wherever it is now,
        and made only if the X server says the board's window holds the point
        (:meth:`Pointer.click`); a refused click waits for the board like the first
        one, then is tried once more or stops the game with the reason.
        """
        assert self.window is not None and self.grid is not None
        if self.speed > 0:
            wait = self._last_click + 1.0 / self.speed - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        if first:
            self.check_board()
        button = Button.RIGHT if move.kind is MoveKind.FLAG else Button.LEFT
        for attempt in (1, 2):
            try:
                x, y = self.pointer.click(self.window, *self.grid.centre(move.x, move.y),
                                          button)
                break
            except WindowChangedError as exc:  # the board must be found again
                raise BoardHiddenError(f"stopped clicking: {exc}") from None
            except ClickRefusedError as exc:
                log.info("click refused: %s", exc)
                self.check_board()  # says what covers the board, if anything does
                if attempt == 2:
                    raise BoardHiddenError(f"stopped clicking: {exc}") from None
        if (x, y) != (self.window.x, self.window.y):
            log.info("window moved to %d,%d", x, y)
            self.window = replace(self.window, x=x, y=y)
        self._last_click = time.monotonic()
        if self.recorder is not None:
            self.recorder.click(move)

    def _verify(self, before: Position, moves: list[Move]) -> tuple[Position, bool]:
        """Re-reads until the moves show and open cells kept their numbers."""
        deadline = time.monotonic() + self.settle
        while True:
            try:
                after = self.read()
            except (BoardHiddenError, LostUnreadError, UnsureReadError):
                raise
            except ScreenReadError:
                if time.monotonic() > deadline:
                    raise
                continue
            if self.profile.outcome(after) != PLAYING or self.loss is not None:
                return after, True
            if _as_expected(before, after, moves):
                return after, True
            if time.monotonic() > deadline:
                log.warning("screen does not show the last clicks; deciding again")
                self._dump(self.relocate(),
                           f"clicks not shown: {[str(m) for m in moves]}\n{before}\n{after}")
                return after, False
            time.sleep(0.02)

    def play(self, game_id: str | None = None, index: int = 0,
             max_turns: int = 10_000) -> GameRecord:
        """Plays one game to its end and reports how it went.

        The outcome is ``won``, ``lost`` or ``error``: the board could not be read even
        after finding it again, or it was covered, off the screen or closed; the record
        says why and how far the game got.  A game that cannot even start raises.
        """
        if self.recorder is not None:
            self.recorder.start()
        game = _Progress(self.start(game_id, index))
        started = time.monotonic()
        error = note = None
        try:
            won = self._play_turns(game, max_turns)
            outcome = WON if won else self.profile.outcome(game.position)
            if outcome == PLAYING and self.loss is not None:
                outcome, note = LOST, f"the board shows a loss ({self.loss}) but no cell reads 'X'"
        except LostUnreadError as exc:
            log.error("lost, and the profile cannot read the board: %s", exc)
            outcome, note = LOST, str(exc)
        except BoardHiddenError as exc:
            said = self._loss_window(exc.windows) if exc.by_game else None
            if said is None:
                log.error("giving up on this game: %s", exc)
                outcome, error = ERROR, str(exc)
            else:
                outcome, note = LOST, f"the game's window {said.name!r} says it is lost"
        except (ScreenReadError, WindowNotFoundError) as exc:
            log.error("giving up on this game: %s", exc)
            outcome, error = ERROR, str(exc)
        if outcome == LOST and game.certain and game.last is not None:  # a proven move lost
            assert self.window is not None
            with contextlib.suppress(WindowNotFoundError):
                self._dump(self.screen.capture_window(self.window),
                           f"lost on a proven move: {[str(m) for m in game.last[1]]}"
                           f"\n{game.last[0]}")
        p = game.position
        record = GameRecord(self.game_id, outcome, p.width, p.height, p.mines, game.clicks,
                            game.turns, game.rereads, game.guesses,
                            time.monotonic() - started, game.thinking, game.certain, p.rows,
                            error, note)
        if self.recorder is not None:
            self._finish_record(record)
        return record

    def _play_turns(self, game: _Progress, max_turns: int) -> bool:
        """Decides and clicks until the game ends (or ``max_turns``); whether it ended in
        the game's own "you won" dialog over the board."""
        # one solver a game: it keeps the frontier between turns, and a reading that does
        # not follow from the last one (a misread, a new game) only starts it over
        solver = Solver(self.solver_profile, outside_guess=self.profile.outside_guess)
        while game.turns < max_turns:
            if self.profile.outcome(game.position) != PLAYING or self.loss is not None:
                return False
            t0 = time.monotonic()
            decision = self._decide(solver, game)
            if decision is None:
                continue
            game.thinking += time.monotonic() - t0
            if not decision.moves:
                return False
            game.guesses += 0 if decision.certain else 1
            game.certain = decision.certain
            moves = nearest_first(list(decision.moves), self.pointer.position,
                                  self._screen_centre)
            game.turns += 1
            game.last = (game.position, moves)
            if self._click_and_read(game, moves):
                return True
        return False

    def _decide(self, solver: Solver, game: _Progress) -> Decision | None:
        """The solver's decision on the board read, or ``None`` after reading the board
        again because the reading contradicts itself (a misread)."""
        try:
            decision = solver.decide(game.position, flag_mines=self.flag_mines)
        except KaboomError as exc:  # the reading contradicts itself: look again
            log.warning("inconsistent reading (%s); re-reading", exc)
            game.rereads += 1
            game.confused += 1
            if game.confused % 5 == 0:
                self._dump(self.relocate(), f"inconsistent: {exc}\n{game.position}")
            if game.confused >= 20:
                raise ScreenReadError(
                    f"the board keeps reading inconsistent ({exc}) with {self.mines} "
                    "mines; if that count is wrong, pass it (--mines)") from exc
            time.sleep(0.1)
            game.position = self._read_again()
            return None
        game.confused = 0
        return decision

    def _click_and_read(self, game: _Progress, moves: list[Move]) -> bool:
        """Clicks a turn's moves and reads the board they leave; whether the game's own
        "you won" dialog came over the board (a win).  Raises when batches of clicks
        keep leaving the board unchanged."""
        before = game.position
        try:
            for n, move in enumerate(moves):
                self.click(move, first=n == 0)
                game.clicks += 1
            try:
                game.position, ok = self._verify(before, moves)
            except (BoardHiddenError, LostUnreadError, UnsureReadError):
                raise
            except ScreenReadError:
                game.position, ok = self._read_again(), False
        except BoardHiddenError as exc:
            if exc.by_game and self._loss_window(exc.windows) is None and \
                    _may_complete(before, moves, self.profile.zeros_open_around):
                log.info("won: %s", exc)  # the game's own "you won" dialog
                return True
            raise
        game.rereads += 0 if ok else 1
        game.stalled = 0 if ok or game.position.rows != before.rows else game.stalled + 1
        if game.stalled >= self.stall:
            raise ScreenReadError(
                f"{game.stalled} batches of clicks in a row left the board unchanged: "
                "the game does not take clicks (a page of a game you are not "
                "the player of, or a dialog in the way?)")
        return False

    def _loss_window(self, windows: tuple[Window, ...]) -> Window | None:
        """The window among ``windows`` that says the game is lost
        (:attr:`Profile.loss_window`), or ``None``."""
        pattern = self.profile.loss_window
        if pattern is None:
            return None
        return next((w for w in windows if re.search(pattern, w.name)), None)

    def _finish_record(self, record: GameRecord) -> None:
        """Reads the finished board once more (a game may draw its mines a moment after
        the loss) and closes the game's record."""
        assert self.recorder is not None
        if record.outcome in (WON, LOST):
            time.sleep(0.5)
            with contextlib.suppress(ScreenReadError, WindowNotFoundError):
                self.read(timeout=2.0)
        self.recorder.finish({"profile": self.profile.name, **record.to_json()})

    def _read_again(self) -> Position:
        """A reading after a failure: pointer off the board (no hover, no tooltip), the
        board found again, and more time to settle."""
        try:
            return self.read()
        except (BoardHiddenError, LostUnreadError, UnsureReadError):
            raise
        except ScreenReadError:
            assert self.window is not None
            self.pointer.move(self.window.x + 2, self.window.y + 2)
            self.relocate()
            return self.read(timeout=10.0)


def _reads(profile: Profile, image: np.ndarray, grid: Grid) -> bool:
    try:
        profile.read(image, grid)
    except (UnreadableCellError, UnsureError):
        return False
    return True


def _zeros_closed(rows: list[str]) -> bool:
    """True when no 0 has a plain covered neighbour."""
    h = len(rows)
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "0":
                for ny in range(max(0, y - 1), min(h, y + 2)):
                    if "#" in rows[ny][max(0, x - 1):x + 2]:
                        return False
    return True


def _may_complete(before: Position, moves: list[Move], flood: bool) -> bool:
    """Whether revealing ``moves`` can leave only the mines covered (win the game).

    A game that opens the neighbours of a 0 itself (``flood``) may open more than the
    clicked cells: any covered cell joined to a clicked one through covered cells.
    """
    opened = {m.cell for m in moves if m.kind is MoveKind.REVEAL and before.is_covered(m.x, m.y)}
    if flood:
        stack = list(opened)
        while stack:
            for cell in before.neighbours(*stack.pop()):
                if cell not in opened and before.is_covered(*cell):
                    opened.add(cell)
                    stack.append(cell)
    return len(before.covered()) - len(opened) <= before.mines


def _numbers_kept(before: Position, after: Position) -> bool:
    return all(after.char(x, y) == str(n) for (x, y), n in before.numbers())


def _as_expected(before: Position, after: Position, moves: list[Move]) -> bool:
    if not _numbers_kept(before, after):
        return False
    for m in moves:
        ch = after.char(m.x, m.y)
        if m.kind is MoveKind.REVEAL and after.is_covered(m.x, m.y) and ch != "F":
            return False
        if m.kind is MoveKind.FLAG and (ch == "F") == (before.char(m.x, m.y) == "F"):
            return False
    return True


