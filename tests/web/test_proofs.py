"""Proofs on the page: the loss's proof outlined and worded, hints, and debug hover."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from kaboom.solver.knowledge import classify
from kaboom.solver.position import Position
from tests import oracle
from tests.web.conftest import ROOT, Server, page_token
from tests.web.pagekit import (
    attribute,
    board_rows,
    cell,
    click_cell,
    local_safe_cells,
    new_game,
    wait_for_moves,
)

SCREENSHOT = ROOT / "docs" / "screenshot-proof.png"
# Rewritten when asked (or missing), so test runs leave the tree clean.
UPDATE_SCREENSHOT = os.environ.get("KABOOM_UPDATE_SCREENSHOT") == "1" or not SCREENSHOT.exists()


def outlined(page: Page, name: str) -> set[tuple[int, int]]:
    return {
        (int(x), int(y))
        for x, y in page.eval_on_selector_all(
            f"#board .c.{name}", "cs => cs.map(c => [c.dataset.x, c.dataset.y])"
        )
    }


def position_of(game: dict[str, Any]) -> Position:
    return Position.from_rows(tuple(game["board"]), game["mines"])


def lose_by_guessing(page: Page, server: Server) -> tuple[str, Position]:
    """Plays seeded games until a safe cell and an undecided one exist, then clicks the
    undecided one; returns the game and the position the losing click was made on."""
    page.goto("/")
    for seed in range(1, 40):
        new_game(page, "intermediate", seed=seed, first_click="opening")
        click_cell(page, 8, 8)
        gid = page.eval_on_selector("#board", "b => b.dataset.gameId")
        game = server.game(gid)
        knowledge = classify(position_of(game))
        if game["status"] == "playing" and knowledge.safe and knowledge.frontier_unknown:
            break
    else:
        raise AssertionError("no seed left a safe and an undecided cell")
    click_cell(page, *sorted(knowledge.frontier_unknown)[0])
    return gid, position_of(game)


def test_a_punished_guess_shows_its_proof(page: Page, server: Server, tmp_path: Path) -> None:
    gid, before = lose_by_guessing(page, server)
    game = server.game(gid)
    assert game["loss"]["reason"] == "guess_while_safe" and not game["assisted"]
    safe = game["loss"]["safe_cell"]
    proof = server.http.get(f"/api/games/{gid}/proof", params=safe).raise_for_status().json()
    numbers = {(n["x"], n["y"]) for n in proof["numbers"]}
    # The proof stands on its own: its numbers alone leave the cell no room for a mine.
    assert oracle.values(before, (safe["x"], safe["y"]), numbers, proof["count"]) == {False}
    banner = page.locator("#banner")
    expect(banner.locator(".proof-why")).to_have_text(proof["text"])
    expect(banner).to_contain_text(f"no room for a mine at ({safe['x']}, {safe['y']})")
    expect(page.locator("#board .c.reason")).to_have_count(len(numbers))
    assert outlined(page, "reason") == numbers
    assert all(attribute(cell(page, x, y), "data-state") in "12345678" for x, y in numbers)
    assert not server.game(gid)["assisted"]  # the proof after a loss is free
    target = SCREENSHOT if UPDATE_SCREENSHOT else tmp_path / SCREENSHOT.name
    page.locator("#banner").scroll_into_view_if_needed()
    page.locator(".game").screenshot(path=str(target))
    assert target.stat().st_size > 10_000
    page.click("#undo")
    expect(page.locator("#board .c.reason")).to_have_count(0)
    expect(page.locator("#replay")).to_be_hidden()


def test_a_replay_steps_to_the_losing_move_and_its_proof(page: Page, server: Server) -> None:
    gid, before = lose_by_guessing(page, server)
    game = server.game(gid)
    n = game["moves"]
    replay = page.locator("#replay")
    expect(replay).to_be_visible()
    expect(page.locator("#replay-slider")).to_have_attribute("max", str(n))
    page.locator("#replay-first").focus()
    page.keyboard.press("Home")
    expect(page.locator("#board")).to_have_attribute("data-replay-move", "0")
    assert board_rows(page) == ["#" * 16] * 16
    expect(page.locator("#banner")).to_be_hidden()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-at")).to_contain_text(f"Move 1 of {n}: reveal (8, 8)")
    page.keyboard.press("End")
    page.click("#replay-back")  # the board the losing click was made on
    expect(page.locator("#board")).to_have_attribute("data-replay-move", str(n - 1))
    assert board_rows(page) == list(before.rows)
    loss, safe = game["loss"], game["loss"]["safe_cell"]
    proof = server.http.get(f"/api/games/{gid}/proof", params=safe).json()
    expect(page.locator("#replay-at")).to_contain_text(proof["text"])
    assert outlined(page, "reason") == {(n["x"], n["y"]) for n in proof["numbers"]}
    assert outlined(page, "guess") == {(loss["x"], loss["y"])}
    assert outlined(page, "proof") == {(safe["x"], safe["y"])}
    page.eval_on_selector(
        "#replay-slider", "s => { s.value = s.max; s.dispatchEvent(new Event('input')); }"
    )
    expect(page.locator("#board")).to_have_attribute("data-replay-move", str(n))
    assert board_rows(page) == game["board"]
    expect(page.locator("#banner")).to_be_visible()
    # Shareable: the game's link opens on the same replay.
    other = page.context.new_page()
    other.goto(f"/games/{gid}")
    expect(other.locator("#replay")).to_be_visible()
    expect(other.locator("#replay-slider")).to_have_attribute("max", str(n))
    other.close()


def _replay_boards(server: Server, gid: str, at: list[int]) -> dict[int, list[str]]:
    """The boards after moves ``at`` of a finished game, from its replay's pages."""
    rows: list[list[str]] = []
    boards: dict[int, list[str]] = {}
    n, offset = 0, 0
    while offset is not None:
        page = server.http.get(f"/api/games/{gid}/replay", params={"offset": offset}).json()
        rows = rows or [list(r) for r in page["start"]]
        for move in page["moves"]:
            if n in at:
                boards[n] = ["".join(r) for r in rows]
            for x, y, _, after in move["cells"]:
                rows[y][x] = after
            n += 1
        offset = page["next_offset"]
    if n in at:
        boards[n] = ["".join(r) for r in rows]
    return boards


