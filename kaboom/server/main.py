"""The Kaboom application: API routes, the page, the edge guards, and one place that maps
errors to HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse

from kaboom.server import VERSION
from kaboom.server.assets import add_asset_routes
from kaboom.server.config import Settings
from kaboom.server.edge import BodyGuard, CreateLimiter, SecurityHeaders, validation_error
from kaboom.server.errors import RateLimitedError, status_of
from kaboom.server.metrics import RequestMetrics
from kaboom.server.openapi import KaboomApp
from kaboom.server.routes import analyser as analyser_page
from kaboom.server.routes import api, events, pages, play
from kaboom.server.service import GameService
from kaboom.server.store import open_store
from kaboom.solver import KaboomError

__all__ = ["create_app"]

log = logging.getLogger("kaboom")

GZIP_MIN_BYTES = 4096

def create_app(settings: Settings | None = None) -> FastAPI:
    """Builds the app around a store opened from ``settings``."""
    settings = settings or Settings()
    store = open_store(settings.db, synchronous=settings.sqlite_synchronous)
    service = GameService(store, settings)

    async def expire_forever() -> None:
        while True:
            try:
                removed = await asyncio.to_thread(service.expire)
                if removed:
                    log.info("expired %d games", removed)
            except Exception:
                log.exception("game expiry failed; trying again later")
            await asyncio.sleep(settings.expiry_interval_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tasks = []
        if settings.expiry_interval_s > 0:
            tasks.append(asyncio.create_task(expire_forever()))
        yield
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        store.close()

    app = KaboomApp(
        title="Kaboom",
        summary="Cruel-but-fair Minesweeper: mines are decided when a click needs them.",
        version=VERSION,
        lifespan=lifespan,
        docs_url=None,  # served by add_asset_routes from local files
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.create_limiter = CreateLimiter(
        settings.create_per_minute, settings.create_burst, settings.create_cells_per_day,
        settings.create_cells_per_day_total, service.store
    )
    app.include_router(api.router)
    app.include_router(api.analyser)
    app.include_router(api.operations)
    app.include_router(pages.router)
    app.include_router(analyser_page.router)
    app.include_router(play.router)
    app.include_router(events.router)

    # The last added is the outermost: headers on every answer, including the guard's
    # refusals, and every answer counted.
    app.add_middleware(BodyGuard, limit=settings.max_body_bytes)
    # Pages, big openings and scripts compressed (a 256x256 page is megabytes of cells);
    # a move's usual answer, under the minimum, goes out at once; event streams never.
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=6)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestMetrics)
    app.add_exception_handler(RequestValidationError, validation_error)

    @app.exception_handler(KaboomError)
    async def kaboom_error(request: Request, exc: KaboomError) -> JSONResponse:
        code = status_of(exc)
        headers = None
        if isinstance(exc, RateLimitedError):
            headers = {"Retry-After": str(max(1, round(exc.retry_after)))}
        elif code == 503:
            headers = {"Retry-After": "1"}
        elif code == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return JSONResponse({"detail": str(exc)}, status_code=code, headers=headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "internal error; the game was not changed"}, 500)

    add_asset_routes(app)
    return app
