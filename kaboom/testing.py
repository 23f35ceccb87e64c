"""Real local services for the tests and the benchmarks: a free port, a ``kaboom serve``
process, a throwaway PostgreSQL cluster, nginx in front of servers with the repository's
configuration, and the flags Debian's Chromium runs with.

They live in the package, not in ``tests/``, so that the bench scripts start servers the
same way the tests do without putting the checkout on ``sys.path``.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

import httpx

__all__ = [
    "CHROMIUM_ARGS", "NGINX_MAIN", "NGINX_TEMPLATE", "NO_CREATION_LIMITS", "LiveServer",
    "NginxProxy", "PostgresServer", "ProxiedServer", "edge_server", "find_nginx",
    "find_postgres", "free_port", "render_nginx",
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


NO_CREATION_LIMITS: dict[str, Any] = {
    "create_per_minute": 0, "create_cells_per_day": 0, "create_cells_per_day_total": 0,
}
"""Settings for a server whose one client (a bench, a bot run) makes many games."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (the kernel picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _listening(port: int, seconds: float, gone: Callable[[], bool] = lambda: False) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port`` within ``seconds``;
    ``False`` as soon as ``gone()`` says the process that should listen has exited."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            if gone():
                return False
            time.sleep(0.05)
    return False


class LiveServer:
    """A real ``kaboom serve`` process on a free port.

    ``settings`` are :class:`kaboom.server.config.Settings` fields, passed to the server as
    ``KABOOM_*`` environment variables.
    """

    def __init__(
        self,
        db: Path | str,
        port: int | None = None,
        *,
        grace_s: float = 10.0,
        **settings: object,
    ) -> None:
        self.db = db
        self.command: Sequence[str] = (sys.executable, "-m", "kaboom")
        """The ``kaboom`` command to start: this checkout's, or another's (a bench's
        "before", to compare two versions in one run)."""
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
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
        )
        deadline = time.monotonic() + 90  # a busy machine starts a server slowly
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

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc else []

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
        if not _listening(self.port, 30):
            raise RuntimeError("PostgreSQL did not start")
        return self

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


NGINX_TEMPLATE = Path(__file__).resolve().parents[1] / "deploy" / "kaboom.conf.template"
"""The project's nginx site (in a checkout: the tests and benches run from one)."""
NGINX_MAIN = NGINX_TEMPLATE.with_name("nginx.conf")
"""nginx's main configuration in the container, whose worker settings the tests take."""


def render_nginx(template: str, listen: str, upstreams: list[str]) -> str:
    """The template with its two placeholders filled in, as the nginx image's envsubst
    step fills them in under compose; any other ``${KABOOM_...}`` left is an error."""
    servers = " ".join(f"server {u};" for u in upstreams)
    text = template.replace("${KABOOM_LISTEN}", listen).replace("${KABOOM_UPSTREAMS}", servers)
    left = re.findall(r"\$\{KABOOM_[A-Z_]+\}", text)
    if left:
        raise ValueError(f"the nginx template has placeholders nobody fills in: {left}")
    return text


