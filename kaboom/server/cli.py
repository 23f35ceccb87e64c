"""``kaboom serve``: run the game server with uvicorn, in one process or several
(:mod:`kaboom.server.workers`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kaboom.server.metrics_folder import MULTIPROCESS_DIR, MetricsFolderError, prepare
from kaboom.server.store import sqlite_file
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
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port and the store (default 1)",
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


def run(args: argparse.Namespace) -> int:
    import uvicorn
    from pydantic import ValidationError

    # The options become the settings' environment variables, so that every worker
    # process (which builds its own app) reads the same settings.
    env = {
        "KABOOM_DB": args.db,
        "KABOOM_MOVE_BUDGET_S": None if args.budget is None else str(args.budget),
        "KABOOM_SQLITE_SYNCHRONOUS": "FULL" if args.durable else None,
        "KABOOM_COUNT_ENCODING": args.count_encoding,
    }
    os.environ.update({k: v for k, v in env.items() if v is not None})
    if args.workers < 1:
        raise SystemExit("kaboom serve: --workers must be at least 1")
    from kaboom.server.config import Settings

    try:
        settings = Settings()
    except ValidationError as exc:  # a KABOOM_* variable out of its range
        for error in exc.errors():
            name = "KABOOM_" + "_".join(str(part) for part in error["loc"]).upper()
            print(f"kaboom serve: {name}={error.get('input')!s:.40}: {error['msg']}",
                  file=sys.stderr)
        return 2
    if args.workers > 1 and settings.db == ":memory:":
        raise SystemExit("kaboom serve: several workers need a shared store, not :memory:")
    if args.workers > 1 and args.port == 0:
        raise SystemExit("kaboom serve: several workers need a fixed --port (each binds it)")
    folder = os.environ.get(MULTIPROCESS_DIR)
    if folder:  # the operator's; without one, ``serve`` makes a folder for its workers
        try:
            store = sqlite_file(settings.db)
            prepare(Path(folder), None if store is None else Path(store))
        except (MetricsFolderError, OSError) as exc:
            print(f"kaboom serve: {exc}", file=sys.stderr)
            return 2
    from kaboom.server.store import StoreOpenError, open_store
    from kaboom.server.workers import listening_socket, serve, uvicorn_config

    if args.workers > 1:
        try:  # once here, not once a worker: one line for a wrong URL, and no banner
            open_store(settings.db, synchronous=settings.sqlite_synchronous).close()
        except StoreOpenError as exc:
            print(f"kaboom serve: {exc}", file=sys.stderr)
            return 2
        print(f"Kaboom on http://{args.host}:{args.port} ({args.workers} workers)", flush=True)
        return serve(args.host, args.port, args.workers, args.log_level)
    from kaboom.server.main import create_app

    try:
        app = create_app(settings)
    except StoreOpenError as exc:
        print(f"kaboom serve: {exc}", file=sys.stderr)
        return 2
    try:
        sock = listening_socket(args.host, args.port, shared=False)
    except OSError as exc:
        print(f"kaboom serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    config = uvicorn_config(app, args.log_level)
    sock.listen(config.backlog)  # connections wait from the moment the banner names the port
    port = sock.getsockname()[1]  # the one the kernel chose, for --port 0
    print(f"Kaboom on http://{args.host}:{port} (1 worker)", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
