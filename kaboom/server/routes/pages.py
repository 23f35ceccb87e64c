"""The page, rendered by the server: ``/`` and ``/games/{id}`` arrive with the game drawn.

The templates live in ``kaboom/web/templates/`` (package data); :mod:`kaboom.server.view`
says what is shown in words.  Every rule of the game is the service's: these routes only
read games from it and draw them.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from kaboom.server.assets import WEB
from kaboom.server.deps import GameId, ServiceDep
from kaboom.server.edge import client_of
from kaboom.server.errors import GameNotFoundError
from kaboom.server.game import Game
from kaboom.server.service import GameService
from kaboom.server.view import PRESET_LABELS, GameView, Role, preset_of
from kaboom.solver.errors import KaboomError
from kaboom.solver.position import GameStatus
from kaboom.solver.proof import Proof
from kaboom.solver.simulator import PRESETS

__all__ = ["router", "templates"]

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=WEB / "templates")
templates.env.globals["presets"] = {
    name: f"{label} {PRESETS[name][0]}×{PRESETS[name][1]}/{PRESETS[name][2]}"
    for name, label in PRESET_LABELS.items()
}

_NO_CACHE = {"Cache-Control": "no-cache"}
DEFAULT_SETTINGS: dict[str, Any] = {
    "preset": "beginner", "width": 9, "height": 9, "mines": 10, "first_click": "safe",
    "forced_guess": "survive", "outside_guess": False, "question_marks": True, "debug": False,
}


def settings_of(game: Game) -> dict[str, Any]:
    """The new-game form's fields for a game like ``game``."""
    r = game.rules
    return {
        "preset": preset_of(r.width, r.height, r.mines) or "custom", "width": r.width,
        "height": r.height, "mines": r.mines, "first_click": r.first_click,
        "forced_guess": r.forced_guess, "outside_guess": r.outside_guess,
        "question_marks": r.question_marks, "debug": r.debug,
    }


async def loss_proof(service: GameService, game: Game, client: str) -> Proof | None:
    """The proof of the safe cell a lost game ignored (free after the game), or None when
    there is none or it did not come within the analysis budget."""
    if game.status is not GameStatus.LOST or game.loss is None or game.loss.safe_cell is None:
        return None
    cell = game.loss.safe_cell
    try:
        _, proof = await service.gate.run(
            game.id, service.settings.analysis_budget_s,
            lambda budget: service.proof(game.id, cell, None, budget), client, "proof")
    except KaboomError:
        return None
    return proof


async def game_view(service: GameService, game: Game, role: Role, client: str) -> GameView:
    proof = await loss_proof(service, game, client)
    return GameView(game, service.move_limit(game.rules), role, proof)


def page(request: Request, view: GameView | None, settings: dict[str, Any]) -> Response:
    return templates.TemplateResponse(
        request, "page.html", {"v": view, "settings": settings}, headers=_NO_CACHE)


@router.get("/")
async def home(request: Request) -> Response:
    """The page; its script starts a game with the settings this browser keeps."""
    return page(request, None, DEFAULT_SETTINGS)


@router.get("/games/{game_id}")
async def game_page(game_id: GameId, request: Request, service: ServiceDep) -> Response:
    """The page with the game drawn: board, counters, banner and its settings."""
    try:
        game = await run_in_threadpool(service.get, game_id)
    except GameNotFoundError:
        return page(request, None, DEFAULT_SETTINGS)
    view = await game_view(service, game, "spectator", client_of(request))
    return page(request, view, settings_of(game))
