"""Real local services for the tests and the benchmarks: a free port, a ``kaboom serve``
process, a throwaway PostgreSQL cluster, and the flags Debian's Chromium runs with.

They live in the package, not in ``tests/``, so that the bench scripts start servers the
same way the tests do without putting the checkout on ``sys.path``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Self

import httpx

__all__ = [
    "CHROMIUM_ARGS", "NO_CREATION_LIMITS", "LiveServer", "PostgresServer", "find_postgres",
    "free_port",
]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless Chromium under Playwright: Playwright cannot download its own browser here,
and these flags keep Debian's quiet and offline."""


NO_CREATION_LIMITS: dict[str, int] = {
    "create_per_minute": 0, "create_cells_per_day": 0, "create_cells_per_day_total": 0,
}
"""Settings for a server whose one client (a bench, a bot run) makes many games."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (the kernel picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    """A real ``kaboom serve`` process on a free port.

    ``settings`` are :class:`kaboom.server.config.Settings` fields, passed to the server as
    ``KABOOM_*`` environment variables (so that every worker process reads them too).
    """

    def __init__(
        self,
        db: Path | str,
        port: int | None = None,
        workers: int = 1,
        *,
        grace_s: float = 10.0,
        **settings: object,
    ) -> None:
        self.db = db
        self.command: Sequence[str] = (sys.executable, "-m", "kaboom")
        """The ``kaboom`` command to start (set it to another checkout's before :meth:`start`
        to compare two versions)."""
        self.workers = workers
        self.grace_s = grace_s
        """How long :meth:`stop` waits for a graceful shutdown before it kills: open long
        polls hold one for up to ``long_poll_max_s``."""
        self.env = {f"KABOOM_{k.upper()}": str(v) for k, v in settings.items()}
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the server
        """The server's stderr: a file, so a long run's log can never fill a pipe that
        nobody reads (the server would block on its next write)."""

    def start(self) -> Self:
        self.proc = subprocess.Popen(
            [
                *self.command, "serve",
                "--port", str(self.port),
                "--db", str(self.db),
                "--workers", str(self.workers),
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
        )
        deadline = time.monotonic() + 90  # several workers on a busy machine start slowly
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/openapi.json", timeout=1).raise_for_status()
                return self
            except httpx.HTTPError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"kaboom serve exited: {self.stderr()}") from None
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("kaboom serve did not start in 90 s")

    def stderr(self, last: int = 4000) -> str:
        """The end of what the server has written to stderr (for a failure message)."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-last:]

    def kill(self) -> None:
        """Kills the server abruptly (SIGKILL, no graceful shutdown), as a crash would;
        :meth:`start` brings it back on the same port and database."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(self.grace_s)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def find_postgres() -> Path | None:
    """The directory of PostgreSQL's server tools (``initdb``, ``pg_ctl``): Debian keeps
    them under /usr/lib/postgresql/<version>/bin, off the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


class PostgresServer:
    """A throwaway cluster: Debian's ``initdb``/``pg_ctl`` in a temporary directory on a
    free port (no mock, no shared system cluster); :meth:`url` names a fresh database in it.

    PostgreSQL refuses to run as root, so under root (CI) the cluster belongs to the
    ``postgres`` user that Debian's package creates, and its tools run as that user.
    """

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="kaboom-pg-"))
        self.data = self.root / "data"
        self._as_postgres = os.geteuid() == 0
        self._count = 0

    def _run(self, *args: str) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> PostgresServer:
        """Makes the cluster (the first time) and starts its server."""
        if not self.data.exists():
            if self._as_postgres:
                shutil.chown(self.root, "postgres")
            self._run("initdb", "-D", str(self.data), "-U", "kaboom", "-A", "trust",
                      "--no-sync", "-E", "UTF8")
        self._pg_ctl("start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("PostgreSQL did not start")

    def _pg_ctl(self, action: str) -> None:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
                   " -c fsync=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-t", "60",
                  "-l", str(self.root / "log"), "-m", "fast", action)

    def restart(self) -> None:
        """Restarts the server as an operator would (a fast shutdown: every open
        connection is closed, the statements running on them rolled back)."""
        self._pg_ctl("restart")

    def halt(self) -> None:
        """Stops the server (fast), keeping its databases: :meth:`start` brings it back."""
        self._pg_ctl("stop")

    def url(self) -> str:
        """A new, empty database: each test gets its own."""
        import psycopg

        self._count += 1
        name = f"kaboom_{self._count}"
        admin = f"postgresql://kaboom@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql://kaboom@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
