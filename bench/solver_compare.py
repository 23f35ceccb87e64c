"""Paired comparison of two strategy profiles on the same boards.

Usage: python bench/solver_compare.py --preset expert --games 2000 --jobs 2 \
           --a strong --b 'strong,progress_weight=0.5'

A profile is a spec: a registered name, optionally followed by ``,field=value``
overrides (``kaboom.solver.profiles.find_profile``).
Prints both win rates and the discordant pairs (games only one of them won), which is
what decides the comparison (McNemar); ``--json PATH`` writes the figures.
"""

from __future__ import annotations

import argparse
import json
import math

from kaboom.solver import preset, profile_spec
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.runner import run_games, summarise


def mcnemar(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs as a fair coin's flips."""
    n, k = a_only + b_only, min(a_only, b_only)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    return min(1.0, 2 * tail)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--a", type=profile_spec, default="strong")
    ap.add_argument("--b", type=profile_spec, action="append", help="one or more challengers")
    ap.add_argument("--json")
    args = ap.parse_args()
    w, h, m = preset(args.preset)
    out: dict[str, object] = {"machine": machine()}
    results = {}
    challengers = args.b or ["fast"]
    for spec in (args.a, *challengers):
        results[spec] = run_games(w, h, m, args.rule, args.games, seed=args.seed,
                                  jobs=args.jobs, profile=spec)
        s = summarise(results[spec], {"preset": args.preset, "rule": args.rule,
                                      "games": args.games, "seed": args.seed,
                                      "jobs": args.jobs, "profile": spec})
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
        print(f"{spec}: only A won {a_only}, only B won {b_only}; z(B - A) = {z:+.2f}, "
              f"exact McNemar p = {p:.4f}")
        out[f"discordant {spec}"] = {"a_only": a_only, "b_only": b_only, "z": z, "p": p}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
