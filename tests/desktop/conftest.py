"""A private Xvfb display for the desktop tests, and a session on it for sgt-mines."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
from kaboom.bots.desktop.screen import Screen
from kaboom.bots.desktop.xvfb import virtual_display
from kaboom.testing import LiveServer

SGT_MINES = shutil.which("sgt-mines") or "/usr/games/sgt-mines"


@pytest.fixture(scope="session")
def xdisplay() -> Iterator[str]:
    """The name of a fresh Xvfb display (1280x1024, 24-bit), torn down after the session."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    with virtual_display() as name:
        yield name


@contextlib.contextmanager
def sgt_mines_window(xdisplay: str, params: str, *, mapped: bool = True
                     ) -> Iterator[subprocess.Popen[bytes]]:
    """An sgt-mines window of ``params`` (``9x9n10``) started outside the bot, which
    attaches to it; waited for until it is mapped when ``mapped``."""
    proc = subprocess.Popen([SGT_MINES, params], env={**os.environ, "DISPLAY": xdisplay},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if mapped:
            with Screen(xdisplay) as screen:
                screen.find_window(SgtMines.window_pattern, timeout=10)
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="session")
def need_sgt_mines() -> None:
    if not os.path.exists(SGT_MINES):
        pytest.skip("sgt-mines (sgt-puzzles) is not installed")


@pytest.fixture(scope="session")
def need_chromium() -> None:
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("chromium is not installed")


@pytest.fixture(scope="module")
def kaboom_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``kaboom serve`` on a free local port with a fresh database."""
    server = LiveServer(tmp_path_factory.mktemp("kaboom") / "games.db").start()
    yield server.url
    server.stop()
