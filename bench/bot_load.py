"""Load on a Kaboom server from K bots playing at once: reveal latency and moves per second.

Usage: python bench/bot_load.py [--preset intermediate] [--levels 1,8,32] [--seconds 20]
           [--think-procs 1] [--server URL] [--json PATH]

Starts ``kaboom serve`` on a free port with a fresh database (unless ``--server`` names
a running one), then for each K keeps K games in play for ``--seconds`` (games under
way at the deadline are finished).  Latencies are round trips measured by the client on
the same host, so they include the HTTP stack; the bots think in ``--think-procs``
worker processes (0: threads), so a slow decision never delays another game's answer.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import tempfile
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

from kaboom.bots.base import (
    Choice,
    GameResult,
    GameSettings,
    Think,
    choose,
    play_game,
    think_in_thread,
)
from kaboom.bots.http import HttpClient
from kaboom.bots.play_cli import summarize
from kaboom.solver import PRESETS, Position, Solver
from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, LiveServer


def _thinker(pool: Executor | None) -> Think:
    if pool is None:
        return think_in_thread

    async def think(solver: Solver, position: Position) -> Choice:
        # another process keeps no game state: a fresh solver there makes the same choice
        call = functools.partial(choose, position, outside_guess=solver.outside_guess,
                                 first_click=solver.first_click)
        return await asyncio.get_running_loop().run_in_executor(pool, call)

    return think


async def measure(url: str, settings: GameSettings, k: int, seconds: float,
                  pool: Executor | None) -> dict[str, object]:
    """Keeps ``k`` games in play for ``seconds``; returns the level's figures."""
    results: list[GameResult] = []
    inner = _thinker(pool)
    thinking: list[float] = []

    async def think(solver: Solver, position: Position) -> Choice:
        start = time.perf_counter()
        choice: Choice = await inner(solver, position)
        thinking.append(time.perf_counter() - start)
        return choice
    async with HttpClient(url, max_connections=2 * k + 4, timeout=60) as client:
        deadline = time.monotonic() + seconds

        async def worker() -> None:
            while time.monotonic() < deadline:
                results.append(await play_game(client, settings, think=think))

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(k)))
        wall = time.perf_counter() - start
        summary = summarize(results, client.latencies, wall, client.retries)
    think_ms = summarize([], {"think": thinking}, 1.0, 0).latency_ms
    return {"k": k, **summary.to_json(), "think_ms": think_ms}


def _table(rows: list[dict[str, object]]) -> str:
    head = (f"{'K':>3} {'games':>6} {'won':>5} {'moves':>7} {'moves/s':>8} "
            f"{'reveal p50':>11} {'reveal p99':>11} {'think p50':>10} {'errors':>6}")
    lines = [head]
    for r in rows:
        rev, think = r["reveal_ms"], r["think_ms"]
        assert isinstance(rev, dict) and isinstance(think, dict)
        lines.append(
            f"{r['k']:>3} {r['games']:>6} {r['wins']:>5} {r['moves']:>7} {r['moves_per_s']:>8.1f} "
            f"{rev['p50'] or 0:>9.1f}ms {rev['p99'] or 0:>9.1f}ms {think['p50'] or 0:>8.1f}ms "
            f"{r['errors']:>6}"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="intermediate")
    ap.add_argument("--levels", default="1,8,32", help="concurrency levels K")
    ap.add_argument("--seconds", type=float, default=20.0, help="time per level")
    ap.add_argument("--think-procs", type=int, default=1,
                    help="processes that run the bots' solver (0: threads)")
    ap.add_argument("--server", help="use this running server instead of starting one")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()

    where = machine()
    settings = GameSettings(*PRESETS[args.preset])
    levels = [int(k) for k in args.levels.split(",")]
    pool = ProcessPoolExecutor(args.think_procs) if args.think_procs > 0 else None
    with tempfile.TemporaryDirectory() as tmp:
        server = None if args.server else LiveServer(  # bots make many games
            Path(tmp) / "load.db", **NO_CREATION_LIMITS).start()
        url = args.server if server is None else server.url
        try:
            rows = []
            for k in levels:
                rows.append(asyncio.run(measure(url, settings, k, args.seconds, pool)))
                print(f"K={k}: {rows[-1]['moves_per_s']} moves/s", file=sys.stderr)
        finally:
            if server is not None:
                server.stop()
            if pool is not None:
                pool.shutdown()
    print(f"{args.preset} ({settings.width}x{settings.height}/{settings.mines}), "
          f"{args.seconds:g} s per level, bots thinking in "
          f"{args.think_procs or 'threads'} process(es), cpus={os.cpu_count()}")
    print(_table(rows))
    if args.json:
        for r in rows:
            r.pop("error_messages", None)
        payload = {"preset": args.preset, "seconds": args.seconds,
                   "think_procs": args.think_procs, "machine": where, "levels": rows}
        Path(args.json).write_text(json.dumps(payload, indent=2))


if __name__ == "__main__":
    main()
