"""A live ``kaboom serve`` and Debian's headless Chromium, driven by Playwright."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from kaboom.testing import CHROMIUM_ARGS, LiveServer

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("KABOOM_CHROMIUM", "/usr/bin/chromium")


class Server(LiveServer):
    """A live server with an HTTP client that, like the page, keeps the player token of
    each game it creates."""

    def __init__(self, tmp: Path, **settings: object) -> None:
        # open long polls would hold a graceful shutdown for 25 s
        super().__init__(tmp / "web.db", None, grace_s=3, **settings)
        self.http = httpx.Client(base_url=self.url, timeout=60)
        self.tokens: dict[str, str] = {}

    def stop(self) -> None:
        self.http.close()
        super().stop()

    def game(self, game_id: str) -> dict[str, Any]:
        game: dict[str, Any] = self.http.get(f"/api/games/{game_id}").raise_for_status().json()
        return game

    def analysis(self, game_id: str, page: Page | None = None) -> dict[str, Any]:
        """The analysis, as the game's player: this test's token, or the one the page
        keeps for a game it started."""
        if game_id not in self.tokens and page is not None:
            self.tokens[game_id] = page_token(page, game_id)
        analysis: dict[str, Any] = self.http.get(
            f"/api/games/{game_id}/analysis", headers=self._player(game_id)
        ).raise_for_status().json()
        return analysis

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Posts as the player of the games it created (it keeps their tokens)."""
        game_id = path.split("/")[3] if path.count("/") > 3 else None
        headers = self._player(game_id) if game_id else {}
        answer: dict[str, Any] = (
            self.http.post(path, json=body, headers=headers).raise_for_status().json()
        )
        if path == "/api/games":
            self.tokens[answer["id"]] = answer["player_token"]
        return answer

    def player_path(self, game_id: str) -> str:
        """The player's link to a game this test created: the page may move in it."""
        return f"/games/{game_id}#player={self.tokens[game_id]}"

    def _player(self, game_id: str) -> dict[str, str]:
        token = self.tokens.get(game_id)
        return {"Authorization": f"Bearer {token}"} if token else {}


def page_token(page: Page, game_id: str) -> str:
    """The player token the page's browser keeps for a game it started: the HttpOnly
    cookie of the game's path, which no script on the page can read."""
    return next(c["value"] for c in page.context.cookies()
                if c["name"] == "kaboom_player" and c["path"] == f"/games/{game_id}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("web-server"))
    srv.start()
    yield srv
    srv.stop()


# Module scope: a running sync Playwright owns an asyncio loop, and other test packages
# start their own Playwright, which fails while one is still running.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium "
                    "(or set KABOOM_CHROMIUM)")
    # Playwright gives the browser a fresh temporary profile (user-data-dir) of its own.
    b = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()


@contextlib.contextmanager
def open_page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A page in a fresh browser context on ``server``; a JavaScript error on it fails the
    test."""
    # Playwright's wait_for_function evaluates strings in the page, which the server's CSP
    # forbids; test_roles.py checks the page under the real policy without such helpers.
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900},
                                  bypass_csp=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(30_000)
    try:
        yield pg
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    with open_page(browser, server) as pg:
        yield pg
