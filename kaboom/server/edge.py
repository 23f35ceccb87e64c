"""What every request meets in a server process before a route: a body's size cap,
strict JSON, security headers, and the rate limit on new games.

Slow clients, floods and connection counts are the proxy's (nginx, ``deploy/``): what
is here knows the game, or is what a process reached directly still needs.  Everything
is cheap and bounded, because it runs on the event loop that every game shares: a body
is refused at its declared (or counted) size before a byte is parsed, and a validation
error never echoes more than a short excerpt of what was sent.  (The rate limit is one
statement on the store, made from the creating route's thread.)
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kaboom.server.errors import RateLimitedError, ServerFullError
from kaboom.server.metrics import CREATE_REFUSALS
from kaboom.server.store import GameStore

__all__ = [
    "NOT_BUFFERED",
    "SECURITY_HEADERS",
    "BodyGuard",
    "CreateLimiter",
    "SecurityHeaders",
    "bucket_of",
    "client_of",
    "validation_error",
]

_EXCERPT = 40
"""Characters of a refused value shown back in an error."""
_MAX_ERRORS = 10
"""Validation errors listed in one answer (the rest are counted)."""
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


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with each error's place and message, and never more than a short excerpt of
    the input (the default echoes the whole body back)."""
    assert isinstance(exc, RequestValidationError)
    return _error(422, _short(exc.errors()))


CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
]
"""The headers a public page needs on every answer."""


NOT_BUFFERED = (b"x-accel-buffering", b"no")
"""Tells a proxy in front (nginx) to pass an answer on as it comes: an event stream, a
long poll."""


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every answer, no ``Server``, and
    :data:`NOT_BUFFERED` on an event stream."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = SECURITY_HEADERS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"server"]
                if any(k == b"content-type" and v.startswith(b"text/event-stream")
                       for k, v in headers):
                    headers.append(NOT_BUFFERED)
                message["headers"] = [*headers, *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def bucket_of(host: str) -> str:
    """The creation bucket of a client address: an IPv4 address is its own, an IPv6
    address shares its /64 (one subscriber's network holds 2**64 addresses, a bucket each
    would be no limit)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def client_of(request: Request) -> str:
    """Who a request comes from, as the creation limit and the solver's fair shares count
    clients: the bucket of its address (``?`` when the server was not told one)."""
    return bucket_of(request.client.host) if request.client else "?"


class CreateLimiter:
    """Two token buckets per client address for game creation: games (``burst`` at once,
    then ``per_minute``) and cells (``cells_per_day``, all at once if the client likes),
    so that one address can neither flood the store with small games nor fill its disk
    with a day of the largest ones; and one bucket of cells for all clients together
    (``cells_per_day_total``), which clients of many addresses share.  The buckets live
    in the game store, so a client draws on the same buckets however many processes
    serve it; idle ones go with the expiry.  A rate of 0 turns that bucket off."""

    ALL = "cells (all clients)"
    """The shared bucket's key (no client's: those are addresses and networks)."""

    def __init__(self, per_minute: float, burst: int, cells_per_day: int,
                 cells_per_day_total: int, store: GameStore) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.cells_rate = cells_per_day / 86400.0
        self.cells = float(cells_per_day)
        self.total_rate = cells_per_day_total / 86400.0
        self.total = float(cells_per_day_total)
        self.store = store

    def check(self, request: Request, cells: int) -> None:
        """Takes a game and ``cells`` cells from the request's client's buckets and the
        shared one, or raises :class:`RateLimitedError` (:class:`ServerFullError` for
        the shared bucket) saying when to try again.  The client's buckets go first, so
        its refusals never drain the shared one; a refusal for cells costs the client a
        game token, never cells."""
        key = client_of(request)
        now = time.time()
        cost = min(float(cells), self.cells)  # a board larger than a day's takes the day's
        if self.rate > 0:
            wait = self.store.take_token(key, now, self.rate, self.burst)
            if wait > 0:
                CREATE_REFUSALS.labels("games").inc()
                raise RateLimitedError(
                    f"too many new games from {key}: try again in {math.ceil(wait)} s", wait
                )
        if self.cells_rate > 0:
            wait = self.store.take_token(f"cells {key}", now, self.cells_rate, self.cells, cost)
            if wait > 0:
                CREATE_REFUSALS.labels("client_cells").inc()
                raise RateLimitedError(
                    f"too many cells of new games from {key} ({self.cells:,.0f} a day):"
                    f" try again in {math.ceil(wait)} s", wait
                )
        if self.total_rate > 0:
            total_cost = min(float(cells), self.total)
            wait = self.store.take_token(self.ALL, now, self.total_rate, self.total, total_cost)
            if wait > 0:
                if self.cells_rate > 0:  # the client's cells back: not its doing
                    self.store.take_token(f"cells {key}", now, self.cells_rate, self.cells,
                                          -cost)
                CREATE_REFUSALS.labels("all_cells").inc()
                raise ServerFullError(
                    f"the server has taken the day's cells of new games"
                    f" ({self.total:,.0f} from all clients): try again in {math.ceil(wait)} s",
                    wait,
                )
