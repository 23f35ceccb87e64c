"""The JSON API. Each route parses, calls the service, returns a schema.

Anyone with a game's id may read it; changing it needs the player's token, returned
once at creation.  Moves, undo, analyses, hints and proofs go through the service's
:class:`~kaboom.server.admission.Gate` once the token is checked (a finished game's proofs need
none): one at a time per game, on solver threads of their own, so a slow game never
holds the threads or the event loop that serve other games.  Their answers are
rendered to JSON on that thread too (an analysis of 256x256 is 1.3 MB; validating and
encoding it on the event loop delayed every other request).
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from kaboom.server import VERSION
from kaboom.server.deps import GameId, MetricsToken, PlayerToken, ServiceDep
from kaboom.server.edge import client_of
from kaboom.server.errors import MissingTokenError, NotPlayerError, StoreUnavailableError
from kaboom.server.game import Game
from kaboom.server.metrics import CONTENT_TYPE, exposition
from kaboom.server.players import check_player
from kaboom.server.schemas import (
    MAX_SIDE,
    PAGE_MAX,
    AnalysisOut,
    CellIn,
    CreatedGameOut,
    GameOut,
    HealthOut,
    HintOut,
    MovesOut,
    NewGame,
    PositionAnalysisOut,
    PositionCellIn,
    PositionIn,
    ProofOut,
    ReplayOut,
)
from kaboom.server.service import GameService
from kaboom.solver import Budget, GameStatus, Move, MoveKind, analyse, prove

__all__ = ["analyser", "analysis_turn", "operations", "router"]

router = APIRouter(prefix="/api", tags=["games"])
T = TypeVar("T")
log = logging.getLogger("kaboom")

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "the player's token is missing"},
    403: {"description": "the token is not this game's player token"},
    404: {"description": "no game with this id (never made, or expired)"},
    408: {"description": "the request body did not arrive in time; nothing changed"},
    409: {"description": "the move is not allowed in the game's state (the game is over, the"
          " cell is open, the game has made every move it may keep, ...); nothing changed"},
    413: {"description": "the request body is too large"},
    422: {"description": "malformed or out-of-range input"},
    503: {"description": "no fair answer within the move's time budget, or the game store"
          " cannot answer now; nothing changed (unless the message says the change may be"
          " in), and `Retry-After` says when to try again"},
    507: {"description": "the server's disk is full; nothing changed"},
}
_READ: dict[int | str, dict[str, Any]] = {
    **{k: _ERRORS[k] for k in (404, 422)},
    503: {"description": "the game store cannot answer now; `Retry-After` says when to try"
          " again"},
}
_CREATE: dict[int | str, dict[str, Any]] = {
    **{k: _ERRORS[k] for k in (408, 413, 422)},
    429: {"description": "too many games or cells of new games from this client"},
    503: {"description": "all clients together have created the day's cells of new games,"
          " or the game store cannot answer now"},
    507: _ERRORS[507],
}


@router.post(
    "/games",
    status_code=status.HTTP_201_CREATED,
    responses=_CREATE,
)
def create_game(body: NewGame, service: ServiceDep, request: Request) -> CreatedGameOut:
    """Starts a new game; nothing is decided until the first click.  The answer carries
    the player's token: moves need it, the game's address alone only lets others watch."""
    request.app.state.create_limiter.check(request, body.width * body.height)
    game, token = service.create(body.rules())
    return CreatedGameOut(**_game(service, game).model_dump(), player_token=token)


@router.get("/games/{game_id}", responses=_READ)
async def get_game(
    game_id: GameId,
    service: ServiceDep,
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
        # Off the event loop: the store's lock may be held by a move committing a large
        # game (a 256x256 loss records 32,768 cells), and every other request would wait.
        return _game(service, await run_in_threadpool(service.get, game_id))
    request.state.long_poll = True  # timed apart in the metrics: its seconds are a wait
    response.headers["X-Accel-Buffering"] = "no"  # a proxy passes it on as it comes
    return _game(service, await service.watcher.wait_for_change(game_id, wait_moves, timeout))


Offset = Annotated[
    int, Query(ge=0, le=2**31, description="moves to skip: 0 starts at the game's first move;"
               " the answer's `next_offset` asks for the next page")
]
Limit = Annotated[
    int, Query(ge=1, le=PAGE_MAX, description=f"most moves to list (1-{PAGE_MAX})")
]


@router.get("/games/{game_id}/moves", responses=_READ)
def moves(
    game_id: GameId, service: ServiceDep, offset: Offset = 0, limit: Limit = PAGE_MAX
) -> MovesOut:
    """A page of the game's moves in order: at most ``limit`` from ``offset``, with the
    total and the ``next_offset`` that asks for the next page.  Only the page is read
    from the store, so spectators of a long game cannot hold the requests of others."""
    game, page = service.history.moves(game_id, offset, limit)
    return MovesOut.of(game, offset, page)


def _move(kind: MoveKind) -> Callable[..., Awaitable[Response]]:
    """The route for one kind of move (the four differ only in the kind)."""
    async def play(
        game_id: GameId, body: CellIn, service: ServiceDep, token: PlayerToken,
        request: Request,
    ) -> Response:
        move = Move(kind, body.x, body.y)
        await service.players.admit(game_id, token)

        def run(budget: Budget) -> Response:
            return _json(_game(service, service.play(game_id, move, token, budget)))

        return await service.gate.run(game_id, service.settings.move_budget_s, run,
                                      client_of(request), kind.value)

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


@router.post("/games/{game_id}/undo", responses=_ERRORS, response_model=GameOut)
async def undo(
    game_id: GameId, service: ServiceDep, token: PlayerToken, request: Request
) -> Response:
    """Takes back the last move (after a loss, or in a debug game); marks it assisted."""
    await service.players.admit(game_id, token)
    return await service.gate.run(
        game_id, None, lambda _: _json(_game(service, service.undo(game_id, token))),
        client_of(request), "undo",
    )


@router.get("/games/{game_id}/analysis", responses=_ERRORS, response_model=AnalysisOut)
async def analysis(
    game_id: GameId, service: ServiceDep, token: PlayerToken, request: Request
) -> Response:
    """Every covered cell's status and exact probability; marks the game assisted."""
    await service.players.admit(game_id, token)

    def run(budget: Budget) -> Response:
        return _json(AnalysisOut.of(service.assistant.analyse(game_id, token, budget)[1]))

    return await service.gate.run(game_id, service.settings.analysis_budget_s, run,
                                  client_of(request), "analysis")


