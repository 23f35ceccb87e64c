"""Moves/s and reveal latency of 1 and 2 server processes on SQLite and PostgreSQL.

    python bench/scale.py [--seconds 10] [--concurrency 1 8 32] [--processes 1 2] [--repeat 3]

One process is reached directly; several run behind nginx with the project's
configuration (``deploy/``), which spreads requests over them (``least_conn``), and each
player then connects from an address of its own, as nginx limits each address to 100
requests a second.

The load generator must not be the bottleneck, so it does no solving while it measures:
each player replays a recorded Expert game.  The games are recorded first, in process,
by the solver playing seeded games to the end; since a seeded game gives the same board
for the same clicks, replaying those clicks over HTTP gives the same game on the server.
Requests are written by hand over keep-alive connections (no HTTP library on the hot
path) and the generator's own CPU time is measured and printed next to the figures.
PostgreSQL is Debian's, started in a temporary directory (as the tests do).

Each measurement opens its players' connections afresh.  Which worker accepts which
connection is up to the kernel and asyncio (a worker can accept a whole burst), and a
keep-alive connection stays where it landed: so the same command varies from run to
run, and ``--repeat`` measures each setting several times and prints the median and range.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kaboom.server.config import Settings
from kaboom.server.game import Rules
from kaboom.server.games import Games
from kaboom.server.store import MemoryStore
from kaboom.solver import decide
from kaboom.solver.bench.machine import machine
from kaboom.testing import (
    NO_CREATION_LIMITS,
    LiveServer,
    PostgresServer,
    ProxiedServer,
    find_postgres,
)

ROOT = Path(__file__).resolve().parent.parent

EXPERT = Rules(width=30, height=16, mines=99)
"""The boards every scale run plays; the HTTP players send the same three numbers."""


Recorded = list[tuple[int, list[tuple[str, int, int]]]]


def record_games(count: int, first_seed: int = 1000) -> Recorded:
    """Plays ``count`` seeded Expert games in process with the solver; returns each seed
    with its moves (kind, x, y)."""
    service = Games(MemoryStore(), Settings(db=":memory:"))
    games = []
    for seed in range(first_seed, first_seed + count):
        game, token = service.create(dataclasses.replace(EXPERT, seed=seed))
        moves: list[tuple[str, int, int]] = []
        while game.status == "playing":
            decision = decide(game.position, outside_guess=False)
            for move in decision.moves:
                if game.status != "playing" or not game.position.is_covered(move.x, move.y):
                    continue
                game = service.play(game.id, move, token).after
                moves.append((move.kind.value, move.x, move.y))
        games.append((seed, moves))
    return games


class Conn:
    """One keep-alive HTTP/1.1 connection with hand-written requests."""

    def __init__(self, host: str, port: int, source: str | None = None) -> None:
        self.host, self.port, self.source = host, port, source

    async def open(self) -> Conn:
        self.reader, self.writer = await asyncio.open_connection(
            self.host, self.port, local_addr=None if self.source is None else (self.source, 0))
        return self

    async def request(self, method: str, path: str, body: bytes = b"",
                      token: str | None = None) -> tuple[int, bytes]:
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}",
                f"Content-Length: {len(body)}"]
        if body:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def player(port: int, games: Recorded, until: float, out: dict[str, Any], index: int,
                 source: str | None = None) -> None:
    conn = await Conn("127.0.0.1", port, source).open()
    i = index
    try:
        while time.monotonic() < until:
            seed, moves = games[i % len(games)]
            i += 1
            body = json.dumps({"width": EXPERT.width, "height": EXPERT.height,
                               "mines": EXPERT.mines, "seed": seed}).encode()
            status, text = await conn.request("POST", "/api/games", body)
            assert status == 201, text[:200]
            created = json.loads(text)
            gid, token = created["id"], created["player_token"]
            for kind, x, y in moves:
                if time.monotonic() >= until:
                    return
                t = time.perf_counter()
                status, text = await conn.request(
                    "POST", f"/api/games/{gid}/{kind}", b'{"x":%d,"y":%d}' % (x, y), token)
                elapsed = time.perf_counter() - t
                if status != 200:
                    out["errors"] += 1
                    break
                out["moves"] += 1
                if kind == "reveal":
                    out["reveal_ms"].append(elapsed * 1000)
    finally:
        conn.close()


def serve(db: str, processes: int) -> LiveServer | ProxiedServer:
    """``processes`` of ``kaboom serve`` on ``db`` (several behind nginx): no rate limit on
    creation, SQLite's default sync."""
    settings: dict[str, Any] = {**NO_CREATION_LIMITS, "sqlite_synchronous": "NORMAL"}
    if processes == 1:
        return LiveServer(db, **settings)
    return ProxiedServer(db, processes, **settings)


