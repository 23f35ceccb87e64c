"""The analyser page (/analyse): a position built by clicks, pasted, opened from a link
or from a replay step, drawn with the same statuses and odds as ``POST /api/analyse``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from kaboom.solver.analysis import TOO_LARGE
from kaboom.solver.link import to_link
from kaboom.solver.position import Position
from tests.solver.test_winchance import BRANCHES
from tests.test_analysis import first_guess
from tests.web.conftest import ROOT, Server
from tests.web.test_access import axe_page, serious_violations  # noqa: F401 (a fixture)
from tests.web.test_proofs import lose_by_guessing

SCREENSHOT = ROOT / "docs" / "screenshot-analyse.png"
# Rewritten when asked (or missing), so test runs leave the tree clean.
UPDATE_SCREENSHOT = os.environ.get("KABOOM_UPDATE_SCREENSHOT") == "1" or not SCREENSHOT.exists()


def shown(page: Page) -> dict[str, Any]:
    """What the analyser shows: its position's link and rows, every cell's status and
    probability, and the outlined cells."""
    cells = page.eval_on_selector_all(
        "#analyse-board .c",
        "cs => cs.map(c => [+c.dataset.x, +c.dataset.y, c.dataset.state,"
        " c.dataset.knowledge ?? '?', c.dataset.p ?? null, c.className])")
    width = 1 + max(c[0] for c in cells)
    height = 1 + max(c[1] for c in cells)
    rows = [[""] * width for _ in range(height)]
    status = [[""] * width for _ in range(height)]
    prob: list[list[float | None]] = [[None] * width for _ in range(height)]
    for x, y, state, knowledge, p, _ in cells:
        rows[y][x] = state
        status[y][x] = knowledge if state in "#F?" else state
        prob[y][x] = None if p is None else float(p)
    return {
        "link": page.eval_on_selector("#analyser", "a => a.dataset.link"),
        "rows": ["".join(r) for r in rows],
        "status": ["".join(r) for r in status],
        "probability": prob,
        "marked": {(x, y): cls.split()[1] for x, y, *_, cls in cells if " " in cls},
    }


def wait_for(page: Page, link: str) -> None:
    page.wait_for_function(
        f"document.querySelector('#analyser')?.dataset.link === {link!r}")


def api(server: Server, rows: list[str], mines: int) -> dict[str, Any]:
    answer: dict[str, Any] = server.http.post(
        "/api/analyse", json={"rows": rows, "mines": mines}).raise_for_status().json()
    return answer


def assert_equals_api(page: Page, server: Server) -> dict[str, Any]:
    """The page's statuses and probabilities are the API's for the same position."""
    now = shown(page)
    mines = int(page.input_value("#a-mines"))
    answer = api(server, now["rows"], mines)
    assert answer["link"] == now["link"]
    if answer["impossible"]:
        assert page.eval_on_selector("#analyser", "a => a.dataset.impossible") == "true"
        return answer
    assert now["status"] == answer["analysis"]["status"]
    assert now["probability"] == answer["analysis"]["probability"]
    return answer


def test_a_position_built_by_clicks_and_keys(page: Page, server: Server) -> None:
    page.goto("/analyse")
    page.fill("#a-width", "3")
    page.fill("#a-height", "3")
    page.fill("#a-mines", "1")
    page.click("button[value=blank]")
    wait_for(page, "3x3m1.H9")
    # covered -> 0 -> 1: two clicks on (0, 0) and on (1, 0)
    for x in (0, 1):
        for _ in range(2):
            before = shown(page)["link"]
            with page.expect_request("**/analyse") as sent:
                page.click(f'#analyse-board [value="{x},0"]')
            # the text goes only with "Analyse this text" (a big board's is past the limit)
            assert "text=" not in (sent.value.post_data or "")
            page.wait_for_function(
                f"document.querySelector('#analyser')?.dataset.link !== {before!r}")
    wait_for(page, to_link(Position(3, 3, 1, ("11#", "###", "###"))))
    assert "/analyse?p=3x3m1.b2H7" in page.url
    answer = assert_equals_api(page, server)
    # The mine is one of (0, 1) and (1, 1): the rest of the covered cells are safe.
    assert answer["analysis"]["status"] == ["11s", "uus", "sss"]
    expect(page.locator("#advice")).to_contain_text("proven safe")
    # "shows why" on (2, 0): its proof, the two 1s, outlined.
    page.check("[name=tool][value=why]")
    page.click('#analyse-board [value="2,0"]')
    expect(page.locator("#proof")).to_contain_text("Why: ")
    expect(page.locator("#proof")).to_contain_text("(2, 0)")
    marked = shown(page)["marked"]
    assert marked[2, 0] == "hint" and marked[0, 0] == marked[1, 0] == "reason"
    # Keys: the focus stays on the board; arrows move it, a digit sets the cell.
    page.focus('#analyse-board [value="2,0"]')
    page.keyboard.press("ArrowDown")
    page.keyboard.press("2")
    wait_for(page, to_link(Position(3, 3, 1, ("11#", "##2", "###"))))
    assert page.evaluate("document.activeElement.value") == "2,1"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("f")
    wait_for(page, to_link(Position(3, 3, 1, ("11#", "#F2", "###"))))
    assert_equals_api(page, server)
    # Clicks faster than the answers each edit the position the one before made: a double
    # click cycles twice, and three clicks sent at once make three edits.
    page.check("[name=tool][value=cycle]")
    page.dblclick('#analyse-board [value="0,2"]')
    wait_for(page, to_link(Position(3, 3, 1, ("11#", "#F2", "1##"))))
    page.eval_on_selector_all("#analyse-board .c", """cs => {
        for (const v of ['1,2', '2,2', '2,2']) cs.find((c) => c.value === v).click(); }""")
    wait_for(page, to_link(Position(3, 3, 1, ("11#", "#F2", "101"))))
    assert_equals_api(page, server)


def test_hover_and_focus_show_a_decided_cells_proof(page: Page, server: Server) -> None:
    rows = ["11#", "###", "###"]
    page.goto("/analyse?p=" + to_link(Position(3, 3, 1, tuple(rows))))
    for (x, y), gesture in (((2, 2), "hover"), ((2, 0), "focus")):
        proof = server.http.post("/api/analyse/proof", json={
            "rows": rows, "mines": 1, "x": x, "y": y}).raise_for_status().json()
        target = page.locator(f'#analyse-board [value="{x},{y}"]')
        target.hover() if gesture == "hover" else target.focus()
        expect(page.locator("#proof")).to_have_text(f"Why: {proof['text']}.")
        want = {(n["x"], n["y"]): "reason" for n in proof["numbers"]} | {(x, y): "hint"}
        page.wait_for_function(
            f"document.querySelector('#analyse-board [value=\"{x},{y}\"]')"
            ".classList.contains('hint')")
        assert shown(page)["marked"] == want, gesture
    # an undecided cell asks nothing: the last proof stays
    page.hover('#analyse-board [value="0,1"]')
    expect(page.locator("#proof")).to_contain_text("(2, 0)")


def test_a_pasted_impossible_position_is_explained(page: Page, server: Server) -> None:
    page.goto("/analyse")
    page.click("summary")
    page.fill("#a-text", "1##\n###\n##3\n")
    page.fill("#a-mines", "2")
    page.click("button[value=text]")
    link = to_link(Position(3, 3, 2, ("1##", "###", "##3")))
    wait_for(page, link)
    answer = assert_equals_api(page, server)
    assert answer["impossible"]
    reason = answer["contradiction"]
    expect(page.locator("#verdict")).to_have_text(
        f"No layout fits this position: {reason['text']}.")
    assert shown(page)["marked"] == {(n["x"], n["y"]): "reason" for n in reason["numbers"]}
    assert reason["count"] == 2  # the 3 alone needs three mines
    # A board that is not a position is refused, naming the place; the position stays.
    page.fill("#a-text", "1#\n#")
    page.click("button[value=text]")
    expect(page.locator("#analyse-error")).to_contain_text("row 1 has 1 cells")
    assert shown(page)["link"] == link


def test_a_guess_shows_its_chance_to_win_and_the_next_best(page: Page, server: Server,
                                                           tmp_path: Path) -> None:
    """Nothing is safe: the guess says its chance to win the game, and the next best
    guesses are listed with theirs, each against it, as the API gives them."""
    page.goto("/analyse?p=" + to_link(BRANCHES))
    answer = assert_equals_api(page, server)
    expect(page.locator("#advice")).to_contain_text(
        "No cell is safe: the best guess is reveal (2, 3)")
    expect(page.locator("#win-chance")).to_have_text(
        "Its chance to win the game: 82.0 %, exactly, with best play after.")
    rows = page.locator("#other-guesses tbody tr")
    guesses = answer["recommended"]["win_chances"]["guesses"]
    expect(rows).to_have_count(len(guesses) - 1)
    for i, g in enumerate(guesses[1:]):
        row = rows.nth(i)
        assert (row.get_attribute("data-x"), row.get_attribute("data-y")) == (
            str(g["x"]), str(g["y"]))
        expect(row).to_contain_text(f"{100 * g['chance']:.1f} %")
    expect(rows.nth(0)).to_have_text(
        "(2, 2)73.1 %8.9 points lower than the recommended guess")
    # a certain move has no chance to show; a huge board says why it has none
    page.goto("/analyse?p=" + to_link(Position(3, 3, 1, ("11#", "###", "###"))))
    expect(page.locator("#advice")).to_contain_text("proven safe")
    expect(page.locator("#win-chance")).to_be_hidden()
    expect(page.locator("#other-guesses")).to_have_count(0)
    with Server(tmp_path, analysis_budget_s=10) as roomy:  # the analysis fits however loaded
        huge = roomy.http.get("/analyse", params={"p": to_link(first_guess(200, 200, 8000, 3))})
    assert f"Its chance to win the game is not given: {TOO_LARGE}." in huge.text


def test_a_shared_link_reopens_its_position(page: Page, server: Server) -> None:
    rows = ["#1#", "#1#", "###"]
    link = to_link(Position(3, 3, 1, tuple(rows)))
    answer = page.goto(f"/analyse?p={link}")
    assert answer is not None and answer.status == 200
    assert shown(page)["rows"] == rows
    assert page.input_value("#a-mines") == "1"
    assert_equals_api(page, server)
    bad = page.goto("/analyse?p=3x3m1.H8")
    assert bad is not None and bad.status == 422
    expect(page.locator("#analyse-error")).to_contain_text("the link holds 8 cells")


def test_analyse_a_replay_step(page: Page, server: Server) -> None:
    gid, before = lose_by_guessing(page, server)
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#replay-back")
    page.wait_for_function(
        "document.querySelector('#board')?.dataset.replayMove"
        f" === '{server.game(gid)['moves'] - 1}'")
    page.click("#analyse-this")
    wait_for(page, to_link(before))
    assert shown(page)["rows"] == list(before.rows)
    safe = server.game(gid)["loss"]["safe_cell"]
    assert shown(page)["status"][safe["y"]][safe["x"]] == "s"
    assert_equals_api(page, server)
    # The last step's board (its mines shown) opens the same position.
    page.go_back()
    page.click("#replay-last")
    page.wait_for_function(
        "document.querySelector('#board')?.dataset.replayMove"
        f" === '{server.game(gid)['moves']}'")
    page.click("#analyse-this")
    wait_for(page, to_link(before))


def test_accessible_and_at_phone_width(axe_page: Page, server: Server,  # noqa: F811
                                       tmp_path: Path) -> None:
    """An Expert opening: no serious axe violation, with a proof shown too; the README's
    screenshot; and no sideways page scroll on a phone."""
    page = axe_page
    game = server.post("/api/games", {"width": 30, "height": 16, "mines": 99, "seed": 8,
                                      "first_click": "opening"})
    server.post(f"/api/games/{game['id']}/reveal", {"x": 15, "y": 8})
    board = server.game(game["id"])["board"]
    page.goto("/analyse?p=" + to_link(Position(30, 16, 99, tuple(board))))
    assert_equals_api(page, server)
    assert serious_violations(page) == []
    page.check("[name=tool][value=why]")
    page.click('#analyse-board .c[data-knowledge="m"]')
    page.wait_for_selector("#analyse-board .c.guess")
    assert serious_violations(page) == []
    target = SCREENSHOT if UPDATE_SCREENSHOT else tmp_path / SCREENSHOT.name
    page.screenshot(path=str(target), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_form_works_without_a_script_and_a_busy_server_says_so(
        server: Server, tmp_path: Path) -> None:
    """With no script the form posts and the whole page comes back; a link with a side over
    256 is refused before its cells are read; a solver too busy to start is said (503)."""
    answer = server.http.post("/analyse", data={"p": "3x3m1.H9", "mines": "1", "cell": "1,1",
                                                "tool": "1"})
    assert answer.status_code == 200 and answer.text.startswith("<!doctype html>")
    assert 'data-link="3x3m1.H4bH4"' in answer.text
    odd = server.http.post("/analyse", data={"p": "3x3m1.H9", "mines": "²", "cell": "1,1"},
                           headers={"HX-Request": "true"})
    assert odd.status_code == 422 and "mines: must be a whole number" in odd.text
    huge = server.http.get("/analyse", params={"p": "999999x999999m1.H999999"})
    assert huge.status_code == 422 and "at most 256 cells a side" in huge.text
    with Server(tmp_path, analysis_budget_s=1e-6) as busy:
        refused = busy.http.get("/analyse", params={"p": "3x3m1.H4bH4"})
        assert refused.status_code == 503 and "Not analysed: " in refused.text
        assert 'data-link="3x3m1.H4bH4"' in refused.text


def test_a_tap_on_a_phone_edits_a_cell(browser: Browser, server: Server) -> None:
    context = browser.new_context(base_url=server.url, viewport={"width": 360, "height": 740},
                                  has_touch=True, is_mobile=True, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto("/analyse?p=3x3m1.H9")
        page.tap('#analyse-board [value="1,1"]')
        wait_for(page, "3x3m1.H4aH4")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()
