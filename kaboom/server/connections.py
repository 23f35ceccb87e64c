"""What a connection may hold before it has sent a request: a deadline for its headers,
and caps on open connections per client and per process.

uvicorn waits for ever for a request's headers, and a connection that sends nothing at
all is never closed: each holds a file descriptor, so a few thousand connections that
send their headers a byte at a time (slowloris) would shut every other player out of
the process.  :func:`uvicorn_config` gives ``kaboom serve`` an HTTP protocol that closes
a connection whose headers are late (with a 408), refuses a client's connections past
``connections_per_client`` (429; over every worker of ``--workers N``: :class:`ClientCounts`)
and any connection past the process's cap (503).  What
comes after the headers has its own bounds: the body's deadline
(:class:`kaboom.server.edge.BodyGuard`) and each move's budget.

Connections from a trusted proxy (uvicorn's ``FORWARDED_ALLOW_IPS``, ``127.0.0.1`` unless
set) are not counted per client: every player behind it shares its address, and the
proxy applies its own limits to them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import resource
import secrets
import time
from collections import Counter
from typing import Any

import numpy as np
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kaboom.server.config import Settings
from kaboom.server.edge import SECURITY_HEADERS, bucket_of, trusted_proxies
from kaboom.server.metrics import CONNECTION_REFUSALS, CONNECTIONS_OPEN

__all__ = ["ClientCounts", "client_cells", "connection_cap", "guarded_protocol", "uvicorn_config"]

_RESERVED_FDS = 100
"""Descriptors kept back from connections for the store, logs and worker threads."""


def connection_cap(settings: Settings) -> int:
    """Open connections one process accepts: ``max_connections``, or else the process's
    open-file limit less what the store and logs need."""
    if settings.max_connections is not None:
        return settings.max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1_000_000
    return max(1, soft - _RESERVED_FDS)


def _refusal(status: int, reason: str, detail: str) -> bytes:
    """A whole answer, written before any request reached the app: the app's JSON error
    and the headers every answer carries."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()), (b"connection", b"close"),
               *([] if status == 408 else [(b"retry-after", b"1")]), *SECURITY_HEADERS]
    head = f"HTTP/1.1 {status} {reason}\r\n".encode()
    return head + b"".join(k + b": " + v + b"\r\n" for k, v in headers) + b"\r\n" + body


def client_cells(client: str, key: bytes, cells: int) -> tuple[int, int]:
    """A client's two cells of a shared table of ``cells`` columns, by a hash keyed with
    the run's secret ``key``: clients add up only where they share both, and nobody who
    does not know the key can choose addresses that do."""
    digest = hashlib.blake2b(client.encode(), digest_size=8, key=key).digest()
    return int.from_bytes(digest[:4]) % cells, int.from_bytes(digest[4:]) % cells


class ClientCounts:
    """Open connections per client, over every worker process of a server: with
    ``SO_REUSEPORT`` the kernel spreads one client's connections over the workers, and a
    count in each process let one address hold the cap once a worker.

    ``table`` (shared memory the parent made, one row a worker) is written by each worker
    in its own row only, so no lock is needed; a client's count is the sum of its cells
    over the rows.  A client has two cells, chosen by a keyed hash, and its count is the
    smaller of their sums: two clients that share a cell do not add up unless they share
    both, and the secret ``key`` keeps anyone from choosing addresses that do.  The
    parent zeroes a dead worker's row before its successor takes it.  Two workers that
    take a client's connections at the same instant may each let in the cap's last one:
    the bound is the cap plus the workers less one, without a lock between processes."""

    CELLS = 1 << 16
    """Cells a row (256 KB of ``int32``)."""

    def __init__(self, table: np.ndarray[Any, np.dtype[np.int32]], row: int,
                 key: bytes) -> None:
        self.table = table
        self.row = row
        self.key = key

    @classmethod
    def alone(cls) -> ClientCounts:
        """The counts of a server of one process."""
        return cls(np.zeros((1, cls.CELLS), np.int32), 0, secrets.token_bytes(16))

    @classmethod
    def shared(cls, buffer: Any, rows: int, row: int, key: bytes) -> ClientCounts:
        """Worker ``row``'s view of counts in shared memory of ``rows`` rows
        (:meth:`table_of`)."""
        return cls(cls.table_of(buffer, rows), row, key)

    @classmethod
    def table_of(cls, buffer: Any, rows: int) -> np.ndarray[Any, np.dtype[np.int32]]:
        """The table in ``buffer`` (``rows * CELLS`` C ints, a ``multiprocessing``
        ``RawArray('i', ...)``, say)."""
        return np.frombuffer(buffer, dtype=np.int32).reshape(rows, cls.CELLS)

    def cells(self, client: str) -> tuple[int, int]:
        return client_cells(client, self.key, self.CELLS)

    def count(self, cells: tuple[int, int]) -> int:
        return min(int(self.table[:, cell].sum()) for cell in cells)

    def add(self, cells: tuple[int, int], n: int) -> None:
        for cell in cells:
            self.table[self.row, cell] += n


