"""The page as hypermedia: the server draws the game, and moves answer with what changed."""

from __future__ import annotations

from html.parser import HTMLParser

from tests.web.conftest import Server


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
