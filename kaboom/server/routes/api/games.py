"""The JSON API of games: each route parses, calls its use case, answers a schema.

Anyone with a game's id may read it; changing it needs the player's token, returned once
at creation (``Authorization: Bearer <token>``).  What each use case does, and how it
queues for the game's solver turn, is :mod:`kaboom.server.application`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from kaboom.server.deps import ApiCaller, GameId, KaboomDep
from kaboom.server.openapi import CREATE, ERRORS, READ
from kaboom.server.schemas import (
    MAX_SIDE,
    PAGE_MAX,
    AnalysisOut,
    CellIn,
    CreatedGameOut,
    GameOut,
    HintOut,
    MovesOut,
    NewGame,
    ProofOut,
    ReplayOut,
)
from kaboom.solver import Move, MoveKind

__all__ = ["json_answer", "off_the_loop", "router"]

router = APIRouter(prefix="/api", tags=["games"])


def json_answer(model: BaseModel) -> Response:
    return Response(model.model_dump_json(), media_type="application/json")


async def off_the_loop(make: Callable[..., BaseModel], *args: Any) -> Response:
    """A large answer (an analysis of 256x256 is 1.3 MB of JSON, a page of moves tens of
    KB) built and encoded off the event loop, which every game shares."""
    return await run_in_threadpool(lambda: json_answer(make(*args)))


@router.post("/games", status_code=status.HTTP_201_CREATED, responses=CREATE)
async def create_game(body: NewGame, kaboom: KaboomDep, caller: ApiCaller) -> CreatedGameOut:
    """Starts a new game; nothing is decided until the first click.  The answer carries
    the player's token: moves need it, the game's address alone only lets others watch."""
    created = await kaboom.create(body.rules(), caller)
    return CreatedGameOut(**GameOut.of(created.game).model_dump(), player_token=created.token)


@router.get("/games/{game_id}", responses=READ)
async def get_game(
    game_id: GameId,
    kaboom: KaboomDep,
    request: Request,
    response: Response,
    wait_moves: Annotated[
        int | None,
        Query(ge=0, le=2**31, description="long-poll: answer once the game changes, if it"
              " still has this many moves"),
    ] = None,
    timeout: Annotated[float, Query(ge=0, le=60, allow_inf_nan=False)] = 25.0,
) -> GameOut:
    """Returns the game; with ``wait_moves`` waits for its next change (spectating)."""
    if wait_moves is None:
        return GameOut.of(await kaboom.read(game_id))
    request.state.long_poll = True  # timed apart in the metrics: its seconds are a wait
    response.headers["X-Accel-Buffering"] = "no"  # a proxy passes it on as it comes
    return GameOut.of(await kaboom.wait(game_id, wait_moves, timeout))


Offset = Annotated[
    int, Query(ge=0, le=2**31, description="moves to skip: 0 starts at the game's first move;"
               " the answer's `next_offset` asks for the next page")
]
Limit = Annotated[
    int, Query(ge=1, le=PAGE_MAX, description=f"most moves to list (1-{PAGE_MAX})")
]


@router.get("/games/{game_id}/moves", responses=READ, response_model=MovesOut)
async def moves(game_id: GameId, kaboom: KaboomDep, offset: Offset = 0,
                limit: Limit = PAGE_MAX) -> Response:
    """A page of the game's moves in order: at most ``limit`` from ``offset``, with the
    total and the ``next_offset`` that asks for the next page.  Only the page is read
    from the store, so spectators of a long game cannot hold the requests of others."""
    view, page = await kaboom.moves(game_id, offset, limit)
    return await off_the_loop(MovesOut.of, view.game, offset, page)


def _move(kind: MoveKind) -> Callable[..., Awaitable[Response]]:
    """The route for one kind of move (they differ only in the kind)."""

    async def play(game_id: GameId, body: CellIn, kaboom: KaboomDep,
                   caller: ApiCaller) -> Response:
        change = await kaboom.move(game_id, Move(kind, body.x, body.y), caller)
        return json_answer(GameOut.of(change.after))

    return play


for _kind, _summary in [
    (MoveKind.REVEAL, "Reveal a cell"),
    (MoveKind.CHORD, "Chord on a number whose flags are satisfied"),
    (MoveKind.FLAG, "Cycle a cell's mark"),
]:
    router.add_api_route(f"/games/{{game_id}}/{_kind.value}", _move(_kind), methods=["POST"],
                         summary=_summary, responses=ERRORS, response_model=GameOut)


@router.post("/games/{game_id}/undo", responses=ERRORS, response_model=GameOut)
async def undo(game_id: GameId, kaboom: KaboomDep, caller: ApiCaller) -> Response:
    """Takes back the last move (after a loss, or in a debug game); marks it assisted."""
    return json_answer(GameOut.of((await kaboom.undo(game_id, caller)).after))


@router.get("/games/{game_id}/analysis", responses=ERRORS, response_model=AnalysisOut)
async def analysis(game_id: GameId, kaboom: KaboomDep, caller: ApiCaller) -> Response:
    """Every covered cell's status and exact probability; marks the game assisted."""
    found = (await kaboom.analysis(game_id, caller)).after.analysis
    assert found is not None  # the use case draws it
    return await off_the_loop(AnalysisOut.of, found)


@router.get("/games/{game_id}/proof", responses=ERRORS, response_model=ProofOut)
async def proof(
    game_id: GameId,
    kaboom: KaboomDep,
    caller: ApiCaller,
    x: Annotated[int, Query(ge=0, le=MAX_SIDE - 1, description="column, 0-based")],
    y: Annotated[int, Query(ge=0, le=MAX_SIDE - 1, description="row, 0-based")],
) -> Response:
    """Why a covered cell is safe or a mine; 409 when it is open or undecided.  During a
    game only the player may ask, and it marks the game assisted; after the game it is
    free and proves the cell in the position before the last move (where a loss was
    decided).  Anyone may ask then, so proofs queue for the game's solver turn too."""
    return json_answer(ProofOut.of((await kaboom.proof(game_id, (x, y), caller)).proof))


@router.get("/games/{game_id}/hint", responses=ERRORS, response_model=HintOut)
async def hint(game_id: GameId, kaboom: KaboomDep, caller: ApiCaller) -> Response:
    """A proven safe cell with its proof, or the best odds when the next click is a
    forced guess; only the player may ask, and it marks the game assisted."""
    return json_answer(HintOut.of((await kaboom.hint(game_id, caller)).hint))


@router.get("/games/{game_id}/replay", response_model=ReplayOut, responses={
    **READ, 409: {"description": "the game is still being played"}})
async def replay(game_id: GameId, kaboom: KaboomDep, offset: Offset = 0,
                 limit: Limit = PAGE_MAX) -> Response:
    """A page of a finished game's moves (at most ``limit`` from ``offset``), each with
    the cells it changed, and the game's first board; 409 while it is being played.
    ``next_offset`` asks for the next page."""
    view, page = await kaboom.replay(game_id, offset, limit)
    return await off_the_loop(ReplayOut.of, view.game, page)
