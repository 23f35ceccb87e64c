"""The page, rendered by the server: ``/`` and ``/games/{id}`` arrive with the game drawn,
and new games come from a form.

The templates live in ``kaboom/web/templates/`` (package data); :mod:`kaboom.server.view`
says what is shown in words, and :mod:`kaboom.server.routes.fragments` draws what changed.
Every rule of the game is the service's.  The player's token travels as an ``HttpOnly``,
``SameSite=Strict`` cookie whose path is the game's own (``/games/{id}``): no script reads
it, no other game's requests carry it, and a request from another site never does.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from kaboom.server.deps import GameId, ServiceDep
from kaboom.server.edge import client_of
from kaboom.server.errors import GameNotFoundError, NotPlayerError
from kaboom.server.game import Game
from kaboom.server.players import token_hash
from kaboom.server.routes import statistics
from kaboom.server.routes.fragments import game_view, html, part, templates
from kaboom.server.schemas import NewGame
from kaboom.server.service import GameService
from kaboom.server.view import GameView, Role, preset_of
from kaboom.solver import KaboomError

__all__ = ["PLAYER_COOKIE", "SETTINGS_COOKIE", "check_same_site", "player_token", "role_of",
           "router"]

router = APIRouter(include_in_schema=False)

PLAYER_COOKIE = "kaboom_player"
"""The player's token of the game whose path the cookie has."""
SETTINGS_COOKIE = "kaboom_settings"
"""The new-game form's fields as a query string: the page's script keeps it as the player
edits the form, so a new visit starts a game with them (not a secret: no HttpOnly)."""
NOTE_COOKIE = "kaboom_note"
"""A note the next page of a game shows once (why the link opened another game)."""
_YEAR = 365 * 24 * 3600

_NO_CACHE = {"Cache-Control": "no-cache"}
DEFAULT_SETTINGS: dict[str, Any] = {
    "preset": "beginner", "width": 9, "height": 9, "mines": 10, "first_click": "safe",
    "forced_guess": "survive", "outside_guess": False, "question_marks": True, "debug": False,
}
_BACK = re.compile(r"/games/[A-Za-z0-9_-]{1,64}")
"""Where a reset without JavaScript may send the browser back to: a game's page."""
_MISSING = "That game does not exist on this server (a wrong link?). Here is a new one."


def player_token(request: Request) -> str | None:
    return request.cookies.get(PLAYER_COOKIE)


def role_of(game: Game, token: str | None) -> Role:
    """Whether the request holds the game's player token."""
    if token and hmac.compare_digest(token_hash(token), game.player_hash):
        return "player"
    return "spectator"


def check_same_site(request: Request) -> None:
    """Refuses a request that changes a game when a browser says it comes from another
    site (the cookie's SameSite=Strict already keeps the token off it)."""
    site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if site not in (None, "same-origin", "none") or (
        origin is not None and urlsplit(origin).netloc != request.headers.get("host")
    ):
        raise NotPlayerError("a request from another site cannot change a game")


def new_game_of(fields: Mapping[str, Any]) -> NewGame:
    """A new game from form fields (numbers as text, checkboxes present when on);
    raises pydantic's ValidationError saying which field is wrong."""
    body: dict[str, Any] = {}
    for name in ("width", "height", "mines", "seed"):
        text = str(fields.get(name, "")).strip()
        if text:
            body[name] = int(text) if text.isdigit() else text
    for name in ("first_click", "forced_guess"):
        if fields.get(name):
            body[name] = str(fields[name])
    for name in ("outside_guess", "question_marks", "debug"):
        body[name] = str(fields.get(name, "")) in ("on", "true")
    return NewGame.model_validate(body)


def errors_text(exc: ValidationError) -> str:
    """Pydantic's errors as "field: message", as a person reads them."""
    parts = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"] if isinstance(p, str))
        parts.append(f"{field}: {error['msg']}" if field else str(error["msg"]))
    return "; ".join(parts)


def saved_settings(request: Request) -> NewGame:
    """The new-game settings this browser keeps, or the default when they are missing or
    no game could have them."""
    kept = dict(parse_qsl(unquote(request.cookies.get(SETTINGS_COOKIE, ""))))
    default = {name: DEFAULT_SETTINGS[name] for name in ("width", "height", "mines")}
    # saved by an older page, or edited by hand: the default size, the other settings kept
    for fields in (kept, kept | default) if kept else ():
        try:
            return new_game_of(fields)
        except ValidationError:
            continue
    return NewGame(**default)


def settings_of(body: NewGame) -> dict[str, Any]:
    """The new-game form's fields for ``body``."""
    fields = body.model_dump(exclude={"seed"})
    return fields | {"preset": preset_of(body.width, body.height, body.mines) or "custom"}


def rules_as_new_game(game: Game) -> NewGame:
    r = game.rules
    return NewGame(width=r.width, height=r.height, mines=r.mines, first_click=r.first_click,
                   forced_guess=r.forced_guess, outside_guess=r.outside_guess,
                   question_marks=r.question_marks, debug=r.debug)


