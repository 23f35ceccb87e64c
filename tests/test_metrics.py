"""What ``GET /api/metrics`` tells an operator (``kaboom/server/metrics.py``): requests by route,
games, solver work and refusals, in one process and summed over worker processes."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import threading
import time
from pathlib import Path

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr, ValidationError

from kaboom.server.admission import Gate
from kaboom.server.config import Settings
from kaboom.server.game import Game, Rules, Step
from kaboom.server.games import Games
from kaboom.server.history import History
from kaboom.server.main import create_app
from kaboom.server.store import open_store
from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError
from kaboom.solver.position import Move
from kaboom.testing import LiveServer, ProxiedServer, free_port
from tests.apikit import new_game
from tests.conftest import PlayerClient, settings_for

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _samples(text: str) -> Samples:
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _read(client: TestClient | str) -> Samples:
    """The metrics an in-process app or a live server's URL answers."""
    reply = (httpx.get(f"{client}/api/metrics", timeout=30) if isinstance(client, str)
             else client.get("/api/metrics"))
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain; version=")
    return _samples(reply.text)


def _value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_requests_are_counted_by_route_template_and_status(client: PlayerClient) -> None:
    before = _read(client)
    game = new_game(client)
    client.post(f"/api/games/{game['id']}/reveal", json={"x": 0, "y": 0})
    client.post(f"/api/games/{game['id']}/reveal", json={"x": 99, "y": 0})  # off the board
    client.post(f"/api/games/{game['id']}/reveal", json={"x": 0})  # malformed: never queued
    client.get("/no/such/page")
    client.get(f"/api/games/{'x' * 10}")  # no such game: the route's template, a 404
    after = _read(client)
    assert _value(after, "process_resident_memory_bytes") > 20e6  # prometheus-client's own

    def grew(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    requests = "kaboom_http_requests_total"
    assert grew(requests, method="POST", route="/api/games", status="201") == 1
    assert grew(requests, method="POST", route="/api/games/{game_id}/reveal", status="200") == 1
    assert grew(requests, method="POST", route="/api/games/{game_id}/reveal", status="422") == 2
    assert grew(requests, method="GET", route="none", status="404") == 1  # not the path
    assert grew(requests, method="GET", route="/api/games/{game_id}", status="404") == 1
    assert not any("/no/such" in dict(labels).get("route", "") for _, labels in after)
    assert grew("kaboom_http_request_duration_seconds_count", method="POST",
                route="/api/games/{game_id}/reveal") == 3
    # the referee refuses a cell off the board on a solver thread; the malformed body
    # never reaches the queue
    assert grew("kaboom_solver_seconds_count", work="reveal") == 2
    assert grew("kaboom_solver_wait_seconds_count", work="reveal") == 2
    assert grew("kaboom_games_created_total") == 1
    version = importlib.metadata.version("kaboom-minesweeper")
    assert _value(after, "kaboom_build_info", version=version) == 1


def test_every_answer_says_the_time_the_process_took_to_its_first_byte(
        client: PlayerClient) -> None:
    game = new_game(client)
    timing = client.post(f"/api/games/{game['id']}/reveal", json={"x": 0, "y": 0}
                         ).headers["server-timing"]
    name, took = timing.split(";dur=")
    assert name == "app" and 0 < float(took) < 60_000
    assert client.get("/no/such/page").headers["server-timing"].startswith("app;dur=")


def test_games_ended_are_counted_by_how(client: PlayerClient) -> None:
    before = _read(client)
    won = new_game(client, width=2, height=2, mines=3)  # the first click leaves only mines
    reply = client.post(f"/api/games/{won['id']}/reveal", json={"x": 0, "y": 0}).json()
    assert reply["status"] == "won"
    game = new_game(client)
    gid = game["id"]
    game = client.post(f"/api/games/{gid}/reveal", json={"x": 0, "y": 0}).json()
    while game["status"] == "playing":  # a cell the analysis proves a mine, or undecided
        status = client.get(f"/api/games/{gid}/analysis").json()["status"]
        x, y = next((x, y) for y, row in enumerate(status) for x, ch in enumerate(row)
                    if ch in "mu")
        game = client.post(f"/api/games/{gid}/reveal", json={"x": x, "y": y}).json()
    assert game["status"] == "lost"
    client.post(f"/api/games/{gid}/reveal", json={"x": 1, "y": 1})  # over: refused, 409
    after = _read(client)
    for status in ("won", "lost"):
        assert (_value(after, "kaboom_games_ended_total", status=status)
                - _value(before, "kaboom_games_ended_total", status=status)) == 1


def test_solver_refusals_are_counted_by_reason() -> None:
    def slow(budget: Budget) -> None:
        time.sleep(0.3)

    def out_of_time(budget: Budget) -> None:
        raise BudgetExceededError("no fair answer in time")

    refused: list[str] = []

    async def main() -> None:
        gate = Gate(threads=1, per_game=0, total=100)

        async def second() -> None:
            try:
                await gate.run("g", None, slow, "c", "analysis")
            except BudgetExceededError:
                refused.append("second")

        async with anyio.create_task_group() as tg:
            tg.start_soon(gate.run, "g", None, slow, "c", "analysis")
            await anyio.sleep(0.05)
            tg.start_soon(second)
        with pytest.raises(BudgetExceededError):
            await gate.run("h", 1.0, out_of_time, "c", "hint")

    app = create_app(Settings(db=":memory:", expiry_interval_s=0))
    with TestClient(app) as client:
        before = _read(client)
        anyio.run(main)
        after = _read(client)
    assert refused == ["second"]
    for work, reason in (("analysis", "game_queue"), ("hint", "out_of_time")):
        name = "kaboom_solver_refusals_total"
        grew = (_value(after, name, work=work, reason=reason)
                - _value(before, name, work=work, reason=reason))
        assert grew == 1, (work, reason)


def test_refused_new_games_are_counted_by_bucket(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "games.db", create_per_minute=1, create_burst=1)
    with PlayerClient(create_app(settings)) as client:
        before = _read(client)
        new_game(client)
        assert client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}
                           ).status_code == 429
        after = _read(client)
    name = "kaboom_create_refusals_total"
    assert _value(after, name, bucket="games") - _value(before, name, bucket="games") == 1


