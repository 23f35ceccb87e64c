"""A game's live changes as server-sent events, for htmx's SSE extension.

A page (a spectator's, or the player's second tab) opens ``/games/{id}/events?version=V``
with the version it shows.  Each time the game changes, in this process or another (the
service's :class:`~kaboom.server.service.Watcher` is the source, as it was of the long
poll), the stream sends one ``change`` event whose data are the out-of-band swaps of what
changed since the last event; its id is the game's version, so a page that already shows a
newer board (its own move's answer) skips it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import StreamingResponse

from kaboom.server.deps import GameId, ServiceDep
from kaboom.server.edge import client_of
from kaboom.server.routes.fragments import all_made_by, changes, everything, game_view
from kaboom.server.routes.pages import player_token, role_of
from kaboom.server.routes.statistics import noted
from kaboom.server.service import GameService
from kaboom.server.view import GameView, Role

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

KEEPALIVE_S = 15.0
"""A comment this often keeps proxies from closing a quiet stream."""


def event(view: GameView, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    return f"event: change\nid: {view.game.version}\n{lines}\n"


async def stream(request: Request, service: GameService, game_id: str, version: int,
                 role: Role, client: str, page: str) -> AsyncIterator[str]:
    game = await asyncio.to_thread(service.get, game_id)
    shown = await game_view(service, game, role, client)
    if game.version != version:  # the page is behind already: the whole board
        yield event(shown, everything(shown))
    yield ": open\n\n"
    while not await request.is_disconnected():
        deadline = time.monotonic() + KEEPALIVE_S
        await service.watcher.wait(game_id, shown.game.version, deadline)
        game = await asyncio.to_thread(service.get, game_id)
        if game.version == shown.game.version:
            yield ": still here\n\n"
            continue
        view = await game_view(service, game, role, client)
        if not all_made_by(game_id, range(shown.game.version + 1, game.version + 1), page):
            view, stats = await noted(request, service, view)  # the page's own answer had it
            yield event(view, changes(shown, view, None) + stats)
        shown = view


@router.get("/games/{game_id}/events")
async def events(game_id: GameId, request: Request, service: ServiceDep,
                 version: Annotated[int, Query(ge=0)],
                 page: Annotated[str, Query(max_length=32)] = "") -> Response:
    """The stream of ``page`` (the id its page was drawn with: changes its own requests
    made are not sent back to it)."""
    game = await asyncio.to_thread(service.get, game_id)  # 404 before the stream starts
    role = role_of(game, player_token(request))
    return StreamingResponse(
        stream(request, service, game_id, version, role, client_of(request), page),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache"})  # SecurityHeaders adds X-Accel-Buffering
