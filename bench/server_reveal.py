"""Server reveal latency: a player that opens provably safe cells and guesses only when forced.

Plays full games through the service in-process and over real HTTP against
``kaboom serve``, and prints p50 / p90 / p99 / max of a reveal and of a plain GET of
the game (the HTTP floor), per board size and count encoding.

    python bench/server_reveal.py                       # all sizes, both encodings
    python bench/server_reveal.py --sizes 30x16/99 --games 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import httpx

from kaboom.server.config import Settings
from kaboom.server.game import Rules
from kaboom.server.service import GameService
from kaboom.server.store import open_store
from kaboom.solver import KnowledgeEngine, Move, Position, parse_board
from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, LiveServer

SIZES = ["16x16/40", "30x16/99", "30x30/250", "100x100/2000", "200x200/8000"]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def summary(ms: list[float]) -> dict[str, float]:
    return {
        "n": len(ms),
        "p50": statistics.median(ms),
        "p90": _pct(ms, 0.90),
        "p99": _pct(ms, 0.99),
        "max": max(ms),
    }


class Player:
    """Chooses moves from what is certain: every safe cell, else a forced frontier guess."""

    def __init__(self, seed: int) -> None:
        self.engine = KnowledgeEngine()
        self.rng = random.Random(seed)

    def next_cells(self, position: Position) -> list[tuple[int, int]]:
        if position.is_start:
            return [(position.width // 2, position.height // 2)]
        k = self.engine.classify(position)
        safe = sorted(c for c in k.safe if position.is_covered(*c))
        if safe:
            return safe
        frontier = [c for c in position.frontier() if k.status(c).value == "u"]
        pool = frontier or [c for c in position.covered() if k.status(c).value == "u"]
        return [self.rng.choice(pool)]


def play_inprocess(
    service: GameService, rules: Rules, seed: int
) -> tuple[list[float], list[float]]:
    game, token = service.create(rules)
    player = Player(seed)
    reveal_ms: list[float] = []
    get_ms: list[float] = []
    while game.status == "playing":
        for cell in player.next_cells(game.position):
            if game.status != "playing" or not game.position.is_covered(*cell):
                continue
            t = time.perf_counter()
            game = service.play(game.id, Move.reveal(*cell), token)
            reveal_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            service.get(game.id)
            get_ms.append((time.perf_counter() - t) * 1000)
    assert game.status == "won", game.loss
    referee = service.session(game.id).referee
    FALLBACKS["layouts"] += referee.fallback_layouts
    FALLBACKS["timeouts"] += referee.timeouts
    return reveal_ms, get_ms


FALLBACKS = {"layouts": 0, "timeouts": 0}


def play_http(http: httpx.Client, body: dict[str, Any], seed: int
              ) -> tuple[list[float], list[float]]:
    g = http.post("/api/games", json=body).json()
    auth = {"Authorization": f"Bearer {g['player_token']}"}  # moves are the player's
    player = Player(seed)
    reveal_ms: list[float] = []
    get_ms: list[float] = []
    while g["status"] == "playing":
        position = Position.from_rows(g["board"], g["mines"])
        for x, y in player.next_cells(position):
            if g["status"] != "playing" or g["board"][y][x] not in "#?":
                continue
            t = time.perf_counter()
            r = http.post(f"/api/games/{g['id']}/reveal", json={"x": x, "y": y},
                          headers=auth)
            reveal_ms.append((time.perf_counter() - t) * 1000)
            if r.status_code != 200:
                raise RuntimeError(f"reveal ({x}, {y}) -> {r.status_code} {r.text}")
            g = r.json()
            t = time.perf_counter()
            http.get(f"/api/games/{g['id']}").raise_for_status()
            get_ms.append((time.perf_counter() - t) * 1000)
    assert g["status"] == "won", g["loss"]
    return reveal_ms, get_ms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", default=SIZES)
    ap.add_argument("--encodings", nargs="*", default=["native", "totalizer"])
    ap.add_argument("--games", type=int, default=0, help="games per size (default: by size)")
    ap.add_argument("--modes", nargs="*", default=["inprocess", "http"])
    ap.add_argument("--durable", action="store_true", help="SQLite synchronous=FULL")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    where = machine()  # before any server and its load
    rows = []
    for encoding in args.encodings:
        for size in args.sizes:
            w, h, m = parse_board(size)
            games = args.games or (20 if w * h <= 900 else 1)
            for mode in args.modes:
                reveals: list[float] = []
                gets: list[float] = []
                FALLBACKS.update(layouts=0, timeouts=0)
                t0 = time.perf_counter()
                with tempfile.TemporaryDirectory() as tmp:
                    db = str(Path(tmp) / "bench.db")
                    sync: Literal["FULL", "NORMAL"] = "FULL" if args.durable else "NORMAL"
                    if mode == "inprocess":
                        settings = Settings(
                            db=db,
                            count_encoding=encoding,
                            move_budget_s=10,
                            sqlite_synchronous=sync,
                        )
                        service = GameService(open_store(db, synchronous=sync), settings)
                        for s in range(games):
                            r, g = play_inprocess(service, Rules(w, h, m, seed=s + 1), s)
                            reveals += r
                            gets += g
                    else:
                        server = LiveServer(
                            db,
                            count_encoding=encoding,
                            move_budget_s=10,
                            sqlite_synchronous=sync,
                            **NO_CREATION_LIMITS,
                        )
                        with server, httpx.Client(base_url=server.url, timeout=60) as http:
                            for s in range(games):
                                body = {"width": w, "height": h, "mines": m, "seed": s + 1}
                                r, g = play_http(http, body, s)
                                reveals += r
                                gets += g
                row = {
                    "fallback_layouts": FALLBACKS["layouts"] if mode == "inprocess" else None,
                    "timeouts": FALLBACKS["timeouts"] if mode == "inprocess" else None,
                    "encoding": encoding,
                    "size": size,
                    "mode": mode,
                    "games": games,
                    "reveal": summary(reveals),
                    "get": summary(gets),
                    "wall_s": time.perf_counter() - t0,
                }
                rows.append(row)
                rv, gt = row["reveal"], row["get"]
                print(
                    f"{encoding:9} {size:13} {mode:9} games={games:3} reveals={rv['n']:5} "
                    f"reveal p50={rv['p50']:7.2f} p90={rv['p90']:7.2f} p99={rv['p99']:7.2f} "
                    f"max={rv['max']:8.2f} | GET p50={gt['p50']:6.2f} p99={gt['p99']:6.2f} ms"
                    + (
                        f" | SAT-fallback layouts={row['fallback_layouts']}"
                        f" timeouts={row['timeouts']}"
                        if mode == "inprocess"
                        else ""
                    ),
                    flush=True,
                )
    if args.json:
        args.json.write_text(json.dumps({"machine": where, "results": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
