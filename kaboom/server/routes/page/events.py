"""A game's live changes as server-sent events, for htmx's SSE extension.

A page (a spectator's, or the player's second tab) opens ``/games/{id}/events?version=V``
with the version it shows.  Each time the game changes, in this process or another, the
stream sends one ``change`` event whose data are the out-of-band swaps of what changed
since the last event (:meth:`kaboom.server.application.Kaboom.watch`); its id is the
game's version, so a page that already shows a newer board (its own move's answer) skips
it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import StreamingResponse

from kaboom.server import render
from kaboom.server.application import Watched
from kaboom.server.deps import GameId, KaboomDep, Viewer
from kaboom.server.forms import EventsQuery

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/games/{game_id}/events")
async def events(game_id: GameId, request: Request, kaboom: KaboomDep, caller: Viewer,
                 query: Annotated[EventsQuery, Query()]) -> Response:
    """The stream of ``page`` (the id its page was drawn with: changes its own requests
    made are not sent back to it)."""
    changes = await kaboom.watch(game_id, query.version, caller.on_page(query.page))

    async def stream(changes: AsyncIterator[Watched]) -> AsyncIterator[str]:
        yield ": open\n\n"
        async for found in changes:
            # A page that went is found at its next keep-alive at the latest (uvicorn's
            # StreamingResponse ends the stream at once, listening beside it); asking at
            # every change cost each of thousands of streams a receive per move.
            if found is None and await request.is_disconnected():
                return
            yield render.event(found)

    return StreamingResponse(stream(changes), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})  # + X-Accel-Buffering
