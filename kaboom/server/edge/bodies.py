"""Request bodies before a route: a cap on their size, and strict JSON for the API.

Everything is cheap and bounded, because it runs on the event loop that every game shares:
a body is refused at its declared (or counted) size before a byte is parsed.  (A body sent
slowly is the proxy's to time out: nginx reads it whole before a process sees it.)
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BadBody", "BodyGuard", "parse_strict"]

_EXCERPT = 40
"""Characters of a refused number shown back in an error."""
_MAX_DEPTH = 32
"""JSON nesting accepted; the API's bodies are flat objects."""


class BadBody(ValueError):
    """A body that is not strict JSON (the message says why, for a 422)."""


def _reject_constant(name: str) -> Any:
    raise BadBody(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadBody(f"the number {text[:_EXCERPT]} is out of range")
    return value


def _check(value: Any, depth: int = 0) -> None:
    """Refuses lone surrogates in strings and keys, and deep nesting."""
    if depth > _MAX_DEPTH:
        raise BadBody(f"the JSON is nested too deeply (more than {_MAX_DEPTH} levels)")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadBody("a string holds a lone surrogate (\\ud800-\\udfff)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check(k, depth + 1)
            _check(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check(v, depth + 1)


def parse_strict(body: bytes) -> Any:
    """Parses a request body as strict JSON (RFC 8259): UTF-8, no NaN or Infinity, finite
    numbers, no lone surrogates.  Raises :class:`BadBody` saying what is wrong."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadBody(f"the body is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except BadBody:
        raise
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise BadBody(f"the body is not JSON: {exc.msg} at {where}") from None
    except RecursionError:
        raise BadBody("the JSON is nested too deeply") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise BadBody(f"the body is not acceptable JSON: {str(exc)[:80]}") from None
    _check(value)
    return value


def _error(status: int, detail: object, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


class BodyGuard:
    """ASGI middleware: refuses bodies over ``limit`` bytes with 413 (by Content-Length
    at once, else while counting), and bodies of API requests that are not strict JSON
    with 422; a body that passes is handed on unchanged.  (A body sent slowly is the
    proxy's to time out: nginx reads it whole before a process sees it.)"""

    def __init__(self, app: ASGIApp, limit: int, prefix: str = "/api/") -> None:
        self.app = app
        self.limit = limit
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        too_large = _error(413, f"the request body is larger than {self.limit} bytes")
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _error(400, "Content-Length is not a number")(scope, receive, send)
                    return
                if declared > self.limit:
                    await too_large(scope, receive, send)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and scope["path"].startswith(self.prefix):
            try:
                parse_strict(body)
            except BadBody as exc:
                await _error(422, str(exc))(scope, receive, send)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
