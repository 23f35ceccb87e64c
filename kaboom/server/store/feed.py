"""How a process learns of the changes other processes commit to a game: PostgreSQL tells
it (``LISTEN``/``NOTIFY``), a SQLite file is asked (``PRAGMA data_version``).

A feed that is :attr:`Feed.live` tells of every change (``notice(game_id, version)``), and
the watcher (:mod:`kaboom.server.watcher`) then reads nothing while it waits; a feed that
is not live (SQLite always, PostgreSQL while its listening connection is down) is polled:
:meth:`Feed.moved` says cheaply whether anything may have changed, and only then are the
watched games' versions read.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Protocol

__all__ = ["CHANNEL", "LISTENER_NAME", "Feed", "Notice", "PostgresFeed", "SqliteFeed"]

log = logging.getLogger("kaboom")

Notice = Callable[[str, int], None]
"""Told a game's id and the version a change committed elsewhere gave it."""

CHANNEL = "kaboom_games"
"""PostgreSQL's channel: every committed change notifies ``"<game id> <version>"`` on it."""

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
                        game_id, _, version = told.payload.rpartition(" ")
                        if version.isdigit():  # anything else on the channel is not ours
                            notice(game_id, int(version))
            except Exception as exc:  # the connection, or ``resumed``'s read, failed
                if self._live:
                    log.warning("the change feed was lost (%s); polling until it is back",
                                " ".join(str(exc).split()) or type(exc).__name__)
            finally:
                self._live = False
            await asyncio.sleep(RECONNECT_S)
