"""How a process learns of the changes other processes commit to a game: PostgreSQL tells
it (``LISTEN``/``NOTIFY``), a SQLite file is asked (``PRAGMA data_version``).

A feed that is :attr:`Feed.live` tells of every change (:class:`Told`: the game's id and
new version, and the game itself when the notice can carry it), and the watcher
(:mod:`kaboom.server.watcher`) then reads nothing while it waits; a feed that is not live
(SQLite always, PostgreSQL while its listening connection is down) is polled:
:meth:`Feed.moved` says cheaply whether anything may have changed, and only then are the
watched games' versions read.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from kaboom.server.game import Game
from kaboom.server.store.codec import game_from_json

__all__ = ["CHANNEL", "LISTENER_NAME", "Feed", "Notice", "PostgresFeed", "SqliteFeed", "Told",
           "payload"]

log = logging.getLogger("kaboom")

CHANNEL = "kaboom_games"
"""PostgreSQL's channel: every committed change notifies :func:`payload` on it."""

PAYLOAD_MAX = 7900
"""Bytes a notice may carry (PostgreSQL refuses 8000): a game's state up to about 75x75
cells goes with it, a larger one is read by whoever watches it."""


@dataclass(frozen=True, slots=True)
class Told:
    """A change committed elsewhere: its game's id and new version, and the game's state as
    stored when the notice carried it."""

    game_id: str
    version: int
    state: str | None = None

    def game(self) -> Game | None:
        """The game as committed, when the notice carried it (decoded only when asked:
        most notices are of games nobody here watches)."""
        return None if self.state is None else game_from_json(self.state)


Notice = Callable[[Told], None]


def payload(game: Game, state: str) -> str:
    """What a change of ``game`` (stored as ``state``) notifies: ``"<id> <version>"``,
    followed by the state when it fits, so that a process watching the game need not
    read it.  Ids are URL-safe and states ASCII JSON: a space parts them."""
    head = f"{game.id} {game.version}"
    return f"{head} {state}" if len(head) + 1 + len(state) <= PAYLOAD_MAX else head

LISTENER_NAME = "kaboom-listen"
"""The listening connection's ``application_name`` (``pg_stat_activity`` shows it),
followed by the process's id."""

RECONNECT_S = 1.0
"""How long a lost listening connection waits before it connects again."""


class Feed(Protocol):
    """The changes other processes commit, as this process learns of them."""

    @property
    def live(self) -> bool:
        """Whether every change committed elsewhere is told now, as it commits."""

    async def follow(self, notice: Notice, resumed: Callable[[], Awaitable[None]]) -> None:
        """Tells ``notice`` of each change until cancelled; once it is live (again), awaits
        ``resumed`` first, to read what changed while it was not."""

    def moved(self) -> bool:
        """While not live: whether anything may have changed since the last call."""


class SqliteFeed:
    """One file on one machine: no process is told, each asks.  ``PRAGMA data_version``
    changes when another connection (another process) commits to the file, and costs a
    look at the WAL index in shared memory, so asking each interval is nearly free and
    the versions of the watched games are read only when it moved; this process's own
    changes wake its waiters directly."""

    live = False

    def __init__(self, data_version: Callable[[], int]) -> None:
        self._data_version = data_version
        self._last: int | None = None

    async def follow(self, notice: Notice, resumed: Callable[[], Awaitable[None]]) -> None:
        return  # nothing tells: :meth:`moved` is asked instead

    def moved(self) -> bool:
        now = self._data_version()
        moved, self._last = now != self._last, now
        return moved


class PostgresFeed:
    """PostgreSQL's own change feed: one connection per process listens on
    :data:`CHANNEL`, on the event loop (psycopg's async connection), and every change
    notifies in its own transaction, so a change rolled back wakes nobody.  While the
    connection is down the feed is not live (the watcher polls) and it connects again
    every :data:`RECONNECT_S`; back, it listens before ``resumed`` reads, so a change
    made in the gap is either read or told."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._live = False

    @property
    def live(self) -> bool:
        return self._live

    def moved(self) -> bool:
        return True  # not live: the versions are read each interval

    async def follow(self, notice: Notice, resumed: Callable[[], Awaitable[None]]) -> None:
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self._url, autocommit=True,
                    application_name=f"{LISTENER_NAME} {os.getpid()}",
                    connect_timeout=10,
                    # a connection cut without a word (a network gone) is found in ~30 s
                    keepalives=1, keepalives_idle=15, keepalives_interval=5,
                    keepalives_count=3)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    await resumed()
                    self._live = True
                    log.info("listening for changes on PostgreSQL")
                    async for told in conn.notifies():
                        game_id, version, *state = told.payload.split(" ", 2)
                        if version.isdigit():  # anything else on the channel is not ours
                            notice(Told(game_id, int(version), state[0] if state else None))
            except Exception as exc:  # the connection, or ``resumed``'s read, failed
                if self._live:
                    log.warning("the change feed was lost (%s); polling until it is back",
                                " ".join(str(exc).split()) or type(exc).__name__)
            finally:
                self._live = False
            await asyncio.sleep(RECONNECT_S)