@router.get("/games/{game_id}/proof", responses=_ERRORS, response_model=ProofOut)
async def proof(
    game_id: GameId,
    service: ServiceDep,
    token: PlayerToken,
    x: Annotated[int, Query(ge=0, le=MAX_SIDE - 1, description="column, 0-based")],
    y: Annotated[int, Query(ge=0, le=MAX_SIDE - 1, description="row, 0-based")],
    request: Request,
) -> Response:
    """Why a covered cell is safe or a mine; 409 when it is open or undecided.  During a
    game only the player may ask, and it marks the game assisted; after the game it is
    free and proves the cell in the position before the last move (where a loss was
    decided).  Anyone may ask then, so proofs queue for the game's solver turn too."""
    game = await run_in_threadpool(service.get, game_id)
    if game.status is GameStatus.PLAYING:
        check_player(game.player_hash, token)

    def run(budget: Budget) -> Response:
        return _json(ProofOut.of(service.assistant.proof(game_id, (x, y), token, budget)[1]))

    return await service.gate.run(game_id, service.settings.analysis_budget_s, run,
                                  client_of(request), "proof")


@router.get("/games/{game_id}/hint", responses=_ERRORS, response_model=HintOut)
async def hint(
    game_id: GameId, service: ServiceDep, token: PlayerToken, request: Request
) -> Response:
    """A proven safe cell with its proof, or the best odds when the next click is a
    forced guess; only the player may ask, and it marks the game assisted."""
    await service.players.admit(game_id, token)
    return await service.gate.run(
        game_id,
        service.settings.analysis_budget_s,
        lambda budget: _json(HintOut.of(service.assistant.hint(game_id, token, budget)[1])),
        client_of(request), "hint",
    )


@router.get("/games/{game_id}/replay", responses={
    **_READ, 409: {"description": "the game is still being played"}})
def replay(
    game_id: GameId, service: ServiceDep, offset: Offset = 0, limit: Limit = PAGE_MAX
) -> ReplayOut:
    """A page of a finished game's moves (at most ``limit`` from ``offset``), each with
    the cells it changed, and the game's first board; 409 while it is being played.
    ``next_offset`` asks for the next page."""
    return ReplayOut.of(*service.history.replay(game_id, offset, limit))


analyser = APIRouter(prefix="/api", tags=["analysis"])
"""Analyses of any position, with no game: anyone may ask.  They take a solver turn as a
game's analysis does, one client's in line behind each other (their key in the gate is
the client's), and share the threads fairly with every game's moves."""

