"""A game's own windows at the end of a game, and the loss signs that are not an ``X``.

A series of GNOME Mines games goes on past its real "Congratulations!" high-score
dialog: the driver has the profile dismiss it before the next game (it stopped there,
"the board is covered by …", with no screen for ``new_game`` to close it with).  The
same on sgt-mines with a window of the game's own class over the board; a profile whose
``dismiss`` cannot close it stops the series saying so.  A window of the game's that
says it is lost (``loss_window``) ends a game as lost, where undeclared it was taken for
a win dialog (or stopped the game);
and a loss sign found by a ``loss_sign`` override ends a game whose exploded mine
``classify`` reads as a digit.
"""

from __future__ import annotations

import select
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from Xlib import XK, X, display

from kaboom.bots.desktop import (
    Calibration,
    CellLook,
    Grid,
    Pointer,
    Screen,
    Window,
    locate_colour,
)
from kaboom.bots.desktop.driver import BoardHiddenError, DesktopSession
from kaboom.bots.desktop.profiles.gnome_mines import GnomeMines
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
from kaboom.solver.position import Move
from tests.desktop.conftest import sgt_mines_window

GNOME_MINES = shutil.which("gnome-mines") or "/usr/games/gnome-mines"


class Dialog:
    """A window of the game's own class mapped over the board, as a game's end dialog;
    it closes on Escape when ``closes``.  Its own X connection and thread."""

    def __init__(self, name: str, rect: tuple[int, int, int, int],
                 wm_class: Sequence[str], title: str, closes: bool = True) -> None:
        self.escapes = 0
        self.closed = threading.Event()
        self._stop = threading.Event()
        self._mapped = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(name, rect, wm_class, title,
                                                                 closes), daemon=True)
        self._thread.start()
        assert self._mapped.wait(10), "the dialog was not mapped"

    def _run(self, name: str, rect: tuple[int, int, int, int], wm_class: Sequence[str],
             title: str, closes: bool) -> None:
        x = display.Display(name)
        screen = x.screen()
        x0, y0, x1, y1 = rect
        window = screen.root.create_window(x0, y0, x1 - x0, y1 - y0, 0, screen.root_depth,
                                           background_pixel=screen.white_pixel,
                                           event_mask=X.KeyPressMask)
        window.set_wm_name(title)
        window.set_wm_class(*wm_class)
        window.map()
        x.sync()
        self._mapped.set()
        escape = x.keysym_to_keycode(XK.string_to_keysym("Escape"))
        while not self._stop.is_set() and not self.closed.is_set():
            select.select([x.fileno()], [], [], 0.05)
            while x.pending_events():
                event = x.next_event()
                if event.type == X.KeyPress and event.detail == escape:
                    self.escapes += 1
                    if closes:
                        window.destroy()
                        x.sync()
                        self.closed.set()
        if not self.closed.is_set():
            window.destroy()
        x.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)


@pytest.fixture
def sgt_window(xdisplay: str, need_sgt_mines: None) -> Iterator[subprocess.Popen[bytes]]:
    """An sgt-mines window started outside the bot, which attaches to it."""
    with sgt_mines_window(xdisplay, "9x9n10") as proc:
        yield proc


def _over_board(session: DesktopSession) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = session.board_rect()
    return x0 + 10, y0 + 10, x1 - 10, y1 - 10


@pytest.mark.usefixtures("sgt_window")
def test_a_dialog_of_the_game_is_dismissed_before_the_next_game(xdisplay: str) -> None:
    with DesktopSession(SgtMines(), xdisplay, speed=0, patience=1.0) as session:
        first = session.play()  # attached: the next game is started in the same window
        assert session.window is not None
        dialog = Dialog(xdisplay, _over_board(session), session.window.wm_class,
                        "High Scores")
        try:
            above = session.screen.covering(session.window, session.board_rect())
            assert [(w.name, w.wm_class) for w in above] == [
                ("High Scores", session.window.wm_class)]  # a window of the game's own
            second = session.play(index=1)
        finally:
            dialog.close()
    assert first.outcome in ("won", "lost") and second.outcome in ("won", "lost"), second
    assert dialog.escapes >= 1 and dialog.closed.is_set()


class Stubborn(SgtMines):
    """sgt-mines whose profile leaves the game's dialogs where they are."""

    def dismiss(self, screen: Screen, pointer: Pointer, window: Window,
                dialogs: Sequence[Window]) -> None:
        pass


