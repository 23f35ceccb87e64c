"""Accessibility: axe-core (from npm) finds no serious or critical violation on the page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.web.conftest import ROOT, Server
from tests.web.pagekit import click_cell, new_game

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture
def axe_page(browser: Browser, server: Server) -> Iterator[Page]:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` in {ROOT} (axe-core is in package.json)")
    # The page's Content-Security-Policy allows only its own scripts; axe is injected.
    context = browser.new_context(base_url=server.url, bypass_csp=True,
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def serious_violations(page: Page) -> list[str]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ['violations'] });
        return result.violations
          .filter(v => v.impact === 'serious' || v.impact === 'critical')
          .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: `
                    + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ') + ')');
    }""")
    return list(found)


def test_no_serious_violation_while_playing_after_a_loss_and_in_debug(
    axe_page: Page, server: Server
) -> None:
    page = axe_page
    page.goto("/")
    new_game(page, "beginner", seed=4242, first_click="opening")
    click_cell(page, 4, 4)
    assert serious_violations(page) == []
    page.click("#hint")
    page.wait_for_selector("#board .c.hint, #board .c.guess")
    assert serious_violations(page) == []
    new_game(page, "beginner", seed=4242, first_click="opening", debug=True)
    click_cell(page, 4, 4)
    page.wait_for_function("document.querySelector('#board')?.dataset.analysedMoves === '1'")
    assert serious_violations(page) == []
    # A lost game: banner, proof outlines and the replay bar.
    gid = page.eval_on_selector("#board", "b => b.dataset.gameId")
    status = server.analysis(gid, page)["status"]
    mine = next(((x, y) for y, r in enumerate(status) for x, ch in enumerate(r) if ch == "m"),
                None)
    target = mine or next((x, y) for y, r in enumerate(status) for x, ch in enumerate(r)
                          if ch == "u")
    click_cell(page, *target)
    page.wait_for_selector("#replay:not([hidden])")
    assert serious_violations(page) == []