_ANALYSE: dict[int | str, dict[str, Any]] = {
    **{k: _ERRORS[k] for k in (408, 413)},
    422: {"description": "malformed input, or a board that is not a position in play (the"
          " message names the row and column)"},
    503: {"description": "the solver threads are busy, or this client's analyses queue too"
          " long; nothing was computed"},
}


async def analysis_turn(service: GameService, request: Request,
                          fn: Callable[[Budget], T], work: str) -> T:
    """``fn`` in the client's own solver turn for analyses of positions (the API's and
    the analyser page's)."""
    client = client_of(request)
    return await service.gate.run(f"analyse:{client}", service.settings.analysis_budget_s, fn,
                                  client, work)


@analyser.post("/analyse", responses=_ANALYSE, response_model=PositionAnalysisOut)
async def analyse_position(body: PositionIn, service: ServiceDep, request: Request) -> Response:
    """Every covered cell's status and exact probability, the move to play with its
    reason (and proof, when it is proven safe), or, for a position no layout fits, a
    minimal set of numbers (and the count) that cannot all hold.  Within the analysis
    budget: what it did not reach is said to be unsettled, never guessed."""
    position = body.position()

    def run(budget: Budget) -> Response:
        # 30 % left for the answer, as for a game's analysis (1.3 MB of JSON at 256x256)
        return _json(PositionAnalysisOut.of(analyse(position, budget.share(0.7))))

    return await analysis_turn(service, request, run, "analyse")


@analyser.post("/analyse/proof", responses={
    **_ANALYSE, 409: {"description": "the cell is open or undecided, or the numbers a proof"
                      " would name cannot all hold"}}, response_model=ProofOut)
async def analyse_proof(body: PositionCellIn, service: ServiceDep, request: Request) -> Response:
    """Why a covered cell of the position is safe or a mine: a minimal set of open
    numbers (and the count, when needed), as a game's proof."""
    position, cell = body.position(), body.cell()
    return await analysis_turn(
        service, request, lambda budget: _json(ProofOut.of(prove(position, cell, budget))),
        "analyse_proof")


operations = APIRouter(prefix="/api", tags=["operations"])
"""Routes for whoever runs the server, not for players."""


@operations.get("/health", responses={503: {"description": "the store cannot be read"}})
def health(service: ServiceDep) -> HealthOut:
    """Whether this process can read its game store: for load balancers and container
    health checks (answered by whichever process the request reached)."""
    try:
        version = service.store.schema_version()
    except Exception as exc:
        log.warning("health check: the store cannot be read: %s", exc)
        raise StoreUnavailableError("the game store cannot be read") from exc
    # A full disk still answers 200: the process serves reads, and a balancer that took
    # every process out would stop those too.  kaboom_store_disk_full is for alerts.
    return HealthOut(status="disk_full" if service.store.disk_full else "ok",
                     store=service.store.dialect, schema_version=version,
                     worker=os.getpid(), version=VERSION)


@operations.get("/metrics", response_class=Response, responses={
    200: {"content": {"text/plain": {}},
          "description": "this process's counts and timings, in Prometheus's text format"},
    401: {"description": "the server has a metrics token and the request did not send it"},
    403: {"description": "the token sent is not the metrics token"},
})
async def metrics(service: ServiceDep, token: MetricsToken) -> Response:
    """Counts and timings for Prometheus: requests by route and status, solver waits and
    refusals, games (docs/deploy.md, "Metrics").  When
    ``KABOOM_METRICS_TOKEN`` is set, only a request bearing it is answered."""
    secret = service.settings.metrics_token
    if secret is not None:
        if token is None:
            raise MissingTokenError("send the metrics token as 'Authorization: Bearer <token>'")
        if not hmac.compare_digest(token.encode(), secret.get_secret_value().encode()):
            raise NotPlayerError("the token is not this server's metrics token")
    body = await run_in_threadpool(exposition)  # off the event loop
    return Response(body, media_type=CONTENT_TYPE)


def _game(service: GameService, game: Game) -> GameOut:
    """The game as answered, with the move limit this server holds it to."""
    return GameOut.of(game, service.move_limit(game.rules))


def _json(model: BaseModel) -> Response:
    return Response(model.model_dump_json(), media_type="application/json")


# Some balancers check with HEAD; the schema lists the GET only (one operation id).
operations.add_api_route("/health", health, methods=["HEAD"], include_in_schema=False)
