"""Shared fixtures: an in-process app on a temporary database, a live server, and a real
PostgreSQL."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2  # what Starlette's TestClient is built on
import pytest
from fastapi.testclient import TestClient

from kaboom.server.config import Settings
from kaboom.server.main import create_app
from kaboom.testing import NO_CREATION_LIMITS, LiveServer, PostgresServer, find_postgres

__all__ = ["PlayerClient", "settings_for"]

# Test servers (and the servers their children start) let a client create games as fast
# as the tests need; the rate limit has tests of its own that set it.
os.environ.setdefault("KABOOM_CREATE_PER_MINUTE", "0")


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
    """Settings for a test server: a temporary database and no limits on creation (every
    request of an in-process test client comes from one client, ``testclient``)."""
    values: dict[str, Any] = {"sqlite_synchronous": "OFF", **NO_CREATION_LIMITS}
    return Settings(db=str(db), **{**values, **overrides})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[PlayerClient]:
    app = create_app(settings_for(tmp_path / "games.db"))
    with PlayerClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path / "live.db").start()
    yield server
    server.stop()


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster of its own, started, and stopped on the way out."""
    bindir = find_postgres()
    if bindir is None:
        pytest.fail("PostgreSQL is not installed: run ./test.sh (it installs `postgresql`)")
    server = PostgresServer(bindir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster for the session (``url()`` makes a fresh database)."""
    with throwaway_postgres() as server:
        yield server
