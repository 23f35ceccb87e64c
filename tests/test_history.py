"""A game's history is read in pages: ``/moves`` and ``/replay`` answer at most
``PAGE_MAX`` moves from an ``offset``, with the total and the next page's offset, and the
pages put together are exactly the whole history."""

from __future__ import annotations

from typing import Any

import pytest

from server.schemas import PAGE_MAX
from server.service import GameService
from solver.position import Move
from tests.apikit import new_game
from tests.conftest import PlayerClient


def _service(client: PlayerClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


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
        assert all(page["start"] == ["#" * 16] * 16 for page in pages)
        replay = [m for page in pages for m in page["moves"]]
        assert [m["move"] for m in replay] == [m for page in moves for m in page["moves"]]
        rows = [list(r) for r in pages[0]["start"]]
        for move in replay:  # each page goes on from the board the page before ends on
            for x, y, before, after in move["cells"]:
                assert rows[y][x] == before, move
                rows[y][x] = after
        assert ["".join(r) for r in rows] == game["board"]


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
