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
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
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
