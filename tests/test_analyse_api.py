"""``POST /api/analyse`` and ``/api/analyse/proof``: any position, analysed under the
server's budgets and strict input."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from kaboom.server.main import create_app
from kaboom.solver.analysis import MIN_ROLLOUTS, TOO_LARGE
from kaboom.solver.contradiction import Contradiction
from kaboom.solver.link import from_link
from kaboom.solver.position import Position
from kaboom.solver.proof import Proof
from kaboom.solver.winchance import win_chances
from kaboom.testing import LiveServer
from tests import oracle
from tests.conftest import settings_for
from tests.solver.test_winchance import BRANCHES
from tests.test_analysis import first_guess, large_position
from tests.test_contradiction import assert_minimal
from tests.test_proof import assert_proves


def _body(position: Position) -> dict[str, Any]:
    return {"rows": list(position.rows), "mines": position.mines}


def test_a_position_is_analysed_as_brute_force_says(client: TestClient) -> None:
    position = Position.from_text(
        """mines=3
        0 1 # #
        1 2 # #
        # # # #"""
    )
    r = client.post("/api/analyse", json=_body(position))
    assert r.status_code == 200, r.text
    got = r.json()
    assert from_link(got["link"]) == position
    assert got["impossible"] is False and got["contradiction"] is None
    analysis = got["analysis"]
    assert analysis["complete"] and analysis["exact"] and analysis["unsettled"] == 0
    truth = oracle.statuses(position)
    assert {c: analysis["status"][c[1]][c[0]] for c in truth} == truth
    for (x, y), p in oracle.probabilities(position).items():
        assert analysis["probability"][y][x] == pytest.approx(p, abs=1e-9)
    assert analysis["probability"][0][0] is None  # open
    assert (analysis["safe"], analysis["mines"]) == (
        list(truth.values()).count("s"), list(truth.values()).count("m"))
    found = got["recommended"]
    assert truth[(2, 2)] == "s" and found["certain"] is True
    assert found["moves"] == ["reveal 2 2"] and found["proof"]["text"] == (
        "the 1 at (1, 0), the 1 at (0, 1) and the 2 at (1, 1) leave no room for a mine at"
        " (2, 2)")


def test_the_recommended_move_comes_with_its_proof(client: TestClient) -> None:
    position = Position.from_text("mines=1\n0 1 #\n0 1 #\n0 1 #")
    found = client.post("/api/analyse", json=_body(position)).json()["recommended"]
    assert found["certain"] and found["moves"] == ["reveal 2 0", "reveal 2 2"]
    proof = found["proof"]
    assert (proof["x"], proof["y"], proof["mine"]) == (2, 0, False)
    assert_proves(position, Proof(
        (2, 0), False, tuple(((n["x"], n["y"]), n["n"]) for n in proof["numbers"]),
        proof["count"]))


def test_a_guess_says_its_chance_to_win_and_the_next_best_guesses(client: TestClient
                                                                   ) -> None:
    """Few layouts: every chance exact, the recommended guess first, each other guess
    with its difference from it."""
    found = client.post("/api/analyse", json=_body(BRANCHES)).json()["recommended"]
    assert not found["certain"] and found["moves"] == ["reveal 2 3"]
    assert found["win_chances_note"] is None
    odds = found["win_chances"]
    assert odds["exact"] and odds["rollouts"] == 0 and odds["policy"] == "best play"
    cells = [(g["x"], g["y"]) for g in odds["guesses"]]
    exact = win_chances(BRANCHES, cells)
    first, *others = odds["guesses"]
    assert cells[0] == (2, 3) and first["chance"] == pytest.approx(0.82, abs=5e-4)
    assert first["difference"] is None and first["difference_low"] is None
    assert len(others) == 2
    for g, c in zip(odds["guesses"], exact.chances, strict=True):
        assert g["chance"] == pytest.approx(c.chance) == g["low"] == g["high"]
        assert g["safety"] == pytest.approx(c.safety)
    for g in others:
        assert g["difference"] == pytest.approx(g["chance"] - first["chance"])
        assert g["difference_low"] == g["difference"] == g["difference_high"] <= 0


