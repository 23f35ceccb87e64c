"""The page's statistics, kept by the server: one row per counted game in the store (both
backends), counted once however often (and however many processes) ask, and only for a
finished, unassisted preset game played by the browser as its player."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from kaboom.server.game import Game, Rules
from kaboom.server.store import GameStore, Tally, open_store
from kaboom.solver.knowledge import classify
from kaboom.solver.position import Position
from tests.conftest import PlayerClient

OpenStore = Callable[[], GameStore]


@pytest.fixture(params=["sqlite", "postgresql"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens stores on one database (each its own connection, as a process has): a SQLite
    file, or a fresh database on the session's PostgreSQL."""
    if request.param == "sqlite":
        url = str(tmp_path / "stats.db")
    else:
        url = request.getfixturevalue("postgres").url()
    opened: list[GameStore] = []

    def open_one() -> GameStore:
        store = open_store(url, synchronous="OFF")
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


def test_the_tally_of_a_browser_per_preset(opener: OpenStore) -> None:
    store = opener()
    assert store.count_game("b1", "g1", "beginner", True, 12_345)
    assert store.count_game("b1", "g2", "beginner", False, 3_000)
    assert store.count_game("b1", "g3", "beginner", True, 9_999)
    assert store.count_game("b1", "g4", "expert", False, 50_000)
    assert store.count_game("b2", "g5", "beginner", True, 1_000)  # another browser's
    assert not store.count_game("b1", "g1", "beginner", True, 1)  # counted once
    assert not store.count_game("b2", "g1", "beginner", True, 1)  # by whichever browser
    tallies = {t.preset: t for t in store.tallies("b1", "g3")}
    assert tallies == {
        "beginner": Tally("beginner", 3, 2, 9_999, True, 9_999),
        "expert": Tally("expert", 1, 0, None, False, None),
    }
    assert {t.preset: (t.has_game, t.game_won_ms) for t in store.tallies("b1", "g2")} == {
        "beginner": (True, None), "expert": (False, None)}
    assert store.tallies("nobody", "g1") == []


def test_a_reset_forgets_the_tally_but_not_that_a_game_counted(opener: OpenStore) -> None:
    store = opener()
    store.create(Game.new("kept", Rules(9, 9, 10)))
    for game_id in ("kept", "gone"):
        store.count_game("b1", game_id, "beginner", True, 5_000)
    store.count_game("b2", "other", "beginner", True, 5_000)
    store.forget_counted("b1")
    assert store.tallies("b1", "kept") == []
    assert not store.count_game("b1", "kept", "beginner", True, 5_000)  # no second count
    assert [t.played for t in store.tallies("b2", "")] == [1]
    # Expiry drops a forgotten row once its game is gone (its link can no longer count
    # it), and keeps every browser's own rows, whose games expire as games do.
    store.expire(finished_before=0, idle_before=0)
    assert store.count_game("b1", "gone", "beginner", True, 5_000)
    assert not store.count_game("b1", "kept", "beginner", True, 5_000)
    assert not store.count_game("b2", "other", "beginner", True, 5_000)


