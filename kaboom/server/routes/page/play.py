"""The page's requests about a game: moves, undo, hint, a cell's proof, the debug overlay,
a replay's step, and the whole board again after a lost answer.

Each route parses the htmx request, calls the same use case as its JSON twin
(:mod:`kaboom.server.application`) and answers with what changed, drawn
(:mod:`kaboom.server.render`).  The player's token comes from the game's cookie.  A refusal
is said in the message line, with the status code the API would give.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Form, Query, Response

from kaboom.server import render
from kaboom.server.deps import GameId, KaboomDep, PagePlayer, Viewer
from kaboom.server.errors import status_of
from kaboom.server.forms import (
    BoardQuery,
    ChangeForm,
    MoveForm,
    OverlayQuery,
    ProofQuery,
    ReplayQuery,
)
from kaboom.solver import BudgetExceededError, IllegalMoveError, KaboomError, Move, MoveKind

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_ANALYSIS_TRIES = 8
"""An analysis that ran out of time is asked again after 1, 2, 4, then 8 s, this often."""


def _move(kind: MoveKind) -> Callable[..., object]:
    async def play(game_id: GameId, kaboom: KaboomDep, caller: PagePlayer,
                   form: Annotated[MoveForm, Form()]) -> Response:
        try:
            change = await kaboom.move(game_id, Move(kind, form.x, form.y),
                                       caller.on_page(form.page))
        except KaboomError as exc:
            if form.quiet and isinstance(exc, IllegalMoveError):
                return Response(status_code=204)  # a number whose flags are not satisfied
            return render.refusal(exc, "Move not played")
        return render.html(render.change(change, form.version))

    return play


for _kind in (MoveKind.REVEAL, MoveKind.FLAG, MoveKind.CHORD):
    router.add_api_route(f"/games/{{game_id}}/{_kind.value}", _move(_kind), methods=["POST"])


@router.post("/games/{game_id}/undo")
async def undo(game_id: GameId, kaboom: KaboomDep, caller: PagePlayer,
               form: Annotated[ChangeForm, Form()]) -> Response:
    try:
        change = await kaboom.undo(game_id, caller.on_page(form.page))
    except KaboomError as exc:
        return render.refusal(exc, "Move not played")
    return render.html(render.change(change, form.version))


@router.post("/games/{game_id}/hint")
async def hint(game_id: GameId, kaboom: KaboomDep, caller: PagePlayer,
               form: Annotated[ChangeForm, Form()]) -> Response:
    """A proven safe cell and its proof outlined, or the best odds of a forced guess."""
    try:
        found = await kaboom.hint(game_id, caller.on_page(form.page))
    except KaboomError as exc:
        return render.refusal(exc, "No hint")
    return render.html(render.hinted(found, form.version))


@router.get("/games/{game_id}/proof")
async def proof(game_id: GameId, kaboom: KaboomDep, caller: Viewer,
                query: Annotated[ProofQuery, Query()]) -> Response:
    """Why a covered cell is safe or a mine (the debug overlay's hover), outlined."""
    try:
        found = await kaboom.proof(game_id, (query.x, query.y), caller)
    except KaboomError as exc:
        return render.html(render.part("reason", f"({query.x}, {query.y}): no proof ({exc})"),
                           status_of(exc))
    return render.html(render.proved(found))


@router.get("/games/{game_id}/analysis")
async def overlay(game_id: GameId, kaboom: KaboomDep, caller: Viewer,
                  query: Annotated[OverlayQuery, Query()]) -> Response:
    """The debug overlay: the whole board drawn with every covered cell's status and
    probability (it marks the game assisted).  An analysis out of time, or refused as
    busy, is said and asked again a little later."""
    again, wait = query.tries < _ANALYSIS_TRIES, min(2 ** (query.tries - 1), 8)
    try:
        change = await kaboom.analysis(game_id, caller.on_page(query.page))
    except KaboomError as exc:
        retry = isinstance(exc, BudgetExceededError) and again
        view = await kaboom.read(game_id, caller) if retry else None
        return render.html(render.overlay_refused(exc, view, query.tries, wait), status_of(exc))
    complete = render.overlay_complete(change)
    return render.html(render.overlay(change, query.tries, again, wait), headers={
        "Kaboom-Analysis": "complete" if complete else "incomplete"})


@router.get("/games/{game_id}/replay")
async def replay(game_id: GameId, kaboom: KaboomDep, caller: Viewer,
                 query: Annotated[ReplayQuery, Query()]) -> Response:
    """A step of a finished game's replay: the cells that differ between the board the
    page shows (after move ``at``) and the one asked for (``to``, or a step ``go``)."""
    try:
        change = await kaboom.replay_step(game_id, query.at, query.to, query.go, caller)
    except KaboomError as exc:
        return render.message(f"No replay: {exc}", "error", status_of(exc))
    return render.html(render.replay_step(change, slider=query.go is not None))


@router.get("/games/{game_id}/board")
async def board(game_id: GameId, kaboom: KaboomDep, caller: Viewer,
                query: Annotated[BoardQuery, Query()]) -> Response:
    """The whole game again, after a move whose answer never arrived: says whether the
    move was played (the game has other than ``moves`` moves) or not."""
    try:
        shown = await kaboom.show(game_id, caller)
    except KaboomError as exc:
        return render.message(f"Move not played: {exc}", "error", status_of(exc))
    return render.html(render.board(shown, played=shown.view.game.moves != query.moves))
