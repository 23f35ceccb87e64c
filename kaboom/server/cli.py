"""``kaboom serve``: run the game server, one uvicorn process.  Several processes run
behind nginx, which spreads requests over them (``docker-compose.yml``, docs/deploy.md)."""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
from typing import Any

from kaboom.solver.bench.args import seconds

__all__ = ["add_arguments", "run"]


def _port(text: str) -> int:
    """A TCP port (uvicorn took 99999 as 99999 mod 65536 and said it listened on 99999)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0 to 65535; 0: any free one)")
    return port


LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=_port, default=8000, help="port to listen on")
    parser.add_argument(
        "--db",
        default=None,
        help="SQLite file or postgresql://user@host/db URL (default: $KABOOM_DB or kaboom.db)",
    )
    parser.add_argument("--budget", type=seconds(0.0), default=None,  # 0 refused every move
                        help="solver seconds per move (default 5)")
    parser.add_argument(
        "--count-encoding",
        choices=["native", "totalizer"],
        default=None,
        help="how the mine count is put to the SAT solver (default: totalizer)",
    )
    parser.add_argument(
        "--durable",
        action="store_true",
        help="fsync every move (SQLite synchronous=FULL): survives power loss, slower",
    )
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="warning",
                        help="uvicorn's log level (default warning)")


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, made here so that a port in use is one line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(app: Any, log_level: str) -> Any:
    """The process's uvicorn configuration: no ``Server`` banner.  uvicorn takes the
    client from ``X-Forwarded-For`` only from the addresses of ``FORWARDED_ALLOW_IPS`` (its
    default: 127.0.0.1), which is to name the proxy alone."""
    import uvicorn

    return uvicorn.Config(app, log_level=log_level, server_header=False)


def run(args: argparse.Namespace) -> int:
    import uvicorn
    from pydantic import ValidationError

    env = {
        "KABOOM_DB": args.db,
        "KABOOM_MOVE_BUDGET_S": None if args.budget is None else str(args.budget),
        "KABOOM_SQLITE_SYNCHRONOUS": "FULL" if args.durable else None,
        "KABOOM_COUNT_ENCODING": args.count_encoding,
    }
    os.environ.update({k: v for k, v in env.items() if v is not None})
    from kaboom.server.config import Settings

    try:
        settings = Settings()
    except ValidationError as exc:  # a KABOOM_* variable out of its range
        for error in exc.errors():
            name = "KABOOM_" + "_".join(str(part) for part in error["loc"]).upper()
            print(f"kaboom serve: {name}={error.get('input')!s:.40}: {error['msg']}",
                  file=sys.stderr)
        return 2
    from kaboom.server.main import create_app
    from kaboom.server.store import StoreOpenError

    try:
        app = create_app(settings)
    except StoreOpenError as exc:
        print(f"kaboom serve: {exc}", file=sys.stderr)
        return 2
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        print(f"kaboom serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    config = uvicorn_config(app, args.log_level)
    sock.listen(config.backlog)  # connections wait from the moment the banner names the port
    port = sock.getsockname()[1]  # the one the kernel chose, for --port 0
    print(f"Kaboom on http://{args.host}:{port}", flush=True)
    # uvicorn raises the SIGINT it stopped on again once it has stopped: a terminal's
    # Ctrl-C would end in a traceback
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])
    return 0
