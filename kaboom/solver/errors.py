"""The few exceptions the solver raises; the server maps them to HTTP codes in one place."""

from __future__ import annotations

__all__ = [
    "BudgetExceededError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "KaboomError",
    "NoProofError",
]


class KaboomError(Exception):
    """Base class of every error Kaboom raises on purpose."""


class InvalidPositionError(KaboomError, ValueError):
    """Raised when a board is malformed or inconsistent (bad rows, impossible numbers)."""


class InvalidMoveError(KaboomError, ValueError):
    """Raised when a move cannot be parsed or lies off the board."""


class IllegalMoveError(KaboomError, ValueError):
    """Raised when a well-formed move is not allowed now (game over, cell already open)."""


class NoProofError(IllegalMoveError):
    """Raised when a proof is asked for a cell that is open or not decided."""


class BudgetExceededError(KaboomError, TimeoutError):
    """Raised when a computation ran out of its time budget before it could answer."""
