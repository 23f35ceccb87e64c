"""The OpenAPI document: each integer bound as the models wrote it, and the answers each
operation may give besides its success.

FastAPI's own schema types every ``minimum`` and ``maximum`` as a float, so ``256``
became ``256.0`` and the seed's ``2**63 - 1`` became ``9.223372036854776e+18``: one past the
largest seed, a value a client's validator would accept and the server refuses.  The
wire models' own JSON schemas (pydantic) keep them exact; the app copies them back.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

from kaboom.server import schemas

__all__ = ["ANALYSE", "CREATE", "ERRORS", "READ", "KaboomApp"]

Responses = dict[int | str, dict[str, Any]]
"""An operation's documented answers besides its success, by status."""

_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


class KaboomApp(FastAPI):
    """FastAPI whose OpenAPI document has the wire models' exact integer bounds."""

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            components = super().openapi().get("components", {}).get("schemas", {})
            for name in schemas.__all__:
                model = getattr(schemas, name)
                if isinstance(model, type) and issubclass(model, BaseModel) and name in components:
                    _copy_bounds(model.model_json_schema(), components[name])
        return super().openapi()  # the document just built, kept by FastAPI


def _copy_bounds(exact: Any, written: Any) -> None:
    """Walks both schemas together, writing ``exact``'s integer bounds into ``written``."""
    if isinstance(exact, dict) and isinstance(written, dict):
        for key, value in exact.items():
            if key in _BOUNDS and isinstance(value, int) and key in written:
                written[key] = value
            elif key in written:
                _copy_bounds(value, written[key])
    elif isinstance(exact, list) and isinstance(written, list) and len(exact) == len(written):
        for e, w in zip(exact, written, strict=True):
            _copy_bounds(e, w)


ERRORS: Responses = {
    401: {"description": "the player's token is missing"},
    403: {"description": "the token is not this game's player token"},
    404: {"description": "no game with this id (never made, or expired)"},
    408: {"description": "the request body did not arrive in time; nothing changed"},
    409: {"description": "the move is not allowed in the game's state (the game is over, the"
          " cell is open, the game has made every move it may keep, ...); nothing changed"},
    413: {"description": "the request body is too large"},
    422: {"description": "malformed or out-of-range input"},
    503: {"description": "no fair answer within the move's time budget, or the game store"
          " cannot answer now; nothing changed (unless the message says the change may be"
          " in), and `Retry-After` says when to try again"},
    507: {"description": "the server's disk is full; nothing changed"},
}
READ: Responses = {
    **{k: ERRORS[k] for k in (404, 422)},
    503: {"description": "the game store cannot answer now; `Retry-After` says when to try"
          " again"},
}
CREATE: Responses = {
    **{k: ERRORS[k] for k in (408, 413, 422)},
    429: {"description": "too many games or cells of new games from this client"},
    503: {"description": "all clients together have created the day's cells of new games,"
          " or the game store cannot answer now"},
    507: ERRORS[507],
}
ANALYSE: Responses = {
    **{k: ERRORS[k] for k in (408, 413)},
    422: {"description": "malformed input, or a board that is not a position in play (the"
          " message names the row and column)"},
    503: {"description": "the solver threads are busy, or this client's analyses queue too"
          " long; nothing was computed"},
}
