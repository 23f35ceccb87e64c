"""A game's history is bounded and read in pages.  A game keeps at most
``move_limit_per_cell`` moves a cell (``move_limit_min`` at least): the move past that is
a 409 that changes nothing, and every answer with the game shows that ``move_limit`` beside
its ``moves``, so a client need not find it by hitting it.  ``/moves`` and ``/replay``
answer at most ``PAGE_MAX`` moves from an ``offset``, with the total and the next page's
offset, and the pages put together are exactly the whole history."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kaboom.server.application import Kaboom
from kaboom.server.config import Settings
from kaboom.server.game import Rules
from kaboom.server.games import Games
from kaboom.server.main import create_app
from kaboom.server.schemas import PAGE_MAX
from kaboom.server.store import MemoryStore
from kaboom.solver.position import Move
from tests.apikit import new_game
from tests.conftest import PlayerClient, settings_for


def _service(client: PlayerClient) -> Games:
    kaboom: Kaboom = client.app.state.kaboom  # type: ignore[attr-defined]
    return kaboom.games


def _long_game(client: PlayerClient, flags: int) -> dict[str, Any]:
    """A 16x16 debug game: one reveal, then ``flags`` marks cycled on a covered cell.
    The flags go straight to the service (five times faster than over HTTP); what is
    tested is read over HTTP."""
    game = new_game(client, width=16, height=16, mines=40, debug=True, seed=5)
    gid = game["id"]
    game = client.post(f"/api/games/{gid}/reveal", json={"x": 8, "y": 8}).json()
    x, y = next((x, y) for y, r in enumerate(game["board"]) for x, ch in enumerate(r)
                if ch == "#")
    service, token = _service(client), client.tokens[gid]
    for _ in range(flags):
        service.play(gid, Move.flag(x, y), token)
    answer: dict[str, Any] = client.get(f"/api/games/{gid}").json()
    assert answer["status"] == "playing" and answer["moves"] == flags + 1
    return answer


def _pages(client: PlayerClient, path: str, **params: int) -> list[dict[str, Any]]:
    """Every page of ``path``, following ``next_offset`` from offset 0."""
    pages: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        r = client.get(path, params={**params, "offset": offset})
        assert r.status_code == 200, r.text
        pages.append(r.json())
        offset = pages[-1]["next_offset"]
        assert len(pages) <= 2000, "next_offset never ended"
    return pages


def _lose(client: PlayerClient, game: dict[str, Any]) -> dict[str, Any]:
    """Ends the game: reveals a cell the analysis calls a mine (or undecided)."""
    gid = game["id"]
    while game["status"] == "playing":
        status = client.get(f"/api/games/{gid}/analysis").json()["status"]
        x, y = next((x, y) for y, r in enumerate(status) for x, ch in enumerate(r)
                    if ch in "mu")
        game = client.post(f"/api/games/{gid}/reveal", json={"x": x, "y": y}).json()
    return game


def test_a_long_history_comes_in_pages_that_add_up_to_all_of_it(client: PlayerClient) -> None:
    """Past ``PAGE_MAX`` moves the default answer is the first page, which says where the
    next begins; the pages, of the default size or of any other, are the history."""
    game = _long_game(client, PAGE_MAX + 10)
    gid, total = game["id"], game["moves"]
    first = client.get(f"/api/games/{gid}/moves").json()
    assert len(first["moves"]) == PAGE_MAX and first["moves"][0] == "reveal 8 8"
    assert (first["offset"], first["total"], first["next_offset"]) == (0, total, PAGE_MAX)
    assert first["version"] == game["version"]
    pages = _pages(client, f"/api/games/{gid}/moves")
    history = [m for page in pages for m in page["moves"]]
    assert len(pages) == 2 and len(history) == total
    assert history[1:] == first["moves"][1:2] * (total - 1)  # the same cell's mark, cycled
    assert pages[-1] == {"moves": history[PAGE_MAX:], "offset": PAGE_MAX, "total": total,
                         "next_offset": None, "version": game["version"]}
    for limit in (7, 333):
        small = _pages(client, f"/api/games/{gid}/moves", limit=limit)
        assert [m for page in small for m in page["moves"]] == history
        assert all(len(page["moves"]) <= limit for page in small)
    past = client.get(f"/api/games/{gid}/moves", params={"offset": total + 5}).json()
    assert past["moves"] == [] and past["next_offset"] is None and past["total"] == total


def test_a_long_replay_comes_in_pages_that_step_from_the_first_board_to_the_last(
    client: PlayerClient,
) -> None:
    game = _lose(client, _long_game(client, PAGE_MAX + 10))
    gid, total = game["id"], game["moves"]
    moves = _pages(client, f"/api/games/{gid}/moves")
    for params in ({}, {"limit": 250}):
        pages = _pages(client, f"/api/games/{gid}/replay", **params)
        assert len(pages) == -(-total // params.get("limit", PAGE_MAX))
        assert {page["version"] for page in pages} == {game["version"]}
        assert pages[0]["start"] == ["#" * 16] * 16  # the first board: on the first page
        assert all(page["start"] is None for page in pages[1:])
        replay = [m for page in pages for m in page["moves"]]
        assert [m["move"] for m in replay] == [m for page in moves for m in page["moves"]]
        rows = [list(r) for r in pages[0]["start"]]
        for move in replay:  # each page goes on from the board the page before ends on
            for x, y, before, after in move["cells"]:
                assert rows[y][x] == before, move
                rows[y][x] = after
        assert ["".join(r) for r in rows] == game["board"]


def _undo_after_first_read(client: PlayerClient, monkeypatch: pytest.MonkeyPatch,
                           gid: str, reader: str) -> None:
    """Makes the store's ``reader`` (``moves`` or ``steps``) undo the game's last move
    just after its first read: a change between the game's read and its rows'."""
    service = _service(client)
    real = getattr(service.store, reader)
    undone: list[int] = []

    def read_then_undo(game_id: str, offset: int, limit: int) -> Any:
        rows = real(game_id, offset, limit)
        if not undone:
            undone.append(service.undo(gid, client.tokens[gid]).after.moves)
        return rows

    monkeypatch.setattr(service.store, reader, read_then_undo)


def test_a_page_is_of_one_version_of_the_game(client: PlayerClient,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """An undo between the read of a game and that of its moves paired the old move
    count and version with rows of either: the page is read again."""
    game = _long_game(client, 5)
    gid = game["id"]
    _undo_after_first_read(client, monkeypatch, gid, "moves")
    page = client.get(f"/api/games/{gid}/moves").json()
    now = client.get(f"/api/games/{gid}").json()
    assert now["moves"] == game["moves"] - 1
    assert (page["total"], page["version"]) == (now["moves"], now["version"])
    assert len(page["moves"]) == now["moves"]


def test_a_replay_page_read_across_an_undo_is_refused_as_the_game_now_is(
    client: PlayerClient, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loss undone (a debug game may) while its replay page was read: the game is
    being played again, so there is no replay (409), not a page of the lost game."""
    game = _lose(client, _long_game(client, 5))
    gid = game["id"]
    _undo_after_first_read(client, monkeypatch, gid, "steps")
    answer = client.get(f"/api/games/{gid}/replay")
    assert answer.status_code == 409 and "still being played" in answer.json()["detail"]


