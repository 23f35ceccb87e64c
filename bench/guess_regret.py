"""What the guesses leave on the table: paired rollouts of each candidate.

Usage: python bench/guess_regret.py --preset expert --rule sfar --games 80 --layouts 160 \
           --candidates 4 --jobs 2 --seed 211 --out games.jsonl --json out.json

Plays ``--games`` games with ``--profile``.  At each guess of the safest-cell policy (not
the endgame search, a closed region or a 50/50) it takes the chosen cell and the next
safest cells (within ``--tolerance`` of the safest; at most two outside the frontier,
fewest covered neighbours first), draws ``--layouts`` consistent layouts uniformly, the
same for every candidate, and on each plays the candidate and then the rest of the game
with the same profile.  Then:

* *rollout-best*: the candidate that won most often (an optimistic figure: the best of
  several noisy estimates);
* *rollout policy*: the candidate that won most on one half of the layouts, scored on the
  other half, against the chosen cell on that half (and the halves swapped) — an unbiased
  estimate of what a rollout chooser with ``layouts / 2`` playouts a candidate would gain
  at that guess;
* *always the safest*: the safest candidate's wins against the chosen cell's on every
  layout (a fixed rule, unbiased), which says whether the profile's trade of safety for
  what a cell shows pays at these guesses.

The game itself goes on with the profile's choice, so the guesses are the ones the profile
meets.  Results by covered cells at the guess (early / middle / late).

A measurement takes hours: a progress bar shows on stderr, and with ``--out FILE`` each
game's guesses are appended as it ends, so an interrupted run resumes where it stopped
when rerun with the same settings (more ``--games`` plays only the new ones).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from tqdm import tqdm

from kaboom.solver import (
    Cell,
    FirstClick,
    GameStatus,
    Position,
    SimulatedGame,
    Solver,
    decide,
    preset,
    profile_spec,
    sample_layout,
)
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.results import ResultsFileError, SeedLog
from kaboom.solver.bench.runner import game_seed, play_out

STAGES = (("early", 350), ("middle", 150), ("late", 0))
"""A guess's stage by its covered cells: more than 350, more than 150, the rest."""


@dataclasses.dataclass(frozen=True, slots=True)
class Measured:
    """One guess: its candidates (the chosen cell first), their mine probabilities and
    the layouts on which each won; ``gain`` is the rollout policy's (a fraction)."""

    seed: int
    covered: int
    cells: list[Cell]
    p: list[float]
    won: list[int]
    gain: float


def candidates(position: Position, chosen: Cell, probs: dict[Cell, float], n: int,
               tolerance: float) -> list[Cell]:
    """The chosen cell and the ``n - 1`` next safest within ``tolerance`` of the safest,
    at most two of them outside."""
    def covered_around(c: Cell) -> int:
        return sum(position.is_covered(*a) for a in position.neighbours(*c))

    def outside(c: Cell) -> bool:
        return not any(position.rows[y][x].isdigit() for x, y in position.neighbours(*c))

    limit = min(probs.values()) + tolerance + 1e-9
    ranked = sorted((c for c, p in probs.items() if p <= limit and c != chosen),
                    key=lambda c: (round(probs[c], 9), covered_around(c), c[1], c[0]))
    out, outs = [chosen], 0
    for c in ranked:
        if len(out) == n:
            break
        if outside(c):
            if outs == 2:
                continue
            outs += 1
        out.append(c)
    return out


def rollouts(position: Position, cells: list[Cell], layouts: int, profile: str,
             rule: str, rng: random.Random) -> list[list[bool]]:
    """``won[j][i]``: candidate ``j`` played on layout ``i`` led to a win."""
    drawn = [sample_layout(position, rng) for _ in range(layouts)]
    won = []
    for cell in cells:
        row = []
        for layout in drawn:
            if cell in layout:
                row.append(False)
                continue
            game = SimulatedGame.resume(position, layout)
            game.reveal(*cell)
            solver = Solver(profile, first_click=FirstClick(rule))
            row.append(play_out(game, solver) is GameStatus.WON)
        won.append(row)
    return won


def split_gain(won: list[list[bool]]) -> float:
    """The rollout chooser's gain over the chosen cell (row 0), choosing on one half of
    the layouts and scoring on the other, both ways round."""
    half = len(won[0]) // 2
    gains = []
    for pick, score in ((slice(0, half), slice(half, None)), (slice(half, None), slice(0, half))):
        best = max(range(len(won)), key=lambda j: (sum(won[j][pick]), j == 0))
        n = len(won[0][score])
        gains.append((sum(won[best][score]) - sum(won[0][score])) / n)
    return sum(gains) / 2


def play_seed(args: tuple[str, str, str, int, int, float, int, int]
              ) -> tuple[int, list[Measured], float]:
    name, rule, profile, layouts, n, tolerance, most_covered, seed = args
    start = time.process_time()
    w, h, m = preset(name)
    game = SimulatedGame(w, h, m, rule=rule, seed=seed)
    solver = Solver(profile, first_click=FirstClick(rule))
    rng = random.Random(seed)
    found = []
    while game.outcome is GameStatus.PLAYING:
        position = game.position()
        d = solver.decide(position)
        if not d.moves:
            break
        if (not d.certain and d.algorithm == "guess" and "50/50" not in d.reason
                and game.covered <= most_covered):
            probs = decide(position, probabilities=True, profile=profile,
                           first_click=FirstClick(rule)).probabilities
            assert probs is not None
            cells = candidates(position, d.moves[0].cell, probs, n, tolerance)
            if len(cells) > 1:
                won = rollouts(position, cells, layouts, profile, rule, rng)
                found.append(Measured(seed, game.covered, cells, [probs[c] for c in cells],
                                      [sum(r) for r in won], split_gain(won)))
        game.play_all(d.moves)
    return seed, found, time.process_time() - start


