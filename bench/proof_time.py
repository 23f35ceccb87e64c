"""How long a proof takes: p50/p99 of :func:`kaboom.solver.proof.prove` on positions from
real games.

Usage: python bench/proof_time.py --games 20 --sizes 30x16/99 100x100/2000 \
           --json bench/results/proof_time.json

Each game is a seeded simulated game played to its end: every step reveals the cells the
SAT engine proves safe (or, when none is, a cell the layout says is safe, so the game
goes on), and before each step up to ``--per-step`` decided covered cells, drawn at
random, are proven and timed.  Prints the figures with the machine's load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from kaboom.solver import KnowledgeEngine, SimulatedGame, parse_board, prove
from kaboom.solver.bench.machine import machine


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(size: str, games: int, per_step: int, seed: int) -> dict[str, object]:
    width, height, mines = parse_board(size)
    times: list[float] = []
    sizes: list[int] = []
    with_count = 0
    not_minimal = 0
    for g in range(games):
        rng = random.Random(f"{seed}:{size}:{g}")
        game = SimulatedGame(width, height, mines, rule="snr", seed=rng.getrandbits(63))
        game.reveal(width // 2, height // 2)
        engine = KnowledgeEngine()
        while game.outcome == "playing":
            position = game.position()
            knowledge = engine.classify(position)
            decided = sorted(
                c for c in knowledge.safe | knowledge.mines if position.is_covered(*c)
            )
            for cell in rng.sample(decided, min(per_step, len(decided))):
                start = time.perf_counter()
                proof = prove(position, cell)
                times.append((time.perf_counter() - start) * 1000)
                sizes.append(len(proof.numbers))
                with_count += proof.count is not None
                not_minimal += not proof.minimal
            safe = [c for c in knowledge.safe if position.is_covered(*c)]
            if not safe:
                assert game.layout is not None
                covered = [c for c in position.covered() if c not in game.layout]
                safe = [rng.choice(covered)]
            for x, y in safe:
                if game.outcome == "playing" and game.char(x, y) == "#":
                    game.reveal(x, y)
    return {
        "size": size,
        "games": games,
        "proofs": len(times),
        "p50_ms": round(percentile(times, 0.50), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "max_ms": round(max(times), 2),
        "mean_numbers": round(statistics.fmean(sizes), 2),
        "max_numbers": max(sizes),
        "with_count": with_count,
        "not_minimal": not_minimal,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["30x16/99", "100x100/2000"])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--per-step", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args()
    where = machine()
    load_before = os.getloadavg()
    results = []
    for size in args.sizes:
        r = run(size, args.games, args.per_step, args.seed)
        results.append(r)
        print(
            f"{size:>13}: {r['proofs']} proofs in {r['games']} games, p50 {r['p50_ms']} ms,"
            f" p99 {r['p99_ms']} ms, max {r['max_ms']} ms; {r['mean_numbers']} numbers on"
            f" average (max {r['max_numbers']}), {r['with_count']} need the count,"
            f" {r['not_minimal']} not proven minimal"
        )
    load = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load[0]:.2f} (1 min)")
    if args.json:
        out = {"machine": where, "results": results, "load_before": load_before,
               "load_after": load}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
