"""The page at 360 px, touch, moves that patch only changed cells, and spectating."""

from __future__ import annotations

import hashlib
import json

from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.web.conftest import ROOT, Server
from tests.web.pagekit import board_rows, cell, click_cell, new_game, wait_for_moves


def test_page_at_360_px(browser: Browser, server: Server) -> None:
    context = browser.new_context(base_url=server.url, viewport={"width": 360, "height": 740},
                                  has_touch=True, is_mobile=True, device_scale_factor=2,
                                  bypass_csp=True)
    page = context.new_page()
    try:
        page.goto("/")
        gid = new_game(page, "expert")
        # The page itself never scrolls sideways; the board scrolls inside its frame.
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        wrap = page.eval_on_selector("#board-wrap", "w => [w.clientWidth, w.scrollWidth]")
        assert wrap[0] <= 360 < wrap[1]
        box = cell(page, 0, 0).bounding_box()
        assert box is not None and box["width"] == box["height"] >= 24
        for selector in ("#mines-left", "#timer", "#face", "#moves", "#forced", "#status"):
            b = page.locator(selector).bounding_box()
            assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= 360, selector
        size = page.eval_on_selector("#board .c[data-x='3']",
                                     "c => parseFloat(getComputedStyle(c).fontSize)")
        assert size >= 14

        # A tap reveals; a long press marks.
        cell(page, 3, 3).tap()
        wait_for_moves(page, 1)
        game = server.game(gid)
        x, y = next((x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row)
                    if ch == "#")
        cell(page, x, y).scroll_into_view_if_needed()
        b = cell(page, x, y).bounding_box()
        assert b is not None
        touch = {"pointerType": "touch", "isPrimary": True, "pointerId": 7,
                 "clientX": b["x"] + 5, "clientY": b["y"] + 5, "bubbles": True}
        cell(page, x, y).dispatch_event("pointerdown", touch)
        page.wait_for_timeout(700)
        cell(page, x, y).dispatch_event("pointerup", touch)
        wait_for_moves(page, 2)
        expect(cell(page, x, y)).to_have_attribute("data-state", "F")
    finally:
        context.close()


def test_a_move_patches_only_the_cells_that_changed(page: Page, server: Server) -> None:
    page.goto("/")
    new_game(page, "expert", seed=99)
    page.evaluate("""() => {
        window.__sameDocument = true;
        const cells = document.querySelectorAll('#board .c');
        cells.forEach(c => { c.__original = true; });
        window.__changed = new Set();
        new MutationObserver(records => records.forEach(r => {
            if (r.attributeName === 'data-state') window.__changed.add(r.target);
        })).observe(document.querySelector('#board'),
                    {subtree: true, attributes: true, childList: true});
    }""")
    before = board_rows(page)
    click_cell(page, 20, 10)
    after = board_rows(page)
    differing = sum(a != b for ra, rb in zip(after, before, strict=True)
                    for a, b in zip(ra, rb, strict=True))
    assert differing >= 1
    assert page.evaluate("window.__sameDocument === true")  # no reload
    assert page.evaluate(  # no cell was rebuilt
        "Array.from(document.querySelectorAll('#board .c')).every(c => c.__original)")
    assert page.evaluate("window.__changed.size") == differing


def test_spectating_a_game_played_elsewhere(page: Page, server: Server) -> None:
    game = server.post("/api/games", {"width": 16, "height": 16, "mines": 40, "seed": 5})
    gid = game["id"]
    page.goto(server.player_path(gid))  # the player on a second device: it watches and moves
    page.wait_for_selector(f'#board[data-game-id="{gid}"]')
    page.evaluate("window.__sameDocument = true")
    page.wait_for_timeout(300)  # let the long poll go out
    played = server.post(f"/api/games/{gid}/reveal", {"x": 8, "y": 8})
    wait_for_moves(page, 1)
    assert board_rows(page) == played["board"]
    covered = next((x, y) for y, row in enumerate(played["board"]) for x, ch in enumerate(row)
                   if ch == "#")
    server.post(f"/api/games/{gid}/flag", {"x": covered[0], "y": covered[1]})
    wait_for_moves(page, 2)
    expect(cell(page, *covered)).to_have_attribute("data-state", "F")
    expect(page.locator("#mines-left")).to_have_text("39")
    assert page.evaluate("window.__sameDocument === true")
    # The page's own moves and the spectated ones interleave.
    click_cell(page, *covered, button="right")
    assert server.game(gid)["board"][covered[1]][covered[0]] == "?"