_LONG_GAME_MARKED = (0, 0)
"""The covered cell whose mark :func:`_long_lost_game` cycles (seed 5's first covered cell
after (8, 8) opens)."""


def _long_lost_game(server: Server) -> tuple[str, int]:
    """A lost 16x16 debug game of more than 1000 moves (two replay pages): a mark cycled
    on one cell 1010 times, then a losing click."""
    game = server.post("/api/games", {"width": 16, "height": 16, "mines": 40, "debug": True,
                                      "seed": 5})
    gid = game["id"]
    game = server.post(f"/api/games/{gid}/reveal", {"x": 8, "y": 8})
    x, y = next((x, y) for y, r in enumerate(game["board"]) for x, ch in enumerate(r)
                if ch == "#")
    assert (x, y) == _LONG_GAME_MARKED
    for _ in range(1010):  # a mark cycled on one cell: 1011 moves in all
        game = server.post(f"/api/games/{gid}/flag", {"x": x, "y": y})
    while game["status"] == "playing":  # end it: click a mine, or an undecided cell
        status = server.analysis(gid)["status"]
        cx, cy = next((a, b) for b, r in enumerate(status) for a, ch in enumerate(r)
                      if ch in "mu" and (a, b) != (x, y))
        game = server.post(f"/api/games/{gid}/reveal", {"x": cx, "y": cy})
    return gid, game["moves"]


def test_a_replay_longer_than_a_page_steps_through_all_of_it(page: Page, server: Server) -> None:
    """The replay answers 1000 moves a page: the page reads every page of a long game and
    steps through the whole of it, across the pages' seams, to the last board."""
    gid, n = _long_lost_game(server)
    game = server.game(gid)
    x, y = _LONG_GAME_MARKED
    boards = _replay_boards(server, gid, [0, 999, 1000, 1001, n - 1, n])
    page.goto(f"/games/{gid}")
    expect(page.locator("#replay-slider")).to_have_attribute("max", str(n))
    expect(page.locator("#replay-slider")).to_have_attribute("min", "0")
    assert board_rows(page) == game["board"]
    page.locator("#replay-first").focus()
    page.keyboard.press("Home")
    expect(page.locator("#board")).to_have_attribute("data-replay-move", "0")
    assert board_rows(page) == boards[0] == ["#" * 16] * 16
    page.eval_on_selector(
        "#replay-slider", "s => { s.value = '999'; s.dispatchEvent(new Event('input')); }"
    )
    for k in (999, 1000, 1001):  # across the seam of the two pages, one move at a time
        expect(page.locator("#board")).to_have_attribute("data-replay-move", str(k))
        assert board_rows(page) == boards[k], k
        page.click("#replay-next")
    expect(page.locator("#replay-at")).to_contain_text(f"Move 1002 of {n}: flag ({x}, {y})")
    page.click("#replay-last")
    expect(page.locator("#board")).to_have_attribute("data-replay-move", str(n))
    assert board_rows(page) == boards[n] == game["board"]
    page.click("#replay-back")  # each step is the server's answer: wait for it
    expect(page.locator("#board")).to_have_attribute("data-replay-move", str(n - 1))
    assert board_rows(page) == boards[n - 1]


