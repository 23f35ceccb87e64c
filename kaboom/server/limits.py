"""The rate limit on new games: per client and for all clients together, shared by every
process on the store."""

from __future__ import annotations

import math
import time

from kaboom.server.config import Settings
from kaboom.server.errors import RateLimitedError, ServerFullError
from kaboom.server.metrics import CREATE_REFUSALS
from kaboom.server.store import GameStore

__all__ = ["CreateLimiter"]


class CreateLimiter:
    """Two token buckets per client address for game creation: games (``burst`` at once,
    then ``per_minute``) and cells (``cells_per_day``, all at once if the client likes),
    so that one address can neither flood the store with small games nor fill its disk
    with a day of the largest ones; and one bucket of cells for all clients together
    (``cells_per_day_total``), which clients of many addresses share.  The buckets live
    in the game store, so a client draws on the same buckets however many processes
    serve it; idle ones go with the expiry.  A rate of 0 turns that bucket off."""

    ALL = "cells (all clients)"
    """The shared bucket's key (no client's: those are addresses and networks)."""

    def __init__(self, settings: Settings, store: GameStore) -> None:
        self.rate = settings.create_per_minute / 60.0
        self.burst = float(settings.create_burst)
        self.cells_rate = settings.create_cells_per_day / 86400.0
        self.cells = float(settings.create_cells_per_day)
        self.total_rate = settings.create_cells_per_day_total / 86400.0
        self.total = float(settings.create_cells_per_day_total)
        self.store = store

    def check(self, key: str, cells: int) -> None:
        """Takes a game and ``cells`` cells from the client ``key``'s buckets and the
        shared one, or raises :class:`RateLimitedError` (:class:`ServerFullError` for
        the shared bucket) saying when to try again.  The client's buckets go first, so
        its refusals never drain the shared one; a refusal for cells costs the client a
        game token, never cells."""
        now = time.time()
        cost = min(float(cells), self.cells)  # a board larger than a day's takes the day's
        if self.rate > 0:
            wait = self.store.take_token(key, now, self.rate, self.burst)
            if wait > 0:
                CREATE_REFUSALS.labels("games").inc()
                raise RateLimitedError(
                    f"too many new games from {key}: try again in {math.ceil(wait)} s", wait
                )
        if self.cells_rate > 0:
            wait = self.store.take_token(f"cells {key}", now, self.cells_rate, self.cells, cost)
            if wait > 0:
                CREATE_REFUSALS.labels("client_cells").inc()
                raise RateLimitedError(
                    f"too many cells of new games from {key} ({self.cells:,.0f} a day):"
                    f" try again in {math.ceil(wait)} s", wait
                )
        if self.total_rate > 0:
            total_cost = min(float(cells), self.total)
            wait = self.store.take_token(self.ALL, now, self.total_rate, self.total, total_cost)
            if wait > 0:
                if self.cells_rate > 0:  # the client's cells back: not its doing
                    self.store.take_token(f"cells {key}", now, self.cells_rate, self.cells,
                                          -cost)
                CREATE_REFUSALS.labels("all_cells").inc()
                raise ServerFullError(
                    f"the server has taken the day's cells of new games"
                    f" ({self.total:,.0f} from all clients): try again in {math.ceil(wait)} s",
                    wait,
                )
