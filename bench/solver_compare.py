"""Paired comparison of two strategy profiles on the same boards.

Usage: python bench/solver_compare.py --preset expert --games 2000 --jobs 2 \
           --a strong --b 'strong,progress_weight=0.5' [--out DIR] [--json PATH]

A profile is a spec: a registered name, optionally followed by ``,field=value``
overrides (``kaboom.solver.profiles.find_profile``).
Prints both win rates, the discordant pairs (games only one of them won), which is
what decides the comparison (McNemar), and the difference of the win rates with its
95 % interval (paired: only the discordant games move it); ``--json PATH`` writes the
figures.  With ``--out DIR`` each profile's games are appended to ``DIR/<profile>.jsonl``
as they end (``kaboom bench --out``'s format), and a rerun plays only the seeds that
file lacks: a long comparison continues where it stopped, in another session if need
be, and more ``--games`` plays only the new ones.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
import sys
from pathlib import Path

from tqdm import tqdm

from kaboom.solver import preset, profile_spec
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.results import ResultsFile, ResultsFileError
from kaboom.solver.bench.runner import (
    GameResult,
    Setup,
    game_seed,
    play_games,
    summarise,
)

Z95 = 1.959963984540054


def mcnemar(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs as a fair coin's flips."""
    n, k = a_only + b_only, min(a_only, b_only)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    return min(1.0, 2 * tail)


def paired_difference(a_only: int, b_only: int, games: int) -> tuple[float, float, float]:
    """B's win rate minus A's over ``games`` paired games, with its 95 % interval: the
    variance of the per-game difference (+1, -1 or 0) over the games, so concordant
    games narrow it and only the discordant ones move it."""
    d = (b_only - a_only) / games
    var = ((a_only + b_only) / games - d * d) / max(1, games - 1)
    half = Z95 * math.sqrt(max(0.0, var))
    return d, d - half, d + half


def results_path(folder: str, spec: str) -> Path:
    """A profile's games file in ``folder``: the spec with anything but letters, digits,
    ``.``, ``-`` and ``_`` as ``_`` (``strong,ratio=0.85`` -> ``strong_ratio_0.85.jsonl``)."""
    return Path(folder) / (re.sub(r"[^A-Za-z0-9._-]", "_", spec) + ".jsonl")


def play(setup: Setup, games: int, seed: int, jobs: int, out: str | None) -> list[GameResult]:
    """The games of the first ``games`` seeds of ``seed``, in seed order; with ``out``,
    those its file holds are read back and only the others played (and appended)."""
    seeds = [game_seed(seed, i) for i in range(games)]
    desc = f"{setup.board} {setup.rule} {setup.profile}"
    if out is None:
        played = tqdm(play_games(setup, seeds, jobs=jobs), total=games, desc=desc,
                      unit="game", file=sys.stderr, smoothing=0.05)
        return sorted(played, key=lambda r: r.seed)
    Path(out).mkdir(parents=True, exist_ok=True)
    with ResultsFile(results_path(out, setup.profile), setup) as file:
        todo = [s for s in seeds if s not in file.seeds]
        if len(todo) < games:
            print(f"{file.path}: {games - len(todo)} of {games} games already played; "
                  f"playing the other {len(todo)}", file=sys.stderr)
        played = tqdm(file.append(play_games(setup, todo, jobs=jobs)), total=games,
                      initial=games - len(todo), desc=desc, unit="game", file=sys.stderr,
                      smoothing=0.05)
        collections.deque(played, maxlen=0)
        return sorted(file.read(seeds), key=lambda r: r.seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--a", type=profile_spec, default="strong")
    ap.add_argument("--b", type=profile_spec, action="append", help="one or more challengers")
    ap.add_argument("--out", metavar="DIR", help="keep each profile's games in DIR/<profile>"
                    ".jsonl; a rerun plays only the seeds missing there")
    ap.add_argument("--json")
    args = ap.parse_args()
    w, h, m = preset(args.preset)
    out: dict[str, object] = {"machine": machine()}
    results = {}
    challengers = args.b or ["fast"]
    for spec in (args.a, *challengers):
        try:
            results[spec] = play(Setup(w, h, m, args.rule, spec), args.games, args.seed,
                                 args.jobs, args.out)
        except ResultsFileError as e:
            ap.error(str(e))
        except KeyboardInterrupt:
            where = f"; the games played are in {args.out}, rerun to resume" if args.out else ""
            sys.exit(f"solver_compare: interrupted{where}")
        s = summarise(results[spec], {"preset": args.preset, "rule": args.rule,
                                      "games": args.games, "seed": args.seed,
                                      "jobs": args.jobs, "profile": spec, "out": args.out})
        out[spec] = s.to_dict()
        print(f"{spec:40s} won {s.wins}/{s.games} = {100 * s.win_rate:.2f} % "
              f"[{100 * s.wilson_low:.2f}, {100 * s.wilson_high:.2f}]  "
              f"CPU ms a game median {s.cpu_ms_median:.2f} mean {s.cpu_ms_mean:.2f}")
    for spec in challengers:
        pairs = list(zip(results[args.a], results[spec], strict=True))
        a_only = sum(x.won and not y.won for x, y in pairs)
        b_only = sum(y.won and not x.won for x, y in pairs)
        n = a_only + b_only
        z = (b_only - a_only) / math.sqrt(n) if n else 0.0
        p = mcnemar(a_only, b_only)
        d, low, high = paired_difference(a_only, b_only, len(pairs))
        print(f"{spec}: only A won {a_only}, only B won {b_only}; z(B - A) = {z:+.2f}, "
              f"exact McNemar p = {p:.4f}; B - A = {100 * d:+.2f} points "
              f"(95 %: {100 * low:+.2f} to {100 * high:+.2f})")
        out[f"discordant {spec}"] = {"a_only": a_only, "b_only": b_only, "z": z, "p": p,
                                     "difference": d, "difference_low": low,
                                     "difference_high": high}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
