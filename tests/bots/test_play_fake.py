"""Whole games against the oracle-ruled fake server: directly, and over HTTP with faults."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import httpx
import pytest

from kaboom.bots.base import GameResult, GameSettings, GameView, play_game
from kaboom.bots.http import HttpClient
from kaboom.bots.play_cli import run_games, summarize
from kaboom.solver.position import Move
from tests.bots.fake import FakeClient, FakeServer, Fault, api_handler
from tests.bots.test_choose import check_choice

SIZES = [(4, 4, 3), (5, 4, 4), (6, 3, 4), (4, 4, 5)]


@pytest.mark.parametrize("width, height, mines", SIZES)
def test_survive_games_are_all_won(width: int, height: int, mines: int) -> None:
    client = FakeClient(FakeServer(seed=width * 100 + mines))
    settings = [GameSettings(width, height, mines) for _ in range(8)]
    results = asyncio.run(run_games(client, settings, concurrency=2))
    assert [r.status for r in results] == ["won"] * len(settings), [r.loss for r in results]
    # Every move the bot made was a legal one for a complete bot (oracle check).
    for position, _ in client.played:
        if not position.is_start:
            check_choice(position, False)


def test_games_are_played_with_the_solver_profile_asked_for() -> None:
    """The first click is the profile's: the corner by default, (2, 1) with a spec."""
    for profile, first in (("strong", (0, 0)), ("strong,first_safe=2:1", (2, 1))):
        client = FakeClient(FakeServer(seed=5))
        settings = [GameSettings(5, 4, 4) for _ in range(3)]
        results = asyncio.run(run_games(client, settings, profile=profile))
        assert [r.status for r in results] == ["won"] * 3
        assert [move.cell for position, move in client.played if position.is_start] \
            == [first] * 3


@pytest.mark.parametrize("outside", [False, True])
def test_fair_games_end_without_bot_faults(outside: bool) -> None:
    client = FakeClient(FakeServer(seed=7))
    settings = [GameSettings(5, 4, 5, forced_guess="fair", outside_guess=outside)
                for _ in range(12)]
    results = asyncio.run(run_games(client, settings))
    assert all(r.status in ("won", "lost") for r in results)
    reasons = {r.loss.reason for r in results if r.loss}
    assert reasons <= {"forced_guess"}


def _faulty(rate: float, seed: int) -> Callable[[httpx.Request], Fault]:
    rng = random.Random(seed)

    def fault(request: httpx.Request) -> str | None:
        if rng.random() >= rate:
            return None
        return rng.choice(["refuse", "drop", "503"])

    return fault


def test_http_client_survives_lost_requests_and_answers() -> None:
    server = FakeServer(seed=3)
    transport = httpx.MockTransport(api_handler(server, _faulty(0.3, seed=11)))

    async def main() -> tuple[list[GameResult], HttpClient]:
        async with HttpClient("http://fake", retry_for=5, transport=transport) as client:
            client._backoff = lambda deadline: 0.0  # type: ignore[method-assign]
            settings = [GameSettings(5, 4, 4) for _ in range(10)]
            results = await run_games(client, settings, concurrency=3)
            return results, client

    results, client = asyncio.run(main())
    assert client.retries > 0
    assert [r.status for r in results] == ["won"] * 10, [r.error for r in results]
    # No move was applied twice: each game's server-side count matches the bot's view.
    for r in results:
        assert r.game_id is not None
        assert server.games[r.game_id].moves == r.moves


def test_http_errors_end_the_game_with_a_message() -> None:
    server = FakeServer()
    always = httpx.MockTransport(api_handler(server, lambda request: "refuse"))

    async def main() -> GameResult:
        async with HttpClient("http://fake", retry_for=0.2, transport=always) as client:
            return await play_game(client, GameSettings(4, 4, 3))

    result = asyncio.run(main())
    assert result.status == "error" and result.error is not None
    assert "gave up" in result.error and "ConnectError" in result.error


def test_a_vanished_game_is_reported_not_raised() -> None:
    server = FakeServer()

    def vanish(request: httpx.Request) -> None:
        if request.url.path.endswith("/reveal"):
            server.games.clear()  # as if the server lost its database

    async def main() -> GameResult:
        transport = httpx.MockTransport(api_handler(server, vanish))
        async with HttpClient("http://fake", transport=transport) as client:
            return await play_game(client, GameSettings(4, 4, 3))

    result = asyncio.run(main())
    assert result.status == "error" and result.error is not None
    assert "404" in result.error and "unknown game" in result.error


def test_summary_counts() -> None:
    client = FakeClient(FakeServer(seed=5))
    results = asyncio.run(run_games(client, [GameSettings(4, 4, 3)] * 4))
    summary = summarize(results, {"reveal": [0.001, 0.002, 0.003]}, wall_s=1.0, retries=0)
    assert summary.games == 4 and summary.wins == 4 and summary.errors == 0
    assert summary.reveal_ms == {"p50": 2.0, "p99": 3.0}
    assert summary.moves == sum(r.moves for r in results)


def test_malformed_answers_and_bugs_end_one_game_not_the_run() -> None:
    server = FakeServer()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/reveal"):
            return httpx.Response(200, json={"id": "g0", "status": "playing"})  # no board
        return api_handler(server, lambda r: None)(request)

    async def main() -> GameResult:
        async with HttpClient("http://fake", transport=httpx.MockTransport(handler)) as client:
            return await play_game(client, GameSettings(4, 4, 3))

    result = asyncio.run(main())
    assert result.status == "error" and result.error is not None
    assert "malformed game" in result.error

    class Broken(FakeClient):
        async def play(self, game: GameView, move: Move) -> GameView:
            raise RuntimeError("boom")

    results = asyncio.run(run_games(Broken(), [GameSettings(4, 4, 3)] * 2))
    assert [r.error for r in results] == ["bot failure: RuntimeError: boom"] * 2