@pytest.mark.usefixtures("sgt_window")
def test_a_dialog_the_profile_does_not_close_stops_the_series_saying_so(xdisplay: str) -> None:
    with DesktopSession(Stubborn(), xdisplay, speed=0, patience=0.5) as session:
        session.play()
        assert session.window is not None
        dialog = Dialog(xdisplay, _over_board(session), session.window.wm_class,
                        "High Scores", closes=False)
        try:
            with pytest.raises(BoardHiddenError, match="covered by 'High Scores' after a "
                               "game, and the profile's dismiss did not close it"):
                session.play(index=1)
        finally:
            dialog.close()
    assert dialog.escapes == 0


class SaysGameOver(SgtMines):
    """sgt-mines as if it opened a "Game over" window on a loss."""

    loss_window = r"^Game over$"


@pytest.mark.parametrize("profile", [SaysGameOver(), SgtMines()],
                         ids=["declared", "not declared"])
def test_a_window_that_says_the_game_is_lost_ends_it_as_lost(
        profile: SgtMines, xdisplay: str, need_sgt_mines: None) -> None:
    dialogs: list[Dialog] = []
    with DesktopSession(profile, xdisplay, speed=0, patience=0.5) as session:
        click = session.click

        def click_then_lose(move: Move, first: bool = True) -> None:
            if first and session.pointer.position != (0, 0) and not dialogs:
                assert session.window is not None  # the second batch: "the game is lost"
                dialogs.append(Dialog(xdisplay, _over_board(session),
                                      session.window.wm_class, "Game over", closes=False))
            click(move, first)

        session.click = click_then_lose  # type: ignore[method-assign]
        try:
            record = session.play("16x16n40#gameover")
        finally:
            for d in dialogs:
                d.close()
    if profile.loss_window is not None:
        assert (record.outcome, record.error) == ("lost", None)
        assert record.note == "the game's window 'Game over' says it is lost"
    else:  # the game's own window: a win dialog after a batch that may have won, or
        # a board covered: never a loss
        assert record.outcome in ("won", "error"), record
        assert record.outcome == "won" or record.error == (
            "stopped clicking: the board is covered by 'Game over'")


class RedThree(SgtMines):
    """sgt-mines as a game whose exploded mine looks like a 3: ``classify`` reads its red
    square as a 3, no ``exploded`` colour is declared, and the loss is found where such a
    game shows it, by ``loss_sign`` (here the red square, found in the capture as a face
    would be)."""

    exploded = None

    def classify(self, look: CellLook, cal: Calibration) -> str | None:
        got = super().classify(look, cal)
        return "3" if got == "X" else got

    def loss_sign(self, image: np.ndarray, grid: Grid) -> str | None:
        x0, y0, _, _ = grid.rect(0, 0)
        _, _, x1, y1 = grid.rect(grid.cols - 1, grid.rows - 1)
        square = round(grid.pitch_x * grid.pitch_y / 3)
        red = locate_colour(image, (255, 0, 0), tolerance=30, box=(x0, y0, x1, y1),
                            min_pixels=square)
        return None if red is None else f"a red square at {red}"


def test_a_loss_sign_ends_a_game_whose_exploded_mine_reads_as_a_digit(
        xdisplay: str, need_sgt_mines: None) -> None:
    with DesktopSession(RedThree(), xdisplay, speed=0) as session:
        for i in range(6):  # crowded boards with guessing: a loss comes soon
            record = session.play("9x9n30a#redthree", index=i)
            if record.outcome != "won":
                break
    assert (record.outcome, record.error) == ("lost", None), record
    assert record.note is not None and record.note.startswith(
        "the board shows a loss (a red square at ")
    assert "no cell reads 'X'" in record.note
    assert "X" not in "".join(record.final)


@pytest.mark.skipif(shutil.which("gnome-mines") is None
                    and not Path(GNOME_MINES).exists(), reason="gnome-mines is not installed")
def test_a_series_goes_on_past_gnome_mines_congratulations(xdisplay: str) -> None:
    """GNOME Mines attached: each game after the first in its window.  After a win it
    shows "Congratulations!" (the high scores, a fresh table: every win makes it) over
    the board; the next game must be played all the same."""
    profile = GnomeMines()
    process = profile.launch("small", xdisplay)
    assert process is not None
    try:
        time.sleep(3)  # (a window that is still being made is no board to attach to)
        with DesktopSession(profile, xdisplay, speed=0) as session:
            outcomes = []
            for i in range(8):
                record = session.play(None, index=i)
                outcomes.append(record.outcome)
                assert record.outcome in ("won", "lost"), record.error
                if len(outcomes) >= 2 and outcomes[-2] == "won":
                    break
    finally:
        profile.stop(process)
    assert len(outcomes) >= 2 and outcomes[-2] == "won", outcomes  # a game after a win
