"""Paired speed of two checkouts of Kaboom: the same seeds, alternating, on one core.

Usage: python bench/pair_checkouts.py OLD NEW --profile fast --games 600 --rounds 8 \
           [--preset expert --rule sfar --core 0 --seed 3000 --json PATH]

OLD and NEW are checkouts, each with the ``.venv`` that ``bash scripts/setup.sh`` makes
there (a clone of ``main`` at the commit to compare with, say).  Round r plays the same
games (seed ``--seed`` + r) in each checkout, one after the other, with the order
swapped every round, both pinned to ``--core``: on our shared two-core machines, two
processes run side by side, or one long run each, drift apart by more than a 10 % change
(pinned side by side, the same pair read 0.89 and then 1.06 with the cores swapped),
and short alternating rounds on one core do not.  Prints each round's two median CPU
milliseconds a game and their ratio (NEW / OLD), then the median of the rounds' ratios
and of all games; ``--json`` writes them with the machine.  A speed change must not
change a move: when the two won different games, that is reported and the exit status
is 1 (the rounds were then not the same work).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from solver.bench.machine import machine

Game = dict[str, Any]
"""A game's line of ``kaboom bench --out``."""


def play(checkout: Path, args: argparse.Namespace, seed: int, out: Path) -> dict[int, Game]:
    """One round's games in ``checkout``'s own environment; the games by seed."""
    python = checkout / ".venv" / "bin" / "python"
    cmd = [str(python), "-m", "kaboom", "bench", "--preset", args.preset, "--rule",
           args.rule, "--profile", args.profile, "--games", str(args.games), "--jobs", "1",
           "--seed", str(seed), "--out", str(out)]
    core = args.core

    def pin() -> None:
        os.sched_setaffinity(0, {core})

    subprocess.run(cmd, cwd=checkout, check=True, stdout=subprocess.DEVNULL,
                   preexec_fn=pin)
    games = {}
    for line in out.read_text().splitlines():
        record = json.loads(line)
        if "seed" in record:
            games[record["seed"]] = record
    return games


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--profile", default="fast")
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--seed", type=int, default=3000)
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args()
    for checkout in (args.old, args.new):
        if not (checkout / ".venv" / "bin" / "python").exists():
            ap.error(f"{checkout} has no .venv: run 'bash scripts/setup.sh' there first")
    start = machine()
    rounds: list[dict[str, Any]] = []
    old_all: list[float] = []
    new_all: list[float] = []
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(1, args.rounds + 1):
            seed = args.seed + r
            order = ("old", "new") if r % 2 else ("new", "old")
            got = {side: play(getattr(args, side), args, seed, Path(tmp) / f"{side}{r}.jsonl")
                   for side in order}
            seeds = sorted(got["old"])
            old = [got["old"][s]["cpu_seconds"] * 1000 for s in seeds]
            new = [got["new"][s]["cpu_seconds"] * 1000 for s in seeds]
            lost = sum(got["old"][s]["won"] != got["new"][s]["won"] for s in seeds)
            differ += lost
            old_all += old
            new_all += new
            ratio = statistics.median(new) / statistics.median(old)
            rounds.append({"seed": seed, "games": len(seeds), "old_ms": statistics.median(old),
                           "new_ms": statistics.median(new), "ratio": ratio,
                           "outcomes_differ": lost})
            print(f"round {r} (seed {seed}, {' then '.join(order)}): median old "
                  f"{statistics.median(old):.2f} ms, new {statistics.median(new):.2f} ms, "
                  f"ratio {ratio:.3f}" + (f", {lost} outcomes differ" if lost else ""),
                  flush=True)
    after = machine()
    summary = {
        "old": str(args.old), "new": str(args.new), "profile": args.profile,
        "preset": args.preset, "rule": args.rule, "games_a_round": args.games,
        "rounds": rounds, "median_round_ratio": statistics.median(x["ratio"] for x in rounds),
        "all_games_ratio": statistics.median(new_all) / statistics.median(old_all),
        "outcomes_differ": differ, "machine_before": start, "machine_after": after,
    }
    print(f"{args.profile}: median of the round ratios {summary['median_round_ratio']:.3f}; "
          f"all {len(old_all)} games: median old {statistics.median(old_all):.2f} ms, new "
          f"{statistics.median(new_all):.2f} ms, ratio {summary['all_games_ratio']:.3f}; "
          f"load {start['load']} -> {after['load']}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    if differ:
        print(f"{differ} games were won by one checkout only: not the same moves",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
