"""What a connection may hold before it has sent a request: a deadline for its headers,
and caps on open connections per client and per process.

uvicorn waits for ever for a request's headers, and a connection that sends nothing at
all is never closed: each holds a file descriptor, so a few thousand connections that
send their headers a byte at a time (slowloris) would shut every other player out of
the process.  :func:`uvicorn_config` gives ``kaboom serve`` an HTTP protocol that closes
a connection whose headers are late (with a 408), refuses a client's connections past
``connections_per_client`` (429) and any connection past the process's cap (503).  What
comes after the headers has its own bounds: the body's deadline (:class:`server.edge.BodyGuard`)
and each move's budget.

Connections from a trusted proxy (uvicorn's ``FORWARDED_ALLOW_IPS``, ``127.0.0.1`` unless
set) are not counted per client: every player behind it shares its address, and the
proxy applies its own limits to them.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
import resource
import time
from collections import Counter
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.config import Settings
from server.edge import SECURITY_HEADERS, bucket_of
from server.metrics import CONNECTION_REFUSALS, CONNECTIONS_OPEN

__all__ = ["connection_cap", "guarded_protocol", "uvicorn_config"]

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


class _Trusted:
    """The addresses of ``FORWARDED_ALLOW_IPS``: ``*``, or addresses and networks
    separated by commas (other entries, such as a Unix socket's path, match nothing)."""

    def __init__(self, spec: str | list[str]) -> None:
        items = spec if isinstance(spec, list) else spec.split(",")
        items = [item.strip() for item in items if item.strip()]
        self.everyone = "*" in items
        self.networks = []
        for item in items:
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                continue

    def __contains__(self, host: str) -> bool:
        if self.everyone:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


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


def guarded_protocol(header_timeout_s: float, per_client: int,
                     per_process: int) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol (httptools) with a headers deadline and connection caps
    (``per_client`` 0: no cap per client).  Each call makes a class with its own counts:
    one a server."""
    open_by_client: Counter[str] = Counter()
    trusted: _Trusted | None = None
    refusals = _RefusalLog()

    class GuardedProtocol(HttpToolsProtocol):
        _who = "?"  # the client's bucket (its address, an IPv6 /64), "?" when unknown
        _bucket: str | None = None  # _who, once counted against the per-client cap
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
            if per_client and host is not None and host not in self._trusted_hosts():
                if open_by_client[self._who] >= per_client:
                    self._refuse(429, "Too Many Requests",
                                 f"at most {per_client} open connections a client")
                    return
                open_by_client[self._who] += 1
                self._bucket = self._who
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            CONNECTIONS_OPEN.dec()
            self._disarm()
            if self._bucket is not None:
                open_by_client[self._bucket] -= 1
                if open_by_client[self._bucket] <= 0:
                    del open_by_client[self._bucket]
                self._bucket = None
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._begun = True
            self._arm()  # a keep-alive connection's next request: idle until now

        def on_headers_complete(self) -> None:
            self._begun = False
            self._disarm()
            super().on_headers_complete()

        def _trusted_hosts(self) -> _Trusted:
            nonlocal trusted
            if trusted is None:  # the config is uvicorn's, made after this class
                trusted = _Trusted(self.config.forwarded_allow_ips)
            return trusted

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


def uvicorn_config(app: Any, settings: Settings, log_level: str) -> uvicorn.Config:
    """The uvicorn configuration every ``kaboom serve`` process runs with."""
    protocol = guarded_protocol(settings.header_timeout_s, settings.connections_per_client,
                                connection_cap(settings))
    return uvicorn.Config(app, log_level=log_level, server_header=False, http=protocol)
