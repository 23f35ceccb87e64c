"""``kaboom bench``: N simulated games in parallel; win rate with a Wilson interval."""

from __future__ import annotations

import argparse
import json
import sys

from solver.bench.runner import run_games, summarise
from solver.simulator import PRESETS, preset

__all__ = ["add_arguments", "board_arguments", "board_size", "run"]


def board_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments shared with ``kaboom calibrate``."""
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--width", type=int, help="board width (overrides --preset)")
    parser.add_argument("--height", type=int, help="board height (overrides --preset)")
    parser.add_argument("--mines", type=int, help="mine count (overrides --preset)")
    parser.add_argument("--rule", choices=["sfar", "snr"], default="sfar",
                        help="first click: sfar = never a mine, snr = opens an area")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same boards")
    parser.add_argument("--profile", choices=["fast", "strong"], default="strong")
    parser.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def board_size(args: argparse.Namespace) -> tuple[int, int, int]:
    width, height, mines = preset(args.preset)
    return args.width or width, args.height or height, args.mines or mines


def progress_bar(args: argparse.Namespace, desc: str):  # type: ignore[no-untyped-def]
    if args.no_progress:
        return None
    from tqdm import tqdm

    def wrap(it, n):  # type: ignore[no-untyped-def]
        wins = 0
        with tqdm(it, total=n, desc=desc, unit="game", file=sys.stderr) as bar:
            for i, r in enumerate(bar, 1):
                wins += r.won
                bar.set_postfix(win=f"{wins / i:.3f}", refresh=False)
                yield r

    return wrap


def add_arguments(parser: argparse.ArgumentParser) -> None:
    board_arguments(parser)


def run(args: argparse.Namespace) -> int:
    width, height, mines = board_size(args)
    settings = {
        "width": width, "height": height, "mines": mines, "rule": args.rule,
        "games": args.games, "seed": args.seed, "profile": args.profile, "jobs": args.jobs,
    }
    results = run_games(
        width, height, mines, args.rule, args.games,
        seed=args.seed, jobs=args.jobs, profile=args.profile,
        progress=progress_bar(args, f"{width}x{height}/{mines} {args.rule}"),
    )
    s = summarise(results, settings)
    print(f"board {width}x{height}/{mines}  rule {args.rule}  profile {args.profile}  "
          f"seed {args.seed}")
    print(f"won {s.wins}/{s.games} = {100 * s.win_rate:.2f} %  "
          f"(Wilson 95 %: {100 * s.wilson_low:.2f}-{100 * s.wilson_high:.2f} %)")
    print(f"ms a game (wall): median {s.ms_median:.1f}, mean {s.ms_mean:.1f}; "
          f"CPU: median {s.cpu_ms_median:.1f}, mean {s.cpu_ms_mean:.1f}; "
          f"guesses a game {s.guesses_per_game:.2f}")
    print("moves by algorithm: " + ", ".join(f"{k} {v}" for k, v in s.moves_by_algorithm.items()))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(s.to_dict(), fh, indent=2)
    return 0
