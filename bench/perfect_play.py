"""How far from perfect play: boards small enough to solve whole, every layout played.

Usage: python bench/perfect_play.py --boards 4x4/3 5x5/4 5x5/5 --jobs 2 \
           --profiles strong fast 'strong,endgame_layouts=0' [--shortfalls 7000] \
           --json out.json
       python bench/perfect_play.py --positions bench/positions/5x5-5-fourth-corner.txt \
           --profiles strong 'strong,endgame_nodes=1000000' --jobs 2 --json out.json

Under the safe-first-click rule with the first click at (0, 0), every layout without a
mine there is equally likely.  On a board this small the exact win search
(:class:`kaboom.solver.endgame.Endgame`) can run from the first number on, over all of them,
which gives the best win chance any player can have.  Each profile then plays every
one of those layouts once, so its win rate is exact too: no sampling error on either
side, and the gap is the headroom left by its guesses on that board.  (The search is
checked against plain recursion in tests/solver/test_endgame.py.)  On Expert the
exact search is out of reach; these boards at Expert's density (about 0.2) only
bound how much better play can be where it can be computed.

``--shortfalls`` says where a profile's missing wins are: each position where it
guessed without its exact search is searched too, and the exact value of its cell is
compared with the best cell's.  Found this way, the missing wins add up to the whole
gap (a test checks it on 4x4/4).

``--positions`` starts from positions of a game instead (diagram files: ``mines=N`` and
the rows, as ``Position.to_text`` writes them): a position is reached by exactly the
layouts that fit it, all equally likely, so perfect play and each profile are measured
from there the same way, on every one of its layouts.

Memory grows fast with the board: 5x5/5's largest search (the corner showing 1, 17,955
layouts) holds 18.9 GB at its peak, 5x5/4's (3,990 layouts) 0.64 GB; ``--max-layouts``
(50,000 by default) refuses a board before it starts.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from kaboom.solver import (
    Cell,
    Decision,
    FirstClick,
    GameStatus,
    KaboomError,
    Move,
    MoveKind,
    Position,
    SimulatedGame,
    Solver,
    parse_board,
    profile_spec,
)
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.runner import play_out
from kaboom.solver.endgame import Endgame, layouts
from kaboom.solver.position import neighbours

FIRST: Cell = (0, 0)

class Start(NamedTuple):
    """Where the games start: a whole board clicked first at (0, 0), or a position."""

    rows: tuple[str, ...]
    mines: int
    click_first: bool


def optimal(width: int, height: int, mines: int, jobs: int) -> dict[str, Any]:
    """The best win chance after a safe first click at (0, 0): one exact search per
    number it may show, each in a process of its own (a search's memo can take
    gigabytes, given back when its process ends)."""
    numbers = range(len(list(neighbours(*FIRST, width, height))) + 1)
    rows = ["#" * width] * height
    tasks = [((str(n) + rows[0][1:], *rows[1:]), mines) for n in numbers]
    with multiprocessing.get_context("fork").Pool(max(jobs, 1), maxtasksperchild=1) as pool:
        found = pool.map(_search, tasks, chunksize=1)
    by_number = {n: f for n, f in zip(numbers, found, strict=True) if f is not None}
    total = sum(f["layouts"] for f in by_number.values())
    wins = sum(f["layouts"] * f["win"] for f in by_number.values())
    return {"layouts": total, "win": wins / total, "by_number": by_number}


def _search(task: tuple[tuple[str, ...], int]) -> dict[str, Any] | None:
    """The exact search from a position; ``None`` when no layout fits it."""
    rows, mines = task
    position = Position.from_rows(rows, mines)
    found = layouts(position, limit=10**7)
    return _exact(position, found) if found else None


def _exact(position: Position, found: list[frozenset[Cell]],
           chosen: Cell | None = None) -> dict[str, Any]:
    """The exact search over ``found``, every layout that fits ``position``: the best
    cell and its win chance, and with ``chosen`` that cell's and the wins it misses."""
    t = time.process_time()
    search = Endgame(position, found, list(position.covered()), node_limit=10**9,
                     memo_bytes=None)  # the whole board's search: 19 GB for 5x5/5
    best = search.best()
    assert best is not None
    row: dict[str, Any] = {"layouts": len(found), "win": best[1], "best_cell": best[0],
                           "nodes": search.nodes}
    if chosen is not None:
        got = search.best([chosen])
        assert got is not None
        row |= {"chosen": chosen, "chosen_win": got[1],
                "missing_wins": len(found) * max(best[1] - got[1], 0.0)}
    return {**row, "cpu_s": round(time.process_time() - t, 2)}


