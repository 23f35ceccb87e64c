"""Which click to play next early in a game: every candidate on the same boards.

Usage: python bench/first_clicks.py --preset expert --rule sfar --first 0,0 --shows 1 \
           --cells 29,0 2,0 0,2 2,2 1,1 --games 20000 --jobs 2 --json out.json

Plays the first click; keeps the boards on which it shows ``--shows``; then, on each kept
board, plays each candidate cell as the second click and the rest of the game with the
``--profile`` solver (``strong`` by default).  The boards are the same for every
candidate, so the candidates are compared pair by pair (discordant games, exact McNemar
p-value against the first candidate).  With ``--shows any`` every board is kept and the
candidates are first clicks (``--first`` is then ignored).
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import statistics
import time

from kaboom.solver import (
    CellState,
    FirstClick,
    GameStatus,
    SimulatedGame,
    Solver,
    preset,
    profile_spec,
)
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.runner import game_seed, play_out, wilson

from solver_compare import mcnemar


def play_seed(args: tuple[str, str, tuple[int, int], str, list[tuple[int, int]], str, int]
              ) -> tuple[int, list[bool] | None, float]:
    """One board: ``None`` when the first click does not show the wanted number, else
    whether each candidate's game was won; and the CPU seconds spent."""
    name, rule, first, shows, cells, profile, seed = args
    start = time.process_time()
    w, h, m = preset(name)
    base = SimulatedGame(w, h, m, rule=rule, seed=seed)
    if shows != "any":
        base.reveal(*first)
        if base.outcome is not GameStatus.PLAYING or base.char(*first) != shows:
            return seed, None, time.process_time() - start
    wins = []
    for cell in cells:
        game = copy.deepcopy(base)
        solver = Solver(profile, first_click=FirstClick(rule))
        if game.char(*cell) == CellState.COVERED:  # else opened by the first click
            game.reveal(*cell)
        wins.append(play_out(game, solver) is GameStatus.WON)
    return seed, wins, time.process_time() - start


def _cell(text: str) -> tuple[int, int]:
    x, y = text.split(",")
    return int(x), int(y)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--first", default="0,0")
    ap.add_argument("--shows", default="1", help="the first click's number, or 'any'")
    ap.add_argument("--cells", nargs="+", required=True, help="candidates as X,Y")
    ap.add_argument("--games", type=int, default=1000, help="boards tried")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--profile", type=profile_spec, default="strong")
    ap.add_argument("--json")
    args = ap.parse_args()
    where = machine()
    first = _cell(args.first)
    cells = [_cell(c) for c in args.cells]
    tasks = [(args.preset, args.rule, first, args.shows, cells, args.profile,
              game_seed(args.seed, i)) for i in range(args.games)]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            results = pool.map(play_seed, tasks, chunksize=8)
    else:
        results = [play_seed(t) for t in tasks]
    kept = [wins for _, wins, _ in results if wins is not None]
    cpu = [s for _, wins, s in results if wins is not None]
    print(f"{args.preset} {args.rule}: first click {first} shows {args.shows} on "
          f"{len(kept)} of {args.games} boards; CPU ms a board, all candidates: "
          f"median {1000 * statistics.median(cpu or [0]):.1f}")
    by_cell: dict[str, dict[str, float]] = {}
    out = {"settings": vars(args), "machine": where, "boards": len(kept), "cells": by_cell}
    for j, cell in enumerate(cells):
        won = sum(w[j] for w in kept)
        low, high = wilson(won, len(kept))
        a_only = sum(w[0] and not w[j] for w in kept)
        b_only = sum(w[j] and not w[0] for w in kept)
        p = mcnemar(a_only, b_only)
        print(f"  {cell}: won {won}/{len(kept)} = {100 * won / max(1, len(kept)):.2f} % "
              f"[{100 * low:.2f}, {100 * high:.2f}]  vs {cells[0]}: only first {a_only}, "
              f"only this {b_only}, p = {p:.4f}")
        by_cell[str(cell)] = {"won": won, "a_only": a_only, "b_only": b_only, "p": p}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
