"""Waiting for a game to change, whichever server process changes it (long polls).

Changes made in this process wake a waiter at once; changes made by another process are
seen by reading the versions of every watched game in one query each interval, and only
while someone waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from kaboom.server.game import Game
from kaboom.server.metrics import LONG_POLLS
from kaboom.server.store import GameStore
from kaboom.solver import GameStatus

__all__ = ["Watcher"]


class Watcher:
    """Wakes long polls when a watched game changes, in this process or another.

    Changes made here wake at once; for changes made elsewhere one task per process
    reads the versions of every watched game in one query each ``interval`` seconds,
    and only while someone is waiting.
    """

    def __init__(self, store: GameStore, interval: float, longest: float) -> None:
        self.store = store
        self.interval = interval
        self.longest = longest
        """The longest a wait lasts, whatever the client asks."""
        self._waiting: dict[str, list[tuple[int, asyncio.Future[None]]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._poke = asyncio.Event()

    def changed(self, game_id: str) -> None:
        """Called from any thread after this process committed a change: the watchers
        look at once instead of at the next interval."""
        loop = self._loop
        if loop is not None and game_id in self._waiting:
            loop.call_soon_threadsafe(self._poke.set)

    async def wait_for_change(self, game_id: str, moves: int, timeout: float) -> Game:
        """Returns the game once its move count differs from ``moves`` or it changes
        (a move or an undo, made by any process), or at the timeout."""
        deadline = time.monotonic() + min(timeout, self.longest)
        game = await asyncio.to_thread(self.store.get, game_id)
        if game.moves != moves or game.status is not GameStatus.PLAYING:
            return game
        await self.wait(game_id, game.version, deadline)
        return await asyncio.to_thread(self.store.get, game_id)


    async def wait(self, game_id: str, version: int, deadline: float) -> None:
        """Returns once the game's version differs from ``version``, or at ``deadline``."""
        self._loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = self._loop.create_future()
        entry = (version, future)
        self._waiting.setdefault(game_id, []).append(entry)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        LONG_POLLS.inc()
        try:
            await asyncio.wait_for(future, max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            pass  # answered with the unchanged game
        finally:
            LONG_POLLS.dec()
            waiters = self._waiting.get(game_id, [])
            if entry in waiters:
                waiters.remove(entry)
            if not waiters:
                self._waiting.pop(game_id, None)

    async def _run(self) -> None:
        while self._waiting:
            ids = list(self._waiting)
            try:
                versions = await asyncio.to_thread(self.store.versions, ids)
            except Exception:  # a store hiccup: the waiters time out at worst
                versions = {}
            for game_id in ids:
                current = versions.get(game_id)
                for version, future in self._waiting.get(game_id, []):
                    if current != version and not future.done():
                        future.set_result(None)
            self._poke.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), self.interval)
