"""Admission of solver work: one computation per game at a time, a few threads in all.

A move or an analysis may take its whole budget.  Run as plain ``def`` routes they took
threads from the pool that also serves every cheap request, so concurrent moves on one
slow game could hold all of them and starve other games.  Here a game's requests queue
on an asyncio lock (on the event loop, holding no thread), a bounded number per game and
in all, and the one admitted runs on a thread of a limiter of its own.  The budget
starts when the request arrives, so time spent queued counts against it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio
import anyio.to_thread
from anyio import CapacityLimiter

from solver.budget import Budget
from solver.errors import BudgetExceededError

__all__ = ["Gate"]

T = TypeVar("T")

GIL_SWITCH_S = 0.001
"""How long the event loop waits for the GIL while solver threads run Python code;
CPython's default (5 ms) is paid each time handling a request gives the GIL back (every
socket read and write), which adds up on other games' GETs while slow moves run."""


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
        self._slots: anyio.Semaphore | None = None

    async def run(self, game_id: str, seconds: float | None, fn: Callable[[Budget], T]) -> T:
        """Runs ``fn(budget)`` for ``game_id`` once its turn comes, off the event loop."""
        budget = Budget(seconds)
        if self._admitted >= self.total + self.threads:
            raise BudgetExceededError("the server is busy; try again in a moment")
        turn = self._turns.get(game_id)
        if turn is None:
            turn = self._turns[game_id] = _Turn()
        if turn.count > self.per_game:
            raise BudgetExceededError("too many moves are waiting on this game; try again")
        if self._limiter is None:  # made on the event loop, where anyio wants them
            self._limiter = CapacityLimiter(self.threads)
            self._slots = anyio.Semaphore(self.threads)
        turn.count += 1
        self._admitted += 1
        try:
            return await self._run_in_turn(turn, budget, fn)
        finally:
            turn.count -= 1
            self._admitted -= 1
            if turn.count == 0:
                del self._turns[game_id]

    async def _run_in_turn(self, turn: _Turn, budget: Budget, fn: Callable[[Budget], T]) -> T:
        """Waits (at most until the deadline) for the game's turn and a solver thread."""
        assert self._limiter is not None and self._slots is not None
        left = budget.remaining()
        got_turn = got_slot = False
        with anyio.move_on_after(math.inf if left is None else left):
            await turn.lock.acquire()
            got_turn = True
            await self._slots.acquire()
            got_slot = True
        try:
            if not got_slot or budget.expired():
                raise BudgetExceededError("the move waited its whole time budget; try again")
            return await anyio.to_thread.run_sync(fn, budget, limiter=self._limiter)
        finally:
            if got_slot:
                self._slots.release()
            if got_turn:
                turn.lock.release()
