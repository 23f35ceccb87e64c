"""Players and spectators on the page: only the token holder moves."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import Server
from tests.web.pagekit import board_rows, cell, click_cell, wait_for_moves


def test_a_spectator_page_watches_but_cannot_move(page: Page, server: Server) -> None:
    game = server.post("/api/games", {"width": 9, "height": 9, "mines": 10})
    gid = game["id"]
    page.goto(f"/games/{gid}")  # the spectate link: no token in this browser
    page.wait_for_selector(f'#board[data-game-id="{gid}"][data-role="spectator"]')
    expect(page.locator("#status")).to_have_text("Watching")
    expect(page.locator("#same-board")).to_be_disabled()  # the seed is secret while on
    cell(page, 4, 4).click()  # refused on the page: no request is sent
    expect(page.locator("#message")).to_contain_text("only its player can move")
    assert server.game(gid)["moves"] == 0
    played = server.post(f"/api/games/{gid}/reveal", {"x": 4, "y": 4})  # the player moves
    wait_for_moves(page, 1)
    assert board_rows(page) == played["board"]
    assert server.game(gid)["assisted"] is False


def test_the_players_link_hands_the_game_over(page: Page, server: Server) -> None:
    game = server.post("/api/games", {"width": 9, "height": 9, "mines": 10, "seed": 21})
    gid = game["id"]
    page.goto(server.player_path(gid))
    page.wait_for_selector(f'#board[data-game-id="{gid}"][data-role="player"]')
    assert "#player=" not in page.url  # the token leaves the address bar at once
    click_cell(page, 4, 4)
    wait_for_moves(page, 1)
    expect(cell(page, 4, 4)).not_to_have_attribute("data-state", "#")
    expect(page.locator("#same-board")).to_be_enabled()  # a chosen seed is public
    page.reload()  # the browser keeps the token
    page.wait_for_selector(f'#board[data-game-id="{gid}"][data-role="player"]')


def test_the_page_plays_under_its_content_security_policy(browser: Browser,
                                                          server: Server) -> None:
    """The real policy, not bypassed: a game started from the form (htmx), moves, marks
    and the debug overlay, with no violation reported and no script error."""
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        response = page.goto("/")
        assert response is not None
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector('#board[data-role="player"] .c')
        page.check("#debug")
        page.click("#face")  # a new game through htmx, now in debug mode
        page.wait_for_selector('#board[data-moves="0"] .c')
        page.locator('#board .c[data-x="4"][data-y="4"]').click()
        page.wait_for_selector('#board[data-moves="1"]')
        page.locator('#board .c[data-state="#"]').first.click(button="right")
        page.wait_for_selector('#board[data-moves="2"]')
        page.wait_for_timeout(500)  # let the debug overlay's analysis arrive
    finally:
        context.close()
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
    assert not problems, problems
