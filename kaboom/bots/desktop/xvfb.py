"""A private virtual X display (Xvfb), for tests, benchmarks and headless runs."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["virtual_display"]


@contextmanager
def virtual_display(size: str = "1280x1024x24") -> Iterator[str]:
    """Starts ``Xvfb`` on a display number it picks itself (``-displayfd``) and yields
    the display name (``":N"``); stops it afterwards.

    ``-noreset`` keeps the server from resetting whenever its last client leaves, which
    would refuse the next connection for a moment.
    """
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", size, "-nolisten", "tcp",
         "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        number = b""
        deadline = time.monotonic() + 20
        with os.fdopen(read_fd, "rb") as pipe:
            while not number.endswith(b"\n") and time.monotonic() < deadline:
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip():
            raise RuntimeError("Xvfb did not report a display number")
        yield f":{number.decode().strip()}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