def keep_player(response: Response, game_id: str, token: str) -> None:
    response.set_cookie(PLAYER_COOKIE, token, max_age=_YEAR, path=f"/games/{game_id}",
                        httponly=True, samesite="strict", secure=False)


async def create(request: Request, service: GameService, body: NewGame, note: str = ""
                 ) -> tuple[Game, Response]:
    """Creates a game as its player: a redirect to its page, carrying its token."""
    await run_in_threadpool(request.app.state.create_limiter.check, request,
                            body.width * body.height)
    game, token = await run_in_threadpool(service.create, body.rules())
    path = f"/games/{game.id}"
    response: Response
    if request.headers.get("hx-request"):
        response = Response(status_code=204, headers={"HX-Redirect": path})
    else:
        response = RedirectResponse(path, status_code=303)
    keep_player(response, game.id, token)
    if note:
        response.set_cookie(NOTE_COOKIE, note, max_age=60, path=path, samesite="strict")
    return game, response


async def page(request: Request, service: GameService, view: GameView | None,
               settings: dict[str, Any], note: str = "", status_code: int = 200) -> Response:
    browser = statistics.page_browser(request)
    best, stats = await statistics.drawn(service, browser, view)
    response = templates.TemplateResponse(
        request, "page.html",
        {"v": replace(view, best=True) if view and best else view, "settings": settings,
         "note": note, "stats": stats, "page_id": secrets.token_urlsafe(9)},
        status_code=status_code, headers=_NO_CACHE)
    statistics.keep_browser(request, response, browser)
    if request.cookies.get(NOTE_COOKIE):
        response.delete_cookie(NOTE_COOKIE, path=request.url.path)
    return response


@router.get("/")
async def home(request: Request, service: ServiceDep) -> Response:
    """Starts a game with the settings this browser keeps and opens its page."""
    body = saved_settings(request)
    try:
        return (await create(request, service, body))[1]
    except KaboomError as exc:
        return await page(request, service, None, settings_of(body),
                          f"Could not start a game: {exc}", 503)


@router.get("/games/{game_id}")
async def game_page(game_id: GameId, request: Request, service: ServiceDep) -> Response:
    """The page with the game drawn: board, counters, banner and settings.  A link to a
    game this server does not have starts a new game in its place."""
    try:
        game = await run_in_threadpool(service.get, game_id)
    except GameNotFoundError:
        return await home_with_note(request, service)
    role = role_of(game, player_token(request))
    view = await game_view(service, game, role, client_of(request))
    # The player's form keeps its edits (a new game starts from them); a watcher's shows
    # the game's settings.
    body = saved_settings(request) if role == "player" and request.cookies.get(
        SETTINGS_COOKIE) else rules_as_new_game(game)
    return await page(request, service, view, settings_of(body),
                      request.cookies.get(NOTE_COOKIE, ""))


async def home_with_note(request: Request, service: GameService) -> Response:
    body = saved_settings(request)
    try:
        return (await create(request, service, body, _MISSING))[1]
    except KaboomError as exc:
        return await page(request, service, None, settings_of(body),
                          f"Could not start a game: {exc}", 503)


@router.post("/games")
async def new_game(request: Request, service: ServiceDep) -> Response:
    """A new game from the form (or "same board again"); its page opens, or the form says
    why the server refused it."""
    check_same_site(request)
    form = await request.form()
    try:
        body = new_game_of({k: v for k, v in form.items() if isinstance(v, str)})
        return (await create(request, service, body))[1]
    except ValidationError as exc:
        return html(part("form_error", f"Could not start a game: {errors_text(exc)}"),
                    422)
    except KaboomError as exc:
        return html(part("form_error", f"Could not start a game: {exc}"), 429)


@router.post("/stats/reset")
async def reset_statistics(request: Request, service: ServiceDep) -> Response:
    """Forgets this browser's statistics (the page asks first): the table redrawn, or,
    without JavaScript, the page it came from again."""
    check_same_site(request)
    back = str((await request.form()).get("back", ""))
    browser = statistics.browser_of(request)
    if browser is not None:
        await run_in_threadpool(service.store.forget_counted, browser)
    if not request.headers.get("hx-request"):
        return RedirectResponse(back if _BACK.fullmatch(back) else "/", status_code=303)
    return html((await statistics.drawn(service, browser, None, oob=True))[1])


@router.post("/games/{game_id}/player")
async def take_player_link(game_id: GameId, request: Request, service: ServiceDep) -> Response:
    """A player's link (``/games/<id>#player=<token>``) hands the game to this browser: the
    page's script posts the token once, and it becomes this game's cookie."""
    check_same_site(request)
    token = str((await request.form()).get("token", ""))
    game = await run_in_threadpool(service.get, game_id)
    if role_of(game, token) != "player":
        raise NotPlayerError("the token is not this game's player token")
    response = Response(status_code=204, headers={"HX-Redirect": f"/games/{game_id}"})
    keep_player(response, game_id, token)
    return response
