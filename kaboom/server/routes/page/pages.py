"""The page: ``/`` and ``/games/{id}`` arrive with the game drawn, new games come from a
form, and the player's link and the statistics' reset are posts.  Every rule is the
application's (:mod:`kaboom.server.application`); these routes parse and draw."""

from __future__ import annotations

import re
import secrets
from typing import Annotated, Any
from urllib.parse import parse_qsl, unquote

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import ValidationError

from kaboom.server import render
from kaboom.server.application import Caller, Kaboom, Statistics
from kaboom.server.cookies import forget_note, keep_browser, keep_note, keep_player
from kaboom.server.deps import GameId, KaboomDep, PageCookies, PagePlayer, PageViewer
from kaboom.server.errors import GameNotFoundError, status_of
from kaboom.server.forms import Cookies, NewGameForm, PlayerLinkForm, ResetForm, errors_text
from kaboom.server.schemas import NewGame
from kaboom.server.views import GameView, preset_of
from kaboom.solver import KaboomError

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_BACK = re.compile(r"/games/[A-Za-z0-9_-]{1,64}")
"""Where a reset without JavaScript may send the browser back to: a game's page."""
_MISSING = "That game does not exist on this server (a wrong link?). Here is a new one."
_DEFAULT = NewGame(width=9, height=9, mines=10)


@router.get("/")
async def home(request: Request, kaboom: KaboomDep, caller: PageViewer,
               cookies: PageCookies) -> Response:
    """Starts a game with the settings this browser keeps and opens its page."""
    return await _start(request, kaboom, caller, cookies)


@router.get("/games/{game_id}")
async def game_page(game_id: GameId, request: Request, kaboom: KaboomDep, caller: PageViewer,
                    cookies: PageCookies) -> Response:
    """The page with the game drawn: board, counters, banner and settings.  A link to a
    game this server does not have starts a new game in its place."""
    try:
        shown = await kaboom.show(game_id, caller)
    except GameNotFoundError:
        return await _start(request, kaboom, caller, cookies, _MISSING)
    # The player's form keeps its edits (a new game starts from them); a watcher's shows
    # the game's settings.
    player = shown.view.role == "player" and cookies.kaboom_settings
    body = _saved(cookies) if player else _settings_of(shown.view)
    response = _page(request, caller, cookies, shown.view, shown.statistics, body,
                     cookies.kaboom_note or "")
    if cookies.kaboom_note:
        forget_note(response, request.url.path)
    return response


@router.post("/games")
async def new_game(request: Request, kaboom: KaboomDep, caller: PagePlayer) -> Response:
    """A new game from the form (or "same board again"); its page opens, or the form says
    why the server refused it."""
    form = await request.form()
    try:
        body = NewGameForm.of({k: v for k, v in form.items() if isinstance(v, str)})
        created = await kaboom.create(body.rules(), caller)
    except ValidationError as exc:
        return render.html(render.part("form_error", f"Could not start a game: "
                                       f"{errors_text(exc)}"), 422)
    except KaboomError as exc:
        return render.html(render.part("form_error", f"Could not start a game: {exc}"),
                           status_of(exc))
    return _opened(request, created.game.game.id, created.token)


@router.post("/stats/reset")
async def reset_statistics(request: Request, kaboom: KaboomDep, caller: PagePlayer,
                           form: Annotated[ResetForm, Form()]) -> Response:
    """Forgets this browser's statistics (the page asks first): the table redrawn, or,
    without JavaScript, the page it came from again."""
    found = await kaboom.forget_statistics(caller)
    if not request.headers.get("hx-request"):
        return RedirectResponse(form.back if _BACK.fullmatch(form.back) else "/", 303)
    return render.html(render.statistics(found))


@router.post("/games/{game_id}/player")
async def take_player_link(game_id: GameId, kaboom: KaboomDep, caller: PagePlayer,
                           form: Annotated[PlayerLinkForm, Form()]) -> Response:
    """A player's link (``/games/<id>#player=<token>``) hands the game to this browser: the
    page's script posts the token once, and it becomes this game's cookie."""
    await kaboom.check_player(game_id, form.token)
    response = Response(status_code=204, headers={"HX-Redirect": f"/games/{game_id}"})
    keep_player(response, game_id, form.token)
    return response


async def _start(request: Request, kaboom: Kaboom, caller: Caller,
                 cookies: Cookies, note: str = "") -> Response:
    """Starts a game with the browser's saved settings and sends the browser to it; or the
    page without a game, saying why none could start."""
    body = _saved(cookies)
    try:
        created = await kaboom.create(body.rules(), caller)
    except KaboomError as exc:
        found = await kaboom.statistics(caller)
        return _page(request, caller, cookies, None, found, body,
                     f"Could not start a game: {exc}", 503)
    response = _opened(request, created.game.game.id, created.token)
    if note:
        keep_note(response, f"/games/{created.game.game.id}", note)
    return response


def _opened(request: Request, game_id: str, token: str) -> Response:
    """Sends the browser to a new game's page as its player."""
    path = f"/games/{game_id}"
    response: Response
    if request.headers.get("hx-request"):
        response = Response(status_code=204, headers={"HX-Redirect": path})
    else:
        response = RedirectResponse(path, status_code=303)
    keep_player(response, game_id, token)
    return response


def _page(request: Request, caller: Caller, cookies: Cookies, view: GameView | None,
          found: Statistics | None, body: NewGame, note: str, status_code: int = 200
          ) -> Response:
    fields: dict[str, Any] = body.model_dump(exclude={"seed"})
    fields["preset"] = preset_of(body.width, body.height, body.mines) or "custom"
    response = render.page(request, "page.html", {
        "v": view, "settings": fields, "note": note,
        "stats": render.statistics(found, oob=False), "page_id": secrets.token_urlsafe(9),
    }, status_code)
    keep_browser(response, caller, cookies)
    return response


def _saved(cookies: Cookies) -> NewGame:
    """The new-game settings this browser keeps, or the default when they are missing or
    no game could have them (saved by an older page, or edited by hand: the default size,
    the other settings kept)."""
    kept = dict(parse_qsl(unquote(cookies.kaboom_settings or "")))
    size = {"width": "9", "height": "9", "mines": "10"}
    for fields in (kept, kept | size) if kept else ():
        try:
            return NewGameForm.of(fields)
        except ValidationError:
            continue
    return _DEFAULT


def _settings_of(view: GameView) -> NewGame:
    """A game's settings, as the form shows them."""
    r = view.game.rules
    return NewGame(width=r.width, height=r.height, mines=r.mines, first_click=r.first_click,
                   forced_guess=r.forced_guess, outside_guess=r.outside_guess,
                   question_marks=r.question_marks, debug=r.debug)
