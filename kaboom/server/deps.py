"""Typed dependencies shared by the routes.

No ``from __future__ import annotations``: FastAPI reads a dependency's annotations
at run time, and :func:`_bearer_token`'s refer to a local."""

from typing import Annotated, Any

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from kaboom.server.service import GameService

__all__ = ["GameId", "MetricsToken", "PlayerToken", "ServiceDep"]


async def _service(request: Request) -> GameService:
    # async: FastAPI runs a plain ``def`` dependency on a worker thread, a thread hop
    # per request for a lookup that cannot block
    service: GameService = request.app.state.service
    return service


ServiceDep = Annotated[GameService, Depends(_service)]

GameId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="the game's id, from its creation",
    ),
]

def _bearer_token(scheme: str, description: str) -> Any:
    """A dependency giving the bearer token a request sent, if any, under its own name in
    the OpenAPI security schemes."""
    bearer = HTTPBearer(auto_error=False, scheme_name=scheme, description=description)

    async def token(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> str | None:
        return credentials.credentials if credentials else None

    return Depends(token)


PlayerToken = Annotated[
    str | None,
    _bearer_token("player token", "the `player_token` returned when the game was created"),
]
"""The bearer token sent with the request, if any; the service checks it is the player's."""

MetricsToken = Annotated[
    str | None,
    _bearer_token("metrics token", "`KABOOM_METRICS_TOKEN`, when the server sets one"),
]
"""The bearer token a scrape of the metrics sent, if any."""
