"""Waiting for a game to change, whichever server process changes it (long polls and
event streams).

A waiter watches a game (:meth:`Watcher.watch`) before it reads it, so no change can fall
between its read and its wait.  A change this process commits wakes the game's waiters at
once, with the game as committed.  Changes other processes commit come through the store's
feed (:mod:`kaboom.server.store.feed`): told as they commit on PostgreSQL, with the game
itself when the notice can carry it, and then nothing is read while the waiters wait;
while the feed is not live (SQLite, or PostgreSQL's listening connection down) it is asked
each interval, and the watched games' versions are read when it says something may have
moved.  A game changed elsewhere and not carried is read once in this process, however
many wait for it, and handed to all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from types import TracebackType

from kaboom.server.errors import GameNotFoundError
from kaboom.server.game import Game
from kaboom.server.metrics import LONG_POLLS
from kaboom.server.store import GameStore, Told

__all__ = ["Watch", "Watcher"]

log = logging.getLogger("kaboom")


@dataclass(slots=True)
class _Watched:
    """What this process knows of one watched game."""

    watches: int = 0
    latest: Game | None = None
    """The newest version of the game read or committed here."""
    told: int = -1
    """The newest version known to be committed (told by the feed, or polled)."""
    waiting: list[tuple[int, asyncio.Future[Game | None]]] = field(default_factory=list)
    reading: bool = False


def _expire(future: asyncio.Future[Game | None]) -> None:
    if not future.done():
        future.set_result(None)


class Watch:
    """One waiter's hold on one game, from before its first read until :meth:`close`."""

    def __init__(self, watcher: Watcher, game_id: str) -> None:
        self._watcher = watcher
        self.game_id = game_id
        self._open = True

    async def next(self, version: int, deadline: float) -> Game | None:
        """The game once a version after ``version`` is committed, by any process; None
        at ``deadline`` (the event loop's clock)."""
        return await self._watcher._next(self.game_id, version, deadline)

    def close(self) -> None:
        """Lets the game go (again: nothing)."""
        if self._open:
            self._open = False
            self._watcher._release(self.game_id)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class Watcher:
    """Wakes the waiters of games that change, in this process or another."""

    def __init__(self, store: GameStore, interval: float, longest: float) -> None:
        self.store = store
        self.feed = store.feed()
        self.interval = interval
        """How often the feed is asked while it is not live."""
        self.longest = longest
        """The longest a long poll lasts, whatever the client asks."""
        self._games: dict[str, _Watched] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def watch(self, game_id: str) -> Watch:
        """Watches ``game_id`` (on the event loop) until the watch is closed."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # the first watch on this loop: follow the feed
            self._loop = loop
            self._tasks = [loop.create_task(self.feed.follow(self._told, self._catch_up)),
                           loop.create_task(self._poll())]
        entry = self._games.get(game_id)
        if entry is None:
            entry = self._games[game_id] = _Watched()
        entry.watches += 1
        return Watch(self, game_id)

    def changed(self, game: Game) -> None:
        """Called from any thread once this process committed ``game``: its waiters get it
        at once."""
        loop = self._loop
        if loop is not None and game.id in self._games:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                loop.call_soon_threadsafe(self._arrived, game)

    async def close(self) -> None:
        """Stops following the feed."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks, self._loop = [], None

    # ------------------------------------------------------------------ on the loop
    async def _next(self, game_id: str, version: int, deadline: float) -> Game | None:
        entry = self._games[game_id]
        if entry.latest is not None and entry.latest.version > version:
            return entry.latest
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Game | None] = loop.create_future()
        waiter = (version, future)
        entry.waiting.append(waiter)
        if entry.told > version:
            self._read(game_id, entry)  # committed elsewhere, not read yet
        # a timer, not asyncio.wait_for: thousands of pages wait at once, and wait_for's
        # task and futures for each were a good part of waking them all
        timer = loop.call_at(deadline, _expire, future)
        LONG_POLLS.inc()
        try:
            return await future
        finally:
            timer.cancel()
            LONG_POLLS.dec()
            with contextlib.suppress(ValueError):
                entry.waiting.remove(waiter)

    def _release(self, game_id: str) -> None:
        entry = self._games[game_id]
        entry.watches -= 1
        if entry.watches == 0:
            del self._games[game_id]

    def _told(self, told: Told) -> None:
        """A change committed (here or elsewhere) gave a game a new version."""
        entry = self._games.get(told.game_id)
        if entry is None or told.version <= entry.told:
            return
        entry.told = told.version
        game = told.game()
        if game is not None:
            self._arrived(game)
        elif entry.waiting and (entry.latest is None or entry.latest.version < told.version):
            self._read(told.game_id, entry)

    def _arrived(self, game: Game) -> None:
        """The game as committed or read: its waiters behind it get it."""
        entry = self._games.get(game.id)
        if entry is None or (entry.latest is not None and entry.latest.version >= game.version):
            return
        entry.latest = game
        entry.told = max(entry.told, game.version)
        for version, future in entry.waiting:
            if version < game.version and not future.done():
                future.set_result(game)

    def _read(self, game_id: str, entry: _Watched) -> None:
        if not entry.reading:
            entry.reading = True
            asyncio.get_running_loop().create_task(self._reading(game_id, entry))

    async def _reading(self, game_id: str, entry: _Watched) -> None:
        """Reads the game until the newest version told is read (one read at a time for
        all of a game's waiters), while anyone waits for it."""
        try:
            while (self._games.get(game_id) is entry and entry.waiting
                   and (entry.latest is None or entry.latest.version < entry.told)):
                try:
                    game = await asyncio.to_thread(self.store.get, game_id)
                except GameNotFoundError:
                    return  # expired: nothing more will change
                except Exception as exc:  # the store cannot answer: again soon
                    log.debug("watched game %s not read: %s", game_id, exc)
                    await asyncio.sleep(self.interval)
                    continue
                self._arrived(game)
                if game.version < entry.told:  # not visible yet: again soon
                    await asyncio.sleep(self.interval)
        finally:
            entry.reading = False

    async def _catch_up(self) -> None:
        """Reads the versions of every watched game once (the feed was not live)."""
        ids = list(self._games)
        if ids:
            for game_id, version in (await asyncio.to_thread(self.store.versions, ids)).items():
                self._told(Told(game_id, version))

    async def _poll(self) -> None:
        """While the feed is not live: asks it each interval whether anything moved, and
        reads the watched games' versions when it did."""
        behind = False  # the feed moved, and the versions are still to be read
        while True:
            if self._games and not self.feed.live:
                try:
                    if behind or await asyncio.to_thread(self.feed.moved):
                        behind = True
                        await self._catch_up()
                        behind = False
                except Exception as exc:  # a store hiccup: read next interval
                    log.debug("watched games not polled: %s", exc)
            await asyncio.sleep(self.interval)
