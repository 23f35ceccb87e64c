"""Admission of solver work: one computation per game at a time, a few threads in all.

A move or an analysis may take its whole budget.  Run as plain ``def`` routes they took
threads from the pool that also serves every cheap request, so concurrent moves on one
slow game could hold all of them and starve other games.  Here a game's requests queue
on an asyncio lock (on the event loop, holding no thread), a bounded number per game and
in all, and the one admitted runs on a thread of a limiter of its own.  The budget
starts when the request arrives, so time spent queued counts against it.

The solver threads go to waiting requests fairly between clients: a freed thread goes to
the waiting request whose client holds the fewest threads, and among those to the client
served longest ago (first come within a client), so one client looping slow analyses over
many games cannot make every other player wait behind its queue; alone, a client still
gets every thread.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio
import anyio.to_thread
from anyio import CapacityLimiter

from kaboom.server.metrics import SOLVER_REFUSALS, SOLVER_SECONDS, SOLVER_WAIT_SECONDS
from kaboom.solver import Budget, BudgetExceededError

__all__ = ["Gate"]

T = TypeVar("T")

GIL_SWITCH_S = 0.001
"""How long the event loop waits for the GIL while solver threads run Python code;
CPython's default (5 ms) is paid each time handling a request gives the GIL back (every
socket read and write), which adds up on other games' GETs while slow moves run."""


@dataclass(eq=False, slots=True)
class _Waiter:
    """A request waiting for a solver thread."""

    client: str
    order: int
    ready: anyio.Event = field(default_factory=anyio.Event)
    granted: bool = False


@dataclass(slots=True)
class _Turn:
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    count: int = 0  # requests of this game admitted: the one running and those waiting


class Gate:
    """Queues each game's solver work and runs it on ``threads`` dedicated threads.

    Beyond ``per_game`` requests waiting on one game, or ``total`` waiting in all, the
    request is refused at once with :class:`BudgetExceededError` (a 503 with
    ``Retry-After``); so is one that waited its whole budget.
    """

    def __init__(self, threads: int, per_game: int, total: int) -> None:
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_S))
        self.threads = threads
        self.per_game = per_game
        self.total = total
        self._turns: dict[str, _Turn] = {}
        self._admitted = 0
        self._limiter: CapacityLimiter | None = None
        self._free = threads
        self._held: dict[str, int] = {}  # client -> solver threads it holds
        self._waiting: list[_Waiter] = []
        self._arrivals = 0
        self._grants = 0
        self._served: dict[str, int] = {}
        """Client -> when it last got a thread (kept while it holds or waits for one)."""

    async def run(self, game_id: str, seconds: float | None, fn: Callable[[Budget], T],
                  client: str = "", work: str = "move") -> T:
        """Runs ``fn(budget)`` for ``game_id`` once its turn comes, off the event loop;
        ``client`` (its address) is whom the solver threads are shared fairly between,
        ``work`` what the metrics call it (move, undo, analysis, proof, hint, analyse,
        analyse_proof).  ``game_id`` names the line to wait in: a game's, or for the
        analyses of positions with no game, ``analyse:<client>``."""
        budget = Budget(seconds)
        if self._admitted >= self.total + self.threads:
            SOLVER_REFUSALS.labels(work, "busy").inc()
            raise BudgetExceededError("the server is busy; try again in a moment")
        turn = self._turns.get(game_id)
        if turn is None:
            turn = self._turns[game_id] = _Turn()
        if turn.count > self.per_game:
            SOLVER_REFUSALS.labels(work, "game_queue").inc()
            raise BudgetExceededError(
                "too many requests are waiting in this line (a game's moves, or a client's"
                " analyses of positions); try again")
        if self._limiter is None:  # made on the event loop, where anyio wants it
            self._limiter = CapacityLimiter(self.threads)
        turn.count += 1
        self._admitted += 1
        try:
            return await self._run_in_turn(turn, budget, fn, client, work)
        finally:
            turn.count -= 1
            self._admitted -= 1
            if turn.count == 0:
                del self._turns[game_id]

    async def _run_in_turn(
        self, turn: _Turn, budget: Budget, fn: Callable[[Budget], T], client: str, work: str
    ) -> T:
        """Waits (at most until the deadline) for the game's turn and a solver thread."""
        assert self._limiter is not None
        left = budget.remaining()
        got_turn = got_thread = False
        arrived = time.perf_counter()
        with anyio.move_on_after(math.inf if left is None else left):
            await turn.lock.acquire()
            got_turn = True
            await self._take_thread(client)
            got_thread = True
        started = time.perf_counter()
        SOLVER_WAIT_SECONDS.labels(work).observe(started - arrived)
        try:
            if not got_thread or budget.expired():
                SOLVER_REFUSALS.labels(work, "waited").inc()
                raise BudgetExceededError("the move waited its whole time budget; try again")
            try:
                return await anyio.to_thread.run_sync(fn, budget, limiter=self._limiter)
            except BudgetExceededError:
                SOLVER_REFUSALS.labels(work, "out_of_time").inc()
                raise
            finally:
                SOLVER_SECONDS.labels(work).observe(time.perf_counter() - started)
        finally:
            if got_thread:
                self._give_back(client)
            if got_turn:
                turn.lock.release()

    async def _take_thread(self, client: str) -> None:
        """Waits for a solver thread; :meth:`_give_back` hands freed ones out fairly."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
            self._grant(client)
            return
        self._arrivals += 1
        waiter = _Waiter(client, self._arrivals)
        self._waiting.append(waiter)
        try:
            await waiter.ready.wait()
        except BaseException:  # cancelled (out of time): leave the line, or the thread
            if waiter.granted:
                self._give_back(client)
            else:
                self._waiting.remove(waiter)
                self._forget(client)
            raise

    def _grant(self, client: str) -> None:
        self._held[client] = self._held.get(client, 0) + 1
        self._grants += 1
        self._served[client] = self._grants

    def _give_back(self, client: str) -> None:
        held = self._held[client] - 1
        if held:
            self._held[client] = held
        else:
            del self._held[client]
        if self._waiting:
            nxt = min(self._waiting, key=lambda w: (
                self._held.get(w.client, 0), self._served.get(w.client, 0), w.order))
            self._waiting.remove(nxt)
            self._grant(nxt.client)
            nxt.granted = True
            nxt.ready.set()
        else:
            self._free += 1
        self._forget(client)

    def _forget(self, client: str) -> None:
        """Drops what is kept about a client that neither holds nor waits for a thread."""
        if client not in self._held and all(w.client != client for w in self._waiting):
            self._served.pop(client, None)