def test_a_larger_guess_has_estimated_chances_and_a_huge_one_says_it_is_too_large(
        tmp_path: Path) -> None:
    """With 10 s (room for the analysis however loaded the machine), a Beginner guess
    gets its rollouts, and a 200x200 one, whose rollouts take a third of a second each,
    fewer than the chances need."""
    app = create_app(settings_for(tmp_path / "games.db", analysis_budget_s=10))
    with TestClient(app) as client:
        found = client.post("/api/analyse", json=_body(first_guess(9, 9, 10, 4))).json()[
            "recommended"]
        huge = client.post("/api/analyse", json=_body(first_guess(200, 200, 8000, 3))).json()
    odds = found["win_chances"]
    assert not odds["exact"] and odds["rollouts"] >= MIN_ROLLOUTS and odds["policy"] == "fast"
    assert found["moves"] == [f"reveal {odds['guesses'][0]['x']} {odds['guesses'][0]['y']}"]
    for g in odds["guesses"]:
        assert 0 <= g["low"] <= g["chance"] <= g["high"] <= g["safety"] + 1e-12
    for g in odds["guesses"][1:]:
        assert g["difference_low"] <= g["difference"] <= g["difference_high"]
    assert huge["recommended"]["certain"] is False
    assert huge["recommended"]["win_chances"] is None
    assert huge["recommended"]["win_chances_note"] == TOO_LARGE


def test_an_impossible_position_says_why(client: TestClient) -> None:
    position = Position.from_text("mines=1\n# 1 # # 1 #")
    got = client.post("/api/analyse", json=_body(position)).json()
    assert got["impossible"] is True and got["analysis"] is None
    assert got["recommended"] is None
    reason = got["contradiction"]
    assert reason["count"] == 1
    assert [(n["x"], n["y"], n["n"]) for n in reason["numbers"]] == [(1, 0, 1), (4, 0, 1)]
    assert reason["text"] == (
        "with 1 mine in all, the 1 at (1, 0) and the 1 at (4, 0) cannot both hold")
    assert_minimal(position, Contradiction(((((1, 0), 1)), ((4, 0), 1)), 1))


@pytest.mark.parametrize(("body", "says"), [
    ({"rows": ["###", "#1#", "#Z#"], "mines": 1}, "row 2, column 1: 'Z' is not a cell"),
    ({"rows": ["###", "#1#", "##"], "mines": 1}, "row 2 has 2 cells where row 0 has 3"),
    ({"rows": ["###", "#X#"], "mines": 1}, "row 1, column 1: 'X' is not a cell of a position"
     " in play"),
    ({"rows": ["###"], "mines": 4}, "4 mines do not fit on the board"),
    ({"rows": [""], "mines": 0}, "row 0 is empty"),
    ({"rows": [], "mines": 0}, "at least 1 item"),
    ({"rows": ["#" * 257], "mines": 1}, "at most 256 characters"),
    ({"rows": ["##"] * 257, "mines": 1}, "at most 256 items"),
    ({"rows": ["##"], "mines": "1"}, "valid integer"),
    ({"rows": "##", "mines": 1}, "valid list"),
    ({"rows": ["##"], "mines": -1}, "greater than or equal to 0"),
    ({"rows": ["##"], "mines": 1, "extra": 1}, "Extra inputs"),
    ({"rows": ["##"]}, "Field required"),
])
def test_a_bad_board_is_a_422_that_says_where(client: TestClient, body: dict[str, Any],
                                             says: str) -> None:
    r = client.post("/api/analyse", json=body)
    assert r.status_code == 422, r.text
    assert says in json.dumps(r.json()["detail"]), r.json()


