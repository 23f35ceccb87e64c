"""When things go wrong: a server that does not answer, a proxy's error page, an unknown link,
a refused setting, settings that cannot start a game. The page says what happened, in words,
and offers a way on; it never leaves an empty frame or raw markup."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from playwright.sync_api import Browser, Page, Route, expect

from tests.web.conftest import Server, open_page
from tests.web.pagekit import cell, click_cell, game_id, moves, new_game

NO_ANSWER = "the server did not answer"


def abort(route: Route) -> None:
    route.abort("connectionrefused")


def test_a_first_game_the_server_refuses_is_said_with_a_way_on(browser: Browser,
                                                              tmp_path: Path) -> None:
    """The server draws the page and starts its first game; when it cannot (here: a
    second game of a client allowed one), the page says why in the board's place and offers to try
    again, with no empty frame."""
    with Server(tmp_path, create_per_minute=0.001, create_burst=1) as server, \
            open_page(browser, server) as page:
        page.goto("/")  # the one game this client may start
        page.wait_for_selector("#board[data-game-id]")
        page.goto("/")
        notice = page.locator("#notice")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("Could not start a game:")
        assert page.locator("#board-wrap").count() == 0  # no empty frame
        expect(page.locator("#notice a")).to_have_attribute("href", "/")


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
    """The game's event stream failed in silence (a spectator saw "Watching" while the
    server was down), and a move made after a restart showed late."""
    events = re.compile(r".*/games/[^/?]+/events\?.*")
    page.route(events, abort)
    page.goto("/")
    new_game(page, "beginner", seed=21)
    message = page.locator("#message")
    expect(message).to_contain_text("Lost touch with the server", timeout=15_000)
    expect(message).to_have_class(re.compile(r"\bsticky\b"))
    page.unroute(events, abort)
    expect(message).to_have_text("Connected to the server again.", timeout=10_000)


def test_a_proxy_error_page_is_shown_as_its_status_not_markup(page: Page) -> None:
    def bad_gateway(route: Route) -> None:
        route.fulfill(status=502, content_type="text/html",
                      body="<html><body><h1>502 Bad Gateway</h1></body></html>")

    page.goto("/")
    new_game(page, "beginner", seed=21)
    page.route("**/reveal", bad_gateway)
    cell(page, 4, 4).click()
    message = page.locator("#message")
    expect(message).to_contain_text("Move not played: HTTP 502")
    assert "<" not in message.inner_text()
    assert moves(page) == 0


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
    saved = dict(parse_qsl(unquote(settings_cookie(page))))
    assert (saved["width"], saved["height"], saved["mines"]) == ("16", "16", "40")
    page.goto("/")  # a new visit: a game with the saved settings
    page.wait_for_function("document.querySelectorAll('#board .c').length === 256")
    expect(page.locator("#preset")).to_have_value("intermediate")

    # Settings stored by hand (or by an older page) that no game can have: the page still
    # starts a game, at the default size, and keeps the other settings.
    host = urlsplit(page.url).hostname or ""
    page.context.add_cookies([{"name": "kaboom_settings", "domain": host, "path": "/",
                               "value": "preset%3Dcustom%26width%3D300%26height%3Dx%26mines%3D5"
                                        "%26first_click%3Dopening"}])
    page.goto("/")
    page.wait_for_function("document.querySelectorAll('#board .c').length === 81")
    expect(page.locator("#width")).to_have_value("9")
    expect(page.locator("#preset")).to_have_value("beginner")
    expect(page.locator("#first_click")).to_have_value("opening")
    expect(page.locator("#badges")).to_contain_text("opening")


def settings_cookie(page: Page) -> str:
    """The new-game settings the page keeps for the next visit (a cookie the server reads)."""
    return next(c["value"] for c in page.context.cookies() if c["name"] == "kaboom_settings")
