"""The JSON API. Each route parses, calls the service, returns a schema.

Moves are plain ``def``: FastAPI runs them in its thread pool, so a long solver call
never blocks the event loop (and the SAT calls release the GIL).  Anyone with a game's
id may read it; changing it needs the player's token, returned once at creation.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, status

from server.deps import GameId, PlayerToken, ServiceDep
from server.schemas import AnalysisOut, CellIn, CreatedGameOut, GameOut, MovesOut, NewGame
from solver.position import Move, MoveKind

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["games"])

_ERRORS = {
    401: {"description": "the player's token is missing"},
    403: {"description": "the token is not this game's player token"},
    404: {"description": "no game with this id (never made, or expired)"},
    409: {"description": "the move is not allowed in the game's state"},
    413: {"description": "the request body is too large"},
    422: {"description": "malformed or out-of-range input"},
    503: {"description": "no fair answer within the move's time budget; nothing changed"},
}
_READ = {k: _ERRORS[k] for k in (404, 422)}


@router.post(
    "/games",
    status_code=status.HTTP_201_CREATED,
    responses={k: _ERRORS[k] for k in (413, 422)} | {429: {"description": "too many games"}},
)
def create_game(body: NewGame, service: ServiceDep, request: Request) -> CreatedGameOut:
    """Starts a new game; nothing is decided until the first click.  The answer carries
    the player's token: moves need it, the game's address alone only lets others watch."""
    request.app.state.create_limiter.check(request)
    game, token = service.create(body.rules())
    return CreatedGameOut(**GameOut.of(game).model_dump(), player_token=token)


@router.get("/games/{game_id}", responses=_READ)
async def get_game(
    game_id: GameId,
    service: ServiceDep,
    wait_moves: Annotated[
        int | None,
        Query(ge=0, le=2**31, description="long-poll: answer once the game changes, if it"
              " still has this many moves"),
    ] = None,
    timeout: Annotated[float, Query(ge=0, le=60, allow_inf_nan=False)] = 25.0,
) -> GameOut:
    """Returns the game; with ``wait_moves`` waits for its next change (spectating)."""
    if wait_moves is None:
        return GameOut.of(service.get(game_id))
    return GameOut.of(await service.wait_for_change(game_id, wait_moves, timeout))


@router.get("/games/{game_id}/moves", responses=_READ)
def moves(game_id: GameId, service: ServiceDep) -> MovesOut:
    """The game's moves in order (what a replay steps through)."""
    return MovesOut(moves=service.moves(game_id))


def _move(kind: MoveKind):  # type: ignore[no-untyped-def]
    def play(game_id: GameId, body: CellIn, service: ServiceDep, token: PlayerToken) -> GameOut:
        return GameOut.of(service.play(game_id, Move(kind, body.x, body.y), token))

    return play


for _kind, _summary in [
    (MoveKind.REVEAL, "Reveal a cell"),
    (MoveKind.CHORD, "Chord on a number whose flags are satisfied"),
    (MoveKind.FLAG, "Cycle a cell's mark"),
]:
    router.add_api_route(
        f"/games/{{game_id}}/{_kind.value}",
        _move(_kind),
        methods=["POST"],
        summary=_summary,
        responses=_ERRORS,
        response_model=GameOut,
    )


@router.post("/games/{game_id}/undo", responses=_ERRORS)
def undo(game_id: GameId, service: ServiceDep, token: PlayerToken) -> GameOut:
    """Takes back the last move (after a loss, or in a debug game); marks it assisted."""
    return GameOut.of(service.undo(game_id, token))


@router.get("/games/{game_id}/analysis", responses=_ERRORS)
def analysis(game_id: GameId, service: ServiceDep, token: PlayerToken) -> AnalysisOut:
    """Every covered cell's status and exact probability; marks the game assisted."""
    _, result = service.analyse(game_id, token)
    return AnalysisOut.of(result)
