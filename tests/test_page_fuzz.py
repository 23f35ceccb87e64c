"""Every route of the page, sent random values in every field, query parameter and cookie it
reads (and the headers its same-site check reads), against a live ``kaboom serve``: the
answer is never a 5xx.  A refusal is a 4xx with the page's message; a valid request is
served.  The values mix the well-formed (real game ids, tokens, coordinates on the board)
with text of any kind, numbers out of range, non-ASCII digits and blanks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kaboom.testing import NO_CREATION_LIMITS, LiveServer

Route = tuple[str, str, tuple[str, ...]]

ROUTES: list[Route] = [
    ("GET", "/", ()),
    ("GET", "/games/{id}", ()),
    ("POST", "/games", ("width", "height", "mines", "seed", "preset", "first_click",
                        "forced_guess", "outside_guess", "question_marks", "debug")),
    ("POST", "/stats/reset", ("back",)),
    ("POST", "/games/{id}/player", ("token",)),
    ("POST", "/games/{id}/reveal", ("x", "y", "version", "page", "quiet")),
    ("POST", "/games/{id}/flag", ("x", "y", "version", "page", "quiet")),
    ("POST", "/games/{id}/chord", ("x", "y", "version", "page", "quiet")),
    ("POST", "/games/{id}/undo", ("version", "page")),
    ("POST", "/games/{id}/hint", ("version", "page")),
    ("GET", "/games/{id}/proof", ("x", "y")),
    ("GET", "/games/{id}/analysis", ("tries", "page")),
    ("GET", "/games/{id}/replay", ("at", "to", "go")),
    ("GET", "/games/{id}/board", ("moves",)),
    ("GET", "/games/{id}/events", ("version", "page")),
    ("GET", "/analyse", ("p",)),
    ("POST", "/analyse", ("p", "action", "cell", "tool", "width", "height", "mines", "text")),
    ("GET", "/analyse/proof", ("p", "x", "y")),
]
COOKIES = ("kaboom_player", "kaboom_browser", "kaboom_settings", "kaboom_note")


class Site:
    """A live server with games in every state: one being played, one lost, one won (or
    lost), a debug game, and their player tokens."""

    def __init__(self, server: LiveServer) -> None:
        self.url = server.url
        self.http = httpx.Client(base_url=server.url, timeout=60)
        self.tokens: dict[str, str] = {}
        rng = random.Random(7)
        for body in ({"width": 9, "height": 9, "mines": 10},
                     {"width": 9, "height": 9, "mines": 10, "debug": True},
                     {"width": 5, "height": 5, "mines": 12, "forced_guess": "fair"},
                     {"width": 5, "height": 5, "mines": 3, "forced_guess": "fair"}):
            game = self.http.post("/api/games", json=body).json()
            self.tokens[game["id"]] = game["player_token"]
            self._play(game, rng, finish=body["width"] == 5)

    def _play(self, game: dict[str, Any], rng: random.Random, finish: bool) -> None:
        auth = {"Authorization": f"Bearer {self.tokens[game['id']]}"}
        for _ in range(30 if finish else 2):
            if game["status"] != "playing":
                return
            covered = [(x, y) for y, row in enumerate(game["board"])
                       for x, ch in enumerate(row) if ch == "#"]
            x, y = rng.choice(covered)
            game = self.http.post(f"/api/games/{game['id']}/reveal", json={"x": x, "y": y},
                                  headers=auth).json()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = Path(tmp_path_factory.mktemp("fuzz")) / "games.db"
    with LiveServer(db, analysis_budget_s=0.5, move_budget_s=1.0,
                    **NO_CREATION_LIMITS) as server:
        yield Site(server)


TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)
"""Any text a form can carry (a lone surrogate cannot be encoded at all)."""
NUMBERS = st.one_of(
    st.integers(-10, 300).map(str), st.integers().map(str),
    st.sampled_from(["", " ", "0", "1", "1.5", "1e3", "-0", "+1", "0x10", " 7 ", "9" * 30,
                     "NaN", "inf", "on", "true"]))
DIGITS = st.sampled_from(["²", "٣", "１", "⑤", "3²", "߃"])
"""Digits to :meth:`str.isdigit` that :func:`int` reads as numbers, or refuses."""
WELL_FORMED = {
    "width": ["9", "16", "30", "2", "256"], "height": ["9", "16", "2", "256"],
    "mines": ["10", "40", "99", "1", "0", "65535"], "seed": ["", "1", "42", "9" * 19],
    "preset": ["beginner", "custom"], "first_click": ["safe", "opening"],
    "forced_guess": ["survive", "fair"], "outside_guess": ["on", ""],
    "question_marks": ["on", ""], "debug": ["on", ""], "back": ["/games/x", "/", "//x"],
    "x": ["0", "1", "4", "8"], "y": ["0", "1", "4", "8"], "version": ["0", "1", "5"],
    "page": ["", "abcDEF123_-"], "quiet": ["on", ""], "tries": ["1", "8"],
    "at": ["0", "1", "3"], "to": ["0", "2", ""], "go": ["first", "back", "next", "last"],
    "moves": ["0", "2"], "p": ["3x3m1.H9", "9x9m10.H81", "999999x999999m1.H9", "2x2m1.H4"],
    "action": ["", "analyse", "text", "blank", "expert"], "cell": ["1,1", "0,0", "300,2", ""],
    "tool": ["cycle", "why", "#", "F", "3"], "text": ["##\n#1", "0", ""], "token": ["x"],
}
"""Values each field takes from the page itself."""
COOKIE_TEXT = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E,
                                             exclude_characters=';,"\\'), max_size=60)
SETTINGS = st.dictionaries(
    st.sampled_from(["width", "height", "mines", "seed", "debug", "question_marks",
                     "first_click", "forced_guess", "outside_guess"]),
    st.one_of(NUMBERS, DIGITS, st.sampled_from(["on", "opening", "fair", "x"])),
).map(lambda d: quote("&".join(f"{k}={v}" for k, v in d.items()), safe=""))
"""A settings cookie as a hand-edited one might be: a query string of the form's fields,
percent-encoded as the page's script stores it."""


