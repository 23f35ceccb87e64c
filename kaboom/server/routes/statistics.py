"""Statistics per preset, kept by the server for each browser and drawn into the page.

A browser is an anonymous random id in the ``kaboom_browser`` cookie (``HttpOnly``,
``SameSite=Lax``, a year), which the page sets when a request comes without one; it holds
nothing else.  A finished, unassisted preset game counts once, for the browser that played
it as its player: when the move that ends it is answered, and whenever its page (or its
event stream) is drawn for its player, so a game finished elsewhere counts too.  Counting
is idempotent, keyed by the game's id (:meth:`~kaboom.server.store.GameStore.count_game`),
so a reload, a reopened link or two processes at once count it once.  A browser adds rows
only for games it finished as their player, and creating games is rate-limited.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, replace

from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from kaboom.server.routes.fragments import templates
from kaboom.server.service import GameService
from kaboom.server.store import GameStore, Tally
from kaboom.server.view import PRESET_LABELS, GameView
from kaboom.solver import GameStatus

__all__ = ["BROWSER_COOKIE", "PresetStats", "browser_of", "drawn", "keep_browser", "noted",
           "page_browser"]

BROWSER_COOKIE = "kaboom_browser"
_BROWSER = re.compile(r"[A-Za-z0-9_-]{22}")
"""A browser id as :func:`secrets.token_urlsafe` makes it (16 random bytes)."""
_YEAR = 365 * 24 * 3600


@dataclass(frozen=True, slots=True)
class PresetStats:
    """One row of the table: a preset's games this browser counted."""

    preset: str
    label: str
    played: int = 0
    won: int = 0
    best_ms: int | None = None

    @property
    def rate(self) -> str:
        return f"{round(100 * self.won / self.played)} %" if self.played else "–"

    @property
    def best(self) -> str:
        return "–" if self.best_ms is None else f"{self.best_ms / 1000:.1f} s"


def browser_of(request: Request) -> str | None:
    """The request's browser id, unless it has none (or not one this server makes)."""
    browser = request.cookies.get(BROWSER_COOKIE, "")
    return browser if _BROWSER.fullmatch(browser) else None


def page_browser(request: Request) -> str:
    """The request's browser id, or a new one for the page to set (:func:`keep_browser`)."""
    return browser_of(request) or secrets.token_urlsafe(16)


def keep_browser(request: Request, response: Response, browser: str) -> None:
    """Sets the browser's cookie when the request came without it."""
    if browser_of(request) != browser:
        response.set_cookie(BROWSER_COOKIE, browser, max_age=_YEAR, path="/", httponly=True,
                            samesite="lax", secure=False)


def counts(view: GameView) -> bool:
    """Whether the game counts in its viewer's statistics: finished, unassisted, a preset,
    and the viewer its player."""
    return (view.role == "player" and not view.playing and not view.game.assisted
            and view.preset is not None)


def _rows(tallies: list[Tally]) -> list[PresetStats]:
    of = {t.preset: t for t in tallies}
    return [PresetStats(name, label) if name not in of else
            PresetStats(name, label, of[name].played, of[name].won, of[name].best_ms)
            for name, label in PRESET_LABELS.items()]


def _tally(store: GameStore, browser: str, view: GameView | None
           ) -> tuple[list[PresetStats], bool]:
    """The browser's table, once ``view``'s game is counted if it counts; and whether that
    game is the fastest win it counted on its preset."""
    counted = view if view is not None and counts(view) else None
    game_id = counted.game.id if counted is not None else ""
    tallies = store.tallies(browser, game_id)
    if counted is not None and not any(t.has_game for t in tallies) and store.count_game(
            browser, game_id, str(counted.preset), counted.game.status is GameStatus.WON,
            counted.game.elapsed_ms()):
        tallies = store.tallies(browser, game_id)
    best = counted is not None and any(
        t.game_won_ms is not None and t.game_won_ms == t.best_ms for t in tallies)
    return _rows(tallies), best


def _table(rows: list[PresetStats], oob: bool) -> str:
    macro = templates.env.get_template("_stats.html").module.table  # type: ignore[attr-defined]
    return str(macro(rows, oob=oob))


async def drawn(service: GameService, browser: str | None, view: GameView | None,
                oob: bool = False) -> tuple[bool, str]:
    """The statistics table, once ``view``'s game is counted if it counts; and whether that
    game is the browser's best time on its preset."""
    if browser is None:
        return False, _table(_rows([]), oob)
    rows, best = await run_in_threadpool(_tally, service.store, browser, view)
    return best, _table(rows, oob)


async def noted(request: Request, service: GameService, view: GameView) -> tuple[GameView, str]:
    """For an answer (a move's, the event stream's, a replay step's) that draws a finished
    game: counts it when it counts, and gives the view marked when it is the best time,
    with the table as an out-of-band swap; the view as it is and no table when the game
    does not count."""
    browser = browser_of(request)
    if browser is None or not counts(view):
        return view, ""
    best, table = await drawn(service, browser, view, oob=True)
    return replace(view, best=best), table
