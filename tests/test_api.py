"""The HTTP contract: shapes, errors (4xx with a message, never 500), persistence."""

from __future__ import annotations

import importlib.metadata
import os
import threading
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from kaboom.solver.position import Position
from kaboom.testing import LiveServer
from tests import oracle
from tests.apikit import new_game


def test_new_game_shape(client: TestClient) -> None:
    g = new_game(client)
    assert g["status"] == "playing" and g["board"] == ["#" * 9] * 9
    assert g["mines_left"] == 10 and g["moves"] == 0 and g["loss"] is None
    assert g["first_click"] == "safe" and g["forced_guess"] == "survive"
    assert g["outside_guess"] is False
    assert len(g["id"]) >= 32  # 24 random bytes, url-safe: 192 bits


def test_ids_are_unique_and_unguessable(client: TestClient) -> None:
    ids = {new_game(client)["id"] for _ in range(20)}
    assert len(ids) == 20


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_play_with_analysis_to_a_win(client: TestClient, seed: int) -> None:
    g = new_game(client, seed=seed)
    gid = g["id"]
    g = client.post(f"/api/games/{gid}/reveal", json={"x": 4, "y": 4}).json()
    while g["status"] == "playing":
        a = client.get(f"/api/games/{gid}/analysis").json()
        cells = [
            (x, y) for y, row in enumerate(a["status"]) for x, ch in enumerate(row) if ch == "s"
        ]
        if not cells:
            # A forced guess survives by default, but must be on the frontier: a guess
            # away from every number is fatal while the frontier offers a choice.
            position = Position.from_rows(g["board"], g["mines"])
            cells = [c for c in position.frontier() if a["status"][c[1]][c[0]] == "u"]
            cells = cells or [c for c in position.covered() if a["status"][c[1]][c[0]] == "u"]
        x, y = cells[0]
        g = client.post(f"/api/games/{gid}/reveal", json={"x": x, "y": y}).json()
    assert g["status"] == "won", g["loss"]
    assert g["assisted"] is True


def test_analysis_matches_enumeration(client: TestClient) -> None:
    g = new_game(client, width=5, height=4, mines=4, seed=9)
    gid = g["id"]
    g = client.post(f"/api/games/{gid}/reveal", json={"x": 0, "y": 0}).json()
    if g["status"] != "playing":
        pytest.skip("the first click won the game")
    a = client.get(f"/api/games/{gid}/analysis").json()
    position = Position.from_rows(g["board"], 4)
    truth = oracle.statuses(position)
    probs = oracle.probabilities(position)
    for (x, y), s in truth.items():
        assert a["status"][y][x] == s
        assert a["probability"][y][x] == pytest.approx(probs[(x, y)])


BAD_BODIES = [
    {"width": 1, "height": 9, "mines": 1},
    {"width": 257, "height": 9, "mines": 1},
    {"width": 9, "height": 9, "mines": 0},
    {"width": 9, "height": 9, "mines": 81},
    {"width": 9, "height": 9, "mines": -5},
    {"width": 10**30, "height": 9, "mines": 1},
    {"width": "9", "height": 9, "mines": 10},
    {"width": 9.5, "height": 9, "mines": 10},
    {"width": 9, "height": 9, "mines": 10, "first_click": "lucky"},
    {"width": 9, "height": 9, "mines": 10, "forced_guess": 1},
    {"width": 9, "height": 9, "mines": 10, "outside_guess": "yes"},
    {"width": 9, "height": 9, "mines": 10, "seed": -1},
    {"width": 9, "height": 9},
    {"width": 9, "height": 9, "mines": 10, "colour": "red"},
    [],
    None,
]


@pytest.mark.parametrize("body", BAD_BODIES)
def test_bad_new_game_is_422_with_a_message(client: TestClient, body: object) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]


