"""Paired speed of two checkouts of Kaboom: each game played by both, one after the other.

Usage: python bench/pair_checkouts.py OLD NEW [--profile fast --games 4000 \
           --preset expert --rule sfar --core 0 --seed 3000 --json PATH]

OLD and NEW are checkouts, each with the ``.venv`` that ``bash scripts/setup.sh`` makes
there (a clone of ``main`` at the commit to compare with, say).  One worker process runs
in each, both pinned to ``--core``; every game is played by one worker and then, on the
same seed, by the other (the first alternates game by game), so that both meet the
machine as it is within a few milliseconds.  Our shared two-core machines change speed
by more than 10 % from one run to the next, and even between rounds of a few seconds
alternated on one core (0.75-1.06 for one pair of checkouts); game by game, the
machine's swings fall on both sides.  Prints the ratio of the median CPU milliseconds a
game (NEW / OLD) over all games and in blocks of ``--block`` games; ``--json`` writes
them with the machine.  A speed change must not change a move: when the two won
different games that is reported, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import IO

from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.runner import game_seed
from kaboom.solver.simulator import preset

# Runs in a checkout's own environment: reads seeds, plays each game, answers
# [cpu seconds, won].  Only play_game's long-standing signature is used.
_WORKER = """
import json, sys
from kaboom.solver.bench.runner import play_game
width, height, mines, rule, profile = json.loads(sys.argv[1])
for line in sys.stdin:
    r = play_game(width, height, mines, rule, int(line), profile)
    print(json.dumps([r.cpu_seconds, r.won]), flush=True)
"""


class Worker:
    """One checkout's worker process, pinned to a core."""

    def __init__(self, checkout: Path, setup: list[object], core: int) -> None:
        def pin() -> None:
            os.sched_setaffinity(0, {core})

        self.checkout = checkout
        self.proc = subprocess.Popen(
            [str(checkout / ".venv" / "bin" / "python"), "-c", _WORKER, json.dumps(setup)],
            cwd=checkout, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            preexec_fn=pin,
        )

    def play(self, seed: int) -> tuple[float, bool]:
        """Plays one game; its CPU milliseconds and whether it was won."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(f"{seed}\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            sys.exit(f"the worker in {self.checkout} stopped (exit {self.proc.wait()})")
        cpu, won = json.loads(line)
        return 1000 * float(cpu), bool(won)

    def close(self) -> None:
        stdin: IO[str] | None = self.proc.stdin
        if stdin is not None:
            stdin.close()
        self.proc.wait()


def commit(checkout: Path) -> str | None:
    """The checkout's commit, for the JSON (``None`` outside a git checkout)."""
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() or None


def ratio(new: list[float], old: list[float]) -> float:
    return statistics.median(new) / statistics.median(old)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--profile", default="fast")
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--warmup", type=int, default=20, help="games played first, not counted")
    ap.add_argument("--block", type=int, default=500)
    ap.add_argument("--seed", type=int, default=3000)
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args()
    for checkout in (args.old, args.new):
        if not (checkout / ".venv" / "bin" / "python").exists():
            ap.error(f"{checkout} has no .venv: run 'bash scripts/setup.sh' there first")
    width, height, mines = preset(args.preset)
    setup: list[object] = [width, height, mines, args.rule, args.profile]
    before = machine()
    old_w, new_w = Worker(args.old, setup, args.core), Worker(args.new, setup, args.core)
    old: list[float] = []
    new: list[float] = []
    differ = 0
    try:
        for i in range(-args.warmup, args.games):
            seed = game_seed(args.seed, i + args.warmup)
            first, second = (old_w, new_w) if i % 2 else (new_w, old_w)
            a, b = first.play(seed), second.play(seed)
            (o, n) = (a, b) if first is old_w else (b, a)
            if i < 0:
                continue
            old.append(o[0])
            new.append(n[0])
            differ += o[1] != n[1]
            if len(old) % args.block == 0:
                print(f"games {len(old) - args.block + 1}-{len(old)}: median old "
                      f"{statistics.median(old[-args.block:]):.2f} ms, new "
                      f"{statistics.median(new[-args.block:]):.2f} ms, ratio "
                      f"{ratio(new[-args.block:], old[-args.block:]):.3f}", flush=True)
    finally:
        old_w.close()
        new_w.close()
    after = machine()
    blocks = [ratio(new[k:k + args.block], old[k:k + args.block])
              for k in range(0, len(old) - args.block + 1, args.block)]
    summary = {
        "old": str(args.old), "new": str(args.new), "old_commit": commit(args.old),
        "new_commit": commit(args.new), "profile": args.profile,
        "preset": args.preset, "rule": args.rule, "games": len(old), "seed": args.seed,
        "old_ms_median": statistics.median(old), "new_ms_median": statistics.median(new),
        "ratio": ratio(new, old), "mean_ratio": sum(new) / sum(old),
        "block_ratios": blocks, "outcomes_differ": differ,
        "machine_before": before, "machine_after": after,
    }
    print(f"{args.profile}, {len(old)} games: median old {summary['old_ms_median']:.2f} ms, "
          f"new {summary['new_ms_median']:.2f} ms, ratio {summary['ratio']:.3f} (means "
          f"{summary['mean_ratio']:.3f}; blocks {min(blocks, default=0):.3f}-"
          f"{max(blocks, default=0):.3f}); load {before['load']} -> {after['load']}, "
          f"yardstick {before['yardstick_ms']} -> {after['yardstick_ms']} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    if differ:
        print(f"{differ} games were won by one checkout only: not the same moves",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
