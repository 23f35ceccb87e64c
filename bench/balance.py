"""Behind nginx, one ``kaboom serve --workers N`` or N plain processes: which serves better?

Usage: python bench/balance.py [--processes 2] [--concurrency 8] [--seconds 10] [--repeat 3]
           [--json PATH]

Both setups are behind nginx with the project's configuration (``deploy/``): one upstream,
the supervisor's N workers on one port with ``SO_REUSEPORT`` (the kernel hashes nginx's
kept-alive connections over them), or N upstreams, one ``kaboom serve`` each, which nginx
picks per request (``least_conn``).  Players replay recorded Expert games as
``bench/scale.py``'s do, each from an address of its own (nginx limits each address to 100
requests a second), on one SQLite file; the setups alternate ``--repeat`` times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from scale import measure, record_games

from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, LiveServer, NginxProxy

ROOT = Path(__file__).resolve().parents[1]
SETUPS = ("supervisor", "nginx")


def run(setup: str, processes: int, concurrency: int, seconds: float,
        games: Any) -> dict[str, Any]:
    settings: dict[str, Any] = {**NO_CREATION_LIMITS, "sqlite_synchronous": "NORMAL"}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "balance.db"
        if setup == "supervisor":
            servers = [LiveServer(db, workers=processes, **settings).start()]
        else:
            servers = [LiveServer(db, **settings).start() for _ in range(processes)]
        try:
            with NginxProxy([f"127.0.0.1:{s.port}" for s in servers]) as nginx:
                measure(nginx.port, games, concurrency, 1.0, own_addresses=True)  # warm up
                return {"setup": setup,
                        **measure(nginx.port, games, concurrency, seconds, own_addresses=True)}
        finally:
            for server in servers:
                server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=2, help="server processes")
    ap.add_argument("--concurrency", type=int, default=8, help="players")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of a measurement")
    ap.add_argument("--repeat", type=int, default=3, help="measurements of each setup")
    ap.add_argument("--games", type=int, default=30, help="recorded games to replay")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "balance.json"))
    args = ap.parse_args()
    where = machine()
    games = record_games(args.games)
    rows = []
    for _ in range(args.repeat):
        for setup in SETUPS:
            rows.append(run(setup, args.processes, args.concurrency, args.seconds, games))
            r = rows[-1]
            print(f"{setup:10} {r['moves_per_s']:7.1f} moves/s  reveal p50 "
                  f"{r['reveal_p50_ms']} ms p99 {r['reveal_p99_ms']} ms  errors {r['errors']}",
                  flush=True)
    for setup in SETUPS:
        mine = [r for r in rows if r["setup"] == setup]
        print(f"{setup:10} median {statistics.median(r['moves_per_s'] for r in mine):.0f} "
              f"moves/s, reveal p99 median "
              f"{statistics.median(r['reveal_p99_ms'] for r in mine):.1f} ms")
    settings = {k: v for k, v in vars(args).items() if k != "json"}
    out = {"settings": settings, "machine": where, "load_at_end": os.getloadavg()[0],
           "results": rows}
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