@pytest.mark.parametrize(
    "raw",
    [b"{bad json", b"", b'{"x": 1}', b'{"x": 1, "y": "2"}', b'{"x": true, "y": 0}', b"[1, 2]"],
)
def test_malformed_move_is_422(client: TestClient, raw: bytes) -> None:
    gid = new_game(client)["id"]
    r = client.post(
        f"/api/games/{gid}/reveal", content=raw, headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["detail"]


@pytest.mark.parametrize(
    "x,y", [(-1, 0), (0, -1), (9, 0), (0, 9), (255, 255), (10**20, 0), (0, -(10**20))]
)
def test_off_board_coordinates_are_422(client: TestClient, x: int, y: int) -> None:
    gid = new_game(client)["id"]
    for verb in ("reveal", "flag", "chord"):
        r = client.post(f"/api/games/{gid}/{verb}", json={"x": x, "y": y})
        assert r.status_code == 422, (verb, r.text)
        assert r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json()["moves"] == 0


@pytest.mark.parametrize(
    "method,path",
    [
        ("get", "/api/games/nope"),
        ("post", "/api/games/nope/reveal"),
        ("post", "/api/games/nope/flag"),
        ("post", "/api/games/nope/chord"),
        ("post", "/api/games/nope/undo"),
        ("get", "/api/games/nope/analysis"),
    ],
)
def test_unknown_game_is_404(client: TestClient, method: str, path: str) -> None:
    kwargs = {"json": {"x": 0, "y": 0}} if method == "post" else {}
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == 404 and "nope" in r.json()["detail"]


def test_moves_not_allowed_now_are_409(client: TestClient) -> None:
    gid = new_game(client, seed=3)["id"]
    g = client.post(f"/api/games/{gid}/reveal", json={"x": 0, "y": 0}).json()
    ox, oy = next(
        (x, y) for y, r in enumerate(g["board"]) for x, ch in enumerate(r) if ch.isdigit()
    )
    assert client.post(f"/api/games/{gid}/reveal", json={"x": ox, "y": oy}).status_code == 409
    assert client.post(f"/api/games/{gid}/flag", json={"x": ox, "y": oy}).status_code == 409
    cx, cy = next((x, y) for y, r in enumerate(g["board"]) for x, ch in enumerate(r) if ch == "#")
    assert client.post(f"/api/games/{gid}/chord", json={"x": cx, "y": cy}).status_code == 409
    client.post(f"/api/games/{gid}/flag", json={"x": cx, "y": cy})
    r = client.post(f"/api/games/{gid}/reveal", json={"x": cx, "y": cy})
    assert r.status_code == 409 and "flag" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 409 and r.json()["detail"]


def test_moves_after_the_game_ended_are_409(client: TestClient) -> None:
    gid = new_game(client, width=3, height=3, mines=8)["id"]
    g = client.post(f"/api/games/{gid}/reveal", json={"x": 1, "y": 1}).json()
    assert g["status"] == "won"
    for verb in ("reveal", "flag", "chord"):
        r = client.post(f"/api/games/{gid}/{verb}", json={"x": 0, "y": 0})
        assert r.status_code == 409 and "over" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}/analysis").status_code == 409


def test_mark_cycle_and_question_marks_off(client: TestClient) -> None:
    gid = new_game(client)["id"]
    states = [
        client.post(f"/api/games/{gid}/flag", json={"x": 2, "y": 2}).json()["board"][2][2]
        for _ in range(3)
    ]
    assert states == ["F", "?", "#"]
    gid = new_game(client, question_marks=False)["id"]
    states = [
        client.post(f"/api/games/{gid}/flag", json={"x": 2, "y": 2}).json()["board"][2][2]
        for _ in range(2)
    ]
    assert states == ["F", "#"]
    g = client.post(f"/api/games/{gid}/flag", json={"x": 2, "y": 2}).json()
    assert g["mines_left"] == 9


