"""The proof and hint endpoints: what they prove, and when they count as assistance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kaboom.server.assistance import Assistant
from kaboom.server.config import Settings
from kaboom.server.game import Rules
from kaboom.server.games import Games
from kaboom.server.history import History
from kaboom.server.store import open_store
from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError
from kaboom.solver.knowledge import classify
from kaboom.solver.position import GameStatus, Move, Position
from kaboom.solver.proof import Proof, prove
from tests import oracle
from tests.apikit import new_game


def _new(client: TestClient, **body: object) -> dict[str, Any]:
    """An Intermediate game that starts with an opening."""
    return new_game(client, **{"width": 16, "height": 16, "mines": 40, "first_click": "opening",
                               **body})


def _position(game: dict[str, Any]) -> Position:
    return Position.from_rows(game["board"], game["mines"])


def _opened(client: TestClient, seed: int) -> tuple[dict[str, Any], Position]:
    game = _new(client, seed=seed)
    game = client.post(f"/api/games/{game['id']}/reveal", json={"x": 8, "y": 8}).json()
    return game, _position(game)


def _proves(position: Position, proof: dict[str, Any]) -> bool:
    """The proof's numbers (and count) alone leave its cell only the value it claims."""
    numbers = [(n["x"], n["y"]) for n in proof["numbers"]]
    assert all(position.number(n["x"], n["y"]) == n["n"] for n in proof["numbers"])
    cell = (proof["x"], proof["y"])
    return oracle.values(position, cell, numbers, proof["count"]) == {proof["mine"]}


def test_a_proof_during_a_game_proves_the_cell_and_marks_it_assisted(client: TestClient) -> None:
    game, position = _opened(client, seed=3)
    knowledge = classify(position)
    assert knowledge.safe and not game["assisted"]
    for cell in sorted(knowledge.safe | knowledge.mines)[:6]:
        r = client.get(f"/api/games/{game['id']}/proof", params={"x": cell[0], "y": cell[1]})
        assert r.status_code == 200, r.text
        proof = r.json()
        assert proof["mine"] == (cell in knowledge.mines)
        assert _proves(position, proof)
        assert f"at ({cell[0]}, {cell[1]})" in proof["text"] or proof["count"] is not None
    assert client.get(f"/api/games/{game['id']}").json()["assisted"]


def test_no_proof_for_open_undecided_or_missing_cells(client: TestClient) -> None:
    game, position = _opened(client, seed=3)
    gid = game["id"]
    knowledge = classify(position)
    unknown = sorted(knowledge.frontier_unknown)[0]
    r = client.get(f"/api/games/{gid}/proof", params={"x": unknown[0], "y": unknown[1]})
    assert r.status_code == 409 and "not decided" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}/proof", params={"x": 8, "y": 8}).status_code == 409
    assert client.get(f"/api/games/{gid}/proof", params={"x": 16, "y": 0}).status_code == 422
    assert client.get(f"/api/games/{gid}/proof", params={"x": "a", "y": 0}).status_code == 422
    assert client.get("/api/games/nope/proof", params={"x": 0, "y": 0}).status_code == 404


def test_a_refused_proof_leaves_the_game_as_it_was(client: TestClient) -> None:
    """Off the board, an open cell, a stranger's token: nothing learned, so the game is
    not marked assisted (it would leave the statistics for good).  "Undecided" is an
    answer about a covered cell, and marks it."""
    game, position = _opened(client, seed=3)
    gid = game["id"]
    stranger = {"Authorization": "Bearer not-the-token"}
    safe = sorted(classify(position).safe)[0]
    for params, headers, code in [
        ({"x": 16, "y": 0}, {}, 422),
        ({"x": 8, "y": 8}, {}, 409),
        ({"x": safe[0], "y": safe[1]}, stranger, 403),
    ]:
        assert client.get(f"/api/games/{gid}/proof", params=params,
                          headers=headers).status_code == code
        after = client.get(f"/api/games/{gid}").json()
        assert (after["assisted"], after["version"]) == (False, game["version"]), params
    unknown = sorted(classify(position).frontier_unknown)[0]
    r = client.get(f"/api/games/{gid}/proof", params={"x": unknown[0], "y": unknown[1]})
    assert r.status_code == 409
    assert client.get(f"/api/games/{gid}").json()["assisted"]


