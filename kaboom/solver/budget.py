"""A wall-clock budget shared by every bounded computation of one request."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["Budget"]


@dataclass(slots=True)
class Budget:
    """A deadline on the monotonic clock; ``Budget(None)`` never runs out."""

    seconds: float | None
    """The time allowed, from :attr:`start`; ``None`` for no limit."""
    start: float = field(default_factory=time.monotonic)
    """When the budget began, on :func:`time.monotonic`'s clock."""

    @property
    def deadline(self) -> float | None:
        """When the budget runs out, on :func:`time.monotonic`'s clock (``None``: never)."""
        return None if self.seconds is None else self.start + self.seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or ``None`` for an unlimited budget."""
        if self.seconds is None:
            return None
        return max(0.0, self.start + self.seconds - time.monotonic())

    def expired(self) -> bool:
        """Whether the time is up (never, for an unlimited budget)."""
        left = self.remaining()
        return left is not None and left <= 0.0

    def elapsed(self) -> float:
        """Seconds since the budget began."""
        return time.monotonic() - self.start

    def share(self, fraction: float) -> Budget:
        """A budget ending when ``fraction`` of the time left now has passed: one step of
        a request takes its share and leaves the rest to the steps after it (a fallback
        never gets more time than the request has left)."""
        left = self.remaining()
        if left is None:
            return Budget(None)
        return Budget(left * fraction)
