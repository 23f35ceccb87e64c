"""The public server's edge, over real HTTP: size limits, strict JSON, no 5xx for any
input (a schema-driven fuzzer), tokens, secret seeds, security headers, the rate limit
and expiry."""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok

from kaboom.server.games import Games
from kaboom.server.store import open_store
from kaboom.testing import LiveServer
from tests.apikit import new_game
from tests.conftest import PlayerClient, settings_for

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("edge") / "edge.db").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http(live: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.url, timeout=30) as c:
        yield c


def _auth(game: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['player_token']}"}


# ------------------------------------------------------------------ body size

def test_a_large_body_is_413_at_once_and_other_games_stay_fast(http: httpx.Client,
                                                                live: LiveServer) -> None:
    other = new_game(http)
    big = b'{"width":9,"height":9,"mines":10,' + b'"k":1,' * 1_800_000 + b'"z":0}'  # 10.8 MB
    answers: list[httpx.Response] = []

    def attack() -> None:
        with httpx.Client(base_url=live.url, timeout=60) as c:
            for _ in range(3):
                answers.append(c.post("/api/games", content=big,
                                      headers={"Content-Type": "application/json"}))

    thread = threading.Thread(target=attack)
    thread.start()
    times = []
    while thread.is_alive():
        t = time.perf_counter()
        assert http.get(f"/api/games/{other['id']}").status_code == 200
        times.append(time.perf_counter() - t)
    thread.join()
    assert [a.status_code for a in answers] == [413] * 3
    assert all(len(a.content) < 200 for a in answers)
    assert "larger than 81920 bytes" in answers[0].json()["detail"]
    assert max(times) < 0.5, times


def test_a_chunked_body_is_counted(http: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"width":9,"height":9,"mines":10,'
        for _ in range(2000):
            yield b'"k":1,' * 10
        yield b'"z":0}'

    r = http.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_many_unknown_keys_answer_a_short_error(http: httpx.Client) -> None:
    body = {"width": 9, "height": 9, "mines": 10, **{f"k{i}": "x" * 50 for i in range(800)}}
    r = http.post("/api/games", json=body)
    assert r.status_code == 422
    assert len(r.content) < 3000  # ten errors and a count, not 800 echoes
    detail = r.json()["detail"]
    assert detail[-1]["msg"] == "and 790 more errors"


# ------------------------------------------------------------------ strict JSON

NON_JSON = [
    (b'{"width":9,"height":9,"mines":NaN}', "NaN is not a JSON number"),
    (b'{"width":Infinity,"height":9,"mines":10}', "Infinity is not a JSON number"),
    (b'{"width":9,"height":-Infinity,"mines":10}', "-Infinity is not a JSON number"),
    (b'{"width":9,"height":9,"mines":1e999}', "out of range"),
    (b'{"width":9,"height":9,"mines":10,"seed":"\\ud800"}', "lone surrogate"),
    (b'{"\\udfff":1,"width":9,"height":9,"mines":10}', "lone surrogate"),
    (b"\xff\xfe", "not UTF-8"),
    (b'{"width":9,', "not JSON"),
    (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b"[" * 40 + b"]" * 40, "nested too deeply"),
    (b'{"width":' + b"9" * 5000 + b',"height":9,"mines":1}', "not acceptable JSON"),
]


@pytest.mark.parametrize(("body", "message"), NON_JSON)
def test_bodies_that_are_not_strict_json_are_422(http: httpx.Client, body: bytes,
                                                 message: str) -> None:
    r = http.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert message in r.json()["detail"]
    # The connection is still good for the next request (nothing was reset).
    assert http.get("/openapi.json").status_code == 200


def test_a_move_body_with_nan_is_422_and_the_game_is_unchanged(http: httpx.Client) -> None:
    game = new_game(http)
    r = http.post(f"/api/games/{game['id']}/reveal", content=b'{"x":NaN,"y":1}',
                  headers={**_auth(game), "Content-Type": "application/json"})
    assert r.status_code == 422
    assert http.get(f"/api/games/{game['id']}").json()["moves"] == 0


def test_whole_floats_are_integers_as_the_schema_says(http: httpx.Client) -> None:
    game = new_game(http, width=9.0)
    assert game["width"] == 9
    r = http.post(f"/api/games/{game['id']}/reveal", json={"x": 4.0, "y": 4.0},
                  headers=_auth(game))
    assert r.status_code == 200 and r.json()["moves"] == 1
    for bad in ({"x": 4.5, "y": 4}, {"x": "4", "y": 4}, {"x": True, "y": 4}):
        r = http.post(f"/api/games/{game['id']}/reveal", json=bad, headers=_auth(game))
        assert r.status_code == 422, bad
    schema = http.get("/openapi.json").json()["components"]["schemas"]["CellIn"]
    assert schema["properties"]["x"]["type"] == "integer"


def test_a_validation_error_never_echoes_much_input(http: httpx.Client) -> None:
    r = http.post("/api/games", json={"width": "w" * 10_000, "height": 9, "mines": 10})
    assert r.status_code == 422
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "width"]
    assert len(error["input"]) <= 40


