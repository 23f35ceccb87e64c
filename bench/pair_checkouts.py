"""Paired speed of two checkouts of Kaboom: each game played by both, one after the other.

Usage: python bench/pair_checkouts.py OLD NEW [--profile fast --games 4000 \
           --preset expert --rule sfar --core 0 --seed 3000 --json PATH --moves PATH]

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

``--moves PATH`` checks that more strictly: each worker also digests every decision of
the game (its moves, algorithm, certainty and reason, guesses included) after the timed
loop, and a line a game goes to PATH with both checkouts' result, decisions, guesses
and digest; any game whose record differs is counted, and the exit status is 1.
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

from kaboom.solver import preset
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.runner import game_seed

# Runs in a checkout's own environment: reads seeds, plays each game, answers
# [cpu seconds, won] (with --moves: and decisions, guesses, digest).  Only names that
# every checkout since the bench began has are used: play_game's long-standing
# signature, or the loop it runs, written out with the facade's Solver and SimulatedGame.
_WORKER = """
import hashlib, json, sys, time
from kaboom.solver import SimulatedGame, Solver
from kaboom.solver.bench.runner import play_game
from kaboom.solver.position import FirstClick, GameStatus
width, height, mines, rule, profile, record = json.loads(sys.argv[1])

def recorded(seed):
    game = SimulatedGame(width, height, mines, rule=rule, seed=seed)
    solver = Solver(profile, first_click=FirstClick(rule))
    decisions = []
    cpu = time.process_time()
    while game.outcome is GameStatus.PLAYING:
        d = solver.decide(game.position())
        decisions.append(d)
        if not d.moves:
            break
        game.play_all(d.moves)
    cpu = time.process_time() - cpu
    digest = hashlib.sha256()
    for d in decisions:
        moves = " ".join(map(str, d.moves))
        digest.update(f"{d.algorithm}|{d.certain}|{d.reason}|{moves}\\n".encode())
    guesses = sum(not d.certain for d in decisions)
    won = game.outcome is GameStatus.WON
    return [cpu, won, len(decisions), guesses, digest.hexdigest()]

for line in sys.stdin:
    if record:
        print(json.dumps(recorded(int(line))), flush=True)
        continue
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

    def play(self, seed: int) -> tuple[float, bool, list[object]]:
        """Plays one game; its CPU milliseconds, whether it was won, and its record (the
        result, decisions, guesses and digest of every decision; with ``--moves`` only)."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(f"{seed}\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            sys.exit(f"the worker in {self.checkout} stopped (exit {self.proc.wait()})")
        cpu, won, *record = json.loads(line)
        return 1000 * float(cpu), bool(won), [won, *record]

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
    ap.add_argument("--moves", type=Path,
                    help="also compare every decision of every game; a line a game here")
    args = ap.parse_args()
    for checkout in (args.old, args.new):
        if not (checkout / ".venv" / "bin" / "python").exists():
            ap.error(f"{checkout} has no .venv: run 'bash scripts/setup.sh' there first")
    width, height, mines = preset(args.preset)
    setup: list[object] = [width, height, mines, args.rule, args.profile, bool(args.moves)]
    before = machine()
    old_w, new_w = Worker(args.old, setup, args.core), Worker(args.new, setup, args.core)
    old: list[float] = []
    new: list[float] = []
    differ = moves_differ = 0
    records = args.moves.open("w") if args.moves else None
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
            if records is not None:
                moves_differ += o[2] != n[2]
                records.write(json.dumps({"seed": seed, "old": o[2], "new": n[2],
                                          "same": o[2] == n[2]}) + "\n")
            if len(old) % args.block == 0:
                print(f"games {len(old) - args.block + 1}-{len(old)}: median old "
                      f"{statistics.median(old[-args.block:]):.2f} ms, new "
                      f"{statistics.median(new[-args.block:]):.2f} ms, ratio "
                      f"{ratio(new[-args.block:], old[-args.block:]):.3f}", flush=True)
    finally:
        old_w.close()
        new_w.close()
        if records is not None:
            records.close()
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
        "moves_compared": bool(args.moves), "games_whose_moves_differ": moves_differ,
        "machine_before": before, "machine_after": after,
    }
    print(f"{args.profile}, {len(old)} games: median old {summary['old_ms_median']:.2f} ms, "
          f"new {summary['new_ms_median']:.2f} ms, ratio {summary['ratio']:.3f} (means "
          f"{summary['mean_ratio']:.3f}; blocks {min(blocks, default=0):.3f}-"
          f"{max(blocks, default=0):.3f}); load {before['load']} -> {after['load']}, "
          f"yardstick {before['yardstick_ms']} -> {after['yardstick_ms']} ms")
    if args.moves:
        print(f"same results, decisions, guesses and moves in {len(old) - moves_differ} of "
              f"{len(old)} games (records in {args.moves})")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    if moves_differ:
        print(f"{moves_differ} games differ in a decision: not the same moves", file=sys.stderr)
        return 1
    if differ:
        print(f"{differ} games were won by one checkout only: not the same moves",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