def measure(port: int, games: Recorded, concurrency: int, seconds: float,
            own_addresses: bool = False) -> dict[str, Any]:
    """``own_addresses``: each player connects from an address of its own (127.0.1.i), as
    players behind a proxy that limits each address do."""
    out: dict[str, Any] = {"moves": 0, "errors": 0, "reveal_ms": []}
    cpu0, t0 = time.process_time(), time.monotonic()
    until = t0 + seconds

    async def run() -> None:
        await asyncio.gather(*(player(port, games, until, out, i,
                                      f"127.0.1.{i + 1}" if own_addresses else None)
                               for i in range(concurrency)))

    asyncio.run(run())
    wall = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    ms = sorted(out["reveal_ms"])
    return {
        "moves_per_s": round(out["moves"] / wall, 1),
        "reveal_p50_ms": round(statistics.median(ms), 2) if ms else None,
        "reveal_p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 2) if ms else None,
        "reveals": len(ms),
        "errors": out["errors"],
        "generator_cpu_pct": round(100 * cpu / wall, 1),
    }


def longpoll_latency(db: str, samples: int = 20) -> dict[str, Any]:
    """A spectator long-polls process A while the player moves on process B (one store):
    the time from B's answer to A's wake-up, per move."""
    import threading

    import httpx

    delays = []
    with serve(db, 1) as a, serve(db, 1) as b:
        port_a, port_b = a.port, b.port
        game = httpx.post(f"http://127.0.0.1:{port_b}/api/games",
                          json={"width": 16, "height": 16, "mines": 40}).json()
        auth = {"Authorization": f"Bearer {game['player_token']}"}
        for i in range(samples):
            woke: dict[str, float] = {}

            def wait(moves: int = i, woke: dict[str, float] = woke) -> None:
                seen = httpx.get(f"http://127.0.0.1:{port_a}/api/games/{game['id']}",
                                 params={"wait_moves": moves, "timeout": 10}, timeout=20)
                woke["at"] = time.perf_counter()
                woke["moves"] = seen.json()["moves"]

            watcher = threading.Thread(target=wait)
            watcher.start()
            time.sleep(0.3)
            flagged = httpx.post(f"http://127.0.0.1:{port_b}/api/games/{game['id']}/flag",
                                 json={"x": i % 16, "y": i // 16}, headers=auth)
            answered = time.perf_counter()
            flagged.raise_for_status()
            watcher.join()
            # woken by the move itself, not by the poll's own timeout
            assert woke["moves"] == i + 1, woke
            delays.append((woke["at"] - answered) * 1000)
    delays.sort()
    return {"longpoll_p50_ms": round(statistics.median(delays), 1),
            "longpoll_max_ms": round(delays[-1], 1), "samples": samples}


def summarize(rows: list[dict[str, Any]]) -> list[str]:
    """One Markdown row per setting: the median of its runs, with their range."""
    out = ["| store | processes | K | moves/s median (range) | reveal p50 ms | reveal p99 ms"
           " median (range) | runs |", "|---|---|---|---|---|---|---|"]
    settings = sorted({(r["store"], r["processes"], r["concurrency"])
                       for r in rows if "processes" in r})
    for store, processes, k in settings:
        runs = [r for r in rows if (r.get("store"), r.get("processes"), r.get("concurrency"))
                == (store, processes, k)]
        rate = sorted(r["moves_per_s"] for r in runs)
        p50 = statistics.median(r["reveal_p50_ms"] for r in runs)
        p99 = sorted(r["reveal_p99_ms"] for r in runs)
        out.append(f"| {store} | {processes} | {k} | {statistics.median(rate):.0f} "
                   f"({rate[0]:.0f}-{rate[-1]:.0f}) | {p50:.1f} | {statistics.median(p99):.1f} "
                   f"({p99[0]:.1f}-{p99[-1]:.1f}) | {len(runs)} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--stores", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--games", type=int, default=40, help="recorded games to replay")
    parser.add_argument("--repeat", type=int, default=1, help="measurements of each setting")
    parser.add_argument("--out", default=str(ROOT / "bench/results/scale.json"))
    args = parser.parse_args()

    where = machine()  # before the recording and the servers load it
    print(f"recording {args.games} Expert games…", flush=True)
    games = record_games(args.games)
    print(f"{sum(len(m) for _, m in games)} moves recorded; load {os.getloadavg()}", flush=True)
    rows: list[dict[str, Any]] = []
    pg = None
    if "postgresql" in args.stores:
        bindir = find_postgres()
        if bindir is None:
            parser.error("PostgreSQL's server tools are not installed (apt-get install postgresql)")
        pg = PostgresServer(bindir).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for store in args.stores:
                db = pg.url() if store == "postgresql" and pg else str(Path(tmp) / "lp.db")
                row = {"store": store, "measure": "cross-process long poll",
                       **longpoll_latency(db), "load": os.getloadavg()[0]}
                rows.append(row)
                print(json.dumps(row), flush=True)
                for processes in args.processes:
                    db = str(Path(tmp) / f"{processes}.db")
                    if store == "postgresql" and pg:
                        db = pg.url()
                    with serve(db, processes) as server:
                        for k in args.concurrency:
                            for run in range(args.repeat):
                                row = {"store": store, "processes": processes,
                                       "concurrency": k, "run": run,
                                       **measure(server.port, games, k, args.seconds,
                                                 own_addresses=processes > 1),
                                       "load": os.getloadavg()[0]}
                                rows.append(row)
                                print(json.dumps(row), flush=True)
    finally:
        if pg:
            pg.stop()
    summary = summarize(rows)
    for line in summary:
        print(line)
    Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "machine": where,
                                          "rows": rows, "summary": summary}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
