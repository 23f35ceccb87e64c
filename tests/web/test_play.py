"""Playing through the page: a win, a punished guess with its proof, marks, chords, keys."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import Server
from tests.web.pagekit import (
    attribute,
    board_rows,
    cell,
    click_cell,
    local_safe_cells,
    moves,
    new_game,
    wait_for_moves,
)


def covered(game: dict[str, Any]) -> list[tuple[int, int]]:
    return [(x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row) if ch == "#"]


def with_status(analysis: dict[str, Any], wanted: str) -> list[tuple[int, int]]:
    return [(x, y) for y, row in enumerate(analysis["status"]) for x, ch in enumerate(row)
            if ch == wanted]


def neighbours(game: dict[str, Any], x: int, y: int) -> list[tuple[int, int]]:
    w, h = game["width"], game["height"]
    return [(x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < w and 0 <= y + dy < h]


def walk_to(page: Page, x: int, y: int) -> None:
    """Moves the keyboard cursor to (x, y) with the arrow keys."""
    cursor = page.locator("#board .cursor")
    cx, cy = int(attribute(cursor, "data-x")), int(attribute(cursor, "data-y"))
    for _ in range(abs(x - cx)):
        page.keyboard.press("ArrowRight" if x > cx else "ArrowLeft")
    for _ in range(abs(y - cy)):
        page.keyboard.press("ArrowDown" if y > cy else "ArrowUp")
    expect(cursor).to_have_attribute("data-x", str(x))
    expect(cursor).to_have_attribute("data-y", str(y))


def assert_page_shows(page: Page, game: dict[str, Any]) -> None:
    assert board_rows(page) == game["board"]
    expect(page.locator("[data-status]").first).to_have_attribute("data-status", game["status"])
    expect(page.locator("#moves")).to_have_text(str(game["moves"]))
    expect(page.locator("#mines-left")).to_have_text(str(game["mines_left"]))
    expect(page.locator("#forced")).to_have_text(str(game["forced_guesses"]))


def test_seeded_game_won_by_clicks(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=20240601, outside_guess=True)
    click_cell(page, 4, 4)
    for _ in range(200):
        game = server.game(gid)
        if game["status"] != "playing":
            break
        analysis = server.analysis(gid, page)
        choice = with_status(analysis, "s") or with_status(analysis, "u")
        click_cell(page, *choice[0])
    game = server.game(gid)
    assert game["status"] == "won"
    assert_page_shows(page, game)
    expect(page.locator("#banner")).to_be_visible()
    expect(page.locator("#banner")).to_contain_text("You won")
    expect(page.locator("#face")).to_have_attribute("data-face", "won")


def test_punished_guess_is_explained_and_undone(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "intermediate", seed=777, first_click="opening")
    click_cell(page, 8, 8)
    for _ in range(100):
        analysis = server.analysis(gid, page)
        safe, unknown = with_status(analysis, "s"), with_status(analysis, "u")
        if safe and unknown and len(safe) >= 2:
            break
        click_cell(page, *(safe or unknown)[0])
    mine = with_status(analysis, "m")
    wrong_flag = safe[-1]
    click_cell(page, *wrong_flag, button="right")
    if mine:
        click_cell(page, *mine[0], button="right")
    before = board_rows(page)
    guess = unknown[0]
    click_cell(page, *guess)

    game = server.game(gid)
    assert game["status"] == "lost"
    loss = game["loss"]
    assert loss["reason"] == "guess_while_safe"
    assert (loss["x"], loss["y"]) == guess
    assert_page_shows(page, game)
    rows = board_rows(page)
    assert rows[guess[1]][guess[0]] == "X"
    assert rows[wrong_flag[1]][wrong_flag[0]] == "!"
    if mine:
        assert rows[mine[0][1]][mine[0][0]] == "F"
    assert sum(row.count("*") for row in rows) + sum(row.count("F") for row in rows) == 39

    sx, sy = loss["safe_cell"]["x"], loss["safe_cell"]["y"]
    banner = page.locator("#banner")
    expect(banner).to_have_attribute("data-reason", "guess_while_safe")
    expect(banner).to_contain_text(f"({sx}, {sy}) was provably safe")
    expect(banner).to_contain_text(f"({guess[0]}, {guess[1]})")
    expect(cell(page, sx, sy)).to_have_class("c proof")
    expect(page.locator("#face")).to_have_attribute("data-face", "lost")
    # The game is over: the empty note line gives its room to the banner ...
    assert page.eval_on_selector("#message", "m => getComputedStyle(m).display") == "none"

    expect(page.locator("#undo")).to_be_enabled()
    page.click("#undo")
    wait_for_moves(page, game["moves"] - 1)
    expect(page.locator("[data-status]").first).to_have_attribute("data-status", "playing")
    assert board_rows(page) == before
    expect(banner).to_be_hidden()
    # ... and takes it back once play goes on.
    assert page.eval_on_selector("#message", "m => getComputedStyle(m).display") != "none"
    assert page.locator("#board .proof").count() == 0


def test_flag_question_mark_and_chord(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=4242, first_click="opening")
    click_cell(page, 4, 4)
    x, y = covered(server.game(gid))[0]
    for expected, left in (("F", "9"), ("?", "10"), ("#", "10")):
        click_cell(page, x, y, button="right")
        expect(cell(page, x, y)).to_have_attribute("data-state", expected)
        expect(page.locator("#mines-left")).to_have_text(left)

    # Play safe cells until some number has all its mines known, then chord it three ways.
    chorded: list[str] = []
    ways = ["click", "middle", "both"]
    for _ in range(60):
        game = server.game(gid)
        if game["status"] != "playing" or not ways:
            break
        analysis = server.analysis(gid, page)
        mines = set(with_status(analysis, "m"))
        target = None
        for yy, row in enumerate(game["board"]):
            for xx, ch in enumerate(row):
                if not ch.isdigit() or ch == "0":
                    continue
                around = neighbours(game, xx, yy)
                hidden = [c for c in around if game["board"][c[1]][c[0]] in "#?F"]
                flagged_or_mine = [c for c in hidden if c in mines]
                if len(flagged_or_mine) == int(ch) and len(hidden) > len(flagged_or_mine):
                    target = (xx, yy, flagged_or_mine, hidden)
                    break
            if target:
                break
        if target is None:
            click_cell(page, *with_status(analysis, "s")[0])
            continue
        xx, yy, to_flag, hidden = target
        for fx, fy in to_flag:
            if game["board"][fy][fx] != "F":
                click_cell(page, fx, fy, button="right")
        way = ways.pop(0)
        before = moves(page)
        box = cell(page, xx, yy).bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        if way == "click":
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        elif way == "middle":
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2,
                             button="middle")
        else:
            page.mouse.down(button="left")
            page.mouse.down(button="right")
            page.mouse.up(button="right")
            page.mouse.up(button="left")
        wait_for_moves(page, before + 1)
        after = server.game(gid)
        for hx, hy in hidden:
            if (hx, hy) not in to_flag:
                assert after["board"][hy][hx].isdigit(), (way, hx, hy)
        assert_page_shows(page, after)
        chorded.append(way)
    assert chorded == ["click", "middle", "both"]


def test_question_marks_can_be_turned_off(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", question_marks=False)
    click_cell(page, 0, 0)
    x, y = covered(server.game(gid))[-1]
    click_cell(page, x, y, button="right")
    expect(cell(page, x, y)).to_have_attribute("data-state", "F")
    click_cell(page, x, y, button="right")
    expect(cell(page, x, y)).to_have_attribute("data-state", "#")


def test_keyboard_play(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=99, first_click="opening", debug=True)
    board = page.locator("#board")
    board.focus()
    for key in ["ArrowRight"] * 4 + ["ArrowDown"] * 4:
        page.keyboard.press(key)
    cursor = page.locator("#board .cursor")
    expect(cursor).to_have_attribute("data-x", "4")
    expect(cursor).to_have_attribute("data-y", "4")
    # the cursor cell's own id (c4-4): a cell keeps its id, which its swaps target
    expect(board).to_have_attribute("aria-activedescendant", attribute(cursor, "id"))
    assert cursor.evaluate("c => getComputedStyle(c).outlineStyle") == "solid"

    page.keyboard.press("Space")
    wait_for_moves(page, 1)
    assert cell(page, 4, 4).get_attribute("data-state") == "0"  # opening

    # Walk to a covered cell with the arrows, mark it with F, undo with U.
    game = server.game(gid)
    tx, ty = covered(game)[0]
    walk_to(page, tx, ty)
    page.keyboard.press("f")
    wait_for_moves(page, 2)
    expect(cell(page, tx, ty)).to_have_attribute("data-state", "F")
    page.keyboard.press("u")  # a debug game allows undo
    wait_for_moves(page, 1)
    expect(cell(page, tx, ty)).to_have_attribute("data-state", "#")

    # C chords: flag a number's known mines with F, then press C on it.
    analysis = server.analysis(gid, page)
    mines = set(with_status(analysis, "m"))
    target = None
    for y, row in enumerate(game["board"]):
        for x, ch in enumerate(row):
            hidden = [c for c in neighbours(game, x, y) if game["board"][c[1]][c[0]] == "#"]
            known = [c for c in hidden if c in mines]
            if ch in "12345678" and len(known) == int(ch) and len(hidden) > len(known):
                target = (x, y, hidden, known)
    assert target, "seed 99 should leave a number whose mines are all known"
    x, y, hidden, known = target
    n = moves(page)
    for fx, fy in known:
        walk_to(page, fx, fy)
        page.keyboard.press("f")
        n += 1
        wait_for_moves(page, n)
    walk_to(page, x, y)
    page.keyboard.press("c")
    wait_for_moves(page, n + 1)
    for hx, hy in hidden:
        if (hx, hy) not in known:
            assert attribute(cell(page, hx, hy), "data-state").isdigit()

    page.keyboard.press("n")
    page.wait_for_function(f"document.querySelector('#board')?.dataset.gameId !== '{gid}'")
    assert moves(page) == 0


def test_focus_is_visible_on_controls(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    page.focus("#face")

    def focused() -> tuple[str, str]:
        return tuple(page.evaluate("""() => { const e = document.activeElement;
            const shown = e.id === 'board' ? e.parentElement : e;
            return [e.id || e.tagName, getComputedStyle(shown).outlineStyle]; }"""))

    walk = []
    # Undo is disabled, and so is "Same board again" while a drawn seed is secret: the
    # focus skips both.
    for _ in range(3):
        page.keyboard.press("Tab")
        walk.append(focused())
    assert walk == [("hint", "solid"), ("share", "solid"), ("board", "solid")]
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
    assert focused() == ("face", "solid")
    for _ in range(3):
        page.keyboard.press("Tab")
    cursor = page.locator("#board .cursor")
    assert cursor.evaluate("c => getComputedStyle(c).outlineStyle") == "solid"


def test_header_counts_and_timer_from_the_first_reveal(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=5150)
    click_cell(page, 0, 8, button="right")  # a flag before any reveal: the clock waits
    expect(page.locator("#mines-left")).to_have_text("9")
    expect(page.locator("#moves")).to_have_text("1")
    page.wait_for_timeout(1300)
    expect(page.locator("#timer")).to_have_text("0")
    click_cell(page, 4, 4)
    expect(page.locator("#moves")).to_have_text("2")
    page.wait_for_function("Number(document.querySelector('#timer').textContent) >= 1",
                           timeout=5000)
    assert server.game(gid)["elapsed_ms"] >= 1000
    expect(page.locator("#face")).to_have_attribute("data-face", "playing")


def test_near_the_move_limit_the_badges_say_how_many_moves_are_left(
    page: Page, server: Server
) -> None:
    """Within a tenth of the game's ``move_limit`` the page says what is left, so the move
    the server will refuse does not come as a surprise; an undo makes room again."""
    game = server.post("/api/games", {"width": 2, "height": 2, "mines": 1, "debug": True})
    gid, limit = game["id"], game["move_limit"]  # 256: the least any game may keep
    for _ in range(limit - limit // 10 - 1):  # one move short of the last tenth
        server.post(f"/api/games/{gid}/flag", {"x": 0, "y": 0})
    page.goto(server.player_path(gid))
    badges = page.locator("#badges")
    expect(badges).to_contain_text("debug")
    expect(badges).not_to_contain_text("left")
    click_cell(page, 0, 0, button="right")
    expect(badges).to_contain_text(f"{limit // 10} moves left")
    page.locator("#undo").click()
    expect(page.locator("#moves")).to_have_text(str(limit - limit // 10 - 1))
    expect(badges).not_to_contain_text("left")


def test_mouse_play_draws_no_focus_ring_or_cursor(page: Page) -> None:
    """Pixel readers (the desktop driver) see only cell colours when the mouse plays."""
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    click_cell(page, 4, 4)
    assert page.evaluate("document.activeElement.id") == "board"
    assert page.eval_on_selector("#board-wrap", "w => getComputedStyle(w).outlineStyle") == "none"
    cursor = page.locator("#board .cursor")
    assert cursor.evaluate("c => getComputedStyle(c).outlineStyle") == "none"


def test_cells_have_accessible_labels(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#board[data-game-id]")
    expect(page.locator("#board")).to_have_attribute("role", "grid")
    expect(cell(page, 2, 3)).to_have_attribute("aria-label", "row 3, column 2: covered")
    expect(page.locator("#face")).to_have_attribute("aria-label", "New game (N)")
    click_cell(page, 2, 3)
    label = cell(page, 2, 3).get_attribute("aria-label")
    number = page.eval_on_selector(
        '#board [data-x="2"][data-y="3"]', "c => c.dataset.state")
    assert label == f"row 3, column 2: {number if number != '0' else 'no mines around'}"


def test_local_solver_helper_agrees_with_analysis(page: Page, server: Server) -> None:
    """The unassisted-play helper (used for statistics) must find only truly safe cells."""
    page.goto("/")
    gid = new_game(page, "beginner", seed=31337, first_click="opening")
    click_cell(page, 4, 4)
    game = server.game(gid)
    safe = local_safe_cells(game)
    assert safe == sorted(with_status(server.analysis(gid, page), "s"))


# Whether the cell (x, y) is wholly inside the board's scrolling frame.
IN_VIEW = """([x, y]) => {
    const frame = document.querySelector('#board-wrap').getBoundingClientRect();
    const c = document.querySelector(`#board [data-x="${x}"][data-y="${y}"]`)
        .getBoundingClientRect();
    return c.left >= frame.left && c.right <= frame.right
        && c.top >= frame.top && c.bottom <= frame.bottom;
}"""


def test_the_proof_link_shows_a_safe_cell_scrolled_out_of_view(browser: Browser,
                                                               server: Server) -> None:
    """On a board wider than the screen the named safe cell may be out of sight: its
    coordinates in the banner are a button that scrolls it into view."""
    # Over the API: open on the right, then guess far left while safe cells exist there.
    for seed in range(1, 30):
        game = server.post("/api/games", {"width": 30, "height": 16, "mines": 99,
                                          "seed": seed, "first_click": "opening"})
        gid = game["id"]
        server.post(f"/api/games/{gid}/reveal", {"x": 27, "y": 8})
        analysis = server.analysis(gid)
        guesses = [(x, y) for x, y in with_status(analysis, "u") if x <= 3]
        if not with_status(analysis, "s") or not guesses:
            continue
        lost = server.post(f"/api/games/{gid}/reveal", {"x": guesses[0][0], "y": guesses[0][1]})
        proof = (lost.get("loss") or {}).get("safe_cell")
        if proof and proof["x"] >= 20:
            break
    else:
        raise AssertionError("no seed gave a proof cell on the right")

    context = browser.new_context(base_url=server.url, viewport={"width": 360, "height": 740},
                                  bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(f"/games/{gid}")
        page.wait_for_selector('#status[data-status="lost"]')
        px, py = proof["x"], proof["y"]
        # The page brings it into view when the loss shows; scrolled away, the button
        # brings it back.
        page.wait_for_function(IN_VIEW, arg=[px, py])
        page.eval_on_selector("#board-wrap", "w => { w.scrollLeft = 0; }")
        assert not page.evaluate(IN_VIEW, [px, py])
        link = page.locator("#banner .proof-link")
        expect(link).to_have_text(f"({px}, {py})")
        expect(page.locator("#banner")).to_contain_text(f"({px}, {py}) was provably safe")
        expect(cell(page, px, py)).to_have_class("c proof")
        link.click()
        page.wait_for_function(IN_VIEW, arg=[px, py])
    finally:
        context.close()