class _RefusalLog:
    """The guard's refusals, told in the server's log at once and then at most once every
    ``every_s`` seconds: an operator learns of an attack without the attack filling the
    log."""

    def __init__(self, every_s: float = 60.0) -> None:
        self.every_s = every_s
        self.statuses: Counter[int] = Counter()
        self.clients: Counter[str] = Counter()
        self.told = -math.inf

    def add(self, status: int, client: str) -> None:
        self.statuses[status] += 1
        self.clients[client] += 1
        now = time.monotonic()
        if now - self.told < self.every_s:
            return
        kinds = ", ".join(f"{n:,} {_KINDS[s]} ({s})" for s, n in sorted(self.statuses.items()))
        top = ", ".join(f"{c} ({n:,})" for c, n in self.clients.most_common(3))
        _log.warning("connections refused: %s; most from %s", kinds, top)
        self.statuses.clear()
        self.clients.clear()
        self.told = now


_KINDS = {408: "headers late", 429: "over a client's cap", 503: "over the process's cap"}
_METRIC_REASONS = {408: "headers_late", 429: "client_cap", 503: "process_cap"}
_log = logging.getLogger("uvicorn.error")  # uvicorn's own: its format and --log-level


def guarded_protocol(header_timeout_s: float, per_client: int, per_process: int,
                     counts: ClientCounts | None = None) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol (httptools) with a headers deadline and connection caps
    (``per_client`` 0: no cap per client), counting clients in ``counts`` (by default
    counts of this process alone).  Each call makes a class of its own: one a server."""
    open_by_client = counts or ClientCounts.alone()
    trusted = trusted_proxies()  # as uvicorn reads them, for its X-Forwarded-For
    refusals = _RefusalLog()

    class GuardedProtocol(HttpToolsProtocol):
        _who = "?"  # the client's bucket (its address, an IPv6 /64), "?" when unknown
        _cells: tuple[int, int] | None = None  # _who's, once counted against its cap
        _deadline: asyncio.TimerHandle | None = None
        _begun = False  # part of a request's headers has arrived

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            CONNECTIONS_OPEN.inc()
            host = self.client[0] if self.client else None
            if host is not None:
                self._who = bucket_of(host)
            if len(self.connections) > per_process:
                self._refuse(503, "Service Unavailable", "the server has too many connections")
                return
            if per_client and host is not None and host not in trusted:
                cells = open_by_client.cells(self._who)
                if open_by_client.count(cells) >= per_client:
                    self._refuse(429, "Too Many Requests",
                                 f"at most {per_client} open connections a client")
                    return
                open_by_client.add(cells, 1)
                self._cells = cells
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            CONNECTIONS_OPEN.dec()
            self._disarm()
            if self._cells is not None:
                open_by_client.add(self._cells, -1)
                self._cells = None
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._begun = True
            self._arm()  # a keep-alive connection's next request: idle until now

        def on_headers_complete(self) -> None:
            self._begun = False
            self._disarm()
            super().on_headers_complete()

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(header_timeout_s, self._headers_late)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _headers_late(self) -> None:
            self._deadline = None
            if self.cycle is not None and not self.cycle.response_complete:
                # the next request's headers began while this one is being answered
                # (pipelined behind a long poll, say): they are not late before it is done
                self._arm()
                return
            if self.transport.is_closing():
                return
            if not self._begun:  # never asked anything (a browser's spare connection)
                CONNECTION_REFUSALS.labels("idle").inc()
                self.transport.close()
                return
            self._refuse(408, "Request Timeout",
                         f"the request's headers did not arrive within {header_timeout_s:g} s")

        def _refuse(self, status: int, reason: str, detail: str) -> None:
            refusals.add(status, self._who)
            CONNECTION_REFUSALS.labels(_METRIC_REASONS[status]).inc()
            self._disarm()
            self.transport.write(_refusal(status, reason, detail))
            self.transport.close()

    return GuardedProtocol


def uvicorn_config(app: Any, settings: Settings, log_level: str,
                   counts: ClientCounts | None = None) -> uvicorn.Config:
    """The uvicorn configuration every ``kaboom serve`` process runs with (``counts``:
    the workers' shared counts of clients' connections, for ``--workers N``)."""
    protocol = guarded_protocol(settings.header_timeout_s, settings.connections_per_client,
                                connection_cap(settings), counts)
    return uvicorn.Config(app, log_level=log_level, server_header=False, http=protocol)
