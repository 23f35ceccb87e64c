"""``kaboom serve``: run the game server with uvicorn, in one process or several
(:mod:`server.workers`)."""

from __future__ import annotations

import argparse
import os
import sys

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
    parser.add_argument("--budget", type=float, default=None, help="solver seconds per move")
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
    parser.add_argument("--log-level", default="warning")


def run(args: argparse.Namespace) -> int:
    import uvicorn

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
    from server.config import Settings

    settings = Settings()
    if args.workers > 1 and settings.db == ":memory:":
        raise SystemExit("kaboom serve: several workers need a shared store, not :memory:")
    if args.workers > 1 and args.port == 0:
        raise SystemExit("kaboom serve: several workers need a fixed --port (each binds it)")
    print(f"Kaboom on http://{args.host}:{args.port} ({args.workers} worker(s))", flush=True)
    if args.workers > 1:
        from server.workers import serve

        return serve(args.host, args.port, args.workers, args.log_level)
    from server.store import StoreOpenError

    try:
        uvicorn.run(
            "server.main:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            server_header=False,
        )
    except StoreOpenError as exc:
        print(f"kaboom serve: {exc}", file=sys.stderr)
        return 2
    return 0