@pytest.mark.parametrize("path", ["moves", "replay"])
@pytest.mark.parametrize("params", [
    {"offset": -1}, {"offset": "one"}, {"offset": 1.5}, {"offset": 2**31 + 1},
    {"limit": 0}, {"limit": -3}, {"limit": PAGE_MAX + 1}, {"limit": "all"},
])
def test_a_bad_page_is_422_with_a_message(
    client: PlayerClient, path: str, params: dict[str, int | float | str]
) -> None:
    gid = new_game(client, width=3, height=3, mines=8)["id"]
    assert client.post(f"/api/games/{gid}/reveal", json={"x": 1, "y": 1}).json()["status"] == "won"
    r = client.get(f"/api/games/{gid}/{path}", params=params)
    assert r.status_code == 422, r.text
    assert next(iter(params)) in str(r.json()["detail"])


def test_the_schema_gives_the_page_parameters_their_ranges(client: PlayerClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/games/{game_id}/moves", "/api/games/{game_id}/replay"):
        params = {p["name"]: p for p in paths[path]["get"]["parameters"]}
        assert params["offset"]["schema"]["minimum"] == 0
        assert params["offset"]["schema"]["default"] == 0
        limit = params["limit"]["schema"]
        assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, PAGE_MAX, PAGE_MAX)
        assert "422" in paths[path]["get"]["responses"]


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[PlayerClient]:
    """A server whose games keep one move a cell, and at least 10."""
    settings = settings_for(tmp_path / "limited.db", move_limit_per_cell=1, move_limit_min=10)
    with PlayerClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def _flags(client: PlayerClient, gid: str, n: int) -> dict[str, Any]:
    for _ in range(n):
        r = client.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0})
        assert r.status_code == 200, r.text
    game: dict[str, Any] = r.json()
    return game


def _refused(client: PlayerClient, gid: str) -> str:
    """Every kind of move is refused with a 409 that says why; returns the reason."""
    details: set[str] = set()
    for kind, x, y in (("flag", 0, 0), ("reveal", 3, 3), ("chord", 1, 1)):
        r = client.post(f"/api/games/{gid}/{kind}", json={"x": x, "y": y})
        assert r.status_code == 409, (kind, r.text)
        details.add(r.json()["detail"])
    assert len(details) == 1
    return details.pop()