def perfect(label: str, start: Start, lays: Iterable[frozenset[Cell]], jobs: int
            ) -> dict[str, Any]:
    """Perfect play's figures from ``start`` (a whole board, or a position whose
    layouts are ``lays``), printed."""
    rows, mines, click_first = start
    if click_first:
        best = optimal(len(rows[0]), len(rows), mines, jobs)
        cpu = sum(f["cpu_s"] for f in best["by_number"].values())
    else:
        best = _exact(Position.from_rows(rows, mines), list(lays))
        cpu = best["cpu_s"]
    print(f"{label}: perfect play wins {100 * best['win']:.3f} % of {best['layouts']:,} "
          f"layouts ({cpu:.1f} s of CPU)", flush=True)
    return best


def all_layouts(width: int, height: int, mines: int) -> Iterator[frozenset[Cell]]:
    cells = [(x, y) for y in range(height) for x in range(width) if (x, y) != FIRST]
    return (frozenset(c) for c in itertools.combinations(cells, mines))


class Recording(Solver):
    """A solver that notes where it guessed without its exact search, and what."""

    def __init__(self, profile: str) -> None:
        super().__init__(profile, first_click=FirstClick.SAFE)
        self.guesses: list[tuple[tuple[str, ...], Cell]] = []

    def decide(self, position: Position, *, probabilities: bool = False,
               flag_mines: bool = False, budget_s: float | None = None) -> Decision:
        d = super().decide(position, probabilities=probabilities, flag_mines=flag_mines,
                           budget_s=budget_s)
        if not d.certain and d.algorithm != "endgame":
            cell = next(m.cell for m in d.moves if m.kind is MoveKind.REVEAL)
            self.guesses.append((position.rows, cell))
        return d


def play(task: tuple[Start, str, frozenset[Cell]]
         ) -> tuple[bool, list[tuple[tuple[str, ...], Cell]]]:
    """One game of ``profile`` on a fixed layout from ``start``: whether it was won, and
    the guesses made without the exact search."""
    (rows, mines, click_first), profile, layout = task
    game = SimulatedGame.resume(Position.from_rows(rows, mines), layout)
    if click_first:
        game.play(Move(MoveKind.REVEAL, *FIRST))
    solver = Recording(profile)
    return play_out(game, solver) is GameStatus.WON, solver.guesses


def played(start: Start, lays: Iterable[frozenset[Cell]], profile: str, jobs: int
           ) -> tuple[dict[str, Any], Counter[tuple[tuple[str, ...], Cell]]]:
    """The profile's figures on every layout, and how many games made each guess."""
    tasks = ((start, profile, lay) for lay in lays)
    t = time.perf_counter()
    if jobs <= 1:
        results = list(map(play, tasks))
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = list(pool.imap(play, tasks, chunksize=64))
    won = sum(w for w, _ in results)
    guesses = Counter(g for _, made in results for g in made)
    return ({"games": len(results), "won": won, "win": won / len(results),
             "wall_s": round(time.perf_counter() - t, 1)}, guesses)


def shortfalls(mines: int, guesses: Counter[tuple[tuple[str, ...], Cell]], jobs: int,
               limit: int) -> dict[str, Any]:
    """Where the profile's guesses lose wins: at each position where it guessed without
    its exact search, the exact search's value of its cell against the best cell's.

    A position is reached by exactly the layouts that fit it (the profile decides
    from the position alone), so its missing wins are its layout count times the gap;
    summed over every guess, they are the whole gap to perfect play (a safe click
    loses nothing, and neither does the profile's own exact search).  Positions with
    more than ``limit`` layouts are not searched (memory)."""
    tasks = [(rows, mines, cell, limit) for rows, cell in guesses]
    with multiprocessing.get_context("fork").Pool(max(jobs, 1), maxtasksperchild=1) as pool:
        found = pool.map(_regret, tasks, chunksize=1)
    evaluated, skipped = [], 0
    for visits, got in zip(guesses.values(), found, strict=True):
        if got is None:
            skipped += visits
        else:
            evaluated.append({**got, "games": visits})
    evaluated.sort(key=lambda r: -r["missing_wins"])
    return {"missing_wins": sum(r["missing_wins"] for r in evaluated),
            "guess_positions": len(guesses), "games_at_unsearched_guesses": skipped,
            "worst": [r for r in evaluated if r["missing_wins"] > 1e-9][:10]}


