"""Requests a second per client, over every worker: past the rate, a client's requests wait.

The client's turns (``kaboom.server.edge.ClientTurns``) keep a flood behind its own requests,
but it still has the interpreter for eight of them at a time: another player's read took
about 2.5 times its quiet time under one client reading as fast as it could.  Answering
the flood's excess with a quick 429 made that worse, not better: a client that does not
wait as a 429 asks sends requests as fast as they are refused, 4,000 a second here, and
every one is parsed and answered on the event loop.  So a request past the rate waits
instead, inside its client's turn: the flood is served at the rate, its other requests
are parked, and a client that bursts is slowed down, never refused.

The count is kept in shared memory as the connection cap's is
(:class:`kaboom.server.connections.ClientCounts`): each worker counts in rows of its own, one a
tenth of a second, so no lock is needed, and a client's count is the sum over the
workers of the last eleven tenths, the smaller of its two cells.  Those tenths always
cover the second up to now, so no second ever serves a client more than the rate (a
window that weighted the oldest part by how much of it was left let through about twice
the rate in the second around its edge); a client that asks without pause is served at
least ten elevenths of it.  Two workers admitting a client at the same instant may each
let in one over the limit.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from starlette.types import ASGIApp, Receive, Scope, Send

from kaboom.server.connections import client_cells
from kaboom.server.edge import Trusted, held_client, wait_listening
from kaboom.server.metrics import THROTTLE_SECONDS, THROTTLED

__all__ = ["RequestRate", "RequestWindows"]


class RequestWindows:
    """Each client's admitted requests in the last eleven tenths of a second, per worker.

    ``table[row, slot % RING]`` holds worker ``row``'s counts for the tenth ``slot``
    (``floor(time * SLOTS)``), and in its last column that tenth's number: a slot of an
    earlier tenth is stale, counted as nothing, and zeroed by its worker when it next
    admits in that place of the ring."""

    SLOTS = 10
    """Slots a second: the window is between 1 and 1.1 s long."""

    RING = SLOTS + 1
    """Slots a row keeps: enough to cover a whole second from any instant."""

    CELLS = 1 << 16
    """Cells a slot (512 KB of ``int64``)."""

    SIZE = RING * (CELLS + 1)
    """``int64`` values a worker's rows take (5.8 MB)."""

    def __init__(self, table: np.ndarray[Any, np.dtype[np.int64]], row: int,
                 key: bytes) -> None:
        self.table = table
        self.row = row
        self.key = key

    @classmethod
    def alone(cls) -> RequestWindows:
        """The windows of a server of one process."""
        return cls(cls.blank(bytearray(cls.SIZE * 8), 1), 0, secrets.token_bytes(16))

    @classmethod
    def blank(cls, buffer: Any, rows: int) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The table in a new ``buffer`` (:meth:`table_of`), no tenth counted yet."""
        table = cls.table_of(buffer, rows)
        table[:, :, cls.CELLS] = -1
        return table

    @classmethod
    def shared(cls, buffer: Any, rows: int, row: int, key: bytes) -> RequestWindows:
        """Worker ``row``'s view of windows in shared memory of ``rows`` rows."""
        return cls(cls.table_of(buffer, rows), row, key)

    @classmethod
    def table_of(cls, buffer: Any, rows: int) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The table in ``buffer`` (``rows * SIZE`` values, a ``multiprocessing``
        ``RawArray('q', ...)``, say), which :meth:`blank` made."""
        return np.frombuffer(buffer, dtype=np.int64).reshape(rows, cls.RING, cls.CELLS + 1)

    def cells(self, client: str) -> tuple[int, int]:
        return client_cells(client, self.key, self.CELLS)

    def rate(self, cells: tuple[int, int], now: float) -> int:
        """The admitted requests of the client with these cells in the tenth of ``now``
        and the ten before it: at least the second up to ``now``, at most 1.1 s."""
        return self._count(cells, math.floor(now * self.SLOTS))

    def take(self, cells: tuple[int, int], now: float, limit: int) -> bool:
        """Admits one request of the client if its :meth:`rate` is under ``limit``, with
        both on the same tenth; says whether it did."""
        slot = math.floor(now * self.SLOTS)
        if self._count(cells, slot) >= limit:
            return False
        self._add(cells, slot)
        return True

    def _count(self, cells: tuple[int, int], slot: int) -> int:
        stamps = self.table[:, :, self.CELLS]
        live = (stamps > slot - self.RING) & (stamps <= slot)
        counts = self.table[:, :, list(cells)] * live[:, :, None]
        return int(counts.sum(axis=(0, 1)).min())

    def _add(self, cells: tuple[int, int], slot: int) -> None:
        mine = self.table[self.row, slot % self.RING]
        if mine[self.CELLS] != slot:  # this place of the ring held an older tenth
            mine[: self.CELLS] = 0
            mine[self.CELLS] = slot
        mine[list(cells)] += 1


class RequestRate:
    """ASGI middleware: a client (an address; an IPv6 /64) is served ``per_second``
    requests in any second over all the workers; its requests past that wait until the
    window has room, checked every ``poll_s``.  None is refused: a client past its rate
    is slowed down, and one that ignored a 429 would only send more.

    It runs inside the client's turns (:class:`kaboom.server.edge.ClientTurns`), so at most a
    turn's worth of a client's requests wait here and the others are parked on a future,
    costing nothing.  A waiting request listens for its client's hang-up, and one whose
    client is gone leaves without being served or counted, giving back its turn.  A
    trusted proxy's own address is not held to it, as for the turns and the connection
    cap."""

    def __init__(self, app: ASGIApp, per_second: int, trusted: Trusted,
                 windows: RequestWindows, poll_s: float = 0.05,
                 clock: Callable[[], float] = time.time) -> None:
        self.app = app
        self.per_second = per_second
        self.trusted = trusted
        self.windows = windows
        self.poll_s = poll_s
        self.clock = clock  # the workers' common clock: a second is the same in each

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = held_client(scope, self.trusted) if self.per_second else None
        if key is not None:
            cells = self.windows.cells(key)
            if not self.windows.take(cells, self.clock(), self.per_second):
                THROTTLED.inc()
                start = time.monotonic()
                allowed = asyncio.ensure_future(self._allowed(cells))
                try:
                    listened = await wait_listening(allowed, receive)
                finally:
                    allowed.cancel()
                    THROTTLE_SECONDS.inc(time.monotonic() - start)
                if listened is None:
                    return  # the client hung up while it waited: no one to answer
                receive = listened
        await self.app(scope, receive, send)

    async def _allowed(self, cells: tuple[int, int]) -> None:
        """Returns once the client's rate has let this request in (checked and counted
        with no await between, so the requests waiting do not all take the same room)."""
        while True:
            await asyncio.sleep(self.poll_s)
            if self.windows.take(cells, self.clock(), self.per_second):
                return
