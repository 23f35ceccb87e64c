"""One client floods the solver threads; how long does another player's move take?

Usage: python bench/fair_share.py [--before KABOOM] [--processes 1] [--games 19]
           [--seconds 20] [--json PATH]

Rows: ``after``, this checkout's ``kaboom serve`` (``--processes`` of them) behind nginx
with the project's configuration (``deploy/``); and with ``--before`` (the ``kaboom``
command of an older checkout), ``before``: that server alone.  A fresh database each, no
creation limit.  The flooding client (127.0.0.3) opens ``--games`` games of 256x256 with
13,000 mines and asks for their analyses, three at a time on each game, without pause;
the player (from 127.0.0.2, another client to the server) flags a cell of an Expert game
every 200 ms.  Prints the player's move times with and without the flood, and the
flood's answers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, edge_server

ROOT = Path(__file__).resolve().parents[1]


async def _player(url: str, stop: asyncio.Event) -> list[tuple[float, int]]:
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as c:
        game = (await c.post("/api/games", json={"width": 30, "height": 16, "mines": 99})).json()
        auth = {"Authorization": f"Bearer {game['player_token']}"}
        times = []
        while not stop.is_set():
            start = time.monotonic()
            r = await c.post(f"/api/games/{game['id']}/flag", json={"x": 0, "y": 0}, headers=auth)
            times.append((time.monotonic() - start, r.status_code))
            await asyncio.sleep(0.2)
        return times


async def _flood(c: httpx.AsyncClient, gid: str, auth: dict[str, str], stop: asyncio.Event,
                 codes: dict[int, int]) -> None:
    while not stop.is_set():
        r = await c.get(f"/api/games/{gid}/analysis", headers=auth)
        codes[r.status_code] = codes.get(r.status_code, 0) + 1


async def run(url: str, games: int, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    limits = httpx.Limits(max_connections=4 * games, max_keepalive_connections=4 * games)
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.3", limits=limits)
    async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as c:
        dense = []
        for _ in range(games):
            g = (await c.post("/api/games", json={"width": 256, "height": 256,
                                                  "mines": 13000})).json()
            auth = {"Authorization": f"Bearer {g['player_token']}"}
            await c.post(f"/api/games/{g['id']}/reveal", json={"x": 128, "y": 128}, headers=auth)
            dense.append((g["id"], auth))
        for phase in ("alone", "flood"):
            stop, codes = asyncio.Event(), dict[int, int]()
            player = asyncio.create_task(_player(url, stop))
            floods = [asyncio.create_task(_flood(c, gid, auth, stop, codes))
                      for gid, auth in dense for _ in range(3)] if phase == "flood" else []
            await asyncio.sleep(seconds)
            stop.set()
            times = await player
            await asyncio.gather(*floods)
            ok = [t for t, code in times if code == 200]
            out[phase] = {
                "moves": len(times), "answered_200": len(ok),
                "median_s": round(statistics.median(ok), 3) if ok else None,
                "max_s": round(max(t for t, _ in times), 3), "flood_answers": codes,
            }
            print(f"{phase:5}: the player's {len(times)} moves ({len(ok)} answered 200), "
                  f"median {out[phase]['median_s']} s, max {out[phase]['max_s']} s; "
                  f"the flood's answers {codes}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="an older checkout's kaboom command, run alone")
    ap.add_argument("--processes", type=int, default=1, help="server processes behind nginx")
    ap.add_argument("--games", type=int, default=19, help="the flooding client's games")
    ap.add_argument("--seconds", type=float, default=20.0, help="time per phase")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "fair_share.json"))
    args = ap.parse_args()
    load_before = os.getloadavg()
    where = machine()
    rows: dict[str, Any] = {}
    for row in ["before", "after"] if args.before else ["after"]:
        print(f"{row}:")
        with tempfile.TemporaryDirectory() as tmp, edge_server(
                row, Path(tmp) / "fair.db", args.before, args.processes,
                **NO_CREATION_LIMITS) as server:
            rows[row] = asyncio.run(run(server.url, args.games, args.seconds))
    report = {"games": args.games, "seconds": args.seconds, "processes": args.processes,
              "rows": rows, "machine": where, "load_before": load_before,
              "load_after": os.getloadavg()}
    print(f"load {load_before[0]:.2f} before, {report['load_after'][0]:.2f} after")
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
