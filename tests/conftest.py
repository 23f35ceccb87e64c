"""Shared fixtures: an in-process app on a temporary database, and a live server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2  # what Starlette's TestClient is built on
import pytest
from fastapi.testclient import TestClient

from server.config import Settings
from server.main import create_app

# Test servers (and the servers their children start) let a client create games as fast
# as the tests need; the rate limit has tests of its own that set it.
os.environ.setdefault("KABOOM_CREATE_PER_MINUTE", "0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PlayerClient(TestClient):
    """A test client that plays the games it creates, as the page does: it keeps each
    new game's player token and sends it with that game's requests (unless the test
    sends an ``Authorization`` header itself, or passes ``as_player=False``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tokens: dict[str, str] = {}

    def request(self, method: str, url: Any, *args: Any, **kwargs: Any) -> httpx2.Response:
        as_player = kwargs.pop("as_player", True)
        parts = str(url).split("/")
        if as_player and len(parts) > 3 and parts[1:3] == ["api", "games"]:
            token = self.tokens.get(parts[3].split("?")[0])
            headers = dict(kwargs.pop("headers", None) or {})
            if token and not any(k.lower() == "authorization" for k in headers):
                headers["Authorization"] = f"Bearer {token}"
            kwargs["headers"] = headers
        response = super().request(method, url, *args, **kwargs)
        created = method.upper() == "POST" and str(url).rstrip("/") == "/api/games"
        if created and response.status_code == 201:
            body = response.json()
            self.tokens[body["id"]] = body["player_token"]
        return response


def settings_for(db: Path, **overrides: Any) -> Settings:
    """Settings for a test server: a temporary database, no rate limit on creation."""
    values: dict[str, Any] = {"sqlite_synchronous": "OFF", "create_per_minute": 0}
    return Settings(db=str(db), **{**values, **overrides})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[PlayerClient]:
    app = create_app(settings_for(tmp_path / "games.db"))
    with PlayerClient(app, raise_server_exceptions=False) as c:
        yield c


class LiveServer:
    """A real ``kaboom serve`` process on a free port."""

    def __init__(
        self, db: Path | str, port: int | None = None, workers: int = 1, **settings: object
    ) -> None:
        """``settings`` are :class:`Settings` fields, passed as ``KABOOM_*`` variables."""
        self.db = db
        self.workers = workers
        self.env = {f"KABOOM_{k.upper()}": str(v) for k, v in settings.items()}
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the server
        """The server's stderr: a file, so a long run's log can never fill a pipe that
        nobody reads (the server would block on its next write)."""

    def start(self) -> LiveServer:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kaboom",
                "serve",
                "--port",
                str(self.port),
                "--db",
                str(self.db),
                "--workers",
                str(self.workers),
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
        )
        deadline = time.monotonic() + 90  # several workers on a busy machine start slowly
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/openapi.json", timeout=1).raise_for_status()
                return self
            except httpx.HTTPError:
                if self.proc.poll() is not None:
                    self.log.seek(0)
                    raise RuntimeError(self.log.read().decode()) from None
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("kaboom serve did not start in 90 s")

    def kill(self) -> None:
        """Kills the server abruptly (SIGKILL, no graceful shutdown), as a crash would;
        :meth:`start` brings it back on the same port and database."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path / "live.db").start()
    yield server
    server.stop()
