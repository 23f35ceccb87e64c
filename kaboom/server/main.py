"""The Kaboom application: the use cases (:mod:`kaboom.server.application`) behind the
JSON API's routes and the page's, the edge's guards, and one place that answers errors."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware

from kaboom.server import VERSION
from kaboom.server.application import Kaboom
from kaboom.server.assets import add_asset_routes
from kaboom.server.config import Settings
from kaboom.server.edge import BodyGuard, SecurityHeaders
from kaboom.server.handlers import add_error_handlers
from kaboom.server.metrics import RequestMetrics
from kaboom.server.openapi import KaboomApp
from kaboom.server.routes.api import analyse, games, operations
from kaboom.server.routes.page import analyser, events, pages, play
from kaboom.server.store import open_store

__all__ = ["create_app"]

GZIP_MIN_BYTES = 4096


def create_app(settings: Settings | None = None) -> FastAPI:
    """Builds the app around a store opened from ``settings``."""
    settings = settings or Settings()
    kaboom = Kaboom(open_store(settings.db, synchronous=settings.sqlite_synchronous), settings)
    app = KaboomApp(
        title="Kaboom",
        summary="Cruel-but-fair Minesweeper: mines are decided when a click needs them.",
        version=VERSION,
        lifespan=_lifespan(kaboom),
        docs_url=None,  # served by add_asset_routes from local files
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.kaboom = kaboom
    for module in (games, analyse, operations, pages, analyser, play, events):
        app.include_router(module.router)
    _add_middleware(app, settings)
    add_error_handlers(app)
    add_asset_routes(app)
    return app


def _lifespan(kaboom: Kaboom) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tasks = []
        if kaboom.settings.expiry_interval_s > 0:
            tasks.append(asyncio.create_task(kaboom.expire_forever()))
        yield
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await kaboom.watcher.close()
        kaboom.store.close()

    return lifespan


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    # The last added is the outermost: headers on every answer, including the guard's
    # refusals, and every answer counted.
    app.add_middleware(BodyGuard, limit=settings.max_body_bytes)
    # Pages, big openings and scripts compressed (a 256x256 page is megabytes of cells);
    # a move's usual answer, under the minimum, goes out at once; event streams never.
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=6)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestMetrics)