def test_bad_query_and_path_values_are_4xx(http: httpx.Client) -> None:
    game = new_game(http)
    for query in ("wait_moves=0&timeout=nan", "wait_moves=0&timeout=inf", "wait_moves=-1",
                  "wait_moves=99999999999999999999"):
        r = http.get(f"/api/games/{game['id']}?{query}")
        assert r.status_code == 422, query
    assert http.get("/api/games/" + "a" * 65).status_code == 422
    assert http.get("/api/games/not%20an%20id").status_code == 422


# ------------------------------------------------------------------ fuzzing

FUZZ_EXAMPLES = int(os.environ.get("KABOOM_FUZZ_EXAMPLES", "25"))
"""Examples an operation; 1,500 took 404 s here, so the test's time grows with them."""


@pytest.mark.timeout(300 + 0.5 * FUZZ_EXAMPLES)
def test_no_input_makes_a_server_error(live: LiveServer, http: httpx.Client) -> None:
    """Schemathesis generates inputs from the server's own OpenAPI schema for every
    operation (derandomized: a fixed seed; a bounded number of examples), half of them
    aimed at a real game with its player's token: the answer is never a 5xx."""
    real_game = new_game(http, width=16, height=16, mines=40)
    api = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    operations = []
    for result in api.get_all_operations():
        assert isinstance(result, Ok), result.err()
        operations.append(result.ok())
    assert len(operations) >= 8
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=FUZZ_EXAMPLES, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case: schemathesis.Case[Any]) -> None:
            headers = {}
            params = case.path_parameters
            if params and "game_id" in params and len(repr(case.body)) % 2:
                params["game_id"] = real_game["id"]
                headers = _auth(real_game)
            # A long poll may rightly wait out its timeout (at most 30 s, the default cap).
            case.call_and_validate(base_url=live.url, headers=headers,
                                   checks=[not_a_server_error], timeout=45)

        fuzz()


# ------------------------------------------------------------------ players and spectators

def test_only_the_player_moves(http: httpx.Client) -> None:
    game = new_game(http)
    gid = game["id"]
    assert "player_token" not in http.get(f"/api/games/{gid}").json()
    r = http.post(f"/api/games/{gid}/reveal", json={"x": 4, "y": 4})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    wrong = {"Authorization": "Bearer " + "x" * 32}
    for path, body in (("reveal", {"x": 4, "y": 4}), ("flag", {"x": 0, "y": 0}),
                       ("chord", {"x": 0, "y": 0}), ("undo", None)):
        r = http.post(f"/api/games/{gid}/{path}", json=body, headers=wrong)
        assert r.status_code == 403, path
    assert http.get(f"/api/games/{gid}/analysis", headers=wrong).status_code == 403
    assert http.get(f"/api/games/{gid}/analysis").status_code == 401
    # Nothing a spectator tried changed the game or marked it assisted.
    seen = http.get(f"/api/games/{gid}").json()
    assert seen["moves"] == 0 and seen["assisted"] is False and seen["version"] == 0
    r = http.post(f"/api/games/{gid}/reveal", json={"x": 4, "y": 4}, headers=_auth(game))
    assert r.status_code == 200 and r.json()["moves"] == 1
    assert http.get(f"/api/games/{gid}/analysis", headers=_auth(game)).status_code == 200
    assert http.get(f"/api/games/{gid}").json()["assisted"] is True
    # Once the server knows the player (checked from memory from then on), a wrong or
    # missing token is still refused and changes nothing.
    r = http.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0}, headers=wrong)
    assert r.status_code == 403
    assert http.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0}).status_code == 401
    assert http.get(f"/api/games/{gid}").json()["moves"] == 1


# ------------------------------------------------------------------ secret seeds

