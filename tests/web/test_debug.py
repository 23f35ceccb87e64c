"""Debug mode: the overlay equals the analysis API on every cell; the README's screenshot."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Response, expect

from kaboom.testing import NO_CREATION_LIMITS
from tests.web.conftest import ROOT, Server, open_page
from tests.web.pagekit import board_rows, cell, click_cell, knowledge_rows, moves, new_game

SCREENSHOT = ROOT / "docs" / "screenshot-expert-debug.png"
# The README's picture is rewritten when asked (or missing), so test runs leave the tree clean.
UPDATE_SCREENSHOT = os.environ.get("KABOOM_UPDATE_SCREENSHOT") == "1" or not SCREENSHOT.exists()


def wait_for_overlay(page: Page) -> None:
    """Waits until the overlay shows the analysis of the board now on the page."""
    page.wait_for_function(
        "() => { const b = document.querySelector('#board');"
        " return b?.dataset.analysedMoves === b?.dataset.moves && !!b; }"
    )


def expected_knowledge(game: dict[str, Any], analysis: dict[str, Any]) -> list[str]:
    """The overlay's marks: a covered cell's status, none ('.') on open cells and on
    cells the analysis did not settle ('?')."""
    rows = []
    for board_row, status_row in zip(game["board"], analysis["status"], strict=True):
        rows.append("".join(s if b in "#F?" and s != "?" else "."
                            for b, s in zip(board_row, status_row, strict=True)))
    return rows


def assert_overlay_matches(page: Page, server: Server, gid: str,
                           analysis: dict[str, Any] | None = None) -> dict[str, Any]:
    """The overlay shows ``analysis`` (by default, the server's analysis asked now)."""
    wait_for_overlay(page)
    game = server.game(gid)
    analysis = analysis or server.analysis(gid, page)
    assert moves(page) == game["moves"]
    assert knowledge_rows(page) == expected_knowledge(game, analysis)
    shown = page.eval_on_selector(
        "#board",
        """b => Array.from(b.children, row => Array.from(row.children,
               c => c.dataset.p === undefined ? null : Number(c.dataset.p)))""",
    )
    probability = analysis["probability"]
    for y, row in enumerate(shown):
        for x, p in enumerate(row):
            want = probability[y][x] if probability and probability[y] else None
            if game["board"][y][x] not in "#F?":
                want = None
            assert (p is None) == (want is None), (x, y, p, want)
            if p is not None:
                assert abs(p - want) < 1e-12, (x, y, p, want)
    return analysis


def statuses(analysis: dict[str, Any], wanted: str) -> list[tuple[int, int]]:
    return [(x, y) for y, row in enumerate(analysis["status"]) for x, ch in enumerate(row)
            if ch == wanted]


def test_debug_overlay_equals_analysis_and_screenshot(page: Page, server: Server,
                                                      tmp_path: Path) -> None:
    page.goto("/")
    gid = new_game(page, "expert", seed=1234567, first_click="opening", debug=True)
    expect(page.locator("#badges")).to_contain_text("debug")
    expect(page.locator("#undo")).to_be_disabled()  # nothing to undo yet
    assert_overlay_matches(page, server, gid)
    click_cell(page, 15, 8)
    analysis = assert_overlay_matches(page, server, gid)
    expect(page.locator("#badges")).to_contain_text("assisted")
    assert server.game(gid)["assisted"]

    # A few more moves: safe cells, and flags on known mines (they keep their overlay too).
    flagged = 0
    for _ in range(8):
        rows = board_rows(page)
        safe = [(x, y) for x, y in statuses(analysis, "s") if rows[y][x] == "#"]
        mines = [(x, y) for x, y in statuses(analysis, "m") if rows[y][x] == "#"]
        if mines and flagged < 4:
            click_cell(page, *mines[len(mines) // 2], button="right")
            flagged += 1
        elif safe:
            click_cell(page, *safe[len(safe) // 2])
        else:
            break
        analysis = assert_overlay_matches(page, server, gid)
    assert page.locator('#board [data-state="F"][data-knowledge="m"]').count() == flagged
    assert page.locator('#board [data-knowledge="s"]').count() == len(statuses(analysis, "s"))

    # Undo is allowed in a debug game, and the overlay follows.
    n = moves(page)
    page.click("#undo")
    page.wait_for_function(f"document.querySelector('#board')?.dataset.moves === '{n - 1}'")
    assert_overlay_matches(page, server, gid)

    # The percentage on hover: a title on the cell and the line under the board.
    ux, uy = statuses(analysis, "u")[0]
    cell(page, ux, uy).hover()
    expect(page.locator("#hover-info")).to_contain_text(f"({ux}, {uy}) unknown:")
    expect(page.locator("#hover-info")).to_contain_text("% mine")
    assert "% mine" in (cell(page, ux, uy).get_attribute("title") or "")

    page.set_viewport_size({"width": 1280, "height": 760})
    page.evaluate("document.querySelector('#legend-panel').open = true")
    probability = server.analysis(gid, page)["probability"]
    riskiest = max(statuses(analysis, "u"), key=lambda c: probability[c[1]][c[0]] or 0)
    cell(page, *riskiest).hover()
    target = SCREENSHOT if UPDATE_SCREENSHOT else tmp_path / SCREENSHOT.name
    target.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000


def test_debug_overlay_cleared_after_loss(page: Page, server: Server) -> None:
    page.goto("/")
    gid = new_game(page, "beginner", seed=8080, debug=True)
    click_cell(page, 4, 4)
    analysis = assert_overlay_matches(page, server, gid)
    target = (statuses(analysis, "m") or statuses(analysis, "u"))[0]
    safe_existed = bool(statuses(analysis, "s"))
    click_cell(page, *target)
    game = server.game(gid)
    if game["status"] == "lost":
        assert page.locator("#board [data-knowledge]").count() == 0
        assert safe_existed or game["loss"]["reason"] != "guess_while_safe"
        page.click("#undo")
        page.wait_for_function(
            f"document.querySelector('#board')?.dataset.moves === '{game['moves'] - 1}'")
        assert_overlay_matches(page, server, gid)


def test_an_analysis_out_of_time_is_said_and_asked_again(browser: Browser,
                                                         tmp_path: Path) -> None:
    """A cold server (just started on the store) with a 20 ms analysis budget cannot
    settle a 256x256 game's cells in its first analysis, whose "unknown" cells may then
    be safe or mines.  The page says so while that overlay shows, asks again, and clears
    the note once an analysis is complete; the overlay is then that analysis."""
    with Server(tmp_path, **NO_CREATION_LIMITS) as first:
        game = first.post("/api/games", {"width": 256, "height": 256, "mines": 14000,
                                         "seed": 29, "debug": True})
        gid = game["id"]
        first.post(f"/api/games/{gid}/reveal", {"x": 128, "y": 128})
    with Server(tmp_path, analysis_budget_s=0.02) as server, \
            open_page(browser, server) as page:
        server.tokens = first.tokens
        answers: list[Response] = []  # read after the fact: a handler must not block
        page.on("response", lambda r: answers.append(r)
                if "/analysis?" in r.url and r.status == 200 else None)
        page.goto(server.player_path(gid))
        page.wait_for_function(
            "() => document.querySelector('#message').textContent.includes('ran out of time')")
        expect(page.locator("#message")).to_contain_text("may be safe or mines")
        page.wait_for_function(  # the page asks again for up to 39 s
            "() => document.querySelector('#board')?.dataset.analysisComplete === 'true'",
            timeout=90_000)
        expect(page.locator("#message")).not_to_contain_text("ran out of time")
        # each answer is the board drawn with its analysis; a header says if it is complete
        complete = [answer.headers["kaboom-analysis"] == "complete" for answer in answers]
        assert complete[0] is False and complete[-1] is True, complete
        # With 20 ms, an analysis asked now may not settle at once: ask until one does
        # (a settled analysis is exact, so it is the one the page shows).
        for _ in range(20):
            analysis = server.analysis(gid, page)
            if analysis["complete"] and analysis["exact"]:
                break
        assert_overlay_matches(page, server, gid, analysis)


def test_an_analysis_refused_as_busy_is_asked_again(browser: Browser, tmp_path: Path) -> None:
    """An analysis answered 503 (here every one: a budget spent before it starts) is said
    with "asking again", and asked again a second later."""
    with Server(tmp_path, analysis_budget_s=1e-6) as server, \
            open_page(browser, server) as page:
        gid = server.post("/api/games",
                          {"width": 9, "height": 9, "mines": 10, "debug": True})["id"]
        refused: list[float] = []
        page.on("response", lambda r: refused.append(time.monotonic())
                if "/analysis?" in r.url and r.status == 503 else None)
        page.goto(server.player_path(gid))
        expect(page.locator("#message")).to_contain_text("Analysis failed")
        expect(page.locator("#message")).to_contain_text("Asking again")
        deadline = time.monotonic() + 30
        while len(refused) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert len(refused) >= 2 and refused[1] - refused[0] >= 0.9, refused
