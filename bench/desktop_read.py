"""Read accuracy of the screen driver on sgt-mines: known layouts read back cell by cell.

For each board size and tile size, random layouts are launched as exact sgt-mines game ids
on a private Xvfb; the board is read at the start, after opening a random half of the
safe cells, and after opening all of them (won: sgt-mines flags every mine), and every
cell is compared with what the layout says it must show.  Prints the figures and can write
JSON.

    python bench/desktop_read.py --layouts 3 --json /tmp/desktop_read.json
    python bench/desktop_read.py --sizes 9x9/10 --tiles 16 24 --layouts 1
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterable
from pathlib import Path

from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines, encode_layout
from kaboom.bots.desktop.xvfb import virtual_display
from kaboom.solver import Cell, GameStatus, Move, Position, SimulatedGame, parse_board
from kaboom.solver.bench.machine import machine
from kaboom.solver.position import neighbours

SIZES = [(9, 9, 10), (16, 16, 40), (30, 16, 99)]
TILES = [16, 20, 24, 32]


def _random_layout(rng: random.Random, width: int, height: int, mines: int
                   ) -> tuple[frozenset[Cell], Cell]:
    """A random layout and a start cell showing 0 (so the game opens an area); a
    ``ValueError`` when 1,000 draws found none (a board too crowded for one)."""
    cells = [(x, y) for y in range(height) for x in range(width)]
    for _ in range(1000):
        layout = frozenset(rng.sample(cells, mines))
        zeros = [c for c in cells if c not in layout
                 and not any(n in layout for n in neighbours(*c, width, height))]
        if zeros:
            return layout, rng.choice(zeros)
    raise ValueError(f"no layout of {width}x{height}/{mines} in 1,000 draws had a cell showing 0")


def _board_after(layout: frozenset[Cell], width: int, height: int, clicks: Iterable[Cell]
                 ) -> list[str]:
    """What the board must show after revealing the safe ``clicks``, played on the
    simulator; once won, sgt-mines flags every mine."""
    game = SimulatedGame.resume(Position.new(width, height, len(layout)), layout)
    game.play_all([Move.reveal(*c) for c in clicks])
    rows = list(game.position().rows)
    if game.outcome is GameStatus.WON:
        rows = ["".join("F" if (x, y) in layout else ch for x, ch in enumerate(row))
                for y, row in enumerate(rows)]
    return rows


def _compare(got: list[str], want: list[str]) -> tuple[int, int]:
    cells = sum(len(r) for r in want)
    wrong = sum(a != b for g, w in zip(got, want, strict=True) for a, b in zip(g, w, strict=True))
    return cells, wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layouts", type=int, default=3, help="layouts per size and tile size")
    parser.add_argument("--sizes", nargs="+", default=[f"{w}x{h}/{m}" for w, h, m in SIZES],
                        help="boards as WxH/MINES")
    parser.add_argument("--tiles", nargs="+", type=int, default=TILES, help="tile sizes, px")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        sizes = [parse_board(text) for text in args.sizes]
        for w, h, m in sizes:  # crowded boards are refused before any game starts
            _random_layout(random.Random(0), w, h, m)
    except ValueError as e:
        parser.error(f"--sizes: {e}")
    where = machine()  # before the display and the game start
    rng = random.Random(args.seed)
    rows_out = []
    with virtual_display() as display:
        for w, h, m in sizes:
            for tile in args.tiles:
                cells = wrong = reads = 0
                read_s = 0.0
                for _ in range(args.layouts):
                    layout, start = _random_layout(rng, w, h, m)
                    with DesktopSession(SgtMines(tile_size=tile), display, speed=0) as session:
                        first = session.start(encode_layout(w, h, layout, start))
                        checks = [(list(first.rows), _board_after(layout, w, h, [start]))]
                        safe = [(x, y) for y in range(h) for x in range(w)
                                if (x, y) not in layout]
                        rng.shuffle(safe)
                        half = safe[: len(safe) // 2]
                        for cell in half:
                            session.click(Move.reveal(*cell))
                        want = _board_after(layout, w, h, [start, *half])
                        checks.append((session.read_until(want), want))
                        for cell in safe[len(safe) // 2:]:
                            session.click(Move.reveal(*cell))
                        want = _board_after(layout, w, h, [start, *safe])
                        checks.append((session.read_until(want), want))
                        t0 = time.perf_counter()
                        for _ in range(10):
                            session.read()
                        read_s += time.perf_counter() - t0
                        reads += 10
                    for got, want in checks:
                        c, bad = _compare(got, want)
                        cells, wrong = cells + c, wrong + bad
                row = {"size": f"{w}x{h}", "mines": m, "tile": tile, "layouts": args.layouts,
                       "cells_read": cells, "cells_wrong": wrong,
                       "accuracy": round(1 - wrong / cells, 6),
                       "ms_per_stable_read": round(1000 * read_s / reads, 1)}
                rows_out.append(row)
                print(f"{w}x{h}/{m} tile {tile:2d}px: {cells} cells read, {wrong} wrong "
                      f"({100 * row['accuracy']:.3f}% right), {row['ms_per_stable_read']} ms "
                      "per stable reading", flush=True)
    total = sum(r["cells_read"] for r in rows_out)
    bad = sum(r["cells_wrong"] for r in rows_out)
    print(f"total: {total} cells, {bad} wrong ({100 * (1 - bad / total):.3f}% right)")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": where, "results": rows_out}, indent=1) + "\n")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
