"""The Kaboom application: API routes, the page, and one place that maps errors to HTTP."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from server.assets import add_asset_routes
from server.config import Settings
from server.routes import api
from server.service import GameService
from server.store import SqliteStore
from solver.errors import (
    BudgetExceededError,
    GameNotFoundError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    KaboomError,
)

__all__ = ["create_app"]

log = logging.getLogger("kaboom")

# Most specific first: each error class is answered with one status code.
_STATUS: list[tuple[type[KaboomError], int]] = [
    (GameNotFoundError, 404),
    (IllegalMoveError, 409),
    (InvalidMoveError, 422),
    (InvalidPositionError, 409),
    (BudgetExceededError, 503),
]


def create_app(settings: Settings | None = None) -> FastAPI:
    """Builds the app around a store opened from ``settings``."""
    settings = settings or Settings()
    store = SqliteStore(settings.db_path, synchronous=settings.sqlite_synchronous)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(
        title="Kaboom",
        summary="Cruel-but-fair Minesweeper: mines are decided when a click needs them.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # served by add_asset_routes from local files
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.service = GameService(store, settings)
    app.include_router(api.router)
    if importlib.util.find_spec("server.routes.pages") is not None:
        from server.routes import pages

        app.include_router(pages.router)

    @app.exception_handler(KaboomError)
    async def kaboom_error(request: Request, exc: KaboomError) -> JSONResponse:
        code = next((c for cls, c in _STATUS if isinstance(exc, cls)), 400)
        headers = {"Retry-After": "1"} if code == 503 else None
        return JSONResponse({"detail": str(exc)}, status_code=code, headers=headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "internal error; the game was not changed"}, 500)

    add_asset_routes(app)
    return app
