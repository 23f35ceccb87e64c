"""Typed dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from server.service import GameService

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

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="player token",
    description="the `player_token` returned when the game was created",
)


async def _token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    return credentials.credentials if credentials else None


PlayerToken = Annotated[str | None, Depends(_token)]
"""The bearer token sent with the request, if any; the service checks it is the player's."""

_metrics_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="metrics token",
    description="`KABOOM_METRICS_TOKEN`, when the server sets one",
)


async def _metrics_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_metrics_bearer)],
) -> str | None:
    return credentials.credentials if credentials else None


MetricsToken = Annotated[str | None, Depends(_metrics_token)]
"""The bearer token a scrape of the metrics sent, if any."""
