"""Runs the measured table of docs/solver.md: one ``kaboom bench`` per board and rule.

Usage: python bench/solver_table.py [--games-scale 1.0] [--jobs 2] [--out DIR]

Each row is an ordinary ``kaboom bench`` command (printed before it runs) writing JSON
to ``DIR``; at the end the script prints the Markdown table built from those files.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

ROWS = [
    ("beginner", "sfar", "strong", 100_000),
    ("beginner", "snr", "strong", 100_000),
    ("intermediate", "sfar", "strong", 100_000),
    ("intermediate", "snr", "strong", 100_000),
    ("expert", "sfar", "strong", 200_000),
    ("expert", "snr", "strong", 200_000),
    ("expert", "sfar", "fast", 100_000),
]
"""The rows of docs/solver.md's measured table: board, rule, profile, games (issue #12
asks for 200,000 Expert games of ``strong``)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games-scale", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--table-only", action="store_true", help="only print the table")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = [
        "| board | rule | profile | games | won | win rate | Wilson 95 % | "
        "median ms (wall) | median ms (CPU) | command |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for board, rule, profile, games in ROWS:
        n = max(1, round(games * args.games_scale))
        path = out / f"{board}_{rule}_{profile}.json"
        cmd = [
            "kaboom", "bench", "--preset", board, "--rule", rule, "--profile", profile,
            "--games", str(n), "--jobs", str(args.jobs), "--seed", str(args.seed),
            "--json", str(path), "--no-progress",
        ]
        if not args.table_only:
            print("$ " + shlex.join(cmd), flush=True)
            subprocess.run([sys.executable, "-m", "kaboom", *cmd[1:]], check=True)
        if not path.exists():
            continue
        s = json.loads(path.read_text())
        lines.append(
            f"| {board} | {rule} | {profile} | {s['games']} | {s['wins']} | "
            f"{100 * s['win_rate']:.2f} % | {100 * s['wilson_low']:.2f}–"
            f"{100 * s['wilson_high']:.2f} % | {s['ms_median']:.1f} | "
            f"{s['cpu_ms_median']:.1f} | `{shlex.join(cmd[:-1])}` |"
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
