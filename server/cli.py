"""``kaboom serve``: run the game server with uvicorn."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument("--db", default=None, help="SQLite file (default: kaboom.db)")
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

    from server.config import Settings
    from server.main import create_app

    overrides: dict[str, object] = {}
    if args.db:
        overrides["db_path"] = args.db
    if args.budget is not None:
        overrides["move_budget_s"] = args.budget
    if args.durable:
        overrides["sqlite_synchronous"] = "FULL"
    if args.count_encoding:
        overrides["count_encoding"] = args.count_encoding
    app = create_app(Settings(**overrides))
    print(f"Kaboom on http://{args.host}:{args.port}", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
