"""The OpenAPI document with each integer bound as the models wrote it.

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

__all__ = ["KaboomApp"]

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
