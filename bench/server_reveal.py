"""Server reveal latency: a player that opens provably safe cells and guesses only when forced.

Plays full games through the service in-process and over real HTTP against
``kaboom serve``, and prints p50 / p90 / p99 / max of a reveal and of a plain GET of
the game (the HTTP floor), per board size and count encoding.

    python bench/server_reveal.py                       # all sizes, both encodings
    python bench/server_reveal.py --sizes 30x16/99 --games 5 --json out.json
    python bench/server_reveal.py --modes http --before ../before   # two versions, paired

With ``--before CHECKOUT`` the HTTP mode runs that checkout's server (its ``.venv``'s
``kaboom``) beside this one's and plays each seed on both, one right after the other (the
first alternating game by game), so both meet the machine as it is; it prints both and
the ratio (now / before) of each percentile.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Literal

import httpx

from kaboom.server.config import Settings
from kaboom.server.game import Rules
from kaboom.server.games import Games
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
    service: Games, rules: Rules, seed: int
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
            game = service.play(game.id, Move.reveal(*cell), token).after
            reveal_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            service.get(game.id)
            get_ms.append((time.perf_counter() - t) * 1000)
    assert game.status == "won", game.loss
    with service.sessions.referee(game) as referee:
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
    ap.add_argument("--before", type=Path, help="a checkout (with its .venv) to measure too, in"
                    " the HTTP mode, paired on the same seeds")
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
                per_version: dict[str, tuple[list[float], list[float]]] = {}
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
                        service = Games(open_store(db, synchronous=sync), settings)
                        for s in range(games):
                            r, g = play_inprocess(service, Rules(w, h, m, seed=s + 1), s)
                            reveals += r
                            gets += g
                    else:
                        for version, (r, g) in _http(db, encoding, sync, w, h, m, games,
                                                     args.before).items():
                            per_version[version] = (r, g)
                        reveals, gets = per_version["now"]
                for version in ["before", "now"] if "before" in per_version else ["now"]:
                    reveals, gets = per_version.get(version, (reveals, gets))
                    row = {
                        "version": version,
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
                    _print(row)
                if "before" in per_version:
                    _print_ratio(rows[-2], rows[-1])
    if args.json:
        args.json.write_text(json.dumps({"machine": where, "results": rows}, indent=2))
    return 0


def _http(db: str, encoding: str, sync: str, w: int, h: int, m: int, games: int,
          before: Path | None) -> dict[str, tuple[list[float], list[float]]]:
    """Each seed's game over HTTP on this checkout's server, and with ``before`` on that
    checkout's too, right after or before it (the order alternating game by game)."""
    servers = {"now": LiveServer(db, count_encoding=encoding, move_budget_s=10,
                                 sqlite_synchronous=sync, **NO_CREATION_LIMITS)}
    if before is not None:
        servers["before"] = LiveServer(db + ".before", count_encoding=encoding,
                                       move_budget_s=10, sqlite_synchronous=sync,
                                       **NO_CREATION_LIMITS)
        servers["before"].command = (str(before / ".venv" / "bin" / "kaboom"),)
    out: dict[str, tuple[list[float], list[float]]] = {v: ([], []) for v in servers}
    with ExitStack() as stack:
        clients = {}
        for version, server in servers.items():
            stack.enter_context(server)
            clients[version] = stack.enter_context(
                httpx.Client(base_url=server.url, timeout=60))
        for s in range(games):
            order = list(clients) if s % 2 == 0 else list(reversed(clients))
            for version in order:
                body = {"width": w, "height": h, "mines": m, "seed": s + 1}
                r, g = play_http(clients[version], body, s)
                out[version][0].extend(r)
                out[version][1].extend(g)
    return out


def _print(row: dict[str, Any]) -> None:
    rv, gt = row["reveal"], row["get"]
    print(
        f"{row['version']:6} {row['encoding']:9} {row['size']:13} {row['mode']:9}"
        f" games={row['games']:3} reveals={rv['n']:5} "
        f"reveal p50={rv['p50']:7.2f} p90={rv['p90']:7.2f} p99={rv['p99']:7.2f} "
        f"max={rv['max']:8.2f} | GET p50={gt['p50']:6.2f} p99={gt['p99']:6.2f} ms"
        + (f" | SAT-fallback layouts={row['fallback_layouts']} timeouts={row['timeouts']}"
           if row["mode"] == "inprocess" else ""),
        flush=True,
    )


def _print_ratio(before: dict[str, Any], now: dict[str, Any]) -> None:
    ratios = {f"{what} {q}": now[what][q] / before[what][q]
              for what in ("reveal", "get") for q in ("p50", "p90", "p99")}
    now["ratio_to_before"] = ratios
    print("       now / before: " + "  ".join(f"{k} {v:.2f}" for k, v in ratios.items()),
          flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