def test_htmx_is_the_vendored_pinned_file(page: Page) -> None:
    vendor = ROOT / "kaboom" / "web" / "vendor"
    records = json.loads((vendor / "vendored.json").read_text())
    assert set(records) == {"htmx.min.js", "sse.min.js"}  # htmx and its SSE extension
    for name, record in records.items():
        served = page.request.get(f"/static/vendor/{name}")
        assert served.ok and served.headers["content-type"].startswith("text/javascript")
        assert hashlib.sha256(served.body()).hexdigest() == record["sha256"], name
        licence = (vendor / record["license_file"]).read_text()
        assert licence.startswith(("Zero-Clause BSD", "BSD Zero Clause")), name
    record = records["htmx.min.js"]
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    assert page.evaluate("window.htmx.version") == record["version"]


def test_invalid_custom_size_is_refused_with_the_reason(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    gid = page.eval_on_selector("#board", "b => b.dataset.gameId")
    page.select_option("#preset", "custom")
    page.fill("#width", "4")
    page.fill("#height", "4")
    page.fill("#mines", "16")  # at most 15 fit
    page.click("#new-game button[type=submit]")
    assert page.eval_on_selector("#mines", "m => m.validity.valid") is False
    page.fill("#width", "257")
    page.fill("#mines", "3")
    page.click("#new-game button[type=submit]")
    assert page.eval_on_selector("#width", "m => m.validity.valid") is False
    assert page.eval_on_selector("#board", "b => b.dataset.gameId") == gid
    page.fill("#width", "256")
    page.fill("#height", "2")
    page.fill("#mines", "511")
    page.click("#new-game button[type=submit]")
    page.wait_for_function("document.querySelectorAll('#board .c').length === 512")


def test_a_note_never_moves_the_board(browser: Browser, server: Server) -> None:
    """A hint appearing (or fading) must not shift the cells under the pointer or finger."""
    viewports: tuple[ViewportSize, ...] = (
        {"width": 360, "height": 740}, {"width": 1280, "height": 900}
    )
    for viewport in viewports:
        context = browser.new_context(base_url=server.url, viewport=viewport, bypass_csp=True)
        page = context.new_page()
        try:
            page.goto("/")
            gid = new_game(page, "beginner", seed=4242, first_click="opening")
            click_cell(page, 4, 4)
            game = server.game(gid)
            x, y = next((x, y) for y, row in enumerate(game["board"])
                        for x, ch in enumerate(row) if ch in "12345678")
            if viewport["width"] == 360:  # the four buttons share one line
                tops = []
                for b in ("#undo", "#hint", "#same-board", "#share"):
                    box = page.locator(b).bounding_box()
                    assert box is not None
                    tops.append(box["y"])
                assert len(set(tops)) == 1, tops
            top = page.eval_on_selector("#board", "b => b.getBoundingClientRect().top")
            cell(page, x, y).click(button="middle")  # a chord without its flags: a hint
            expect(page.locator("#message")).to_contain_text("needs exactly")
            assert page.eval_on_selector("#board", "b => b.getBoundingClientRect().top") == top
            page.eval_on_selector("#message", "m => { m.textContent = ''; }")  # as it fades
            assert page.eval_on_selector("#board", "b => b.getBoundingClientRect().top") == top
        finally:
            context.close()