def _summary(part: list[Measured], layouts: int, games: int) -> dict[str, float]:
    """Win rates in per cent and the rollout policy's gain in points, over ``part``; and
    the gain of always playing the safest candidate instead (a fixed rule, so every
    layout scores it without bias: is the lookahead's trade of safety worth it?)."""
    gain = [100 * g.gain for g in part]
    safest = [100 * (g.won[min(range(len(g.p)), key=g.p.__getitem__)] - g.won[0]) / layouts
              for g in part]
    return {
        "guesses": len(part),
        "guesses_per_game": len(part) / games,
        "chosen_win": 100 * statistics.mean(g.won[0] for g in part) / layouts,
        "rollout_best_win": 100 * statistics.mean(max(g.won) for g in part) / layouts,
        "gain": statistics.mean(gain),
        "gain_se": _se(gain),
        "chosen_is_best": sum(g.won[0] == max(g.won) for g in part),
        "safest_gain": statistics.mean(safest),
        "safest_gain_se": _se(safest),
    }


def _se(values: list[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def _label(settings: dict[str, Any]) -> str:
    """A run's settings as one string, in a fixed order: the --out file's run label."""
    return json.dumps(settings, sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--profile", type=profile_spec, default="strong")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--layouts", type=int, default=200, help="playouts a candidate")
    ap.add_argument("--candidates", type=int, default=4)
    ap.add_argument("--tolerance", type=float, default=1.0,
                    help="candidates: mine probability within this of the safest cell")
    ap.add_argument("--most-covered", type=int, default=10**9,
                    help="only the guesses with at most this many covered cells")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="append each game's guesses to this JSONL file; a rerun "
                                  "with the same settings skips the games in it")
    ap.add_argument("--json")
    args = ap.parse_args()
    settings = {k: getattr(args, k) for k in
                ("preset", "rule", "profile", "layouts", "candidates", "tolerance",
                 "most_covered")}
    seeds = [game_seed(args.seed, i) for i in range(args.games)]
    where = machine()
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        try:
            out = stack.enter_context(SeedLog(args.out, _label(settings),
                                              lambda r: _label(r["settings"]))
                                      ) if args.out else None
        except ResultsFileError as e:
            ap.error(str(e))
        done = {} if out is None else {
            r["seed"]: ([Measured(**g) for g in r["guesses"]], r["cpu_s"]) for r in out.records()}
        tasks = [(args.preset, args.rule, args.profile, args.layouts, args.candidates,
                  args.tolerance, args.most_covered, s) for s in seeds if s not in done]
        if done:
            print(f"{args.out}: {args.games - len(tasks)} of {args.games} games already played",
                  file=sys.stderr)
        if args.jobs > 1:
            pool = stack.enter_context(multiprocessing.get_context("fork").Pool(args.jobs))
            played: Iterator[tuple[int, list[Measured], float]] = pool.imap_unordered(
                play_seed, tasks, chunksize=1)
        else:
            played = map(play_seed, tasks)
        for seed, found, cpu_s in tqdm(played, total=args.games, initial=args.games - len(tasks),
                                       unit="game", file=sys.stderr, smoothing=0.05):
            done[seed] = (found, cpu_s)
            if out is not None:
                out.write(seed, json.dumps({"seed": seed, "settings": settings, "cpu_s": cpu_s,
                                            "guesses": [dataclasses.asdict(g) for g in found]}
                                           ) + "\n")
    results = [done[s] for s in seeds]
    guesses = [g for found, _ in results for g in found]
    cpu = sum(s for _, s in results)
    print(f"{args.preset} {args.rule} {args.profile}: {len(guesses)} guesses in "
          f"{args.games} games, {args.layouts} layouts x up to {args.candidates} candidates "
          f"each; CPU {cpu:.0f} s, wall {time.perf_counter() - start:.0f} s")
    k = args.layouts
    summary: dict[str, object] = {}
    for stage, low in STAGES:
        high = min((lo for _, lo in STAGES if lo > low), default=None)
        part = [g for g in guesses if g.covered > low and (high is None or g.covered <= high)]
        if part:
            summary[stage] = row = _summary(part, k, args.games)
            span = f"{low + 1}-{high}" if high is not None else f"> {low}"
            print(f"  {stage:6} ({span} covered): {row['guesses']} guesses, "
                  f"{row['guesses_per_game']:.2f} a game; the chosen cell wins "
                  f"{row['chosen_win']:.2f} %, the rollout-best {row['rollout_best_win']:.2f} % "
                  f"(optimistic); rollout policy {row['gain']:+.2f} ± {row['gain_se']:.2f} "
                  f"points a guess; chosen = rollout-best in {row['chosen_is_best']}; "
                  f"always the safest {row['safest_gain']:+.2f} ± {row['safest_gain_se']:.2f}")
    per_game = [sum(g.gain for g in found) for found, _ in results]
    se = _se(per_game)
    summary["per_game_gain"] = {"points": 100 * statistics.mean(per_game), "se": 100 * se}
    print(f"  a game: the rollout policy at every such guess would add "
          f"{100 * statistics.mean(per_game):+.2f} ± {100 * se:.2f} points of win rate")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"settings": vars(args), "machine": where, "cpu_s": cpu,
                       "summary": summary,
                       "guesses": [dataclasses.asdict(g) for g in guesses]}, fh, indent=1)


if __name__ == "__main__":
    main()
