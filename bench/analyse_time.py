"""How long the analysis of a position takes: p50/p99 of
:func:`kaboom.solver.analysis.analyse` (what ``POST /api/analyse`` and ``kaboom analyse``
run) on positions from real games.

Usage: python bench/analyse_time.py --games 10 --sizes 30x16/99 100x100/2000 \
           --json bench/results/analyse_time.json [--before CHECKOUT | --chances]

Each game is a seeded simulated game (safe first click) played to its end by the solver
(``Solver("fast")``); up to ``--per-game`` of its positions in play, drawn at random, are
analysed afterwards, each cold (as the API analyses a position: no warm engine) within
the server's default analysis budget (``--budget``, 3 s), and timed, on the wall clock
and in CPU (on a shared machine the wall clock counts the other processes' turns too).
Prints the figures with how many analyses were settled in full, had exact probabilities
and recommended a move, and the machine's load average.

``--chances`` measures the analysis the analyser and the API run at a forced guess: only
positions where the game's solver guessed are drawn, each analysed with the win chances
of the guess and the next best (most of the budget goes to their rollouts); it adds how
many got win chances (exact, or with how many rollouts at the median) and how many were
too large for the budget.

``--before CHECKOUT`` measures that checkout too (with the ``.venv`` that
``scripts/setup.sh`` makes there), in the same run and on the same positions: one worker
process in each checkout, both pinned to ``--core``, each position analysed by one and
then by the other (the first alternating), as ``bench/pair_checkouts.py`` plays games;
it adds the ratio of the median CPU times (now / before) per board.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kaboom.solver import Budget, Position, SimulatedGame, Solver, analyse, parse_board
from kaboom.solver.bench.machine import machine

from proof_time import percentile


def positions(size: str, games: int, per_game: int, seed: int, guesses: bool = False
              ) -> list[Position]:
    """Positions in play from ``games`` played games, ``per_game`` drawn from each (with
    ``guesses``, from those where the solver guessed)."""
    width, height, mines = parse_board(size)
    out: list[Position] = []
    for g in range(games):
        rng = random.Random(f"{seed}:{size}:{g}")
        game = SimulatedGame(width, height, mines, seed=rng.getrandbits(63))
        solver = Solver("fast")
        seen: list[Position] = []
        while game.outcome == "playing":
            position = game.position()
            decision = solver.decide(position)
            if not position.is_start and (not guesses or not decision.certain):
                seen.append(position)
            game.play_all(decision.moves)
        out += rng.sample(seen, min(per_game, len(seen)))
    return out


Timing = list[float | bool]
"""One analysis: wall ms, CPU ms, settled in full, exact, a move recommended; with the
win chances, a guess recommended, and its rollouts (0 exact, -1 none given)."""


def timed(position: Position, budget_s: float, chances: bool = False) -> Timing:
    start, start_cpu = time.perf_counter(), time.process_time()
    analysis = analyse(position, Budget(budget_s), chances=chances)
    found = analysis.recommendation
    got: Timing = [(time.perf_counter() - start) * 1000,
                   (time.process_time() - start_cpu) * 1000,
                   analysis.complete, analysis.exact, found is not None]
    if chances:
        odds = found.chances if found is not None else None
        got += [found is not None and not found.certain,
                -1 if odds is None else odds.rollouts]
    return got


# Runs in a checkout's own environment: reads positions (rows and mines, JSON), analyses
# each cold, answers its timing.  Budget came to the facade later: the module otherwise.
_WORKER = """
import json, sys, time
from kaboom.solver import Position, analyse
try:
    from kaboom.solver import Budget
except ImportError:
    from kaboom.solver import Budget
budget_s = float(sys.argv[1])
for line in sys.stdin:
    rows, mines = json.loads(line)
    position = Position.from_rows(rows, mines)
    start, start_cpu = time.perf_counter(), time.process_time()
    a = analyse(position, Budget(budget_s))
    print(json.dumps([(time.perf_counter() - start) * 1000,
                      (time.process_time() - start_cpu) * 1000, a.complete, a.exact,
                      a.recommendation is not None]), flush=True)
