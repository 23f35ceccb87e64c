"""A game the bot plays is followed live by the browser page (headless Chromium)."""

from __future__ import annotations

import asyncio
import os
import queue
import shutil
import threading
import time

import pytest

from kaboom.bots.base import GameResult, GameSettings, GameView, play_game
from kaboom.bots.http import HttpClient
from kaboom.testing import LiveServer

CHROMIUM = os.environ.get("KABOOM_CHROMIUM", "/usr/bin/chromium")


def test_the_page_follows_the_bots_moves(live_server: LiveServer) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    ids: queue.Queue[str] = queue.Queue()
    page_ready = threading.Event()
    outcome: list[GameResult] = []

    def bot() -> None:
        def on_start(view: GameView) -> None:
            ids.put(view.id)
            page_ready.wait(60)  # let the page open before the first move

        async def main() -> GameResult:
            async with HttpClient(live_server.url) as client:
                return await play_game(client, GameSettings(9, 9, 10, seed=21), delay=0.15,
                                       on_start=on_start)

        outcome.append(asyncio.run(main()))

    thread = threading.Thread(target=bot, daemon=True)
    thread.start()
    seen: list[str] = []
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which(CHROMIUM), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            game_id = ids.get(timeout=60)
            page.goto(f"{live_server.url}/games/{game_id}")
            page.wait_for_selector(f'#board[data-game-id="{game_id}"]', timeout=30_000)
            page_ready.set()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                moves = page.locator("#moves").text_content() or ""
                if not seen or seen[-1] != moves:
                    seen.append(moves)
                if page.locator("#status").get_attribute("data-status") != "playing":
                    break
                page.wait_for_timeout(40)
            status = page.locator("#status").get_attribute("data-status")
            final = page.locator("#moves").text_content()
        finally:
            browser.close()
    thread.join(30)
    result = outcome[0]
    assert result.won and status == "won"
    assert final == str(result.moves)
    # The page showed the game in between, move after move, not just its end.
    assert len(seen) >= 3, seen