def _field(name: str) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(WELL_FORMED[name]), NUMBERS, DIGITS, TEXT)


@st.composite
def requests(draw: st.DrawFn, site: Site, route: Route
             ) -> tuple[str, str, dict[str, str], dict[str, str]]:
    method, path, fields = route
    games = list(site.tokens)
    game_id = draw(st.one_of(st.sampled_from(games), st.from_regex(r"[A-Za-z0-9_-]{1,64}",
                                                                   fullmatch=True)))
    values = {name: draw(_field(name)) for name in fields if draw(st.integers(0, 5))}
    headers: dict[str, str] = {}
    cookies = []
    for name in COOKIES:
        kind = draw(st.sampled_from(["absent", "random", "real"]))
        if kind == "random":
            value = draw(SETTINGS if name == "kaboom_settings" else COOKIE_TEXT)
            cookies.append(f"{name}={value}")
        elif kind == "real":
            real = {"kaboom_player": site.tokens.get(game_id, "x" * 32),
                    "kaboom_browser": "b" * 22,
                    "kaboom_settings": "width=9&height=9&mines=10&debug=on",
                    "kaboom_note": "a note"}[name]
            cookies.append(f"{name}={real}")
    if cookies:
        headers["Cookie"] = "; ".join(cookies)
    if not draw(st.integers(0, 5)):  # mostly the page's own: a refusal tests less
        headers["Origin"] = draw(st.one_of(st.just(site.url), COOKIE_TEXT, st.sampled_from(
            ["http://[::1", "null", "http://elsewhere.example"])))
    if not draw(st.integers(0, 5)):
        headers["Sec-Fetch-Site"] = draw(st.sampled_from(["same-origin", "cross-site", "none"]))
    if draw(st.booleans()):
        headers["HX-Request"] = "true"
    return method, path.replace("{id}", game_id), values, headers


@pytest.mark.parametrize("route", ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_page_route_answers_a_5xx(site: Site, route: Route, data: st.DataObject) -> None:
    method, path, values, headers = data.draw(requests(site, route))
    if path.endswith("/events"):  # a stream: its status, then the page goes away
        with site.http.stream(method, path, params=values, headers=headers) as answer:
            status = answer.status_code
    elif method == "GET":
        status = site.http.get(path, params=values, headers=headers).status_code
    else:
        status = site.http.post(path, data=values, headers=headers).status_code
    assert status < 500, (method, path, values, headers)