def test_a_metrics_token_keeps_the_counts_to_whoever_has_it(tmp_path: Path) -> None:
    secret = "s3cret-metrics-token"
    settings = settings_for(tmp_path / "games.db", metrics_token=SecretStr(secret))
    with TestClient(create_app(settings)) as client:
        none = client.get("/api/metrics")
        assert none.status_code == 401 and none.headers["www-authenticate"] == "Bearer"
        wrong = client.get("/api/metrics", headers={"Authorization": "Bearer " + "x" * 20})
        assert wrong.status_code == 403
        right = client.get("/api/metrics", headers={"Authorization": f"Bearer {secret}"})
        assert right.status_code == 200 and "kaboom_games_created_total" in right.text
    with pytest.raises(ValidationError):  # a token short enough to guess is refused
        Settings(db=":memory:", metrics_token=SecretStr("short"))


def _count(name: str, **labels: str) -> float:
    """A metric of this process, read straight from its registry."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_races_lost_to_another_change_are_counted(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Two services on one store, as two processes: the other's flag commits first."""
    settings = settings_for(tmp_path / "games.db")
    first, other = (Games(open_store(settings.db), settings) for _ in range(2))
    game, token = first.create(Rules(9, 9, 10, debug=True))
    commit = first.store.commit_move

    def after_the_other(was: Game, now: Game, step: Step) -> bool:
        if was.moves == 0:
            other.play(game.id, Move.flag(8, 8), token)
        return commit(was, now, step)

    monkeypatch.setattr(first.store, "commit_move", after_the_other)
    changes = _count("kaboom_store_races_total", what="change")
    assert first.play(game.id, Move.flag(0, 8), token).after.moves == 2  # computed again on move 1
    assert _count("kaboom_store_races_total", what="change") == changes + 1

    real = first.store.moves

    def undo_between(game_id: str, offset: int, limit: int) -> list[str]:
        rows = real(game_id, offset, limit)
        if len(rows) == 2:
            first.undo(game_id, token)
        return rows

    monkeypatch.setattr(first.store, "moves", undo_between)
    pages = _count("kaboom_store_races_total", what="page")
    assert len(History(first.store).moves(game.id, 0, 10)[1]) == 1  # read again after the undo
    assert _count("kaboom_store_races_total", what="page") == pages + 1