def test_the_proof_of_a_loss_is_free_and_proves_the_named_safe_cell(client: TestClient) -> None:
    for seed in range(1, 40):
        game, position = _opened(client, seed)
        knowledge = classify(position)
        unknown = sorted(knowledge.frontier_unknown)
        if game["status"] == "playing" and knowledge.safe and unknown:
            break
    else:
        raise AssertionError("no seed gave a safe and an unknown cell")
    gid = game["id"]
    lost = client.post(f"/api/games/{gid}/reveal", json={"x": unknown[0][0], "y": unknown[0][1]})
    lost_game = lost.json()
    assert lost_game["loss"]["reason"] == "guess_while_safe"
    safe = lost_game["loss"]["safe_cell"]
    r = client.get(f"/api/games/{gid}/proof", params=safe)
    assert r.status_code == 200, r.text
    proof = r.json()
    assert (proof["x"], proof["y"], proof["mine"]) == (safe["x"], safe["y"], False)
    assert _proves(position, proof)  # the board the losing click was made on
    assert not client.get(f"/api/games/{gid}").json()["assisted"]
    assert client.get(f"/api/games/{gid}/hint").status_code == 409


def test_a_hint_names_a_proven_safe_cell(client: TestClient) -> None:
    game = _new(client, seed=3)
    gid = game["id"]
    first = client.get(f"/api/games/{gid}/hint").json()
    assert first["kind"] == "first_click" and len(first["cells"]) == 1
    game = client.post(f"/api/games/{gid}/reveal", json=first["cells"][0]).json()
    position = _position(game)
    hint = client.get(f"/api/games/{gid}/hint").json()
    assert hint["kind"] == "safe"
    cell = (hint["cells"][0]["x"], hint["cells"][0]["y"])
    assert cell in classify(position).safe
    assert hint["proof"]["x"] == cell[0] and not hint["proof"]["mine"]
    assert _proves(position, hint["proof"])
    assert client.get(f"/api/games/{gid}").json()["assisted"]


def test_a_hint_without_a_safe_cell_gives_the_best_odds(client: TestClient) -> None:
    # Two columns of two cells each: after the first click only guesses are left.
    for seed in range(1, 60):
        game = _new(client, width=2, height=8, mines=5, first_click="safe", seed=seed)
        gid = game["id"]
        game = client.post(f"/api/games/{gid}/reveal", json={"x": 0, "y": 0}).json()
        if game["status"] == "playing" and not classify(_position(game)).safe:
            break
    else:
        raise AssertionError("no seed left the first click without a safe cell")
    hint = client.get(f"/api/games/{gid}/hint").json()
    assert hint["kind"] == "forced_guess" and hint["proof"] is None and hint["cells"]
    position = _position(game)
    odds = oracle.probabilities(position)
    frontier = set(position.frontier())
    candidates = {c: p for c, p in odds.items() if c in frontier and position.char(*c) != "F"}
    best = min(candidates.values())
    assert abs(hint["probability"] - best) < 1e-9
    assert {(c["x"], c["y"]) for c in hint["cells"]} == {
        c for c, p in candidates.items() if abs(p - best) < 1e-9
    }


