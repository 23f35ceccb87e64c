"""A live ``kaboom serve`` on a free local port, which the tests may crash and restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def subprocess_env() -> dict[str, str]:
    """The environment for a ``python -m kaboom`` child: this checkout first on the path."""
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """One server process at a time on a fixed port and database, so games survive restarts."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = tmp / "kaboom.db"
        self.log = tmp / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = subprocess_env()
        cmd = [sys.executable, "-m", "kaboom", "serve", "--host", "127.0.0.1",
               "--port", str(self.port), "--db", str(self.db)]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                httpx.get(f"{self.url}/api/games/none", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError("server did not start within 60 s")

    def crash(self) -> None:
        """Kills the server abruptly (no graceful shutdown), as a crash would."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
            self.proc = None


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("kaboom"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