def test_loss_then_undo_restores_the_board(client: TestClient) -> None:
    gid = new_game(client, width=5, height=5, mines=5, seed=2)["id"]
    g = client.post(f"/api/games/{gid}/reveal", json={"x": 2, "y": 2}).json()
    before = g
    a = client.get(f"/api/games/{gid}/analysis").json()
    mines = [(x, y) for y, r in enumerate(a["status"]) for x, ch in enumerate(r) if ch == "m"]
    unknown = [(x, y) for y, r in enumerate(a["status"]) for x, ch in enumerate(r) if ch == "u"]
    safe = [(x, y) for y, r in enumerate(a["status"]) for x, ch in enumerate(r) if ch == "s"]
    target = mines[0] if mines else unknown[0] if safe else None
    if target is None:
        pytest.skip("no losing click available on this board")
    g = client.post(f"/api/games/{gid}/reveal", json={"x": target[0], "y": target[1]}).json()
    assert g["status"] == "lost" and g["undo_allowed"]
    if g["loss"]["reason"] == "guess_while_safe":
        sc = g["loss"]["safe_cell"]
        assert a["status"][sc["y"]][sc["x"]] == "s"
    back = client.post(f"/api/games/{gid}/undo").json()
    assert back["board"] == before["board"] and back["status"] == "playing"
    assert back["moves"] == before["moves"] and back["assisted"]


def test_long_poll_returns_when_a_move_is_made(client: TestClient) -> None:
    gid = new_game(client)["id"]
    result: dict[str, Any] = {}

    def wait() -> None:
        result["game"] = client.get(
            f"/api/games/{gid}", params={"wait_moves": 0, "timeout": 20}
        ).json()

    t = threading.Thread(target=wait)
    t.start()
    client.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0})
    t.join(25)
    assert result["game"]["moves"] == 1
    r = client.get(f"/api/games/{gid}", params={"wait_moves": 1, "timeout": 0.2})
    assert r.json()["moves"] == 1


def test_openapi_documents_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for p in [
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/reveal",
        "/api/games/{game_id}/analysis",
        "/api/games/{game_id}/undo",
    ]:
        assert p in paths


def test_openapi_bounds_are_the_exact_integers(client: TestClient) -> None:
    """FastAPI wrote every bound as a float: the seed's maximum became 2**63, a seed the
    server refuses.  The document gives the models' integers, exactly."""
    document = client.get("/openapi.json").json()
    bounds: list[object] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            bounds.extend(v for k, v in node.items() if k in ("minimum", "maximum"))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(document)
    assert bounds and all(type(b) is int for b in bounds), bounds
    new_game = document["components"]["schemas"]["NewGame"]["properties"]
    assert new_game["width"]["maximum"] == 256
    [seed, _] = new_game["seed"]["anyOf"]
    assert seed["maximum"] == 2**63 - 1
    r = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10,
                                        "seed": seed["maximum"] + 1})
    assert r.status_code == 422
    r = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10,
                                        "seed": seed["maximum"]})
    assert r.status_code == 201


def test_game_survives_a_server_restart(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        g = http.post("/api/games", json={"width": 16, "height": 16, "mines": 40, "seed": 8}).json()
        gid, token = g["id"], g["player_token"]
        http.headers["Authorization"] = f"Bearer {token}"
        g = http.post(f"/api/games/{gid}/reveal", json={"x": 8, "y": 8}).json()
        http.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0})
        answered = http.get(f"/api/games/{gid}").json()
    live_server.kill()  # no clean shutdown: the answered moves must already be on disk
    live_server.start()
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        http.headers["Authorization"] = f"Bearer {token}"
        after = http.get(f"/api/games/{gid}").json()
        assert after["board"] == answered["board"] and after["moves"] == answered["moves"] == 2
        covered = next(
            (x, y) for y, r in enumerate(after["board"]) for x, ch in enumerate(r) if ch == "#"
        )
        r = http.post(f"/api/games/{gid}/flag", json={"x": covered[0], "y": covered[1]})
        assert r.status_code == 200 and r.json()["moves"] == 3


def test_health_reads_the_store(client: TestClient) -> None:
    from kaboom.server import migrations

    r = client.get("/api/health")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "store": "sqlite",
                        "schema_version": migrations.latest(), "worker": os.getpid(),
                        "version": importlib.metadata.version("kaboom-minesweeper")}
    head = client.head("/api/health")  # what some balancers send
    assert head.status_code == 200 and head.content == b""


def test_health_is_503_when_the_store_cannot_be_read(client: TestClient) -> None:
    client.app.state.kaboom.store.close()  # type: ignore[attr-defined]
    assert client.head("/api/health").status_code == 503
    r = client.get("/api/health")
    assert r.status_code == 503
    assert r.headers["retry-after"] == "1"
    assert "store" in r.json()["detail"]
