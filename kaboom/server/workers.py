"""Several server processes on one port, each with a listening socket of its own.

uvicorn's own ``--workers`` shares one listening socket between its processes, and
whichever process wakes first accepts every connection waiting (asyncio and libuv accept
a whole burst at once).  Keep-alive connections then stay where they landed: eight
players connecting together were measured on one process in three runs of four, the other
idle, at half the throughput.  Here each worker binds the port itself with
``SO_REUSEPORT``, and the kernel spreads new connections over the workers by a hash of
each connection's addresses, whatever the workers are doing.

The parent only supervises: it restarts a worker that dies, stops them all on SIGTERM or
SIGINT, and exits if one of the first workers fails before it listens (a wrong database
URL, a port in use), so that a broken configuration fails at once instead of restarting
forever.  Workers die with the parent (``PR_SET_PDEATHSIG``), even if it is killed.  It
also keeps the folder where the workers' metrics meet (:mod:`kaboom.server.metrics`).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
import time
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event
from typing import Any

import uvicorn

from kaboom.server.metrics import worker_gone
from kaboom.server.metrics_folder import MULTIPROCESS_DIR

__all__ = ["listening_socket", "serve", "uvicorn_config"]

log = logging.getLogger("kaboom.workers")

STOP_S = 10.0
"""How long stopping workers may take to finish their requests before they are killed."""


def listening_socket(host: str, port: int, shared: bool = True) -> socket.socket:
    """A socket bound to ``host:port`` that, when ``shared``, other workers may bind too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(app: Any, log_level: str) -> uvicorn.Config:
    """The uvicorn configuration of every ``kaboom serve`` process: no ``Server`` banner.
    uvicorn takes the client from ``X-Forwarded-For`` only from the addresses of
    ``FORWARDED_ALLOW_IPS`` (its default: 127.0.0.1), which is to name the proxy alone."""
    return uvicorn.Config(app, log_level=log_level, server_header=False)


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _worker(host: str, port: int, log_level: str, ready: Event) -> None:
    from kaboom.server.config import Settings
    from kaboom.server.main import create_app
    from kaboom.server.store import StoreOpenError

    _die_with_parent()
    settings = Settings()
    try:
        # opens the store: a wrong URL fails here, before ``ready``
        app = create_app(settings)
    except StoreOpenError as exc:
        print(f"kaboom serve: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    sock = listening_socket(host, port)
    ready.set()
    config = uvicorn_config(app, log_level)
    # uvicorn raises the SIGINT it stopped on again once it has stopped; a terminal's
    # Ctrl-C reaches every worker, and each would print a traceback of it.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])


def serve(host: str, port: int, workers: int, log_level: str) -> int:
    """Runs ``workers`` server processes on ``host:port`` until SIGTERM or SIGINT;
    returns the exit status."""
    # Fail here, with the reason, if anything listens on the port already: bound without
    # SO_REUSEPORT, the probe fails even against another server's shared workers.
    try:
        listening_socket(host, port, shared=False).close()
    except OSError as exc:
        print(f"kaboom serve: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 1
    context = multiprocessing.get_context("spawn")
    stopping = False
    # The workers' metrics go to files in one folder, for any worker to answer a scrape
    # with all of them; a spawned worker reads the variable when it imports the client.
    metrics_dir = None
    if not os.environ.get(MULTIPROCESS_DIR):
        metrics_dir = tempfile.TemporaryDirectory(prefix="kaboom-metrics-")
        os.environ[MULTIPROCESS_DIR] = metrics_dir.name
    else:  # the operator's folder: this process counts nothing, and is no live worker
        worker_gone(os.getpid())

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def start(first: bool) -> tuple[BaseProcess, Event, bool]:
        ready = context.Event()
        proc = context.Process(target=_worker, daemon=True,
                               args=(host, port, log_level, ready))
        proc.start()
        return proc, ready, first

    procs = [start(True) for _ in range(workers)]
    status = 0
    try:
        while not stopping:
            wait([p.sentinel for p, _, _ in procs], timeout=0.5)
            for i, (proc, ready, first) in enumerate(procs):
                if proc.is_alive() or stopping:
                    continue
                if first and not ready.is_set():
                    print(f"kaboom serve: a worker failed to start (exit {proc.exitcode})",
                          file=sys.stderr)
                    stopping, status = True, 1
                    break
                log.warning("worker %s died (exit %s); starting another", proc.pid,
                            proc.exitcode)
                if proc.pid is not None:
                    worker_gone(proc.pid)
                if not ready.is_set():
                    time.sleep(1.0)  # a worker that cannot start is not restarted in a spin
                procs[i] = start(False)
    finally:
        for proc, _, _ in procs:
            if proc.is_alive():
                proc.terminate()
        deadline = time.monotonic() + STOP_S
        for proc, _, _ in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join()
        if metrics_dir is not None:
            del os.environ[MULTIPROCESS_DIR]
            metrics_dir.cleanup()
    return status
