"""The driver never clicks a board it cannot see: covered, moved, off the screen; and the
command line says why in one line, with a non-zero exit status."""

from __future__ import annotations

import random
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest
from Xlib import X, display

from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
from kaboom.bots.desktop.screen import Screen, Window
from kaboom.solver.position import Move
from tests.desktop.cli import kaboom_desktop
from tests.desktop.conftest import sgt_mines_window

pytestmark = pytest.mark.usefixtures("need_sgt_mines")


class Cover:
    """A plain window mapped on top of everything, counting the clicks it receives."""

    def __init__(self, name: str, rect: tuple[int, int, int, int]) -> None:
        self.x = display.Display(name)
        screen = self.x.screen()
        x0, y0, x1, y1 = rect
        self.window = screen.root.create_window(
            x0, y0, x1 - x0, y1 - y0, 0, screen.root_depth,
            background_pixel=screen.white_pixel,
            event_mask=X.ButtonPressMask | X.ButtonReleaseMask)
        self.window.set_wm_name("a window on top")
        self.window.map()
        self.x.sync()

    def clicks(self) -> int:
        self.x.sync()
        count = 0
        while self.x.pending_events():
            count += self.x.next_event().type == X.ButtonPress
        return count

    def close(self) -> None:
        self.window.destroy()
        self.x.close()


@pytest.fixture
def game(xdisplay: str) -> Iterator[subprocess.Popen[bytes]]:
    """An sgt-mines window (attached to, not launched by the driver)."""
    with sgt_mines_window(xdisplay, "16x16n40") as proc:
        yield proc


def test_a_covered_board_stops_the_clicks(xdisplay: str) -> None:
    with DesktopSession(SgtMines(), xdisplay, speed=0, patience=0.5) as session:
        click = session.click
        cover: list[Cover] = []

        def covering_click(move: Move, first: bool = True) -> None:
            # between two batches: the check before a batch must see it
            if first and not cover and session.pointer.position != (0, 0):
                cover.append(Cover(xdisplay, session.board_rect()))
            click(move, first)

        session.click = covering_click  # type: ignore[method-assign]
        record = session.play("30x16n99#covered")
    try:
        assert record.outcome == "error"
        assert record.error == "stopped clicking: the board is covered by 'a window on top'"
        assert cover[0].clicks() == 0  # not one click went into the window on top
    finally:
        cover[0].close()


def test_a_moved_window_is_followed_before_the_next_click(xdisplay: str) -> None:
    shift = (150, 90)
    with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
        xd = display.Display(xdisplay)
        clicks: list[tuple[int, int]] = []
        click = session.pointer.click

        def moving_click(window: Window, x: int, y: int, button: int = 1) -> tuple[int, int]:
            if not clicks:
                first.append(session.board_rect())
            if len(clicks) == 20:  # mid-batch: the window jumps under the pointer
                win = xd.create_resource_object("window", window.id)
                win.configure(x=window.x + shift[0], y=window.y + shift[1])
                xd.sync()
                time.sleep(0.2)
            at = click(window, x, y, button)
            clicks.append((at[0] + x, at[1] + y))
            return at

        session.pointer.click = moving_click  # type: ignore[method-assign]
        first: list[tuple[int, int, int, int]] = []
        record = session.play("30x16n99#moved")
        xd.close()
    assert record.outcome == "won", "\n".join(record.final)
    moved = tuple(v + shift[i % 2] for i, v in enumerate(first[0]))
    after = clicks[20:]
    assert after, "no click after the move"
    for px, py in after:  # every later click inside the board at its new place
        assert moved[0] <= px < moved[2] and moved[1] <= py < moved[3], (px, py, moved)


class LateCover:
    """Maps a :class:`Cover` over the board ``delay`` seconds after the first click,
    from a thread of its own (its own X connection), while the session plays."""

    def __init__(self, session: DesktopSession, name: str, delay: float) -> None:
        self.session, self.name, self.delay = session, name, delay
        self.cover: Cover | None = None
        self.clicked = threading.Event()
        self.thread = threading.Thread(target=self._map)
        self.thread.start()

    def _map(self) -> None:
        self.clicked.wait(30)
        time.sleep(self.delay)
        self.cover = Cover(self.name, self.session.board_rect())


def test_a_window_mapped_at_a_random_moment_gets_no_click(xdisplay: str) -> None:
    """20 games; in each a window is mapped over the board at a random moment while the
    bot clicks.  The window's own event log must show no button press, and the game must
    stop saying why."""
    rng = random.Random(50)
    covered = 0
    with DesktopSession(SgtMines(), xdisplay, speed=60, patience=0.3) as session:
        click = session.pointer.click
        for run in range(20):
            late = LateCover(session, xdisplay, rng.uniform(0.0, 1.0))

            def counting_click(window: Window, x: int, y: int, button: int = 1,
                               late: LateCover = late) -> tuple[int, int]:
                late.clicked.set()
                return click(window, x, y, button)

            session.pointer.click = counting_click  # type: ignore[method-assign]
            record = session.play(f"16x16n40#cover{run}")
            late.thread.join()
            assert late.cover is not None
            try:
                assert late.cover.clicks() == 0, f"run {run}: a click went into the window"
                if record.outcome == "error":
                    covered += 1
                    assert "covered by 'a window on top'" in (record.error or "") or \
                        "not the 'sgt-mines' window's" in (record.error or ""), record.error
                else:  # the game ended before the window came
                    assert record.outcome == "won"
            finally:
                late.cover.close()
    assert covered >= 15  # most runs really had a window arrive mid-game


def test_a_window_off_the_screen_is_one_line(
    xdisplay: str, game: subprocess.Popen[bytes]
) -> None:
    with Screen(xdisplay) as screen:
        window = screen.find_window(SgtMines.window_pattern)
        x = display.Display(xdisplay)
        x.create_resource_object("window", window.id).configure(x=screen.size[0] - 100)
        x.sync()
        x.close()
    proc = kaboom_desktop("--game", "sgt-mines", display=xdisplay)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "is not all on the 1280x1024 screen" in proc.stderr


def test_no_display_and_no_window_are_one_line(xdisplay: str) -> None:
    proc = kaboom_desktop("--game", "sgt-mines", "--display", ":4242")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "cannot open X display ':4242'" in proc.stderr
    proc = kaboom_desktop("--game", "kaboom-page", display=xdisplay)  # not running, no URL to open
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "no window matches" in proc.stderr


def test_a_game_ending_in_error_fails_the_command(xdisplay: str) -> None:
    cover: list[Cover] = []

    def cover_the_screen_once_playing() -> None:
        with Screen(xdisplay) as screen:
            window = screen.find_window(SgtMines.window_pattern, timeout=60)
            time.sleep(0.5)
            start = screen.capture_window(window)
            deadline = time.monotonic() + 60
            while (screen.capture_window(window) == start).all():  # until the first click
                assert time.monotonic() < deadline
                time.sleep(0.05)
            cover.append(Cover(xdisplay, (0, 0, *screen.size)))

    thread = threading.Thread(target=cover_the_screen_once_playing)
    thread.start()
    try:
        proc = kaboom_desktop("--game", "sgt-mines", "--game-id", "30x16n99#error",
                              "--speed", "5", display=xdisplay)
    finally:
        thread.join()
        for c in cover:
            c.close()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ": error 30x16/99" in proc.stdout
    assert "the board is covered by 'a window on top'" in proc.stdout
    assert "1 ended in error" in proc.stdout
