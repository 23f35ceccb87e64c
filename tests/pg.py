"""A real PostgreSQL server for the tests: Debian's ``initdb``/``pg_ctl`` in a temporary
directory on a free port (no mock, no shared system cluster).

PostgreSQL refuses to run as root, so under root (CI) the cluster belongs to the
``postgres`` user that Debian's package creates, and its tools run as that user.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PostgresServer", "find_bin"]


def find_bin() -> Path | None:
    """Debian keeps the server tools under /usr/lib/postgresql/<version>/bin."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One throwaway cluster; :meth:`url` names a fresh database in it."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = _free_port()
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
        if self._as_postgres:
            shutil.chown(self.root, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "kaboom", "-A", "trust",
                  "--no-sync", "-E", "UTF8")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
                   " -c fsync=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-t", "60",
                  "-l", str(self.root / "log"), "start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("PostgreSQL did not start")

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
