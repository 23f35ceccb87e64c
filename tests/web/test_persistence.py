"""What survives a reload (settings, statistics), links that reopen games, same board again."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator, Page, expect

from kaboom.server.store import SqliteStore
from kaboom.solver.knowledge import classify
from kaboom.solver.position import Position
from tests.web.conftest import Server
from tests.web.pagekit import (
    board_rows,
    cell,
    click_cell,
    game_id,
    local_safe_cells,
    new_game,
)


def play_unassisted_to_win(page: Page, server: Server, gid: str) -> dict[str, Any]:
    """Wins by clicks, finding safe cells with the local solver (no analysis call)."""
    click_cell(page, 4, 4)
    for _ in range(200):
        game = server.game(gid)
        if game["status"] != "playing":
            return game
        safe = local_safe_cells(game)
        if not safe:  # a guess: outside_guess + survive make every forced guess live
            safe = [(x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row)
                    if ch == "#"]
        click_cell(page, *safe[0])
    raise AssertionError("the game did not end in 200 clicks")


def stat(page: Page, preset: str, name: str) -> Locator:
    return page.locator(f'#stats tr[data-preset="{preset}"] td[data-stat="{name}"]')


def test_settings_survive_a_reload(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    page.select_option("#preset", "custom")
    page.fill("#width", "40")
    page.fill("#height", "20")
    page.fill("#mines", "123")
    page.select_option("#first_click", "opening")
    page.select_option("#forced_guess", "fair")
    page.check("#outside_guess")
    page.uncheck("#question_marks")
    page.check("#debug")
    page.reload()
    page.wait_for_selector("#board[data-game-id]")
    expect(page.locator("#preset")).to_have_value("custom")
    expect(page.locator("#width")).to_have_value("40")
    expect(page.locator("#height")).to_have_value("20")
    expect(page.locator("#mines")).to_have_value("123")
    expect(page.locator("#first_click")).to_have_value("opening")
    expect(page.locator("#forced_guess")).to_have_value("fair")
    expect(page.locator("#outside_guess")).to_be_checked()
    expect(page.locator("#question_marks")).not_to_be_checked()
    expect(page.locator("#debug")).to_be_checked()
    # A reload at "/" starts a game with the saved settings.
    page.goto("/")
    page.wait_for_function("document.querySelectorAll('#board .c').length === 800")
    expect(page.locator("#badges")).to_contain_text("40×20, 123 mines")
    # Picking a preset fills in its size.
    page.select_option("#preset", "expert")
    expect(page.locator("#width")).to_have_value("30")
    expect(page.locator("#mines")).to_have_value("99")


def test_statistics_count_unassisted_games_and_survive_a_reload(page: Page,
                                                               server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=2718, outside_guess=True)
    second_tab = page.context.new_page()  # the player's too: it follows the event stream
    second_tab.goto(f"/games/{gid}")
    second_tab.wait_for_selector("#board[data-game-id]")
    won = play_unassisted_to_win(page, server, gid)
    assert won["status"] == "won" and not won["assisted"]
    for tab in (page, second_tab):
        expect(tab.locator("#banner")).to_contain_text("You won!")
        expect(tab.locator("#banner")).to_contain_text("Your best Beginner time!")
        expect(stat(tab, "beginner", "won")).to_have_text("1")
    second_tab.close()

    # An unassisted loss: reveal a cell the local solver proves is a mine (or guess).
    gid = new_game(page, "beginner", seed=3141, first_click="opening")
    click_cell(page, 4, 4)
    game = server.game(gid)
    knowledge = classify(Position.from_rows(tuple(game["board"]), game["mines"]))
    target = sorted(knowledge.mines or knowledge.unknown)[0]
    click_cell(page, *target)
    assert server.game(gid)["status"] == "lost"

    # A debug (assisted) game does not count.
    gid = new_game(page, "beginner", seed=3141, first_click="opening", debug=True)
    click_cell(page, 4, 4)
    click_cell(page, *target)

    def check() -> None:
        expect(stat(page, "beginner", "played")).to_have_text("2")
        expect(stat(page, "beginner", "won")).to_have_text("1")
        expect(stat(page, "beginner", "rate")).to_have_text("50 %")
        expect(stat(page, "beginner", "best")).to_have_text(f"{won['elapsed_ms'] / 1000:.1f} s")
        expect(stat(page, "expert", "played")).to_have_text("0")

    check()
    page.reload()
    page.wait_for_selector("#board[data-game-id]")
    check()

    # Reopening a finished game's link does not count it twice.
    page.goto(f"/games/{won['id']}")
    page.wait_for_selector('#status[data-status="won"]')
    expect(stat(page, "beginner", "played")).to_have_text("2")
    expect(page.locator("#banner")).to_contain_text("Your best Beginner time!")


def test_statistics_table_reads_on_one_line_and_reset_asks_first(page: Page,
                                                                 server: Server) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    # Big numbers, counted in the live server's store for this browser (its cookie), as
    # the server counts a finished game.
    browser = next(c["value"] for c in page.context.cookies() if c["name"] == "kaboom_browser")
    store = SqliteStore(server.db)
    try:
        for n in range(120):
            store.count_game(browser, f"{browser}-b{n}", "beginner", True, 123_456 + n)
        for n in range(1000):
            store.count_game(browser, f"{browser}-e{n}", "expert", n < 333, 99_999 + n)
    finally:
        store.close()
    page.reload()
    page.wait_for_selector("#board[data-game-id]")
    expect(stat(page, "beginner", "rate")).to_have_text("100 %")
    expect(stat(page, "beginner", "best")).to_have_text("123.5 s")
    expect(stat(page, "expert", "played")).to_have_text("1000")
    expect(stat(page, "expert", "rate")).to_have_text("33 %")
    heights = page.eval_on_selector_all(
        "#stats tbody tr", "rows => rows.map(r => Math.round(r.getBoundingClientRect().height))")
    assert len(set(heights)) == 1, heights  # "100 %" and "123.5 s" do not wrap
    table = page.eval_on_selector("#stats", "t => [t.scrollWidth, t.parentElement.clientWidth]")
    assert table[0] <= table[1]  # no cell wraps, and the table fits its panel

    resets: list[str] = []
    page.on("request", lambda r: resets.append(r.method) if r.url.endswith("/stats/reset")
            else None)
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#reset-stats")
    expect(stat(page, "beginner", "played")).to_have_text("120")
    assert resets == []  # dismissed: nothing asked of the server
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#reset-stats")
    expect(stat(page, "beginner", "played")).to_have_text("0")
    expect(stat(page, "expert", "best")).to_have_text("–")
    assert resets == ["POST"]
    page.reload()  # forgotten by the server, not just redrawn
    page.wait_for_selector("#board[data-game-id]")
    expect(stat(page, "expert", "played")).to_have_text("0")


def test_link_reopens_the_game_and_same_board_again(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "intermediate", seed=161803, first_click="opening",
                   forced_guess="fair")
    click_cell(page, 3, 3)
    click_cell(page, 0, 15, button="right")
    assert page.url.endswith(f"/games/{gid}")
    rows = board_rows(page)

    other = page.context.new_page()
    other.goto(f"/games/{gid}")
    other.wait_for_function("document.querySelector('#board')?.dataset.moves === '2'")
    assert board_rows(other) == rows
    other.close()

    page.click("#same-board")
    page.wait_for_function(f"document.querySelector('#board')?.dataset.gameId !== '{gid}'")
    again = server.game(game_id(page))
    first = server.game(gid)
    for key in ("width", "height", "mines", "seed", "first_click", "forced_guess",
                "outside_guess", "question_marks", "debug"):
        assert again[key] == first[key], key
    assert again["moves"] == 0
    assert page.url.endswith(f"/games/{again['id']}")
    # The same seed and the same first click give the same opening.
    click_cell(page, 3, 3)
    assert board_rows(page) == [row.replace("F", "#") for row in rows]

    # Back goes to the previous game.
    page.go_back()
    page.wait_for_function(f"document.querySelector('#board')?.dataset.gameId === '{gid}'")
    expect(cell(page, 0, 15)).to_have_attribute("data-state", "F")


def test_unknown_game_link_starts_a_new_game(page: Page) -> None:
    page.goto("/games/no-such-game")
    page.wait_for_selector("#board[data-game-id]")
    expect(page.locator("#message")).to_contain_text("does not exist")
    assert "/games/no-such-game" not in page.url


def test_back_to_a_game_that_expired_replaces_it_and_keeps_forward(page: Page) -> None:
    """Back to a game the server no longer has starts a new game in that entry of the
    history: it was pushed instead, so Forward never reached the later game again and
    each Back made one more game.  (The server answers such a link with a redirect to the
    new game, which takes the link's place in the history.)"""
    page.goto("/")
    first = new_game(page, "beginner", seed=5)
    later = new_game(page, "beginner", seed=6)
    page.route(f"**/games/{first}", lambda route: route.fulfill(
        status=303, headers={"Location": "/games/no-such-game"}))
    page.go_back()
    page.wait_for_function(
        "(old) => { const id = document.querySelector('#board')?.dataset.gameId;"
        " return id && !old.includes(id); }", arg=[first, later])
    fresh = game_id(page)
    assert page.url.endswith(f"/games/{fresh}")
    expect(page.locator("#message")).to_contain_text("does not exist")
    page.go_forward()
    page.wait_for_function(f"document.querySelector('#board')?.dataset.gameId === '{later}'")
    page.go_back()
    page.wait_for_function(f"document.querySelector('#board')?.dataset.gameId === '{fresh}'")