def test_a_long_replay_opens_at_its_end_and_steps_back_to_the_first_board(
    page: Page, server: Server
) -> None:
    """The bar starts at the end: the server draws the last board with the whole bar (it
    had waited for every page of moves, 263 requests for a 256x256 game's 262,144), and a
    step back to the first board sends only the cells that differ."""
    gid, n = _long_lost_game(server)
    page.goto(f"/games/{gid}")
    slider = page.locator("#replay-slider")
    expect(slider).to_have_attribute("max", str(n))
    expect(slider).to_have_attribute("min", "0")
    expect(page.locator("#board")).to_have_attribute("data-replay-move", str(n))
    steps: list[int] = []
    page.on("response", lambda r: steps.append(len(r.body())) if "/replay?" in r.url else None)
    page.locator("#replay-first").focus()
    page.keyboard.press("Home")
    expect(page.locator("#board")).to_have_attribute("data-replay-move", "0")
    expect(page.locator("#replay-at")).to_contain_text(f"The first board (move 0 of {n})")
    assert board_rows(page) == ["#" * 16] * 16
    assert len(steps) == 1


def test_the_hint_shows_a_safe_cell_and_marks_the_game_assisted(
    page: Page, server: Server
) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=31337, first_click="opening")
    page.click("#hint")
    expect(page.locator("#reason")).to_contain_text("the first click is always safe")
    click_cell(page, 4, 4)
    game = server.game(gid)
    assert game["status"] == "playing"
    safe = set(local_safe_cells(game))
    page.locator("#board").focus()
    page.keyboard.press("h")
    expect(page.locator("#reason")).to_contain_text("is safe:")
    (hinted,) = outlined(page, "hint")
    assert hinted in safe
    assert cell(page, *hinted).get_attribute("data-state") == "#"
    assert outlined(page, "reason")  # the numbers of its proof
    expect(page.locator("#badges .assisted")).to_be_visible()
    assert server.game(gid)["assisted"]
    page.keyboard.press("Space")  # the hint moved the cursor onto the safe cell
    wait_for_moves(page, game["moves"] + 1)
    assert server.game(gid)["board"][hinted[1]][hinted[0]] in "012345678"
    expect(page.locator("#board .c.hint")).to_have_count(0)


def test_the_hint_names_a_forced_guess_and_the_best_odds(page: Page, server: Server) -> None:
    settings = {"width": 2, "height": 8, "mines": 5, "first_click": "safe"}
    for seed in range(1, 80):
        gid = server.post("/api/games", {**settings, "seed": seed})["id"]
        game = server.post(f"/api/games/{gid}/reveal", {"x": 0, "y": 0})
        if game["status"] == "playing" and not classify(position_of(game)).safe:
            break
    else:
        raise AssertionError("no seed left the first click without a safe cell")
    page.goto("/")
    new_game(page, size=(2, 8, 5), seed=seed)
    click_cell(page, 0, 0)
    page.click("#hint")
    reason = page.locator("#reason")
    expect(reason).to_contain_text("the next click is a forced guess")
    expect(reason).to_contain_text("The best odds:")
    # Off the frontier a guess would lose outright, so the best odds are on it.
    position = position_of(game)
    odds = {c: p for c, p in oracle.probabilities(position).items() if c in position.frontier()}
    best = min(odds.values())
    assert outlined(page, "guess") == {c for c, p in odds.items() if abs(p - best) < 1e-9}
    expect(reason).to_contain_text(f"{best * 100:.1f} % mine")


def test_debug_hover_and_focus_show_a_proof(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=31337, first_click="opening", debug=True)
    click_cell(page, 4, 4)
    page.wait_for_function("document.querySelector('#board')?.dataset.analysedMoves === '1'")
    target = page.locator('#board .c[data-knowledge="s"]').first
    x, y = int(attribute(target, "data-x")), int(attribute(target, "data-y"))
    target.hover()
    expect(page.locator("#reason")).to_contain_text(f"({x}, {y}) is safe:")
    token = page_token(page, gid)
    proof = server.http.get(f"/api/games/{gid}/proof", params={"x": x, "y": y},
                            headers={"Authorization": f"Bearer {token}"}).raise_for_status().json()
    assert outlined(page, "reason") == {(n["x"], n["y"]) for n in proof["numbers"]}
    page.mouse.move(0, 0)
    expect(page.locator("#board .c.reason")).to_have_count(0)
