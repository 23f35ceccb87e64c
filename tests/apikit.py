"""Creating a game in a test, over whatever reaches the server: Starlette's TestClient, an
``httpx.Client``, or a live server's URL."""

from __future__ import annotations

from typing import Any, Protocol

import httpx

__all__ = ["BEGINNER", "new_game"]

BEGINNER: dict[str, object] = {"width": 9, "height": 9, "mines": 10}


class _Reply(Protocol):
    status_code: int

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


class _Client(Protocol):
    def post(self, url: str, *, json: Any = None) -> _Reply: ...


def new_game(via: _Client | str, **body: object) -> dict[str, Any]:
    """Creates a game (Beginner unless ``body`` says otherwise) and returns its JSON,
    player token included; anything but a 201 fails the test with the server's answer."""
    settings = {**BEGINNER, **body}
    if isinstance(via, str):
        reply: _Reply = httpx.post(f"{via}/api/games", json=settings, timeout=30)
    else:
        reply = via.post("/api/games", json=settings)
    assert reply.status_code == 201, reply.text
    game: dict[str, Any] = reply.json()
    return game
