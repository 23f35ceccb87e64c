"""How a refusal is answered, once for both faces: each error class has one status code
(:func:`kaboom.server.errors.status_of`), said as JSON to the API (``{"detail": ...}``)
and in the message line to the page.  A validation error never echoes more than a short
excerpt of what was sent, and an unexpected error says only that nothing changed."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from kaboom.server import render
from kaboom.server.errors import RateLimitedError, status_of
from kaboom.solver import KaboomError

__all__ = ["add_error_handlers"]

log = logging.getLogger("kaboom")

_EXCERPT = 40
"""Characters of a refused value shown back in an error."""
_MAX_ERRORS = 10
"""Validation errors listed in one answer (the rest are counted)."""


def _for_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _excerpt(value: Any) -> str | None:
    """A short, always-encodable picture of a refused value (None for containers)."""
    if isinstance(value, dict | list):
        return None
    text = ascii(value) if isinstance(value, str) else repr(value)
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def _short(errors: Sequence[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in errors[:_MAX_ERRORS]:
        item: dict[str, Any] = {
            "loc": [p if isinstance(p, int) else str(p)[:_EXCERPT] for p in e.get("loc", ())],
            "msg": str(e.get("msg", ""))[:200],
            "type": str(e.get("type", "")),
        }
        excerpt = _excerpt(e.get("input"))
        if excerpt is not None:
            item["input"] = excerpt
        out.append(item)
    if len(errors) > _MAX_ERRORS:
        out.append(
            {"loc": [], "msg": f"and {len(errors) - _MAX_ERRORS} more errors", "type": "more"}
        )
    return out


def _words(errors: list[dict[str, Any]]) -> str:
    """Validation errors as a person reads them: "x: Input should be ..."."""
    parts = []
    for e in errors:
        field = ".".join(str(p) for p in e["loc"] if isinstance(p, str) and p not in
                         ("body", "query", "cookie", "path"))
        parts.append(f"{field}: {e['msg']}" if field else str(e["msg"]))
    return "; ".join(parts)


async def validation_error(request: Request, exc: Exception) -> Response:
    """422 with each error's place and message (the default echoes the whole body)."""
    assert isinstance(exc, RequestValidationError)
    errors = _short(exc.errors())
    if _for_api(request):
        return JSONResponse({"detail": errors}, status_code=422)
    return render.message(f"Not accepted: {_words(errors)}.", "error", 422)


async def kaboom_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, KaboomError)
    code = status_of(exc)
    headers = None
    if isinstance(exc, RateLimitedError):
        headers = {"Retry-After": str(max(1, round(exc.retry_after)))}
    elif code == 503:
        headers = {"Retry-After": "1"}
    elif code == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    if _for_api(request):
        return JSONResponse({"detail": str(exc)}, status_code=code, headers=headers)
    response = render.refusal(exc, "Not done")
    response.headers.update(headers or {})
    return response


async def unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    if _for_api(request):
        return JSONResponse({"detail": "internal error; the game was not changed"}, 500)
    return render.message("Something went wrong on the server; the game was not changed.",
                          "error", 500)


def add_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(KaboomError, kaboom_error)
    app.add_exception_handler(Exception, unexpected)
