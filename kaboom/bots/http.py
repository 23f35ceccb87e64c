"""A :class:`~kaboom.bots.base.GameClient` over Kaboom's JSON API, with httpx's async client.

Network trouble is expected (timeouts, a server restart mid-game): requests are retried
for up to ``retry_for`` seconds.  A move whose answer was lost may or may not have been
applied, so before sending it again the client reads the game and compares its move
counter: the server persists games, so the same game continues after a restart.  Every
failure that ends a game is a :class:`~kaboom.bots.base.ClientError` with a readable message;
no traceback reaches the user.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import defaultdict
from types import TracebackType
from typing import Any

import httpx

from kaboom.bots.base import ClientError, GameSettings, GameView
from kaboom.solver import Move

__all__ = ["ApiError", "HttpClient"]

logger = logging.getLogger(__name__)

# What a proxy or a restarting server answers; 500 is a server bug and is not retried.
_RETRY_STATUS = frozenset({502, 503, 504})
_GONE_RETRY_S = 5.0
"""How long a request retries once an earlier one gave up and nothing answered since."""
_MAX_WAIT_S = 60.0
"""The longest ``Retry-After`` of a 429 that is waited for.  A longer one (the server's
cells of new games for the day are spent) is refused like any 4xx: a run should say so,
not sleep for hours."""


class ApiError(ClientError):
    """Raised when the server refuses a request (4xx, or 500: a server bug)."""

    def __init__(self, status: int, detail: str, what: str) -> None:
        self.status = status
        self.detail = detail
        super().__init__(f"{what}: HTTP {status}: {detail}")


def _detail(response: httpx.Response) -> str:
    """The server's ``detail``, with FastAPI's validation errors reduced to their messages."""
    try:
        detail = response.json().get("detail", response.text)
    except (ValueError, AttributeError):
        return response.text[:200]
    if isinstance(detail, list):
        return "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    return str(detail)


class HttpClient:
    """Plays games on one Kaboom server; use as ``async with HttpClient(url) as client``.

    Records every successful request's latency (seconds) under its kind (``new``,
    ``state``, ``reveal``, ``flag``, ``chord``) in :attr:`latencies`, and counts retries.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 30.0,
        retry_for: float = 30.0,
        max_connections: int = 64,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry_for = retry_for
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.retries = 0
        self.waits = 0
        """Requests sent again after the server's 429 asked to wait."""
        self._gone = False
        """A request gave up and none has succeeded since: the next one retries briefly,
        so a run on a server that went away stops in seconds, not ``retry_for`` a game."""
        self.tokens: dict[str, str] = {}
        """The player token of each game this client created: moves need it."""
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            limits=httpx.Limits(max_connections=max_connections,
                                max_keepalive_connections=max_connections),
            transport=transport,
        )

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def spectate_url(self, game_id: str) -> str:
        """The browser page that follows the game live (watching only: the player's
        token stays with this client)."""
        return f"{self.base_url}/games/{game_id}"

    def _player(self, game_id: str) -> dict[str, str]:
        token = self.tokens.get(game_id)
        return {"Authorization": f"Bearer {token}"} if token else {}

    async def ping(self, within: float = 5.0) -> None:
        """Returns once the server answers anything at all; raises :class:`ClientError` if not."""
        deadline = time.monotonic() + within
        while True:
            try:
                await self._http.get("/api/games/ping")  # any answer, even 404, proves it is up
                return
            except httpx.TransportError as exc:
                if time.monotonic() >= deadline:
                    reason = str(exc) or "no answer"
                    raise ClientError(
                        f"cannot reach the server at {self.base_url}: {reason}"
                    ) from None
                await asyncio.sleep(0.25)

    # ----------------------------------------------------------------- GameClient
    async def new_game(self, settings: GameSettings) -> GameView:
        # Creating twice after a lost answer only leaves an unused game behind: safe to retry.
        data = await self._request("new", "POST", "/api/games", json=settings.to_json())
        game = GameView.from_json(data)
        self.tokens[game.id] = str(data.get("player_token", ""))
        return game

    async def state(self, game_id: str) -> GameView:
        return GameView.from_json(await self._request("state", "GET", f"/api/games/{game_id}"))

    async def wait_moves(self, game_id: str, moves: int, timeout: float = 10.0) -> GameView:
        """Long-polls until the game's move counter differs from ``moves`` (as the page does)."""
        data = await self._request(
            "wait", "GET", f"/api/games/{game_id}",
            params={"wait_moves": moves, "timeout": timeout}, timeout=timeout + 10.0,
        )
        return GameView.from_json(data)

    async def play(self, game: GameView, move: Move) -> GameView:
        kind = move.kind.value
        path = f"/api/games/{game.id}/{kind}"
        body = {"x": move.x, "y": move.y}
        deadline = time.monotonic() + self.retry_for
        resent = False
        while True:
            try:
                data = await self._once(
                    kind, "POST", path, json=body, headers=self._player(game.id)
                )
                return GameView.from_json(data)
            except _Transient as exc:
                failure = exc
            except _Wait as wait:  # refused before it was played: send it again later
                self.waits += 1
                await asyncio.sleep(wait.seconds)
                continue
            except ApiError as exc:
                if not (resent and exc.status == 409):
                    raise
                failure = _Transient(str(exc))  # a resent move met its own first copy
            # The move may have been applied before the answer was lost: look before resending.
            current = await self._reconnect(game.id, deadline, failure, f"{move} in {game.id}")
            if current.moves != game.moves:
                return current
            resent = True
            self.retries += 1

    # ----------------------------------------------------------------- plumbing
    async def _reconnect(
        self, game_id: str, deadline: float, failure: Exception, what: str
    ) -> GameView:
        """Reads the game again, retrying until the deadline."""
        while True:
            if time.monotonic() >= deadline:
                self._gone = True
                raise ClientError(
                    f"gave up on {what} after {self.retry_for:.0f} s of retries: {failure}"
                )
            await asyncio.sleep(self._backoff(deadline))
            try:
                return GameView.from_json(
                    await self._once("state", "GET", f"/api/games/{game_id}")
                )
            except _Transient as exc:
                failure = exc
                self.retries += 1

    async def _request(self, kind: str, method: str, path: str, **kw: Any) -> Any:
        """Sends an idempotent request, retrying transient failures until the deadline,
        and waiting as long as a 429 asks (the server is up and said when to come back:
        a default server lets one client create 20 games at once, then one every 2 s)."""
        patience = min(self.retry_for, _GONE_RETRY_S) if self._gone else self.retry_for
        deadline = time.monotonic() + patience
        while True:
            try:
                return await self._once(kind, method, path, **kw)
            except _Wait as wait:
                self.waits += 1
                logger.debug("%s %s: waiting %.1f s as asked", method, path, wait.seconds)
                await asyncio.sleep(wait.seconds)
                deadline = time.monotonic() + self.retry_for
            except _Transient as exc:
                if time.monotonic() >= deadline:
                    self._gone = True
                    raise ClientError(
                        f"gave up on {method} {path} after {patience:.0f} s: {exc}"
                    ) from None
                self.retries += 1
                logger.debug("retrying %s %s: %s", method, path, exc)
                await asyncio.sleep(self._backoff(deadline))

    def _backoff(self, deadline: float) -> float:
        return max(0.0, min(0.25, deadline - time.monotonic()))

    async def _once(self, kind: str, method: str, path: str, **kw: Any) -> Any:
        """One request: its JSON on success, :class:`_Transient` or :class:`ApiError` otherwise."""
        what = f"{method} {path}"
        start = time.perf_counter()
        try:
            response = await self._http.request(method, path, **kw)
        except httpx.TimeoutException as exc:
            raise _Transient(f"{what}: timed out ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            reason = str(exc) or "connection failed"
            raise _Transient(f"{what}: {type(exc).__name__}: {reason}") from None
        elapsed = time.perf_counter() - start
        self._gone = False  # whatever it says, the server answered
        if response.status_code in _RETRY_STATUS:
            raise _Transient(f"{what}: HTTP {response.status_code}: {_detail(response)}")
        if response.status_code == 429 and (wait := _retry_after(response)) <= _MAX_WAIT_S:
            raise _Wait(wait)
        if response.status_code >= 400:
            raise ApiError(response.status_code, _detail(response), what)
        self.latencies[kind].append(elapsed)
        try:
            return response.json()
        except ValueError:
            raise _Transient(f"{what}: the answer was not JSON") from None


def _retry_after(response: httpx.Response) -> float:
    """The seconds a 429's ``Retry-After`` asks for (1 s when it says none)."""
    try:
        seconds = float(response.headers.get("Retry-After", "1"))
    except ValueError:
        seconds = 1.0
    return max(seconds, 0.1) if math.isfinite(seconds) else 1.0


class _Wait(Exception):
    """The server asked to be asked again later (429): not a failure."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"asked to wait {seconds:.1f} s")
        self.seconds = seconds


class _Transient(Exception):
    """A failure worth retrying: the request or its answer was lost, or the server is restarting."""
