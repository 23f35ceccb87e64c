"""The JSON API. Each route parses, calls the service, returns a schema.

Routes are plain ``def``: FastAPI runs them in its thread pool, so a long solver call
never blocks the event loop (and the SAT calls release the GIL).
"""

from __future__ import annotations

from fastapi import APIRouter, Query, status

from server.deps import ServiceDep
from server.schemas import (
    MAX_SIDE,
    AnalysisOut,
    CellIn,
    GameOut,
    HintOut,
    NewGame,
    ProofOut,
    ReplayOut,
)
from solver.position import Move, MoveKind

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["games"])

_ERRORS = {
    404: {"description": "no game with this id"},
    409: {"description": "the move is not allowed in the game's state"},
    422: {"description": "malformed or out-of-range input"},
}


@router.post("/games", status_code=status.HTTP_201_CREATED, responses={422: _ERRORS[422]})
def create_game(body: NewGame, service: ServiceDep) -> GameOut:
    """Starts a new game; nothing is decided until the first click."""
    return GameOut.of(service.create(body.rules()))


@router.get("/games/{game_id}", responses={404: _ERRORS[404]})
async def get_game(
    game_id: str,
    service: ServiceDep,
    wait_moves: int | None = Query(
        default=None, description="long-poll: answer once the move count differs from this"
    ),
    timeout: float = Query(default=25.0, ge=0, le=60),
) -> GameOut:
    """Returns the game; with ``wait_moves`` waits for its next move (spectating)."""
    if wait_moves is None:
        return GameOut.of(service.get(game_id))
    return GameOut.of(await service.wait_for_change(game_id, wait_moves, timeout))


def _move(kind: MoveKind):  # type: ignore[no-untyped-def]
    def play(game_id: str, body: CellIn, service: ServiceDep) -> GameOut:
        return GameOut.of(service.play(game_id, Move(kind, body.x, body.y)))

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
def undo(game_id: str, service: ServiceDep) -> GameOut:
    """Takes back the last move (after a loss, or in a debug game); marks it assisted."""
    return GameOut.of(service.undo(game_id))


@router.get("/games/{game_id}/analysis", responses=_ERRORS)
def analysis(game_id: str, service: ServiceDep) -> AnalysisOut:
    """Every covered cell's status and exact probability; marks the game assisted."""
    _, result = service.analyse(game_id)
    return AnalysisOut.of(result)


@router.get("/games/{game_id}/proof", responses=_ERRORS)
def proof(
    game_id: str,
    service: ServiceDep,
    x: int = Query(ge=0, le=MAX_SIDE - 1, description="column, 0-based"),
    y: int = Query(ge=0, le=MAX_SIDE - 1, description="row, 0-based"),
) -> ProofOut:
    """Why a covered cell is safe or a mine; 409 when it is open or undecided.  During a
    game this marks it assisted; after the game it is free and proves the cell in the
    position before the last move (where a loss was decided)."""
    _, found = service.proof(game_id, (x, y))
    return ProofOut.of(found)


@router.get("/games/{game_id}/hint", responses=_ERRORS)
def hint(game_id: str, service: ServiceDep) -> HintOut:
    """A proven safe cell with its proof, or the best odds when the next click is a
    forced guess; marks the game assisted."""
    _, found = service.hint(game_id)
    return HintOut.of(found)


@router.get("/games/{game_id}/replay", responses=_ERRORS)
def replay(game_id: str, service: ServiceDep) -> ReplayOut:
    """A finished game's moves from its first board; 409 while it is being played."""
    _, found = service.replay(game_id)
    return ReplayOut.of(found)
