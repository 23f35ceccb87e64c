"""How far from perfect play: boards small enough to solve whole, every layout played.

Usage: python bench/perfect_play.py --boards 4x4/3 5x5/4 5x5/5 --jobs 2 \
           --profiles strong fast 'strong,endgame_layouts=0' --json out.json

Under the safe-first-click rule with the first click at (0, 0), every layout without a
mine there is equally likely.  On a board this small the exact win search
(:class:`solver.endgame.Endgame`) can run from the first number on, over all of them,
which gives the best win chance any player can have.  Each profile then plays every
one of those layouts once, so its win rate is exact too: no sampling error on either
side, and the gap is the headroom left by its guesses on that board.  (The search is
checked against plain recursion in tests/solver/test_endgame.py.)  On Expert the
exact search is out of reach; these boards at Expert's density (about 0.2) only
bound how much better play can be where it can be computed.

Memory grows fast with the board: 5x5/5's largest search (the corner showing 1, 17,955
layouts) holds 18.9 GB at its peak, 5x5/4's (3,990 layouts) 0.64 GB; ``--max-layouts``
(50,000 by default) refuses a board before it starts.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import time
from collections.abc import Iterator
from typing import Any

from solver.bench.runner import play_out
from solver.endgame import Endgame, layouts
from solver.position import (
    Cell,
    FirstClick,
    GameStatus,
    Move,
    MoveKind,
    Position,
    neighbours,
)
from solver.session import Solver
from solver.simulator import SimulatedGame, parse_board

from solver_compare import parse_profile

FIRST: Cell = (0, 0)


def optimal(width: int, height: int, mines: int, jobs: int) -> dict[str, Any]:
    """The best win chance after a safe first click at (0, 0): one exact search per
    number it may show, each in a process of its own (a search's memo can take
    gigabytes, given back when its process ends)."""
    numbers = range(len(list(neighbours(*FIRST, width, height))) + 1)
    tasks = [(width, height, mines, n) for n in numbers]
    with multiprocessing.get_context("fork").Pool(max(jobs, 1), maxtasksperchild=1) as pool:
        found = pool.map(_search, tasks, chunksize=1)
    by_number = {n: f for n, f in zip(numbers, found, strict=True) if f is not None}
    total = sum(f["layouts"] for f in by_number.values())
    wins = sum(f["layouts"] * f["win"] for f in by_number.values())
    return {"layouts": total, "win": wins / total, "by_number": by_number}


def _search(task: tuple[int, int, int, int]) -> dict[str, Any] | None:
    """The exact search once (0, 0) shows ``n``; ``None`` when no layout shows it."""
    width, height, mines, n = task
    rows = ["#" * width] * height
    position = Position.from_rows([str(n) + rows[0][1:], *rows[1:]], mines)
    found = layouts(position, limit=10**7)
    if not found:
        return None
    t = time.process_time()
    search = Endgame(position, found, list(position.covered()), node_limit=10**9)
    best = search.best()
    assert best is not None
    return {"layouts": len(found), "win": best[1], "best_cell": best[0],
            "nodes": search.nodes, "cpu_s": round(time.process_time() - t, 2)}


def all_layouts(width: int, height: int, mines: int) -> Iterator[frozenset[Cell]]:
    cells = [(x, y) for y in range(height) for x in range(width) if (x, y) != FIRST]
    return (frozenset(c) for c in itertools.combinations(cells, mines))


def play(task: tuple[int, int, int, str, frozenset[Cell]]) -> bool:
    """One game of ``profile`` on a fixed layout, first click at (0, 0)."""
    width, height, mines, profile, layout = task
    start = Position.from_rows(["#" * width] * height, mines)
    game = SimulatedGame.resume(start, layout)
    game.play(Move(MoveKind.REVEAL, *FIRST))
    return play_out(game, Solver(profile, first_click=FirstClick.SAFE)) is GameStatus.WON


def played(width: int, height: int, mines: int, profile: str, jobs: int) -> dict[str, Any]:
    tasks = ((width, height, mines, profile, lay) for lay in all_layouts(width, height, mines))
    t = time.perf_counter()
    if jobs <= 1:
        results = list(map(play, tasks))
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = list(pool.imap(play, tasks, chunksize=64))
    return {"games": len(results), "won": sum(results), "win": sum(results) / len(results),
            "wall_s": round(time.perf_counter() - t, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", nargs="+", default=["4x4/3", "5x5/4", "5x5/5"])
    parser.add_argument("--profiles", nargs="+", default=["strong", "fast"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--max-layouts", type=int, default=50_000,
                        help="refuse boards with more layouts (5x5/5's 42,504 peak at "
                             "18.9 GB of memory)")
    args = parser.parse_args()
    for spec in args.boards:
        try:
            width, height, mines = parse_board(spec)
        except ValueError as e:
            parser.error(str(e))
        count = math.comb(width * height - 1, mines)
        if count > args.max_layouts:
            parser.error(f"{spec} has {count:,} layouts, more than --max-layouts "
                         f"{args.max_layouts:,}; its search would need far more memory")
    profiles = [parse_profile(p) for p in args.profiles]
    rows = []
    for spec in args.boards:
        width, height, mines = parse_board(spec)
        best = optimal(width, height, mines, args.jobs)
        cpu = sum(f["cpu_s"] for f in best["by_number"].values())
        print(f"{spec}: perfect play wins {100 * best['win']:.3f} % of {best['layouts']:,} "
              f"layouts ({cpu:.1f} s of CPU)", flush=True)
        row: dict[str, Any] = {"board": spec, "optimal": best, "profiles": {}}
        for name in profiles:
            got = played(width, height, mines, name, args.jobs)
            gap = round(100 * (best["win"] - got["win"]), 9) + 0.0  # no "-0.000"
            print(f"  {name}: {got['won']:,} / {got['games']:,} = {100 * got['win']:.3f} % "
                  f"({gap:+.3f} points below perfect; {got['wall_s']} s)", flush=True)
            assert got["games"] == best["layouts"]
            row["profiles"][name] = {**got, "points_below_perfect": round(gap, 4)}
        rows.append(row)
    if args.json:
        settings = {**vars(args), "load": os.getloadavg()[0]}
        with open(args.json, "w") as f:
            json.dump({"settings": settings, "results": rows}, f, indent=1, default=str)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
