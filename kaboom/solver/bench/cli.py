"""``kaboom bench``: N simulated games in parallel; win rate with a Wilson interval.

The games run in local processes (``--jobs``) or on a Dask cluster's workers
(``--cluster``); with ``--out`` each game is appended to a JSONL file as it ends and a
rerun of the same command plays only the seeds the file does not hold yet.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Protocol

from kaboom.solver.bench.args import at_least, writable
from kaboom.solver.bench.cluster import Cluster, ClusterError
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.results import ResultsFile, ResultsFileError
from kaboom.solver.bench.runner import (
    SEEDS_A_RUN,
    GameResult,
    Setup,
    Summary,
    game_seed,
    play_games,
    summarise,
)
from kaboom.solver.profiles import profile_spec
from kaboom.solver.simulator import PRESETS, preset

__all__ = ["add_arguments", "board_arguments", "board_size", "run"]


def board_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments shared with ``kaboom calibrate``."""
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--width", type=at_least(1), help="board width (overrides --preset)")
    parser.add_argument("--height", type=at_least(1), help="board height (overrides --preset)")
    parser.add_argument("--mines", type=at_least(0), help="mine count (overrides --preset)")
    parser.add_argument("--rule", choices=["sfar", "snr"], default="sfar",
                        help="first click: sfar = never a mine, snr = opens an area")
    parser.add_argument("--games", default=1000, type=at_least(
        1, SEEDS_A_RUN, " (another --seed's boards begin there: run more games as several"
        " seeds)"))
    parser.add_argument("--jobs", type=at_least(1), default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same boards")
    parser.add_argument("--profile", type=profile_spec, default="strong",
                        help="fast, strong, or either with option=value overrides, as "
                             "'strong,ratio=0.85' (kaboom/solver/profiles.py)")
    parser.add_argument("--json", metavar="PATH", type=writable,
                        help="write the summary as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def board_size(args: argparse.Namespace) -> tuple[int, int, int]:
    """The preset's board with any of ``--width``, ``--height``, ``--mines`` instead;
    raises ValueError when the mines leave no safe cell for the first click."""
    width, height, mines = preset(args.preset)
    width = width if args.width is None else args.width
    height = height if args.height is None else args.height
    mines = mines if args.mines is None else args.mines
    if mines >= width * height:
        raise ValueError(f"{mines} mines leave no safe first click on a {width}x{height} board")
    return width, height, mines


class ProgressBar(Protocol):
    """Passes the games through while drawing a bar of ``n`` games, ``initial`` of them
    played before (a resumed run)."""

    def __call__(self, it: Iterable[GameResult], n: int, initial: int = 0
                 ) -> Iterator[GameResult]: ...


def progress_bar(args: argparse.Namespace, desc: str) -> ProgressBar | None:
    if args.no_progress:
        return None
    from tqdm import tqdm

    def wrap(it: Iterable[GameResult], n: int, initial: int = 0) -> Iterator[GameResult]:
        wins = 0
        with tqdm(it, total=n, initial=initial, desc=desc, unit="game", file=sys.stderr,
                  smoothing=0.05) as bar:
            for i, r in enumerate(bar, 1):
                wins += r.won
                bar.set_postfix(win=f"{wins / i:.3f}", refresh=False)
                yield r

    return wrap


def add_arguments(parser: argparse.ArgumentParser) -> None:
    board_arguments(parser)
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play on the workers of the Dask scheduler at ADDRESS "
                             "(tcp://host:8786) instead of local processes")
    parser.add_argument("--out", metavar="PATH", type=writable,
                        help="append each game to this JSONL file; a rerun skips its seeds")


def run(args: argparse.Namespace) -> int:
    if args.cluster and args.jobs != 1:
        print("kaboom bench: --jobs is for local runs; a cluster's workers set the parallelism",
              file=sys.stderr)
        return 2
    try:
        setup = Setup(*board_size(args), args.rule, args.profile)
    except ValueError as e:
        print(f"kaboom bench: {e}", file=sys.stderr)
        return 2
    settings: dict[str, object] = {
        "width": setup.width, "height": setup.height, "mines": setup.mines, "rule": args.rule,
        "games": args.games, "seed": args.seed, "profile": args.profile, "jobs": args.jobs,
        "cluster": args.cluster, "out": args.out,
    }
    resume = f"; the games played are in {args.out}, rerun to resume" if args.out else ""
    seeds = [game_seed(args.seed, i) for i in range(args.games)]
    try:
        with contextlib.ExitStack() as stack:
            out = stack.enter_context(ResultsFile(args.out, setup)) if args.out else None
            todo = seeds if out is None else [s for s in seeds if s not in out.seeds]
            if len(todo) < len(seeds):
                print(f"{args.out}: {len(seeds) - len(todo)} of {len(seeds)} games already "
                      f"played; playing the other {len(todo)}", file=sys.stderr)
            if todo:  # the machine that plays them (a resumed file's games may be another's)
                settings["machine"] = machine()
            cluster = stack.enter_context(Cluster(args.cluster)) if args.cluster and todo else None
            games = (cluster.play(setup, todo) if cluster
                     else play_games(setup, todo, jobs=args.jobs))
            if out is not None:
                games = out.append(games)
            bar = progress_bar(args, f"{setup.board} {args.rule}")
            if bar is not None:
                games = bar(games, len(seeds), len(seeds) - len(todo))
            if out is None:
                s = summarise(games, settings)
            else:
                collections.deque(games, maxlen=0)
                s = summarise(out.read(seeds), settings)
            if cluster is not None:
                s.settings["games_by_worker"] = dict(sorted(cluster.games_by_worker.items()))
    except KeyboardInterrupt:
        print(f"kaboom bench: interrupted{resume}", file=sys.stderr)
        return 130
    except ClusterError as e:
        print(f"kaboom bench: {e}{resume}", file=sys.stderr)
        return 2
    except ResultsFileError as e:
        print(f"kaboom bench: {e}", file=sys.stderr)
        return 2
    _report(s, setup, args.seed)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(s.to_dict(), fh, indent=2)
    return 0


def _report(s: Summary, setup: Setup, seed: int) -> None:
    print(f"board {setup.board}  rule {setup.rule}  profile {setup.profile}  seed {seed}")
    percent = 100 * s.wins / s.games if s.games else 0.0  # not 100 * rate: 54.365 -> 54.36
    print(f"won {s.wins}/{s.games} = {percent:.2f} %  "
          f"(Wilson 95 %: {100 * s.wilson_low:.2f}-{100 * s.wilson_high:.2f} %)")
    print(f"ms a game (wall): median {s.ms_median:.1f}, mean {s.ms_mean:.1f}; "
          f"CPU: median {s.cpu_ms_median:.1f}, mean {s.cpu_ms_mean:.1f}; "
          f"guesses a game {s.guesses_per_game:.2f}")
    print("moves by algorithm: " + ", ".join(f"{k} {v}" for k, v in s.moves_by_algorithm.items()))
    m = s.settings.get("machine")
    if isinstance(m, dict):
        print(f"machine: {m['cpu']}, {m['cores']} cores, load {m['load']} at the start; "
              f"yardstick {m['yardstick_ms']} ms of CPU (kaboom/solver/bench/machine.py)")
    by_worker = s.settings.get("games_by_worker")
    if isinstance(by_worker, dict):
        print("games by worker: " + ", ".join(f"{k} {v}" for k, v in by_worker.items()))
