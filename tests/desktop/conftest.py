"""A private Xvfb display for the desktop tests, and a session on it for sgt-mines."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

SGT_MINES = shutil.which("sgt-mines") or "/usr/games/sgt-mines"


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """Starts Xvfb on a display number it picks itself (``-displayfd``)."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24", "-nolisten", "tcp",
         "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    number = b""
    deadline = time.monotonic() + 20
    with os.fdopen(read_fd, "rb") as pipe:
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            chunk = pipe.read(1)
            if not chunk:
                break
            number += chunk
    if not number.strip():
        proc.kill()
        raise RuntimeError("Xvfb did not report a display number")
    return proc, f":{number.decode().strip()}"


@pytest.fixture(scope="session")
def xdisplay() -> Iterator[str]:
    """The name of a fresh Xvfb display (1280x1024, 24-bit), torn down after the session."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    proc, name = _start_xvfb()
    try:
        yield name
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


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
