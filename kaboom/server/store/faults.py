"""A database that cannot answer, as the server's own errors: down, restarting or a
connection lost is :class:`StoreUnavailableError` (503), a full disk :class:`StoreFullError`
(507), never a 500."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, ParamSpec, TypeVar

from kaboom.server.errors import StoreConnectionLostError, StoreFullError, StoreUnavailableError
from kaboom.solver import KaboomError

__all__ = ["Fault", "Faults", "StoreOpenError", "read_again"]

P = ParamSpec("P")
R = TypeVar("R")

Fault = Literal["unavailable", "connection_lost", "disk_full"]
"""Why the database could not do its part: it cannot answer now, the connection died
during a statement, or its disk is full."""


class StoreOpenError(RuntimeError):
    """The store named by the settings cannot be opened (a wrong URL, a server down, a
    file that is not a database)."""


def read_again(read: Callable[P, R]) -> Callable[P, R]:
    """``read`` tried once more when its connection died under it: the pool gives the
    second try a fresh connection (a database restart or a cut connection kills every
    pooled one, and each would fail the next request that took it), and a read changes
    nothing, so asking twice is safe.  A change is not retried so: it may have committed,
    which only reading the game again tells (``kaboom.server.sessions``)."""

    @functools.wraps(read)
    def again(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return read(*args, **kwargs)
        except StoreConnectionLostError:
            return read(*args, **kwargs)

    return again


class Faults:
    """Turns a driver's errors into the server's (a backend says which of its errors are
    a :data:`Fault`, ``_fault``), counts them, and keeps :attr:`disk_full`."""

    disk_full = False
    """Whether this process's last write failed for want of disk space, until a write
    commits: ``/api/health`` says so."""

    def _fault(self, exc: Exception) -> Fault | None:  # pragma: no cover - abstract
        raise NotImplementedError

    @contextmanager
    def _answering(self, write: bool, lost: Callable[[], bool] = lambda: False,
                   ) -> Iterator[None]:
        """Turns the driver's errors for a database that cannot answer into the server's
        own (503, 507); ``lost`` tells whether the connection died with it.  Counts
        them, and keeps :attr:`disk_full` for ``/api/health``."""
        try:
            yield
        except Exception as exc:
            fault = self._fault(exc)
            if fault is None:
                raise
            if fault == "unavailable" and lost():
                fault = "connection_lost"
            raise self._failed(fault, exc) from exc
        if write and self.disk_full:
            self._note_disk_full(False)

    def _failed(self, fault: Fault, exc: Exception) -> KaboomError:
        # Imported here, not at the top: the CLI imports this module before it prepares
        # the metrics folder (kaboom.server.metrics_folder).
        from kaboom.server.metrics import STORE_FAULTS

        STORE_FAULTS.labels(fault).inc()
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if fault == "disk_full":
            self._note_disk_full(True)
            return StoreFullError(
                "the server's disk is full: nothing new can be stored now (games stored"
                f" before can still be read); nothing changed ({reason})")
        if fault == "connection_lost":
            return StoreConnectionLostError(
                f"the connection to the game store was lost ({reason}); try again")
        return StoreUnavailableError(
            f"the game store cannot answer now ({reason}); nothing changed, try again")

    def _note_disk_full(self, full: bool) -> None:
        from kaboom.server.metrics import STORE_DISK_FULL

        self.disk_full = full
        STORE_DISK_FULL.set(int(full))
