"""The page as hypermedia: the server draws the game, and moves answer with what changed."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect

from tests.web.conftest import Server, open_page
from tests.web.pagekit import board_rows, wait_for_moves


class Cells(HTMLParser):
    """The cells of an HTML page as the server sent it (no script has run): their
    ``data-state`` by (x, y), and the attributes of every element with an id."""

    def __init__(self) -> None:
        super().__init__()
        self.state: dict[tuple[int, int], str] = {}
        self.by_id: dict[str, dict[str, str | None]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("role") == "gridcell" and a.get("data-x") is not None:
            self.state[int(a["data-x"] or 0), int(a["data-y"] or 0)] = a["data-state"] or ""
        if a.get("id"):
            self.by_id[str(a["id"])] = a

    def rows(self, width: int, height: int) -> list[str]:
        return ["".join(self.state[x, y] for x in range(width)) for y in range(height)]


def parse(html: str) -> Cells:
    cells = Cells()
    cells.feed(html)
    return cells


def test_a_game_page_carries_every_cell_as_the_api_has_it(server: Server) -> None:
    game = server.post("/api/games", {"width": 30, "height": 16, "mines": 99, "seed": 8,
                                      "first_click": "opening"})
    gid = game["id"]
    server.post(f"/api/games/{gid}/reveal", {"x": 15, "y": 8})
    covered = next((x, y) for y, row in enumerate(server.game(gid)["board"])
                   for x, ch in enumerate(row) if ch == "#")
    server.post(f"/api/games/{gid}/flag", {"x": covered[0], "y": covered[1]})
    answer = server.http.get(f"/games/{gid}")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    api = server.game(gid)
    assert api["status"] == "playing"
    page = parse(answer.text)
    assert len(page.state) == 30 * 16
    assert page.rows(30, 16) == api["board"]
    board = page.by_id["board"]
    assert board["role"] == "grid" and board["data-game-id"] == gid
    assert board["data-moves"] == str(api["moves"]) == "2"
    assert "Mines left" in answer.text and ">98</output>" in answer.text  # one flag
    assert page.by_id["status"]["data-status"] == "playing"
    assert page.by_id["width"]["value"] == "30" and "selected" in answer.text


def test_a_finished_game_reads_with_no_script(server: Server) -> None:
    game = server.post("/api/games", {"width": 9, "height": 9, "mines": 10, "seed": 5})
    gid = game["id"]
    played = server.post(f"/api/games/{gid}/reveal", {"x": 4, "y": 4})
    while played["status"] == "playing":
        status = server.analysis(gid)["status"]
        x, y = next((x, y) for y, r in enumerate(status) for x, ch in enumerate(r)
                    if ch in "su")
        played = server.post(f"/api/games/{gid}/reveal", {"x": x, "y": y})
    html = server.http.get(f"/games/{gid}").text
    page = parse(html)
    assert page.rows(9, 9) == played["board"]
    assert page.by_id["status"]["data-status"] == played["status"]
    assert page.by_id["face"]["data-face"] == played["status"]
    banner = page.by_id["banner"]
    assert "hidden" not in banner
    assert ("The player won." if played["status"] == "won" else "The player lost.") in html


def played_as_player(server: Server) -> tuple[httpx.Client, str]:
    """A game started the way the page starts one (the form), in a client that keeps its
    cookies as a browser does; returns the client and the game's id."""
    browser = httpx.Client(base_url=server.url, timeout=60)
    answer = browser.post("/games", data={"width": "30", "height": "16", "mines": "99",
                                          "seed": "41", "question_marks": "on"},
                          headers={"HX-Request": "true"})
    assert answer.status_code == 204
    gid = answer.headers["HX-Redirect"].removeprefix("/games/")
    cookie = answer.headers["set-cookie"]
    assert f"Path=/games/{gid}" in cookie and "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
    return browser, gid


