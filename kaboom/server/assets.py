"""The page's files, htmx and the API docs: files shipped inside the installed packages.

Everything is found next to the imported modules, so a wheel installed anywhere serves the
same files as a checkout, with no Node and no network. ``kaboom/web/`` holds the page and the
vendored htmx (``kaboom/web/vendor/``); Swagger UI's script and stylesheet come from the
``fastapi-offline`` package, so ``/docs`` works offline.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import fastapi_offline
from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

import kaboom.web

__all__ = ["DOCS_ASSETS", "HTMX", "WEB", "add_asset_routes"]

WEB = Path(kaboom.web.__file__).parent
"""The page: its templates, CSS, scripts, and ``vendor/`` (htmx, pinned in ``vendored.json``)."""
HTMX = WEB / "vendor" / "htmx.min.js"
DOCS_ASSETS = Path(fastapi_offline.__file__).parent / "static"
"""Swagger UI's ``swagger-ui-bundle.js`` and ``swagger-ui.css``."""

_NO_CACHE = {"Cache-Control": "no-cache"}


class _Assets(StaticFiles):
    """Static files of the kinds a page loads (not the package's ``__init__.py``), each
    revalidated by its ETag: after an upgrade a browser must not run yesterday's modules
    under today's page."""

    KINDS = frozenset({".css", ".js", ".png", ".svg"})

    async def get_response(self, path: str, scope: Scope) -> Response:
        if PurePosixPath(path).suffix not in self.KINDS:
            raise HTTPException(status_code=404)
        response = await super().get_response(path, scope)
        response.headers.setdefault("Cache-Control", "no-cache")
        return response


def add_asset_routes(app: FastAPI) -> None:
    """Serves ``kaboom/web/`` at ``/static`` (the page itself is rendered by
    :mod:`kaboom.server.routes.page.pages`) and the API docs at ``/docs`` (its scripts from
    ``/docs-assets`` and ``/static``: no inline script).

    Fails at start-up, not on the first request, when a file is missing from the install.
    """
    docs = WEB / "api-docs.html"
    needed = [WEB / "templates" / "page.html", docs, HTMX, DOCS_ASSETS / "swagger-ui-bundle.js"]
    missing = [str(p) for p in needed if not p.is_file()]
    if missing:
        raise RuntimeError(f"the kaboom install is incomplete, missing: {', '.join(missing)}")

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> Response:
        return FileResponse(docs, headers=_NO_CACHE)

    app.mount("/static", _Assets(directory=WEB), name="static")
    app.mount("/docs-assets", _Assets(directory=DOCS_ASSETS), name="docs-assets")
