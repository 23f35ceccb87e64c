"""The server's own errors (storage and access); the app maps each to one HTTP status."""

from __future__ import annotations

from kaboom.solver import (
    BudgetExceededError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    KaboomError,
)

__all__ = [
    "ConflictError",
    "GameNotFoundError",
    "MissingTokenError",
    "MoveLimitError",
    "NotPlayerError",
    "RateLimitedError",
    "ServerFullError",
    "StoreConnectionLostError",
    "StoreFullError",
    "StoreUnavailableError",
    "status_of",
]


class GameNotFoundError(KaboomError, LookupError):
    """Raised when no game has the given id (never made, or expired)."""


class NotPlayerError(KaboomError, PermissionError):
    """Raised when a request that only the player may make comes without the player's
    token (spectators watch, only the player moves), or a scrape of the metrics without
    the server's metrics token."""


class MissingTokenError(NotPlayerError):
    """Raised when a request that needs a token carries none at all."""


class MoveLimitError(IllegalMoveError):
    """Raised when a move would take a game past the moves it may keep
    (``Settings.move_limit_per_cell``); the game is unchanged.  An illegal move like any
    other in the game's state (409): an undo, where the game allows one, makes room."""


class ConflictError(KaboomError, RuntimeError):
    """Raised when a change lost its compare-and-set race too many times in a row."""


class RateLimitedError(KaboomError, RuntimeError):
    """Raised when a client creates games faster than the server allows."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerFullError(RateLimitedError):
    """Raised when all clients together have created the day's cells of new games
    (``Settings.create_cells_per_day_total``): no fault of this client's (503)."""


class StoreUnavailableError(KaboomError, RuntimeError):
    """Raised when the game store cannot answer now: the database is down, restarting or
    unreachable, or a lock was held too long (503, try again)."""


class StoreConnectionLostError(StoreUnavailableError):
    """Raised when the connection to the database died during a statement: a change sent
    on it may have committed, which only reading the game again can tell."""


class StoreFullError(KaboomError, RuntimeError):
    """Raised when the store's disk is full: nothing new can be stored, and what is stored
    can still be read (507)."""


# Most specific first: each error class is answered with one status code.
_STATUS: list[tuple[type[KaboomError], int]] = [
    (GameNotFoundError, 404),
    (MissingTokenError, 401),
    (NotPlayerError, 403),
    (ConflictError, 409),
    (IllegalMoveError, 409),
    (InvalidMoveError, 422),
    (InvalidPositionError, 409),
    (ServerFullError, 503),
    (RateLimitedError, 429),
    (BudgetExceededError, 503),
    (StoreUnavailableError, 503),
    (StoreFullError, 507),
]


def status_of(exc: KaboomError) -> int:
    """The HTTP status that answers ``exc``, for the JSON API and the page alike."""
    return next((code for cls, code in _STATUS if isinstance(exc, cls)), 400)