def test_a_reveal_that_opens_one_cell_answers_that_cell_and_the_counters(server: Server) -> None:
    browser, gid = played_as_player(server)
    try:
        # A first click with first_click=safe opens its own cell only when that shows a
        # number; the seed is chosen so that (15, 8) does.
        answer = browser.post(f"/games/{gid}/reveal", data={"x": "15", "y": "8", "version": "0"})
        assert answer.status_code == 200
        game = server.game(gid)
        assert game["board"][8][15] in "12345678" and sum(
            ch != "#" for row in game["board"] for ch in row) == 1, "seed 41 opens one cell"
        page = parse(answer.text)
        assert list(page.state) == [(15, 8)]  # that cell, and no other
        assert page.state[15, 8] == game["board"][8][15]
        assert 'id="board"' not in answer.text
        for part in ("moves", "timer", "game-state"):
            assert part in page.by_id and page.by_id[part]["hx-swap-oob"] == "true", part
        assert page.by_id["game-state"]["data-moves"] == "1"
        assert len(answer.content) < 2000, len(answer.content)
    finally:
        browser.close()


def test_pages_go_compressed_and_a_small_answer_and_the_stream_at_once(server: Server) -> None:
    browser, gid = played_as_player(server)
    try:
        page = browser.get(f"/games/{gid}")
        assert page.headers["content-encoding"] == "gzip"
        assert page.num_bytes_downloaded * 4 < len(page.content), (
            page.num_bytes_downloaded, len(page.content))
        move = browser.post(f"/games/{gid}/reveal", data={"x": "15", "y": "8", "version": "0"})
        assert move.status_code == 200 and "content-encoding" not in move.headers
        with browser.stream("GET", f"/games/{gid}/events", params={"version": "1"}) as events:
            assert events.headers["content-type"].startswith("text/event-stream")
            assert "content-encoding" not in events.headers
            assert next(events.iter_lines()) == ": open"  # sent as it is written
    finally:
        browser.close()


def test_only_the_player_moves_and_never_from_another_site(server: Server) -> None:
    browser, gid = played_as_player(server)
    try:
        # another site's page posting with the player's cookie (as an older browser would
        # send it): refused, nothing changes
        refused = browser.post(f"/games/{gid}/reveal", data={"x": "1", "y": "1"},
                               headers={"Origin": "https://elsewhere.example"})
        assert refused.status_code == 403
        refused = browser.post(f"/games/{gid}/flag", data={"x": "1", "y": "1"},
                               headers={"Sec-Fetch-Site": "cross-site"})
        assert refused.status_code == 403
        # a watcher (no cookie) is told it watches
        watcher = server.http.post(f"/games/{gid}/reveal", data={"x": "1", "y": "1"})
        assert watcher.status_code == 401 and "only its player can move" in watcher.text
        assert server.game(gid)["moves"] == 0
    finally:
        browser.close()


def test_a_spectator_sees_a_move_made_on_another_server_process(
    browser: Browser, tmp_path: Path
) -> None:
    """Two server processes on one store: the spectator's page is served (and streamed)
    by one, the move is made on the other, and arrives through the event stream."""
    with Server(tmp_path) as a, Server(tmp_path) as b, \
            open_page(browser, a) as page:
        game = b.post("/api/games", {"width": 16, "height": 16, "mines": 40, "seed": 5})
        gid = game["id"]
        page.goto(f"/games/{gid}")
        page.wait_for_selector(f'#board[data-game-id="{gid}"][data-role="spectator"]')
        page.evaluate("window.__sameDocument = true")
        page.wait_for_timeout(500)  # the stream is open
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        played = b.post(f"/api/games/{gid}/reveal", {"x": 8, "y": 8})
        wait_for_moves(page, 1)
        assert board_rows(page) == played["board"]
        expect(page.locator("#moves")).to_have_text("1")
        assert page.evaluate("window.__sameDocument === true")
        assert requests == []  # no request: the move came down the open stream