def _play_to_the_end(
    http: httpx.Client, game: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Reveals cells left to right until the game ends; returns it and every answer."""
    answers = []
    g = game
    while g["status"] == "playing":
        x, y = next((x, y) for y, row in enumerate(g["board"]) for x, ch in enumerate(row)
                    if ch == "#")
        r = http.post(f"/api/games/{g['id']}/reveal", json={"x": x, "y": y}, headers=_auth(game))
        assert r.status_code == 200
        g = r.json()
        answers.append(g)
    return g, answers


def test_a_drawn_seed_stays_secret_until_the_game_ends(http: httpx.Client) -> None:
    game = new_game(http, forced_guess="fair", outside_guess=True)
    assert game["seed"] is None and game["seeded"] is False
    end, answers = _play_to_the_end(http, game)
    assert all(a["seed"] is None for a in answers[:-1])  # nothing while it was on
    spectated = http.get(f"/api/games/{game['id']}").json()
    seed = end["seed"]
    assert isinstance(seed, int) and spectated["seed"] == seed
    # Shown once over, the seed replays the game: the same clicks, the same boards.
    replay = new_game(http, forced_guess="fair", outside_guess=True, seed=seed)
    assert replay["seeded"] is True and replay["seed"] == seed
    again, replayed = _play_to_the_end(http, replay)
    assert [a["board"] for a in replayed] == [a["board"] for a in answers]
    assert again["status"] == end["status"]


def test_two_games_without_a_seed_do_not_share_draws(http: httpx.Client) -> None:
    boards = set()
    for _ in range(4):  # an opening shows a region: equal ones by chance are very rare
        game = new_game(http, width=16, height=16, mines=40, first_click="opening")
        r = http.post(f"/api/games/{game['id']}/reveal", json={"x": 8, "y": 8},
                      headers=_auth(game))
        boards.add(tuple(r.json()["board"]))
    assert len(boards) == 4


# ------------------------------------------------------------------ headers

def test_security_headers_and_no_banner(http: httpx.Client) -> None:
    for path in ("/", "/api/games/none", "/static/kaboom.js"):
        r = http.get(path)
        assert r.headers["x-content-type-options"] == "nosniff"
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert "server" not in r.headers
    r = http.post("/api/games", content=b"\xff")
    assert "content-security-policy" in r.headers and "server" not in r.headers


# ------------------------------------------------------------------ growth

def test_game_creation_is_rate_limited_per_client(tmp_path: Path) -> None:
    from kaboom.server.main import create_app

    app = create_app(settings_for(tmp_path / "g.db", create_per_minute=60, create_burst=3))
    with PlayerClient(app) as c:
        codes = [c.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).status_code
                 for _ in range(4)]
        assert codes == [201, 201, 201, 429]
        r = c.post("/api/games", json={"width": 9, "height": 9, "mines": 10})
        assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 2
        assert "too many new games" in r.json()["detail"]


def test_a_client_has_a_days_cells_of_new_games(tmp_path: Path) -> None:
    """The second bucket counts cells, not games: a day's 1,000 cells go on one 30x30 and
    one 10x10 board; then even a 2x2 waits until its 4 cells have refilled (1,000 a day is
    86.4 s a cell), while the games bucket is off.  A board larger than the day's cells
    takes all of them, once."""
    from kaboom.server.main import create_app

    def board(c: PlayerClient, side: int) -> int:
        return c.post("/api/games", json={"width": side, "height": side, "mines": 1}).status_code

    app = create_app(settings_for(tmp_path / "g.db", create_cells_per_day=1000))
    with PlayerClient(app) as c:
        assert [board(c, 30), board(c, 10)] == [201, 201]
        r = c.post("/api/games", json={"width": 2, "height": 2, "mines": 1})
        assert r.status_code == 429
        assert 340 <= int(r.headers["retry-after"]) <= 350  # 4 cells at 86.4 s each
        assert "too many cells of new games" in r.json()["detail"]
        assert "1,000 a day" in r.json()["detail"]
    app = create_app(settings_for(tmp_path / "h.db", create_cells_per_day=1000))
    with PlayerClient(app) as c:
        assert [board(c, 40), board(c, 2)] == [201, 429]


def test_all_clients_share_a_days_cells_of_new_games(tmp_path: Path) -> None:
    """Clients of many addresses escape the per-client buckets; the shared bucket bounds
    what the store grows by a day.  Its refusal is a 503 (no fault of the client's), and
    gives the client back the cells its own bucket had given."""
    from kaboom.server.main import create_app

    def board(c: PlayerClient, side: int) -> Any:
        return c.post("/api/games", json={"width": side, "height": side, "mines": 1})

    db = tmp_path / "g.db"
    app = create_app(settings_for(db, create_cells_per_day=1000,
                                  create_cells_per_day_total=950))
    with PlayerClient(app) as c:
        assert board(c, 30).status_code == 201  # 900 cells from each bucket
        r = board(c, 10)  # the client has 100 left, all clients 50
        assert r.status_code == 503
        assert 4540 <= int(r.headers["retry-after"]) <= 4560  # 50 cells, 950 a day
        assert "the day's cells of new games (950 from all clients)" in r.json()["detail"]
    # the same store without the shared bucket: the client still has its 100 cells
    app = create_app(settings_for(db, create_cells_per_day=1000))
    with PlayerClient(app) as c:
        assert [board(c, 10).status_code, board(c, 2).status_code] == [201, 429]


def test_expiry_removes_finished_and_idle_games_only(tmp_path: Path) -> None:
    from kaboom.server.game import Rules
    from kaboom.solver.position import Move

    settings = settings_for(tmp_path / "g.db", finished_expiry_s=100, idle_expiry_s=1000)
    service = Games(open_store(settings.db), settings)
    finished, token = service.create(Rules(9, 9, 10, seed=3))
    finished = service.play(finished.id, Move.reveal(4, 4), token).after
    while finished.status == "playing":  # reveal blindly until the game ends
        x, y = next(c for c in finished.position.covered())
        finished = service.play(finished.id, Move.reveal(x, y), token).after
    playing, token2 = service.create(Rules(9, 9, 10))
    service.play(playing.id, Move.flag(0, 0), token2)
    now = time.time()
    assert service.expire(now) == 0  # nothing is old yet
    assert service.expire(now + 150) == 1  # the finished game, 150 s after it ended
    with pytest.raises(LookupError):
        service.get(finished.id)
    assert service.get(playing.id).moves == 1
    assert service.expire(now + 1100) == 1  # idle past its age: abandoned
    assert service.store.versions([playing.id]) == {}


def test_long_poll_spectators_do_not_slow_moves(http: httpx.Client, live: LiveServer) -> None:
    game = new_game(http)
    stop = threading.Event()

    def watch() -> None:
        with httpx.Client(base_url=live.url, timeout=30) as c:
            while not stop.is_set():
                c.get(f"/api/games/{game['id']}", params={"wait_moves": 0, "timeout": 1})

    watchers = [threading.Thread(target=watch) for _ in range(8)]
    for w in watchers:
        w.start()
    times = []
    try:
        for i in range(10):
            t = time.perf_counter()
            r = http.post(f"/api/games/{game['id']}/flag", json={"x": i % 9, "y": 0},
                          headers=_auth(game))
            times.append(time.perf_counter() - t)
            assert r.status_code == 200
    finally:
        stop.set()
        for w in watchers:
            w.join()
    assert statistics.median(times) < 0.5, times
    assert json.loads(http.get(f"/api/games/{game['id']}").text)["moves"] == 10


def test_static_files_are_the_pages_kinds_and_always_revalidated(http: httpx.Client) -> None:
    """``/static`` served the whole ``web`` package, ``__init__.py`` included, with no
    Cache-Control: after an upgrade a browser could run old modules under the new page."""
    for path in ("/static/kaboom.js", "/static/kaboom.css", "/static/vendor/htmx.min.js",
                 "/static/favicon.svg", "/docs-assets/swagger-ui-bundle.js"):
        r = http.get(path)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-cache", path
        again = http.get(path, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304, path
    for path in ("/static/__init__.py", "/static/vendor/vendored.json", "/static/",
                 "/static/vendor/htmx.LICENSE"):
        assert http.get(path).status_code == 404, path


def test_an_ipv6_network_is_one_creation_bucket() -> None:
    """Each address had its own bucket, and one IPv6 /64 holds 2**64 of them."""
    from kaboom.server.edge import bucket_of

    assert bucket_of("2001:db8:1:2::1") == bucket_of("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert bucket_of("2001:db8:1:3::1") != bucket_of("2001:db8:1:2::1")
    assert bucket_of("203.0.113.7") == "203.0.113.7" == bucket_of("::ffff:203.0.113.7")
    assert bucket_of("testclient") == "testclient"  # not an address: as it is
