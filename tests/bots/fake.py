"""A tiny Kaboom server in memory, ruled by the brute-force oracle, for the bots' tests.

:class:`FakeGame` applies the cruel-but-fair rules of ``rules.md`` by enumerating every
layout (so boards must stay small); :class:`FakeClient` plays it directly as a
``GameClient``; :func:`api_handler` serves it over ``httpx.MockTransport`` with the real
API's paths, optionally failing requests to exercise the HTTP client's retries.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import httpx

from kaboom.bots.base import GameSettings, GameView
from kaboom.bots.http import ApiError
from kaboom.solver.position import Cell, Move, MoveKind, Position
from tests import oracle


class FakeGame:
    """One game under the rules, with its mines decided only when a click needs them."""

    def __init__(self, game_id: str, settings: GameSettings, rng: random.Random) -> None:
        self.id = game_id
        self.settings = settings
        self.rng = rng
        self.position = Position.new(settings.width, settings.height, settings.mines)
        self.status = "playing"
        self.moves = 0
        self.forced_guesses = 0
        self.loss: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        s = self.settings
        return {"id": self.id, "width": s.width, "height": s.height, "mines": s.mines,
                "status": self.status, "board": list(self.position.rows), "moves": self.moves,
                "mines_left": s.mines - len(self.position.flags()),
                "forced_guesses": self.forced_guesses, "assisted": False, "elapsed_ms": 0,
                "seed": s.seed or 0, "first_click": s.first_click or "safe",
                "forced_guess": s.forced_guess or "survive",
                "outside_guess": bool(s.outside_guess), "loss": self.loss}

    def apply(self, move: Move) -> None:
        """Plays a move; raises ``ApiError(409)`` when the game state does not allow it."""
        if self.status != "playing":
            raise ApiError(409, "game over", str(move))
        ch = self.position.char(move.x, move.y)
        if move.kind is MoveKind.FLAG:
            if ch not in "#F?":
                raise ApiError(409, "cell is open", str(move))
            nxt = {"#": "F", "F": "?", "?": "#"}[ch]
            self.position = self.position.with_cells({(move.x, move.y): nxt})
        elif move.kind is MoveKind.REVEAL:
            if ch not in "#?":
                raise ApiError(409, "cell is open or flagged", str(move))
            self._reveal((move.x, move.y))
        else:
            raise ApiError(422, "chord is not faked", str(move))
        self.moves += 1

    def _reveal(self, cell: Cell) -> None:
        pos = self.position
        if not pos.is_start:
            status = oracle.statuses(pos)
            if status[cell] == "m":
                return self._explode(cell, "certain_mine")
            if status[cell] == "u":
                safe = [c for c, s in status.items() if s == "s"]
                if safe:
                    return self._explode(cell, "guess_while_safe", safe[0])
                front = set(pos.frontier())
                stuck = all(status[c] == "m" for c in front)
                if cell not in front and not self.settings.outside_guess and not stuck:
                    return self._explode(cell, "outside_guess")
                self.forced_guesses += 1
                fair = self.settings.forced_guess == "fair"
                if fair and self.rng.random() < oracle.probabilities(pos)[cell]:
                    return self._explode(cell, "forced_guess")
        layouts = [lay for lay in oracle.layouts(pos) if cell not in lay]
        self._open(cell, self.rng.choice(layouts))

    def _open(self, cell: Cell, layout: frozenset[Cell]) -> None:
        pos, todo, changes = self.position, [cell], {}
        while todo:
            c = todo.pop()
            if c in changes or pos.char(*c) not in "#?":
                continue
            n = oracle.number_at(layout, *c)
            changes[c] = str(n)
            if n == 0:
                todo += list(pos.neighbours(*c))
        self.position = pos.with_cells(changes)
        if len(self.position.covered()) == self.settings.mines:
            self.status = "won"

    def _explode(self, cell: Cell, reason: str, safe: Cell | None = None) -> None:
        self.status = "lost"
        self.loss = {"x": cell[0], "y": cell[1], "reason": reason}
        if safe is not None:
            self.loss["safe_cell"] = {"x": safe[0], "y": safe[1]}


class FakeServer:
    """Games by id, created with ids g0, g1, ..."""

    def __init__(self, seed: int = 0) -> None:
        self.games: dict[str, FakeGame] = {}
        self.rng = random.Random(seed)
        self._ids = itertools.count()

    def create(self, settings: GameSettings) -> FakeGame:
        game = FakeGame(f"g{next(self._ids)}", settings, random.Random(self.rng.random()))
        self.games[game.id] = game
        return game


class FakeClient:
    """A ``GameClient`` that plays a :class:`FakeServer` directly, counting its moves."""

    def __init__(self, server: FakeServer | None = None) -> None:
        self.server = server or FakeServer()
        self.played: list[tuple[Position, Move]] = []

    async def new_game(self, settings: GameSettings) -> GameView:
        return GameView.from_json(self.server.create(settings).to_json())

    async def state(self, game_id: str) -> GameView:
        return GameView.from_json(self.server.games[game_id].to_json())

    async def play(self, game: GameView, move: Move) -> GameView:
        fake = self.server.games[game.id]
        self.played.append((fake.position, move))
        fake.apply(move)
        return GameView.from_json(fake.to_json())


# What a request should suffer: None (served), "refuse" (connection fails before the
# server sees it), "drop" (applied, then the answer is lost), "503".
Fault = str | None


def api_handler(
    server: FakeServer, fault: Callable[[httpx.Request], Fault]
) -> Callable[[httpx.Request], httpx.Response]:
    """An ``httpx.MockTransport`` handler serving the real API's paths from ``server``."""

    def reply(status: int, body: Any) -> httpx.Response:
        return httpx.Response(status, json=body)

    def handle(request: httpx.Request) -> httpx.Response:
        what = fault(request)
        if what == "refuse":
            raise httpx.ConnectError("connection refused", request=request)
        if what == "503":
            return reply(503, {"detail": "restarting"})
        parts = request.url.path.strip("/").split("/")
        if parts[:2] != ["api", "games"]:
            return reply(404, {"detail": "not found"})
        if len(parts) == 2 and request.method == "POST":
            body = json.loads(request.content)
            created = server.create(GameSettings(**body))
            response = reply(201, created.to_json())
        else:
            game = server.games.get(parts[2]) if len(parts) > 2 else None
            if game is None:
                return reply(404, {"detail": "unknown game"})
            if len(parts) == 3:
                response = reply(200, game.to_json())
            else:
                body = json.loads(request.content)
                try:
                    game.apply(Move(MoveKind(parts[3]), body["x"], body["y"]))
                except ApiError as exc:
                    return reply(exc.status, {"detail": exc.detail})
                response = reply(200, game.to_json())
        if what == "drop":
            raise httpx.ReadError("connection reset after the request", request=request)
        return response

    return handle