def find_nginx() -> Path | None:
    """Debian's nginx (in /usr/sbin, which a user's PATH may lack)."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    return Path(found) if found else None


class NginxProxy:
    """A real nginx in front of ``upstreams`` (``host:port`` each) with the project's
    configuration (:data:`NGINX_TEMPLATE`), listening on a free port of 127.0.0.1.

    It runs in the foreground (no daemon), with its prefix, pid file, logs and temporary
    files in a directory of its own, so that it needs no privilege and leaves nothing
    behind; under root its worker processes run as ``nobody``.  Its main configuration
    is the container's (``deploy/nginx.conf``: worker processes, connections, open files)
    with this directory's paths instead of the image's.
    """

    def __init__(self, upstreams: list[str], deploy: Path | None = None) -> None:
        binary = find_nginx()
        if binary is None:
            raise RuntimeError("nginx is not installed: run ./test.sh (it installs `nginx`)")
        self.binary = binary
        self.upstreams = upstreams
        self.template = deploy / NGINX_TEMPLATE.name if deploy else NGINX_TEMPLATE
        """The site's template: this checkout's, or another's ``deploy/`` (a bench's
        "before")."""
        self.main = self.template.with_name(NGINX_MAIN.name)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.root = Path(tempfile.mkdtemp(prefix="kaboom-nginx-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def _write(self) -> Path:
        root = self.root
        for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (root / "temp" / d).mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:  # the workers run as nobody, and write the temporary files
            for path in (root, root / "temp", *(root / "temp").iterdir()):
                shutil.chown(path, "nobody")
        site = render_nginx(self.template.read_text(), f"127.0.0.1:{self.port}",
                            self.upstreams)
        (root / "kaboom.conf").write_text(site)
        temps = "\n".join(f"    {kind}_temp_path {root}/temp/{d};" for kind, d in (
            ("client_body", "body"), ("proxy", "proxy"), ("fastcgi", "fastcgi"),
            ("uwsgi", "uwsgi"), ("scgi", "scgi")))
        conf = root / "nginx.conf"
        worker = dict(re.findall(r"^\s*(worker_\w+) ([^;]+);", self.main.read_text(), re.M))
        conf.write_text(
            f"worker_processes {worker['worker_processes']};\n"
            f"worker_rlimit_nofile {worker['worker_rlimit_nofile']};\n"
            + ("user nobody nogroup;\n" if os.geteuid() == 0 else "")
            + f"events {{ worker_connections {worker['worker_connections']}; }}\n"
            f"http {{\n{temps}\n    access_log off;\n    include {root}/kaboom.conf;\n}}\n")
        return conf

    def start(self) -> Self:
        conf = self._write()
        self.proc = subprocess.Popen(
            [str(self.binary), "-p", f"{self.root}/", "-c", str(conf),
             "-e", str(self.root / "error.log"),
             "-g", f"daemon off; pid {self.root}/nginx.pid;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )
        proc = self.proc
        if _listening(self.port, 30, lambda: proc.poll() is not None):
            return self
        if proc.poll() is not None:
            raise RuntimeError(f"nginx exited: {self.errors()}")
        self.stop()
        raise RuntimeError(f"nginx did not listen in 30 s: {self.errors()}")

    def errors(self, last: int = 4000) -> str:
        """The end of nginx's error log (for a failure message)."""
        try:
            return (self.root / "error.log").read_text(errors="replace")[-last:]
        except OSError:
            return ""

    def stop(self) -> None:
        try:
            if self.proc and self.proc.poll() is None:
                self.proc.terminate()  # nginx's fast shutdown
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ProxiedServer:
    """What ``docker compose up`` runs, on this machine: ``processes`` ``kaboom serve``
    processes on one store, and :class:`NginxProxy` in front of them (with ``deploy``'s
    configuration, by default this checkout's); :attr:`url` is nginx's.  ``settings`` go
    to every process, as for :class:`LiveServer`."""

    def __init__(self, db: Path | str, processes: int = 2, *, deploy: Path | None = None,
                 **settings: Any) -> None:
        self.servers = [LiveServer(db, **settings) for _ in range(processes)]
        self.nginx = NginxProxy([f"127.0.0.1:{s.port}" for s in self.servers], deploy)
        self.port = self.nginx.port
        self.url = self.nginx.url

    def start(self) -> Self:
        try:
            for server in self.servers:
                server.start()
            self.nginx.start()
        except BaseException:
            self.stop()
            raise
        return self

    def pids(self) -> list[int]:
        """The server processes' (not nginx's)."""
        return [pid for server in self.servers for pid in server.pids()]

    def stop(self) -> None:
        self.nginx.stop()
        for server in self.servers:
            server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def edge_server(row: str, db: Path | str, before: str | None = None, processes: int = 1,
                **settings: Any) -> LiveServer | ProxiedServer:
    """The server of a bench's row: ``"before"``, the ``kaboom`` command ``before`` (an older
    checkout's) alone, guarding itself as it did; ``"after"``, this checkout's ``processes``
    behind nginx.  Not started."""
    if row == "before":
        if before is None:
            raise ValueError("the before row needs the older kaboom command")
        server = LiveServer(db, **settings)
        server.command = [before]
        server.env["PYTHONPATH"] = ""  # its own checkout's code, not one this run was given
        return server
    return ProxiedServer(db, processes, **settings)
