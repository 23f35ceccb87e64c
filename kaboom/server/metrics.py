"""What the server counts and times for whoever runs it, read by Prometheus from
``GET /api/metrics``.

The refusals the edge makes (connections, new games, solver turns) were only in the log,
at most a line a minute; an operator's dashboards and alerts need them as numbers, with
each route's traffic and time and each solver computation's wait and run.

Each ``kaboom serve`` is one process with counts of its own: Prometheus scrapes every
process (behind nginx, at its own address; docs/deploy.md).
"""

from __future__ import annotations

import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kaboom.server import VERSION

__all__ = [
    "CONTENT_TYPE",
    "CREATE_REFUSALS",
    "GAMES_CREATED",
    "GAMES_ENDED",
    "GAMES_EXPIRED",
    "LONG_POLLS",
    "MOVES_OUT_OF_TIME",
    "SAT_FALLBACK_LAYOUTS",
    "SOLVER_REFUSALS",
    "SOLVER_SECONDS",
    "SOLVER_WAIT_SECONDS",
    "STORE_DISK_FULL",
    "STORE_FAULTS",
    "STORE_RACES",
    "RequestMetrics",
    "exposition",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST

disable_created_metrics()  # a ``_created`` series beside each counter doubles the output

_TIMES = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Buckets, in seconds: a read takes milliseconds, a move up to its budget (5 s), a long
poll up to 30 s."""

REQUESTS = Counter(
    "kaboom_http_requests", "Requests answered, by method, route and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "kaboom_http_request_duration_seconds",
    "Time from a request's headers to the end of its answer, by method and route"
    " (a long poll's wait included).", ["method", "route"], buckets=_TIMES,
)
SOLVER_WAIT_SECONDS = Histogram(
    "kaboom_solver_wait_seconds",
    "Time a move, undo, analysis, proof or hint waited for its game's turn and a solver"
    " thread.", ["work"], buckets=_TIMES,
)
SOLVER_SECONDS = Histogram(
    "kaboom_solver_seconds", "Time a computation ran on a solver thread.", ["work"],
    buckets=_TIMES,
)
SOLVER_REFUSALS = Counter(
    "kaboom_solver_refusals",
    "Solver work answered 503: busy (every queue full), game_queue (too many waiting on"
    " one game), waited (the budget ran out in the queue), out_of_time (no fair answer"
    " within the budget).", ["work", "reason"],
)
MOVES_OUT_OF_TIME = Counter(
    "kaboom_moves_out_of_time",
    "Moves whose cell the solver could not settle within the budget: the click got the"
    " benefit of the doubt (it opens if any layout has it safe).",
)
SAT_FALLBACK_LAYOUTS = Counter(
    "kaboom_sat_fallback_layouts",
    "Layouts drawn by a randomised SAT model because exact counting did not fit the"
    " budget: consistent with every number, not exactly uniform.",
)
GAMES_CREATED = Counter("kaboom_games_created", "Games created.")
GAMES_ENDED = Counter(
    "kaboom_games_ended",
    "Moves that ended a game, by how (a game undone and ended again counts again).",
    ["status"],
)
GAMES_EXPIRED = Counter(
    "kaboom_games_expired", "Games deleted by the expiry: finished, or abandoned unfinished.")
STORE_RACES = Counter(
    "kaboom_store_races",
    "Work done again because another change to the game came first (in this process or"
    " another): a change computed again (change), a page read again (page).", ["what"],
)
STORE_FAULTS = Counter(
    "kaboom_store_faults",
    "Store calls that failed: unavailable (the database cannot answer: down, restarting,"
    " no connection within the pool's wait, a lock held too long), connection_lost (the"
    " connection died during a statement), disk_full.", ["fault"],
)
STORE_DISK_FULL = Gauge(
    "kaboom_store_disk_full",
    "1 while the process's last write to the store failed for a full disk (until a write"
    " commits).",
)
LONG_POLLS = Gauge(
    "kaboom_long_polls_waiting", "Spectators' long polls waiting for a change now.")
CREATE_REFUSALS = Counter(
    "kaboom_create_refusals",
    "New games refused: games or client_cells (a client's buckets, 429), all_cells (the"
    " buckets all clients share, 503).", ["bucket"],
)
BUILD_INFO = Gauge("kaboom_build_info", "1, labelled with the server's version.", ["version"])
BUILD_INFO.labels(VERSION).set(1)

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def exposition() -> bytes:
    """Every metric of this process in Prometheus's text format."""
    return generate_latest(REGISTRY)


def _route_of(scope: Scope) -> str:
    """The route template that answered (``/api/games/{game_id}``), never the path a
    client made up: each label value is a series Prometheus keeps.  ``none`` when no
    route did: no route has the path (404), or the edge refused the request before
    routing (a body too large or too slow, 413 or 408).  A long poll is a route of its
    own (``/api/games/{game_id}?wait_moves``): its seconds are mostly waiting."""
    path = getattr(scope.get("route"), "path", None)
    if not isinstance(path, str):
        return "none"
    return path + "?wait_moves" if scope.get("state", {}).get("long_poll") else path


class RequestMetrics:
    """ASGI middleware, outermost: counts and times every answer the app makes,
    refusals by the other middleware included, and tells each client its answer's time to
    the first byte (``Server-Timing: app;dur=<ms>``, which a browser's Resource Timing and
    developer tools show beside the network's share)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # unless an answer starts

        async def send_counted(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                took = (time.perf_counter() - start) * 1000
                message["headers"] = [*message.get("headers", ()),
                                      (b"server-timing", f"app;dur={took:.2f}".encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_counted)
        finally:
            method = scope["method"] if scope["method"] in _METHODS else "other"
            route = _route_of(scope)
            REQUESTS.labels(method, route, str(status)).inc()
            REQUEST_SECONDS.labels(method, route).observe(time.perf_counter() - start)
