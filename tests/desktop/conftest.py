"""A private Xvfb display for the desktop tests, and a session on it for sgt-mines."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

from bots.desktop.xvfb import virtual_display

SGT_MINES = shutil.which("sgt-mines") or "/usr/games/sgt-mines"


@pytest.fixture(scope="session")
def xdisplay() -> Iterator[str]:
    """The name of a fresh Xvfb display (1280x1024, 24-bit), torn down after the session."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    with virtual_display() as name:
        yield name


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
    import socket
    import sys

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path_factory.mktemp("kaboom") / "games.db"
    proc = subprocess.Popen([sys.executable, "-m", "kaboom", "serve", "--port", str(port),
                             "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/openapi.json", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("kaboom serve did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
