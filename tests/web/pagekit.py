"""Driving the page the way a player does, and reading it back through the DOM contract."""

from __future__ import annotations

from typing import Any, Literal

from playwright.sync_api import Locator, Page

from kaboom.solver.knowledge import classify
from kaboom.solver.position import Position
from kaboom.solver.simulator import PRESETS

__all__ = [
    "attribute",
    "board_rows",
    "cell",
    "click_cell",
    "game_id",
    "knowledge_rows",
    "local_safe_cells",
    "moves",
    "new_game",
    "wait_for_moves",
]



def cell(page: Page, x: int, y: int) -> Locator:
    """The cell element at (x, y)."""
    return page.locator(f'#board [data-x="{x}"][data-y="{y}"]')


def attribute(locator: Locator, name: str) -> str:
    """The element's attribute ``name``, which it must have."""
    value = locator.get_attribute(name)
    assert value is not None, f"no {name} attribute"
    return value


def game_id(page: Page) -> str:
    gid: str = page.eval_on_selector("#board", "b => b.dataset.gameId || ''")
    return gid


def moves(page: Page) -> int:
    return int(page.eval_on_selector("#board", "b => b.dataset.moves || '-1'"))


def wait_for_moves(page: Page, n: int) -> None:
    page.wait_for_function(f"document.querySelector('#board')?.dataset.moves === '{n}'")


def click_cell(
    page: Page, x: int, y: int, button: Literal["left", "middle", "right"] = "left"
) -> None:
    """Clicks a cell and waits until the page shows the game one move later."""
    before = moves(page)
    cell(page, x, y).click(button=button)
    wait_for_moves(page, before + 1)


def new_game(page: Page, preset: str = "beginner", *, size: tuple[int, int, int] | None = None,
             seed: int | None = None, debug: bool = False, **settings: object) -> str:
    """Starts a game from the form (as a player does); returns its id."""
    page.wait_for_selector("#board[data-game-id]")  # the game the page opened with
    old = game_id(page)
    if size is None:
        page.select_option("#preset", preset)
        size = PRESETS[preset]
    else:
        for name, value in zip(("width", "height", "mines"), size, strict=True):
            page.fill(f"#{name}", str(value))
    page.select_option("#first_click", str(settings.get("first_click", "safe")))
    page.select_option("#forced_guess", str(settings.get("forced_guess", "survive")))
    page.set_checked("#outside_guess", bool(settings.get("outside_guess", False)))
    page.set_checked("#question_marks", bool(settings.get("question_marks", True)))
    page.set_checked("#debug", debug)
    page.fill("#seed", "" if seed is None else str(seed))
    page.click("#new-game button[type=submit]")
    page.wait_for_function(
        "([old, w, h]) => { const b = document.querySelector('#board');"
        " return b?.dataset.gameId && b.dataset.gameId !== old"
        " && b.querySelectorAll('.c').length === w * h"
        " && document.documentElement.classList.contains('live'); }",  # its script has run
        arg=[old, size[0], size[1]],
    )
    return game_id(page)


def board_rows(page: Page) -> list[str]:
    """The board as the page shows it: data-state of every cell, row by row."""
    rows: list[str] = page.eval_on_selector(
        "#board",
        """b => Array.from(b.children, row => Array.from(row.children,
               c => c.dataset.state).join(''))""",
    )
    return rows


def knowledge_rows(page: Page) -> list[str]:
    """data-knowledge of every cell ('.' where a cell has none)."""
    rows: list[str] = page.eval_on_selector(
        "#board",
        """b => Array.from(b.children, row => Array.from(row.children,
               c => c.dataset.knowledge || '.').join(''))""",
    )
    return rows


def local_safe_cells(game: dict[str, Any]) -> list[tuple[int, int]]:
    """Provably safe cells computed here with the solver, so the game stays unassisted."""
    position = Position.from_rows(tuple(game["board"]), game["mines"])
    return sorted(classify(position).safe)