def test_two_processes_counting_one_game_at_once_count_it_once(opener: OpenStore) -> None:
    """Two connections (as two server processes have) insert the same games at the same
    moment: each game is counted by exactly one of them."""
    stores = [opener(), opener()]
    games = 40
    barrier = threading.Barrier(2)
    won: list[list[bool]] = [[], []]

    def count(n: int) -> None:
        for g in range(games):
            barrier.wait()
            won[n].append(stores[n].count_game("b1", f"g{g}", "expert", g % 2 == 0, 1_000 + g))

    threads = [threading.Thread(target=count, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [a + b for a, b in zip(*won, strict=True)] == [1] * games
    assert stores[0].tallies("b1", "") == [Tally("expert", games, games // 2, 1_000, False, None)]


# The page: a browser (its cookies) playing over the HTML routes.

def _start(client: TestClient, **fields: str) -> str:
    """A Beginner game from the form, and its page drawn once (which sets the browser's
    cookie); returns the game's id."""
    form = {"width": "9", "height": "9", "mines": "10", "outside_guess": "on", **fields}
    answer = client.post("/games", data=form, headers={"HX-Request": "true"})
    assert answer.status_code == 204, answer.text
    game_id = answer.headers["HX-Redirect"].removeprefix("/games/")
    assert client.get(f"/games/{game_id}").status_code == 200
    return game_id


def _win(client: TestClient, game_id: str, api: bool = False) -> Response:
    """Wins by reveals (the page's, or the API's) of cells the solver here proves safe (a
    forced guess otherwise: ``outside_guess`` and ``survive`` keep it alive); returns the
    last move's answer."""

    def reveal(x: int, y: int) -> Response:
        if api:
            return client.post(f"/api/games/{game_id}/reveal", json={"x": x, "y": y})
        return client.post(f"/games/{game_id}/reveal", data={"x": str(x), "y": str(y)})

    answer = reveal(4, 4)
    for _ in range(100):
        assert answer.status_code == 200, answer.text
        game = client.get(f"/api/games/{game_id}").json()
        if game["status"] != "playing":
            assert game["status"] == "won", game
            return answer
        safe = sorted(classify(Position.from_rows(tuple(game["board"]), game["mines"])).safe)
        answer = reveal(*safe[0]) if safe else reveal(*next(
            (x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row)
            if ch == "#"))
    raise AssertionError("the game did not end in 100 reveals")


def _row(html: str, preset: str) -> list[str]:
    """The played, won, win % and best cells of a preset's row in ``html``."""
    row = re.search(rf'<tr data-preset="{preset}">(.*?)</tr>', html, re.S)
    assert row is not None, html
    return re.findall(r'<td data-stat="\w+">([^<]*)</td>', row.group(1))


def test_a_won_game_counts_once_for_its_player_and_says_when_it_is_the_best(
    client: PlayerClient,
) -> None:
    game_id = _start(client, seed="2718")
    cookie = client.cookies.get("kaboom_browser")
    assert cookie and len(cookie) == 22
    answer = _win(client, game_id)
    elapsed = client.get(f"/api/games/{game_id}").json()["elapsed_ms"]
    # The move that won answers the table too, and the banner says it is the best time.
    assert 'id="stats" class="stats" hx-swap-oob="true"' in answer.text
    assert _row(answer.text, "beginner") == ["1", "1", "100 %", f"{elapsed / 1000:.1f} s"]
    assert "Your best Beginner time!" in answer.text
    # Reopened, and reloaded: drawn the same, counted once.
    for _ in range(2):
        page = client.get(f"/games/{game_id}").text
        assert _row(page, "beginner") == ["1", "1", "100 %", f"{elapsed / 1000:.1f} s"]
        assert _row(page, "expert") == ["0", "0", "–", "–"]
        assert "Your best Beginner time!" in page
    assert "kaboom_browser" not in client.get(f"/games/{game_id}").headers.get("set-cookie", "")
    # A page whose last answer was lost reads the whole game again: the table and the
    # banner come with it.
    again = client.get(f"/games/{game_id}/board", params={"moves": "0"}).text
    assert 'id="stats" class="stats" hx-swap-oob="true"' in again
    assert _row(again, "beginner")[0] == "1" and "Your best Beginner time!" in again
    # A replay's step back to the end draws the banner again, as the best time.
    step = client.get(f"/games/{game_id}/replay", params={"at": "0", "go": "last"})
    assert "Your best Beginner time!" in step.text

    # A spectator's browser (no player cookie) counts nothing and is told no best time.
    spectator = TestClient(client.app)
    watched = spectator.get(f"/games/{game_id}")
    cookie = watched.headers["set-cookie"]
    assert "kaboom_browser=" in cookie and "HttpOnly" in cookie and "Path=/;" in cookie
    assert "samesite=lax" in cookie.lower()
    assert _row(watched.text, "beginner") == ["0", "0", "–", "–"]
    assert "The player won." in watched.text and "Your best" not in watched.text
    assert _row(client.get(f"/games/{game_id}").text, "beginner")[0] == "1"


def test_a_game_the_browser_watched_does_not_count(client: PlayerClient) -> None:
    """A game played over the API (a bot's), won, then opened in a browser: watched."""
    game_id = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10,
                                              "seed": 2718, "outside_guess": True}).json()["id"]
    _win(client, game_id, api=True)
    for _ in range(2):
        page = client.get(f"/games/{game_id}").text
        assert "The player won." in page and "Your best" not in page
        assert _row(page, "beginner") == ["0", "0", "–", "–"]


def test_an_assisted_game_does_not_count(client: PlayerClient) -> None:
    game_id = _start(client, seed="2718")
    assert client.post(f"/games/{game_id}/hint").status_code == 200  # marks it assisted
    answer = _win(client, game_id)
    assert 'id="stats"' not in answer.text and "Your best" not in answer.text
    assert "not counted in statistics" in answer.text
    assert _row(client.get(f"/games/{game_id}").text, "beginner") == ["0", "0", "–", "–"]


def test_a_custom_game_and_a_lost_one(client: PlayerClient) -> None:
    custom = _start(client, width="8", seed="1")
    _win(client, custom)
    lost = _start(client, seed="3141", first_click="opening")
    client.post(f"/games/{lost}/reveal", data={"x": "4", "y": "4"})
    game = client.get(f"/api/games/{lost}").json()
    knowledge = classify(Position.from_rows(tuple(game["board"]), game["mines"]))
    x, y = sorted(knowledge.mines or knowledge.unknown)[0]
    answer = client.post(f"/games/{lost}/reveal", data={"x": str(x), "y": str(y)})
    assert client.get(f"/api/games/{lost}").json()["status"] == "lost"
    assert _row(answer.text, "beginner") == ["1", "0", "0 %", "–"]


def test_reset_forgets_them_only_from_this_site(client: PlayerClient) -> None:
    game_id = _start(client, seed="2718")
    _win(client, game_id)
    refused = client.post("/stats/reset", headers={"Sec-Fetch-Site": "cross-site"})
    assert refused.status_code == 403
    assert _row(client.get(f"/games/{game_id}").text, "beginner")[0] == "1"
    # Without JavaScript: a form's POST, and back to the page it came from.
    back = client.post("/stats/reset", data={"back": f"/games/{game_id}"},
                       follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"] == f"/games/{game_id}"
    page = client.get(f"/games/{game_id}").text
    assert _row(page, "beginner") == ["0", "0", "–", "–"]
    assert "Your best" not in page  # and reopening it does not count it again
    elsewhere = client.post("/stats/reset", data={"back": "https://elsewhere.example/"},
                            follow_redirects=False)
    assert elsewhere.headers["location"] == "/"
    # With htmx: the table redrawn.
    answer = client.post("/stats/reset", headers={"HX-Request": "true"})
    assert 'id="stats" class="stats" hx-swap-oob="true"' in answer.text