def test_moves_out_of_time_and_sat_fallback_layouts_are_counted(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "games.db")
    service = Games(open_store(settings.db), settings)
    game, token = service.create(Rules(16, 16, 40, seed=1))
    game = service.play(game.id, Move.reveal(0, 0), token).after
    covered = [(x, y) for y in range(16) for x in range(16) if game.rows[y][x] == "#"]
    late = _count("kaboom_moves_out_of_time_total")
    drawn = _count("kaboom_sat_fallback_layouts_total")
    # no time at all: the cell cannot be settled, and counting cannot draw the layout
    middle = Move.reveal(*covered[len(covered) // 2])
    after = service.play(game.id, middle, token, Budget(0.0)).after
    assert after.moves == 2 and after.status == "playing"  # never punished without proof
    assert _count("kaboom_moves_out_of_time_total") == late + 1
    assert _count("kaboom_sat_fallback_layouts_total") == drawn + 1


def test_expired_games_are_counted(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "games.db")
    service = Games(open_store(settings.db), settings)
    game, token = service.create(Rules(2, 2, 3))
    assert service.play(game.id, Move.reveal(0, 0), token).after.status == "won"
    expired = _count("kaboom_games_expired_total")
    assert service.expire(time.time() + settings.finished_expiry_s + 60) == 1
    assert _count("kaboom_games_expired_total") == expired + 1


def test_waiting_long_polls_are_counted(live_server: LiveServer) -> None:
    game = new_game(live_server.url)
    answered: list[int] = []

    def spectate() -> None:
        answered.append(httpx.get(f"{live_server.url}/api/games/{game['id']}",
                                  params={"wait_moves": 0, "timeout": 20}, timeout=30
                                  ).json()["moves"])

    def waiting() -> float:
        return _value(_read(live_server.url), "kaboom_long_polls_waiting")

    assert waiting() == 0
    spectator = threading.Thread(target=spectate)
    spectator.start()
    deadline = time.monotonic() + 10
    while waiting() != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert waiting() == 1
    httpx.post(f"{live_server.url}/api/games/{game['id']}/reveal", json={"x": 0, "y": 0},
               headers={"Authorization": f"Bearer {game['player_token']}"}, timeout=30)
    spectator.join(30)
    samples = _read(live_server.url)
    assert answered == [1] and _value(samples, "kaboom_long_polls_waiting") == 0
    # timed apart from plain reads: its seconds are the spectator's wait
    assert _value(samples, "kaboom_http_requests_total", method="GET",
                  route="/api/games/{game_id}?wait_moves", status="200") == 1


def test_a_real_prometheus_scrapes_every_process(tmp_path: Path) -> None:
    """Debian's Prometheus scrapes each of two processes behind nginx with the metrics
    token, as docs/deploy.md says to, and holds every game made through nginx; a job
    without the token is down."""
    binary = shutil.which("prometheus")
    assert binary, "Debian's prometheus is missing: ./test.sh installs it (apt-get)"
    secret = "scrape-token-0123456789"
    with ProxiedServer(tmp_path / "live.db", metrics_token=secret) as server:
        targets = ", ".join(f'"127.0.0.1:{s.port}"' for s in server.servers)
        config = tmp_path / "prometheus.yml"
        config.write_text(f"""
global: {{scrape_interval: 1s, scrape_timeout: 1s}}
scrape_configs:
  - job_name: kaboom
    metrics_path: /api/metrics
    authorization: {{credentials: {secret}}}
    static_configs: [{{targets: [{targets}]}}]
  - job_name: no-token
    metrics_path: /api/metrics
    static_configs: [{{targets: [{targets}]}}]
""")
        port = free_port()
        prometheus = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(7):
                new_game(server.url)  # spread over both processes by nginx

            def query(promql: str) -> dict[str, float]:
                reply = httpx.get(f"http://127.0.0.1:{port}/api/v1/query",
                                  params={"query": promql}, timeout=10).json()
                return {r["metric"].get("job", ""): float(r["value"][1])
                        for r in reply["data"]["result"]}

            wanted = {"kaboom": 7.0}
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # until both jobs have been scraped since
                try:
                    if (query("sum by (job) (kaboom_games_created_total)") == wanted
                            and query("count by (job) (up)") == {"kaboom": 2.0,
                                                                 "no-token": 2.0}):
                        break
                except httpx.TransportError:  # not listening yet
                    pass
                time.sleep(0.5)
            assert query("sum by (job) (kaboom_games_created_total)") == wanted
            assert query("count by (job) (kaboom_games_created_total > 0)") == {"kaboom": 2.0}
            assert query('sum by (job) (kaboom_http_requests_total{route="/api/games"})'
                         ) == wanted
            assert query("sum by (job) (up)") == {"kaboom": 2.0, "no-token": 0.0}
        finally:
            prometheus.terminate()
            prometheus.wait(30)
