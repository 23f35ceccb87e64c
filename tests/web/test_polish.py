"""The page for every player: the form follows the game, spectators, phones, wide screens."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from kaboom.solver.knowledge import classify
from kaboom.solver.position import Position
from tests.web.conftest import Server
from tests.web.pagekit import cell, new_game
from tests.web.test_access import AXE


def test_the_form_shows_the_settings_of_the_game_on_the_board(page: Page, server: Server) -> None:
    settings = {"width": 30, "height": 16, "mines": 99, "forced_guess": "fair",
                "first_click": "opening", "question_marks": False}
    gid = server.post("/api/games", settings)["id"]
    page.goto(f"/games/{gid}")
    page.wait_for_selector(f'#board[data-game-id="{gid}"]')
    expect(page.locator("#preset")).to_have_value("expert")
    expect(page.locator("#width")).to_have_value("30")
    expect(page.locator("#forced_guess")).to_have_value("fair")
    expect(page.locator("#first_click")).to_have_value("opening")
    expect(page.locator("#question_marks")).not_to_be_checked()


def test_a_spectator_sees_that_the_player_won(page: Page, server: Server) -> None:
    gid = server.post("/api/games", {"width": 9, "height": 9, "mines": 10, "seed": 5})["id"]
    game = server.post(f"/api/games/{gid}/reveal", {"x": 4, "y": 4})
    while game["status"] == "playing":
        status = server.analysis(gid)["status"]
        x, y = next((x, y) for y, r in enumerate(status) for x, ch in enumerate(r)
                    if ch == "s" or ch == "u")
        game = server.post(f"/api/games/{gid}/reveal", {"x": x, "y": y})
    page.goto(f"/games/{gid}")
    banner = page.locator("#banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("The player won." if game["status"] == "won"
                                   else "The player lost.")
    expect(banner).not_to_contain_text("You ")  # test_play's win, by this browser, says "You won!"


def test_a_reopened_loss_on_a_phone_scrolls_the_proof_cell_into_view(
    browser: Browser, server: Server
) -> None:
    for seed in range(1, 40):
        gid = server.post("/api/games", {"width": 30, "height": 16, "mines": 99, "seed": seed,
                                         "first_click": "opening"})["id"]
        game = server.post(f"/api/games/{gid}/reveal", {"x": 3, "y": 8})
        knowledge = classify(Position.from_rows(tuple(game["board"]), game["mines"]))
        if game["status"] == "playing" and knowledge.safe and knowledge.frontier_unknown:
            break
    else:
        raise AssertionError("no seed left a safe and an undecided cell")
    guess = max(knowledge.frontier_unknown)  # far right: the named safe cell is near it
    lost = server.post(f"/api/games/{gid}/reveal", {"x": guess[0], "y": guess[1]})
    safe = lost["loss"]["safe_cell"]
    context = browser.new_context(base_url=server.url, viewport={"width": 390, "height": 844},
                                  has_touch=True, is_mobile=True, bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(f"/games/{gid}")
        expect(page.locator("#banner .proof-why")).to_be_visible()
        box = cell(page, safe["x"], safe["y"]).bounding_box()
        frame = page.locator("#board-wrap").bounding_box()
        assert box is not None and frame is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.add_script_tag(path=str(AXE))
        serious = page.evaluate("""async () => (await axe.run()).violations
            .filter(v => ['serious', 'critical'].includes(v.impact)).map(v => v.id)""")
        assert serious == []
    finally:
        context.close()


def test_a_small_board_sits_next_to_the_panel_on_a_wide_screen(page: Page) -> None:
    page.goto("/")
    new_game(page, "beginner")
    board = page.locator("#board").bounding_box()
    side = page.locator(".side").bounding_box()
    assert board is not None and side is not None
    gap = side["x"] - (board["x"] + board["width"])
    assert 0 < gap < 200, gap
    # ... and the page is centred: as much room on the left as on the right.
    left = page.eval_on_selector("main", "m => m.getBoundingClientRect().left")
    right = page.evaluate("innerWidth") - page.eval_on_selector(
        "main", "m => m.getBoundingClientRect().right")
    assert abs(left - right) < 20