def test_a_cells_proof(client: TestClient) -> None:
    position = Position.from_text("mines=1\n0 1 #\n0 1 #\n0 1 #")
    r = client.post("/api/analyse/proof", json={**_body(position), "x": 2, "y": 1})
    assert r.status_code == 200, r.text
    assert r.json()["mine"] is True and r.json()["text"].endswith("need a mine at (2, 1)")
    undecided = Position.from_text("mines=1\n1 #\n# #")
    r = client.post("/api/analyse/proof", json={**_body(undecided), "x": 1, "y": 1})
    assert r.status_code == 409 and "not decided" in r.json()["detail"]
    r = client.post("/api/analyse/proof", json={**_body(undecided), "x": 2, "y": 0})
    assert r.status_code == 422 and "(2, 0) is off the 2x2 board" in r.text


def test_the_largest_board_fits_and_a_larger_body_does_not(client: TestClient) -> None:
    """256 rows of 256 cells are 66 KB of JSON: inside the body limit, analysed within
    the budget; a body past the limit is a 413 before anything is parsed."""
    position, layout = large_position(7)
    body = json.dumps(_body(position), indent=2).encode()
    assert len(body) > 64 * 1024
    r = client.post("/api/analyse", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    status = r.json()["analysis"]["status"]
    assert all((x, y) in layout for y, row in enumerate(status)
               for x, ch in enumerate(row) if ch == "m")
    too_big = body + b" " * (80 * 1024)
    r = client.post("/api/analyse", content=too_big,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_an_analysis_out_of_budget_says_what_it_did_not_settle(tmp_path: Path) -> None:
    """With 20 ms, a 256x256 board cannot be settled: the answer says which cells are
    (``s``/``m``, each true of the game's mines) and which are not (``?``), has no
    probabilities, and recommends no guess."""
    app = create_app(settings_for(tmp_path / "games.db", analysis_budget_s=0.02))
    position, layout = large_position(11)
    with TestClient(app) as client:
        r = client.post("/api/analyse", json=_body(position))
    if r.status_code == 503:  # waited its whole 20 ms for a thread: refused, nothing said
        assert r.headers["retry-after"] == "1"
        return
    got = r.json()["analysis"]
    assert got["complete"] is False and got["unsettled"] > 0 and got["exact"] is False
    assert got["probability"] == [None] * 256
    for y, row in enumerate(got["status"]):
        for x, ch in enumerate(row):
            if ch in "sm":
                assert ((x, y) in layout) == (ch == "m")
    found = r.json()["recommended"]
    assert found is None or found["certain"]


def test_one_clients_analyses_queue_at_the_gate(tmp_path: Path) -> None:
    """A client's analyses take the solver gate's turns as a game's moves do: with no
    room to queue, a second analysis while the first runs is a 503 at once."""
    position, _ = large_position(13)
    server = LiveServer(tmp_path / "gate.db", queued_moves=0, analysis_budget_s=10).start()
    answers: list[int] = []
    try:
        def ask() -> None:
            with httpx.Client(base_url=server.url, timeout=60) as c:
                answers.append(c.post("/api/analyse", json=_body(position)).status_code)

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.stop()
    assert 200 in answers and 503 in answers, answers


def test_a_games_board_analysed_as_its_debug_overlay_is(client: TestClient) -> None:
    """The analyser and a game's debug overlay are one analysis: the board of a game in
    play, posted with its mine count, gets the overlay's statuses and probabilities."""
    game = client.post("/api/games", json={"width": 16, "height": 16, "mines": 40,
                                          "seed": 21, "debug": True}).json()
    game = client.post(f"/api/games/{game['id']}/reveal", json={"x": 8, "y": 8}).json()
    overlay = client.get(f"/api/games/{game['id']}/analysis").json()
    got = client.post("/api/analyse", json={"rows": game["board"], "mines": 40}).json()
    assert overlay["complete"] and overlay["exact"]
    assert got["analysis"]["status"] == overlay["status"]
    for mine, theirs in zip(got["analysis"]["probability"], overlay["probability"],
                            strict=True):
        assert mine == pytest.approx(theirs, abs=1e-12) if theirs else mine is None