def test_the_move_past_the_limit_is_409_and_changes_nothing(limited: PlayerClient) -> None:
    game = new_game(limited, width=4, height=4, mines=2, seed=3)
    gid = game["id"]
    full = _flags(limited, gid, 16)  # 4x4: 16 moves at one a cell
    assert full["moves"] == full["move_limit"] == 16 and full["status"] == "playing"
    reason = _refused(limited, gid)
    assert "16 moves" in reason and "nothing changed" in reason and "new game" in reason
    assert "undo" not in reason  # not offered in a game in play (no debug)
    assert limited.get(f"/api/games/{gid}").json() | {"elapsed_ms": 0} == full | {
        "elapsed_ms": 0}
    page = limited.get(f"/api/games/{gid}/moves").json()
    assert page["total"] == len(page["moves"]) == 16
    assert limited.post(f"/api/games/{gid}/undo").status_code == 409


def test_at_the_limit_an_undo_makes_room_for_one_move(limited: PlayerClient) -> None:
    gid = new_game(limited, width=4, height=4, mines=2, seed=3, debug=True)["id"]
    full = _flags(limited, gid, 16)
    reason = _refused(limited, gid)
    assert "undo a move to make room" in reason
    undone = limited.post(f"/api/games/{gid}/undo")
    assert undone.status_code == 200 and undone.json()["moves"] == 15
    again = limited.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0})
    assert again.status_code == 200 and again.json()["board"] == full["board"]
    assert again.json()["moves"] == 16
    _refused(limited, gid)
    history = limited.get(f"/api/games/{gid}/moves").json()["moves"]
    assert history == ["flag 0 0"] * 16


def test_a_tiny_board_keeps_the_least_any_game_may(limited: PlayerClient) -> None:
    gid = new_game(limited, width=2, height=2, mines=1, debug=True)["id"]
    assert _flags(limited, gid, 10)["moves"] == 10  # 4 cells, but at least 10
    assert "10 moves" in _refused(limited, gid)


def test_the_default_limit_is_four_moves_a_cell_and_256_at_least() -> None:
    service = Games(MemoryStore(), Settings(db=":memory:"))
    assert service.move_limit(Rules(9, 9, 10)) == 324
    assert service.move_limit(Rules(30, 16, 99)) == 1920
    assert service.move_limit(Rules(256, 256, 13_000)) == 262_144
    assert service.move_limit(Rules(2, 2, 1)) == service.move_limit(Rules(8, 8, 1)) == 256


@pytest.mark.parametrize(("width", "height", "mines", "limit"), [
    (9, 9, 10, 324), (30, 16, 99, 1920), (2, 2, 1, 256),
])
def test_every_answer_with_the_game_shows_its_move_limit(
    client: PlayerClient, width: int, height: int, mines: int, limit: int
) -> None:
    """Created, moved, read and waited for: each answer has the limit the next move is
    held to (the default settings: four a cell, 256 at least)."""
    created = new_game(client, width=width, height=height, mines=mines)
    gid = created["id"]
    moved = client.post(f"/api/games/{gid}/flag", json={"x": 0, "y": 0}).json()
    read = client.get(f"/api/games/{gid}").json()
    waited = client.get(f"/api/games/{gid}", params={"wait_moves": 0}).json()
    answers = [created, moved, read, waited]
    assert [g["move_limit"] for g in answers] == [limit] * 4
    assert [g["moves"] for g in answers] == [0, 1, 1, 1]


def test_the_move_limit_shown_is_the_servers_and_moves_count_up_to_it(
    limited: PlayerClient,
) -> None:
    """With one move a cell and 10 at least, the limit shown is the one enforced: the
    moves count up to it, an undo counts one back, and at it the next move is a 409."""
    assert new_game(limited, width=2, height=2, mines=1)["move_limit"] == 10
    assert new_game(limited, width=5, height=3, mines=2)["move_limit"] == 15
    game = new_game(limited, width=4, height=4, mines=2, seed=3, debug=True)
    gid = game["id"]
    assert (game["moves"], game["move_limit"]) == (0, 16)
    for n in range(1, 17):
        game = _flags(limited, gid, 1)
        assert (game["moves"], game["move_limit"]) == (n, 16)
    _refused(limited, gid)
    undone = limited.post(f"/api/games/{gid}/undo").json()
    assert (undone["moves"], undone["move_limit"]) == (15, 16)
    again = _flags(limited, gid, 1)
    assert (again["moves"], again["move_limit"]) == (16, 16)
    _refused(limited, gid)
    read = limited.get(f"/api/games/{gid}").json()
    assert read["moves"] == read["move_limit"] == 16


def test_the_schema_describes_the_move_limit(client: PlayerClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("GameOut", "CreatedGameOut"):
        assert {"moves", "move_limit"} <= set(schemas[name]["required"])
        field = schemas[name]["properties"]["move_limit"]
        assert field["type"] == "integer" and "409" in field["description"]