"""


class Worker:
    """One checkout's analysing process, pinned to a core."""

    def __init__(self, checkout: Path, budget_s: float, core: int) -> None:
        def pin() -> None:
            os.sched_setaffinity(0, {core})

        self.checkout = checkout
        self.proc = subprocess.Popen(
            [str(checkout / ".venv" / "bin" / "python"), "-c", _WORKER, str(budget_s)],
            cwd=checkout, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            preexec_fn=pin,
        )

    def analyse(self, position: Position) -> Timing:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps([list(position.rows), position.mines]) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            sys.exit(f"the worker in {self.checkout} stopped (exit {self.proc.wait()})")
        got: Timing = json.loads(line)
        return got

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def run(size: str, games: int, per_game: int, seed: int, budget_s: float, chances: bool
        ) -> dict[str, object]:
    """The figures of analysing the positions of played games in this process (with
    ``chances``, of the guesses' positions, win chances included)."""
    found = [timed(p, budget_s, chances)
             for p in positions(size, games, per_game, seed, guesses=chances)]
    return figures(size, games, budget_s, found)


def figures(size: str, games: int, budget_s: float, found: list[Timing]) -> dict[str, object]:
    times = [float(t[0]) for t in found]
    cpu = [float(t[1]) for t in found]
    complete, exact, recommended = (sum(bool(t[i]) for t in found) for i in (2, 3, 4))
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
        **(_chances(found) if found and len(found[0]) > 5 else {}),
    }


def _chances(found: list[Timing]) -> dict[str, object]:
    """How the guesses' win chances came out: exact, estimated (rollouts at the median
    and the fewest), or too large for the budget."""
    guesses = [int(t[6]) for t in found if t[5]]
    rolled = [r for r in guesses if r > 0]
    return {
        "guesses": len(guesses),
        "chances_exact": sum(r == 0 for r in guesses),
        "chances_estimated": len(rolled),
        "rollouts_p50": statistics.median(rolled) if rolled else 0,
        "rollouts_min": min(rolled, default=0),
        "too_large": sum(r < 0 for r in guesses),
    }


def paired(size: str, games: int, per_game: int, seed: int, budget_s: float,
           before: Worker, now: Worker) -> list[dict[str, object]]:
    """Both checkouts' figures on the same positions, alternating which goes first."""
    boards = positions(size, games, per_game, seed)
    old: list[Timing] = []
    new: list[Timing] = []
    for i, position in enumerate(boards):
        if i % 2:
            old.append(before.analyse(position))
            new.append(now.analyse(position))
        else:
            new.append(now.analyse(position))
            old.append(before.analyse(position))
    a = {"version": "before", **figures(size, games, budget_s, old)}
    b = {"version": "now", **figures(size, games, budget_s, new)}
    b["cpu_p50_ratio"] = round(statistics.median(float(t[1]) for t in new)
                               / statistics.median(float(t[1]) for t in old), 3)
    return [a, b]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["30x16/99", "100x100/2000"])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--per-game", type=int, default=20)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds an analysis may take")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--before", type=Path,
                    help="also measure the checkout in this folder, paired, in the same run")
    ap.add_argument("--core", type=int, default=0, help="the core both workers are pinned to")
    ap.add_argument("--chances", action="store_true",
                    help="forced guesses only, analysed with their win chances")
    args = ap.parse_args()
    if args.chances and args.before:
        ap.error("--chances measures this checkout alone (--before has no win chances)")
    where = machine()
    load_before = os.getloadavg()
    results: list[dict[str, object]] = []
    workers = None
    if args.before:
        here = Path(__file__).resolve().parent.parent
        workers = (Worker(args.before, args.budget, args.core),
                   Worker(here, args.budget, args.core))
    try:
        for size in args.sizes:
            if workers is None:
                results.append(run(size, args.games, args.per_game, args.seed, args.budget,
                                   args.chances))
            else:
                results += paired(size, args.games, args.per_game, args.seed, args.budget,
                                  *workers)
    finally:
        for w in workers or ():
            w.close()
    for r in results:
        size = r["size"]
        version = f"{r['version']:>6} " if "version" in r else ""
        ratio = f"; CPU p50 now/before {r['cpu_p50_ratio']}" if "cpu_p50_ratio" in r else ""
        if "guesses" in r:
            ratio += (f"; {r['guesses']} guesses: win chances exact {r['chances_exact']},"
                      f" estimated {r['chances_estimated']} ({r['rollouts_p50']} rollouts at"
                      f" the median, {r['rollouts_min']} the fewest), too large"
                      f" {r['too_large']}")
        print(
            f"{version}{size:>13}: {r['positions']} positions of {r['games']} games,"
            f" p50 {r['p50_ms']} ms,"
            f" p90 {r['p90_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms (CPU p50"
            f" {r['cpu_p50_ms']} ms, p99 {r['cpu_p99_ms']} ms); settled"
            f" {r['complete']}, exact {r['exact']}, a move {r['recommended']}{ratio}"
        )
    load = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load[0]:.2f} (1 min)")
    if args.json:
        out = {"machine": where, "results": results, "load_before": load_before,
               "load_after": load}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