def _regret(task: tuple[tuple[str, ...], int, Cell, int]) -> dict[str, Any] | None:
    rows, mines, cell, limit = task
    position = Position.from_rows(rows, mines)
    found = layouts(position, limit=limit)
    return None if found is None else {"rows": list(rows), **_exact(position, found, cell)}


def _print_shortfalls(found: dict[str, Any], missing: float) -> None:
    print(f"    {found['missing_wins']:.1f} of its {missing:.1f} missing wins found at "
          f"{found['guess_positions']:,} guess positions; "
          f"{found['games_at_unsearched_guesses']:,} games met a guess too large to search",
          flush=True)
    for r in found["worst"][:5]:
        print(f"    {r['missing_wins']:.1f}: {r['layouts']:,} layouts, chose {r['chosen']} "
              f"({100 * r['chosen_win']:.2f} %), best {r['best_cell']} ({100 * r['win']:.2f} %): "
              + " / ".join(r["rows"]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", nargs="+", default=[],
                        help="whole boards from a safe first click at (0, 0) (without "
                             "--positions: 4x4/3 5x5/4 5x5/5)")
    parser.add_argument("--positions", nargs="+", default=[], metavar="FILE",
                        help="positions of a game, as diagram files (mines=N, then the rows)")
    parser.add_argument("--profiles", nargs="+", type=profile_spec, default=["strong", "fast"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--max-layouts", type=int, default=50_000,
                        help="refuse boards and positions with more layouts (5x5/5's "
                             "42,504 peak at 18.9 GB of memory)")
    parser.add_argument("--shortfalls", type=int, default=0, metavar="LAYOUTS",
                        help="also search every position where a profile guessed without "
                             "its exact search, up to LAYOUTS layouts (docs/solver.md used "
                             "7,000), and report where its wins go missing")
    args = parser.parse_args()
    ran_on = machine()
    if not args.boards and not args.positions:
        args.boards = ["4x4/3", "5x5/4", "5x5/5"]
    cases: list[tuple[str, Start, Callable[[], Iterable[frozenset[Cell]]]]] = []
    for spec in args.boards:
        try:
            width, height, mines = parse_board(spec)
        except ValueError as e:
            parser.error(str(e))
        count = math.comb(width * height - 1, mines)
        if count > args.max_layouts:
            parser.error(f"{spec} has {count:,} layouts, more than --max-layouts "
                         f"{args.max_layouts:,}; its search would need far more memory")
        cases.append((spec, Start(("#" * width,) * height, mines, True),
                      functools.partial(all_layouts, width, height, mines)))
    for path in args.positions:
        try:
            with open(path) as f:
                position = Position.from_text(f.read())
        except (OSError, KaboomError) as e:
            parser.error(f"{path}: {e}")
        fitting = layouts(position, limit=args.max_layouts)
        if fitting is None:
            parser.error(f"{path} has more than --max-layouts {args.max_layouts:,} layouts")
        if not fitting:
            parser.error(f"{path}: no layout fits the position")
        cases.append((path, Start(position.rows, position.mines, False),
                      functools.partial(list, fitting)))
    rows = []
    for label, start, lays in cases:
        best = perfect(label, start, lays(), args.jobs)
        where = ({"board": label} if start.click_first
                 else {"position": label, "rows": list(start.rows)})
        row: dict[str, Any] = {**where, "optimal": best, "profiles": {}}
        for name in args.profiles:
            got, guesses = played(start, lays(), name, args.jobs)
            gap = round(100 * (best["win"] - got["win"]), 9) + 0.0  # no "-0.000"
            print(f"  {name}: {got['won']:,} / {got['games']:,} = {100 * got['win']:.3f} % "
                  f"({gap:+.3f} points below perfect; {got['wall_s']} s)", flush=True)
            assert got["games"] == best["layouts"]
            row["profiles"][name] = {**got, "points_below_perfect": round(gap, 4)}
            if args.shortfalls:
                found = shortfalls(start.mines, guesses, args.jobs, args.shortfalls)
                row["profiles"][name]["shortfalls"] = found
                _print_shortfalls(found, max(best["win"] * best["layouts"] - got["won"], 0.0))
        rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": vars(args), "machine": ran_on, "results": rows}, f,
                      indent=1, default=str)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