def test_a_finished_game_replays_move_by_move(client: TestClient) -> None:
    game = _new(client, width=9, height=9, mines=10, seed=11, debug=True)
    gid = game["id"]
    assert client.get(f"/api/games/{gid}/replay").status_code == 409  # still being played
    boards = [game["board"]]
    played = []
    for move in (("reveal", 4, 4), ("flag", 0, 0), ("flag", 0, 0), ("reveal", 8, 8)):
        kind, x, y = move
        game = client.post(f"/api/games/{gid}/{kind}", json={"x": x, "y": y}).json()
        played.append(f"{kind} {x} {y}")
        boards.append(game["board"])
    while game["status"] == "playing":  # finish it: reveal a cell the analysis calls unknown
        status = client.get(f"/api/games/{gid}/analysis").json()["status"]
        x, y = next((x, y) for y, r in enumerate(status) for x, ch in enumerate(r) if ch in "um")
        game = client.post(f"/api/games/{gid}/reveal", json={"x": x, "y": y}).json()
        played.append(f"reveal {x} {y}")
        boards.append(game["board"])
    replay = client.get(f"/api/games/{gid}/replay").json()
    assert replay["start"] == boards[0] and [m["move"] for m in replay["moves"]] == played
    rows = [list(r) for r in replay["start"]]
    for n, move in enumerate(replay["moves"], start=1):
        for x, y, before, after in move["cells"]:
            assert rows[y][x] == before
            rows[y][x] = after
        assert ["".join(r) for r in rows] == boards[n]


def test_a_game_that_ends_while_its_proof_is_computed_still_gets_the_proof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's last move can land while a proof they asked for is computed: the
    game is over by the time the proof would mark it assisted.  The proof is answered
    (proofs are free after a game; this one came after the last move), not a 409."""
    import kaboom.server.assistance
    from kaboom.server.game import Rules
    from kaboom.server.games import Games
    from kaboom.server.store import open_store
    from tests.conftest import settings_for

    service = Games(open_store(str(tmp_path / "g.db")), settings_for(tmp_path / "g.db"))
    for seed in range(1, 100):  # a first click that leaves a certain mine, and play
        game, token = service.create(Rules(4, 4, 10, seed=seed))
        game = service.play(game.id, Move.reveal(0, 0), token).after
        mines = classify(game.position).mines
        if game.status is GameStatus.PLAYING and mines:
            break
    mine = min(mines)

    def prove_while_the_game_ends(*args: Any) -> Proof:
        ended = service.play(game.id, Move.reveal(*mine), token).after
        assert ended.status is GameStatus.LOST
        return prove(*args)

    monkeypatch.setattr(kaboom.server.assistance, "prove", prove_while_the_game_ends)
    assistant = Assistant(service.sessions, History(service.store), service.settings)
    finished, proof = assistant.proof(service.get(game.id), mine, token, Budget(3.0))
    assert proof.mine and finished.status is GameStatus.LOST and not finished.assisted


def test_a_hint_out_of_time_before_anything_is_proven_is_refused(tmp_path: Path) -> None:
    """A hint runs within its request's budget.  Out of time before the position is
    settled, it is refused (503): had it said "no cell is provably safe, so the next click
    is a forced guess", a player who believed it would click onto a mine while a safe
    cell existed."""
    db = str(tmp_path / "hints.db")
    settings = Settings(db=db)
    service = Games(open_store(db), settings)
    for seed in range(1, 40):
        game, token = service.create(Rules(16, 16, 40, first_click="opening", seed=seed))
        game = service.play(game.id, Move.reveal(8, 8), token).after
        if game.status is GameStatus.PLAYING and classify(game.position).safe:
            break
    else:
        raise AssertionError("no seed left a safe cell after the first click")
    cold = Games(open_store(db), settings)  # a server just started: nothing known yet
    assistant = Assistant(cold.sessions, History(cold.store), settings)
    with pytest.raises(BudgetExceededError):
        assistant.hint(game.id, token, Budget(0.0))
    _, hint = assistant.hint(game.id, token, Budget(settings.analysis_budget_s))  # its time
    assert hint.kind == "safe" and hint.cells[0] in classify(game.position).safe
