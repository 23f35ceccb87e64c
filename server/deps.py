"""Typed dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from server.service import GameService

__all__ = ["ServiceDep"]


def _service(request: Request) -> GameService:
    return request.app.state.service


ServiceDep = Annotated[GameService, Depends(_service)]
