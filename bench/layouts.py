"""Another solver on our boards: export the layouts, then pair the per-seed results.

Usage:
    python bench/layouts.py export --preset expert --rule sfar --games 20000 --seed 2026 \
        > layouts.jsonl
    python bench/layouts.py pair ours.jsonl theirs.jsonl

``export`` writes one line per game, ``{"seed", "width", "height", "first": [x, y],
"mines": [flat index y * width + x, ...]}``: the layout ``kaboom bench --seed S`` plays
as game ``i`` (seed ``S * 1_000_003 + i``), for a harness that feeds it to another solver
(we played JSMinesweeper this way; docs/solver.md).  ``pair`` reads two files of
``{"seed", "won"}`` lines (``kaboom bench --out`` writes them; gzipped when the name ends in
``.gz``) and prints both win rates on the seeds they share, the discordant games and the
exact McNemar p-value (``--json PATH`` writes them too).
``bench/results/expert_{snr,sfar}_strong_200k_seeds.jsonl.gz`` hold ``strong``'s outcome
on each of the 200,000 Expert target boards of each rule (seed 2026), so a challenger
needs only its own run (``kaboom bench --profile SPEC --seed 2026 --out B.jsonl``) to be
paired with them; ``expert_{snr,sfar}_risk_walls3_200k_seeds.jsonl.gz`` hold the outcomes
of ``strong`` before the nineteenth pass (three walls).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys

from kaboom.solver import SimulatedGame, first_cell, preset
from kaboom.solver.bench.runner import game_seed, wilson

from solver_compare import mcnemar


def export(name: str, rule: str, games: int, seed: int) -> None:
    w, h, m = preset(name)
    x, y = first_cell(SimulatedGame(w, h, m).position(), rule)
    for i in range(games):
        game = SimulatedGame(w, h, m, rule=rule, seed=game_seed(seed, i))
        game.reveal(x, y)
        assert game.layout is not None  # placed by the first click
        mines = sorted(cy * w + cx for cx, cy in game.layout)
        print(json.dumps({"seed": game.seed, "width": w, "height": h, "first": [x, y],
                          "mines": mines}))


def pair(a_path: str, b_path: str, json_path: str | None = None) -> None:
    def load(path: str) -> dict[int, bool]:
        with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as fh:
            return {row["seed"]: bool(row["won"]) for row in map(json.loads, fh) if row}

    a, b = load(a_path), load(b_path)
    seeds = sorted(a.keys() & b.keys())
    n = len(seeds)
    if not n:
        sys.exit("no seed in common")
    out: dict[str, object] = {"games": n}
    for key, path, won in (("a", a_path, a), ("b", b_path, b)):
        wins = sum(won[s] for s in seeds)
        low, high = wilson(wins, n)
        print(f"{path}: won {wins}/{n} = {100 * wins / n:.2f} % "
              f"[{100 * low:.2f}, {100 * high:.2f}]")
        out[key] = {"path": path, "wins": wins, "win_rate": wins / n, "wilson": [low, high]}
    a_only = sum(a[s] and not b[s] for s in seeds)
    b_only = sum(b[s] and not a[s] for s in seeds)
    z = (b_only - a_only) / math.sqrt(a_only + b_only) if a_only + b_only else 0.0
    p = mcnemar(a_only, b_only)
    print(f"only the first won {a_only}, only the second {b_only}; z = {z:+.2f}, "
          f"exact McNemar p = {p:.4f}")
    if json_path:
        with open(json_path, "w") as fh:
            json.dump({**out, "a_only": a_only, "b_only": b_only, "z": z, "p": p}, fh, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="write the layouts of a kaboom bench run")
    ex.add_argument("--preset", default="expert")
    ex.add_argument("--rule", default="sfar")
    ex.add_argument("--games", type=int, default=1000)
    ex.add_argument("--seed", type=int, default=0)
    pa = sub.add_parser("pair", help="pair two files of per-seed results")
    pa.add_argument("a")
    pa.add_argument("b")
    pa.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args()
    if args.command == "export":
        export(args.preset, args.rule, args.games, args.seed)
    else:
        pair(args.a, args.b, args.json)


if __name__ == "__main__":
    main()
