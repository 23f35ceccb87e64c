"""How long the analysis of a position takes: p50/p99 of
:func:`kaboom.solver.analysis.analyse` (what ``POST /api/analyse`` and ``kaboom analyse``
run) on positions from real games.

Usage: python bench/analyse_time.py --games 10 --sizes 30x16/99 100x100/2000 \
           --json bench/results/analyse_time.json

Each game is a seeded simulated game (safe first click) played to its end by the solver
(``Solver("fast")``); up to ``--per-game`` of its positions in play, drawn at random, are
analysed afterwards, each cold (as the API analyses a position: no warm engine) within
the server's default analysis budget (``--budget``, 3 s), and timed, on the wall clock
and in CPU (on a shared machine the wall clock counts the other processes' turns too).
Prints the figures with how many analyses were settled in full, had exact probabilities
and recommended a move, and the machine's load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

from kaboom.solver.analysis import analyse
from kaboom.solver.bench.machine import machine
from kaboom.solver.budget import Budget
from kaboom.solver.position import Position
from kaboom.solver.session import Solver
from kaboom.solver.simulator import SimulatedGame, parse_board

from proof_time import percentile


def positions(size: str, games: int, per_game: int, seed: int) -> list[Position]:
    """Positions in play from ``games`` played games, ``per_game`` drawn from each."""
    width, height, mines = parse_board(size)
    out: list[Position] = []
    for g in range(games):
        rng = random.Random(f"{seed}:{size}:{g}")
        game = SimulatedGame(width, height, mines, seed=rng.getrandbits(63))
        solver = Solver("fast")
        seen: list[Position] = []
        while game.outcome == "playing":
            position = game.position()
            if not position.is_start:
                seen.append(position)
            game.play_all(solver.decide(position).moves)
        out += rng.sample(seen, min(per_game, len(seen)))
    return out


def run(size: str, games: int, per_game: int, seed: int, budget_s: float) -> dict[str, object]:
    boards = positions(size, games, per_game, seed)
    times: list[float] = []
    cpu: list[float] = []
    complete = exact = recommended = 0
    for position in boards:
        start, start_cpu = time.perf_counter(), time.process_time()
        analysis = analyse(position, Budget(budget_s))
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        complete += analysis.complete
        exact += analysis.exact
        recommended += analysis.recommendation is not None
    return {
        "size": size,
        "games": games,
        "positions": len(times),
        "budget_s": budget_s,
        "p50_ms": round(percentile(times, 0.50), 1),
        "p90_ms": round(percentile(times, 0.90), 1),
        "p99_ms": round(percentile(times, 0.99), 1),
        "max_ms": round(max(times), 1),
        "cpu_p50_ms": round(percentile(cpu, 0.50), 1),
        "cpu_p99_ms": round(percentile(cpu, 0.99), 1),
        "complete": complete,
        "exact": exact,
        "recommended": recommended,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["30x16/99", "100x100/2000"])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--per-game", type=int, default=20)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds an analysis may take")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args()
    where = machine()
    load_before = os.getloadavg()
    results = []
    for size in args.sizes:
        r = run(size, args.games, args.per_game, args.seed, args.budget)
        results.append(r)
        print(
            f"{size:>13}: {r['positions']} positions of {r['games']} games, p50 {r['p50_ms']} ms,"
            f" p90 {r['p90_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms (CPU p50"
            f" {r['cpu_p50_ms']} ms, p99 {r['cpu_p99_ms']} ms); settled"
            f" {r['complete']}, exact {r['exact']}, a move {r['recommended']}"
        )
    load = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load[0]:.2f} (1 min)")
    if args.json:
        out = {"machine": where, "results": results, "load_before": load_before,
               "load_after": load}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
