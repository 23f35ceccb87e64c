"""When things go wrong: a server that does not answer, a proxy's error page, an unknown link,
a refused setting, settings that cannot start a game. The page says what happened, in words,
and offers a way on; it never leaves an empty frame or raw markup."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, Route, expect

from tests.web.conftest import Server
from tests.web.pagekit import board_rows, cell, click_cell, game_id, moves, new_game

NO_ANSWER = "the server did not answer"


def abort(route: Route) -> None:
    route.abort("connectionrefused")


def test_link_while_the_server_is_down_offers_try_again(page: Page, server: Server) -> None:
    gid = server.post("/api/games", {"width": 9, "height": 9, "mines": 10, "seed": 11})["id"]
    server.post(f"/api/games/{gid}/reveal", {"x": 4, "y": 4})
    page.route(f"**/api/games/{gid}", abort)
    page.goto(f"/games/{gid}")
    notice = page.locator("#notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(f"Could not load game {gid}: {NO_ANSWER}")
    expect(page.locator("#board-wrap")).to_be_hidden()  # no empty frame
    expect(page.locator("#status")).to_have_text("No game")
    expect(page.locator("#status")).to_have_attribute("data-status", "none")
    expect(page.locator("#notice-new")).to_be_visible()
    for button in ("#undo", "#share", "#same-board"):
        expect(page.locator(button)).to_be_disabled()

    page.unroute(f"**/api/games/{gid}", abort)
    page.click("#notice-retry")
    page.wait_for_function(f"document.querySelector('#board').dataset.gameId === '{gid}'")
    expect(notice).to_be_hidden()
    expect(page.locator("#board-wrap")).to_be_visible()
    assert board_rows(page) == server.game(gid)["board"]
    assert page.url.endswith(f"/games/{gid}")


def test_link_while_the_server_is_down_offers_a_new_game(page: Page, server: Server) -> None:
    gid = server.post("/api/games", {"width": 9, "height": 9, "mines": 10})["id"]
    page.route(f"**/api/games/{gid}", abort)
    page.goto(f"/games/{gid}")
    expect(page.locator("#notice")).to_be_visible()
    page.click("#notice-new")
    page.wait_for_function(
        "(old) => { const id = document.querySelector('#board').dataset.gameId;"
        " return id && id !== old; }", arg=gid)
    expect(page.locator("#notice")).to_be_hidden()
    assert page.locator("#board .c").count() == 81
    assert f"/games/{gid}" not in page.url


def test_first_game_while_the_server_is_down(page: Page) -> None:
    page.route("**/api/games", abort)
    page.goto("/")
    notice = page.locator("#notice")
    expect(notice).to_contain_text(f"Could not start a game: {NO_ANSWER}")
    expect(page.locator("#notice-new")).to_be_hidden()  # "Try again" is that already
    expect(page.locator("#form-error")).to_contain_text(NO_ANSWER)
    expect(page.locator("#board-wrap")).to_be_hidden()

    page.unroute("**/api/games", abort)
    page.click("#notice-retry")
    page.wait_for_selector("#board[data-game-id]")
    expect(notice).to_be_hidden()
    expect(page.locator("#form-error")).to_be_hidden()
    assert page.locator("#board .c").count() == 81


def test_a_move_the_server_did_not_answer_is_said_and_can_be_retried(page: Page) -> None:
    page.goto("/")
    new_game(page, "beginner", seed=21)
    page.route("**/reveal", abort)
    cell(page, 4, 4).click()
    message = page.locator("#message")
    expect(message).to_have_text(f"Move not played: {NO_ANSWER} (is kaboom serve running?)")
    expect(message).to_have_class(re.compile(r"\berror\b"))
    assert moves(page) == 0
    assert cell(page, 4, 4).get_attribute("data-state") == "#"
    page.unroute("**/reveal", abort)
    click_cell(page, 4, 4)
    expect(message).to_have_text("")  # the next answer clears the error


def test_a_move_whose_answer_was_lost_is_shown_as_played(page: Page) -> None:
    """The server played the move but its answer never arrived (a reset connection, a
    proxy's 504): "Move not played" above an opened cell invited a second click, which
    would chord or cycle a flag twice.  The page reads the game again and says so."""
    page.goto("/")
    new_game(page, "beginner", seed=21)

    def played_then_lost(route: Route) -> None:
        route.fetch()  # the server plays the move ...
        route.abort("connectionreset")  # ... and the answer is lost

    page.route("**/reveal", played_then_lost)
    cell(page, 4, 4).click()
    message = page.locator("#message")
    expect(message).to_contain_text("answer was lost on the way, but the move was played")
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    assert moves(page) == 1
    assert cell(page, 4, 4).get_attribute("data-state") not in ("#", "F", "?")


def test_a_lost_server_is_said_and_a_returning_one_seen_within_seconds(page: Page) -> None:
    """The long poll failed in silence (a spectator saw "Watching" while the server was
    down) and backed off to 30 s, so a move made after a restart showed 24 s late."""
    polls = re.compile(r".*/api/games/[^/?]+\?wait_moves=.*")
    page.route(polls, abort)
    page.goto("/")
    new_game(page, "beginner", seed=21)
    message = page.locator("#message")
    expect(message).to_contain_text("Lost touch with the server", timeout=15_000)
    expect(message).to_have_class(re.compile(r"\bsticky\b"))
    page.unroute(polls, abort)
    expect(message).to_have_text("Connected to the server again.", timeout=10_000)


def test_a_proxy_error_page_is_shown_as_its_status_not_markup(page: Page) -> None:
    def bad_gateway(route: Route) -> None:
        route.fulfill(status=502, content_type="text/html",
                      body="<html><body><h1>502 Bad Gateway</h1></body></html>")

    page.route("**/api/games/some-game-id", bad_gateway)
    page.goto("/games/some-game-id")
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Could not load game some-game-id: HTTP 502")
    assert "<" not in notice.inner_text()


def test_unknown_link_note_stays_until_the_first_move(page: Page) -> None:
    page.goto("/games/no-such-game")
    page.wait_for_selector("#board[data-game-id]")
    message = page.locator("#message")
    expect(message).to_contain_text("does not exist on this server")
    # Sticky: it does not fade on a timer, only the first move's answer clears it.
    expect(message).to_have_class(re.compile(r"\bsticky\b"))
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    click_cell(page, 4, 4)
    expect(message).to_have_text("")


def test_the_servers_refusal_names_the_field(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    gid = game_id(page)
    page.fill("#seed", "9999999999999999999")  # 19 digits pass the form, not the 63-bit limit
    page.click("#new-game button[type=submit]")
    error = page.locator("#form-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Could not start a game: seed: ")
    expect(error).to_contain_text("less than or equal to 9223372036854775807")
    assert game_id(page) == gid  # the game on the page stays
    expect(page.locator("#notice")).to_be_hidden()
    page.fill("#seed", "")  # the refusal was of that seed: it goes with it
    expect(error).to_be_hidden()


def test_a_refused_size_is_not_kept_and_a_bad_saved_one_is_replaced(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    page.select_option("#preset", "intermediate")
    page.fill("#width", "300")  # refused by the form; the intermediate size stays saved
    page.click("#new-game button[type=submit]")
    assert page.eval_on_selector("#width", "w => w.validity.valid") is False
    saved = json.loads(page.evaluate("localStorage.getItem('kaboom.settings')"))
    assert (saved["width"], saved["height"], saved["mines"]) == (16, 16, 40)
    page.goto("/")  # a new visit: a game with the saved settings
    page.wait_for_function("document.querySelectorAll('#board .c').length === 256")
    expect(page.locator("#preset")).to_have_value("intermediate")

    # Settings stored by hand (or by an older page) that no game can have: the page still
    # starts a game, at the default size, and keeps the other settings.
    page.evaluate("""localStorage.setItem('kaboom.settings', JSON.stringify(
        {preset: 'custom', width: 300, height: 'x', mines: 5, first_click: 'opening'}))""")
    page.goto("/")
    page.wait_for_function("document.querySelectorAll('#board .c').length === 81")
    expect(page.locator("#width")).to_have_value("9")
    expect(page.locator("#preset")).to_have_value("beginner")
    expect(page.locator("#first_click")).to_have_value("opening")
    expect(page.locator("#badges")).to_contain_text("opening")
