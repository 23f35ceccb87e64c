"""Abusive requests while bots play: other games' latency, move times against the budget, RSS.

Usage: python bench/abuse.py [--before KABOOM] [--processes 1] [--seconds 20]
           [--dense-seconds S] [--bots 4] [--budget 5] [--analysis-budget 3]
           [--phases baseline,body_1mb,...] [--json PATH]

Rows: ``after``, this checkout's ``kaboom serve`` (``--processes`` of them) behind nginx
with the project's configuration (``deploy/``); and with ``--before`` (the ``kaboom``
command of an older checkout), ``before``: that server alone.  A fresh database each.
Keeps ``--bots`` bots (``kaboom/bots/http.py``'s client, each from an address of its own,
127.0.0.10, .11, …) playing intermediate games and a prober (127.0.0.200) reading one
other game (``GET``, every 50 ms), and runs each phase for ``--seconds`` while one abuser
(127.0.0.2) sends the issue #10 requests in a loop: a 1.1 MB and a 10.9 MB body,
non-finite numbers and lone surrogates, a body that is not UTF-8, and two 256x256 debug
games (20 % and 50 % mines) clicked on a lattice, guesses away from the numbers
surviving, each loss undone and its proof cell clicked, an analysis every tenth move.
Prints per row and phase the other games' GET p99 and the bots' reveal p99, the abuser's
answers and slowest one, and the server processes' peak RSS (summed, sampled every 100 ms
from /proc; nginx's not counted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from kaboom.bots.base import GameSettings, play_game, think_in_thread
from kaboom.bots.http import HttpClient
from kaboom.solver import PRESETS
from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, edge_server

ROOT = Path(__file__).resolve().parents[1]


class RssSampler(threading.Thread):
    """Samples processes' resident set size (MB, summed) every 100 ms."""

    def __init__(self, pids: list[int]) -> None:
        super().__init__(daemon=True)
        self.pids, self.peak, self.now, self.stop = pids, 0.0, 0.0, threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.1):
            kb = 0
            for pid in self.pids:
                try:
                    with open(f"/proc/{pid}/status") as f:
                        kb += next(int(line.split()[1]) for line in f
                                   if line.startswith("VmRSS"))
                except (OSError, StopIteration):
                    return
            self.now = kb / 1024
            self.peak = max(self.peak, self.now)


def _p(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(1000 * s[min(len(s) - 1, int(q * len(s)))], 1)


# ------------------------------------------------------------------ the abusers
Abuser = Callable[[httpx.Client, threading.Event], list[tuple[str, int, float]]]


def _loop(bodies: list[tuple[str, bytes]]) -> Abuser:
    """Sends each raw body to ``POST /api/games`` in turn until told to stop."""

    def run(client: httpx.Client, stop: threading.Event) -> list[tuple[str, int, float]]:
        out = []
        while not stop.is_set():
            for name, body in bodies:
                t = time.monotonic()
                try:
                    r = client.post(
                        "/api/games", content=body, headers={"content-type": "application/json"}
                    )
                    code = r.status_code
                except httpx.HTTPError:
                    code = 0  # connection reset or timeout
                out.append((name, code, time.monotonic() - t))
                if stop.is_set():
                    break
        return out

    return run


def _big_body(keys: int) -> bytes:
    extra = {f"k{i:07d}": i for i in range(keys)}
    return json.dumps({"width": 9, "height": 9, "mines": 10, **extra}).encode()


_ODD = [
    ("nan", b'{"width":9,"height":9,"mines":NaN}'),
    ("infinity", b'{"width":9,"height":9,"mines":Infinity}'),
    ("1e999", b'{"width":9,"height":9,"mines":1e999}'),
    ("surrogate", b'{"width":9,"height":9,"mines":10,"first_click":"\\ud800"}'),
    ("not utf-8", b"\xff\xfe"),
]


def _dense(density: float, seed: int = 7) -> Abuser:
    """Clicks a 256x256 debug game on a lattice (see the module docstring)."""

    def run(client: httpx.Client, stop: threading.Event) -> list[tuple[str, int, float]]:
        side = 256
        body = {"width": side, "height": side, "mines": int(side * side * density),
                "debug": True, "outside_guess": True, "seed": seed}
        created = client.post("/api/games", json=body).json()
        gid = created["id"]
        client.headers["Authorization"] = f"Bearer {created['player_token']}"
        cells = [(x, y) for y in range(1, side, 3) for x in range(1, side, 3)]
        random.Random(seed).shuffle(cells)
        out: list[tuple[str, int, float]] = []
        pending: list[tuple[int, int]] = []
        while not stop.is_set() and (cells or pending):
            x, y = pending.pop() if pending else cells.pop()
            t = time.monotonic()
            r = client.post(f"/api/games/{gid}/reveal", json={"x": x, "y": y})
            out.append(("reveal", r.status_code, time.monotonic() - t))
            if r.status_code == 200 and r.json()["status"] == "lost":
                safe = r.json()["loss"].get("safe_cell")
                if safe:
                    pending.append((safe["x"], safe["y"]))
                client.post(f"/api/games/{gid}/undo")
            if len(out) % 10 == 0:
                t = time.monotonic()
                r = client.get(f"/api/games/{gid}/analysis")
                out.append(("analysis", r.status_code, time.monotonic() - t))
        return out

    return run


PHASES: dict[str, Abuser | None] = {
    "baseline": None,
    "body_1mb": _loop([("1.1 MB", _big_body(100_000))]),
    "body_11mb": _loop([("10.9 MB", _big_body(1_000_000))]),
    "odd_json": _loop(_ODD),
    "dense_20": _dense(0.2),
    "dense_50": _dense(0.5),
}


# ------------------------------------------------------------------ one phase
async def _bots(url: str, k: int, seconds: float) -> dict[str, list[float]]:
    settings = GameSettings(*PRESETS["intermediate"])
    deadline = time.monotonic() + seconds
    latencies: dict[str, list[float]] = {}

    async def bot(i: int) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=f"127.0.0.{10 + i}")
        async with HttpClient(url, timeout=120, transport=transport) as client:
            while time.monotonic() < deadline:
                await play_game(client, settings, think=think_in_thread)
            for kind, times in client.latencies.items():
                latencies.setdefault(kind, []).extend(times)

    await asyncio.gather(*(bot(i) for i in range(k)))
    return latencies


def phase(url: str, name: str, abuser: Abuser | None, seconds: float, k: int,
          rss: RssSampler) -> dict[str, Any]:
    other = httpx.post(f"{url}/api/games", json={"width": 9, "height": 9, "mines": 10}).json()
    stop = threading.Event()
    gets: list[float] = []
    abused: list[tuple[str, int, float]] = []

    def probe() -> None:
        transport = httpx.HTTPTransport(local_address="127.0.0.200")
        with httpx.Client(base_url=url, timeout=120, transport=transport) as c:
            while not stop.is_set():
                t = time.monotonic()
                c.get(f"/api/games/{other['id']}")
                gets.append(time.monotonic() - t)
                time.sleep(0.05)

    def abuse() -> None:
        assert abuser is not None
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=url, timeout=300, transport=transport) as c:
            abused.extend(abuser(c, stop))

    rss.peak = rss.now
    threads = [threading.Thread(target=probe)]
    if abuser is not None:
        threads.append(threading.Thread(target=abuse))
    for th in threads:
        th.start()
    latencies = asyncio.run(_bots(url, k, seconds))
    stop.set()
    for th in threads:
        th.join()
    row: dict[str, object] = {
        "phase": name,
        "get_p50_ms": _p(gets, 0.5), "get_p99_ms": _p(gets, 0.99),
        "get_max_ms": _p(gets, 1.0), "gets": len(gets),
        "bot_reveal_p99_ms": _p(latencies.get("reveal", []), 0.99),
        "bot_requests": sum(len(v) for v in latencies.values()),
        "abusive": len(abused),
        "abusive_codes": dict(Counter(f"{what} {code}" for what, code, _ in abused)),
        "rss_peak_mb": round(rss.peak, 1), "rss_end_mb": round(rss.now, 1),
    }
    for what in sorted({w for w, _, _ in abused}):
        times = [t for w, _, t in abused if w == what]
        row[f"{what}_max_s"] = round(max(times), 3)
        row[f"{what}_p99_s"] = round(sorted(times)[min(len(times) - 1, int(0.99 * len(times)))], 3)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="an older checkout's kaboom command, run alone")
    ap.add_argument("--processes", type=int, default=1, help="server processes behind nginx")
    ap.add_argument("--seconds", type=float, default=20.0, help="time per phase")
    ap.add_argument("--dense-seconds", type=float, default=None,
                    help="time of the dense phases (default: --seconds); the lattice gets "
                         "heavier the longer it is clicked")
    ap.add_argument("--bots", type=int, default=4, help="bots playing intermediate games")
    ap.add_argument("--budget", type=float, default=5.0, help="move budget (s)")
    ap.add_argument("--analysis-budget", type=float, default=3.0, help="analysis budget (s)")
    ap.add_argument("--phases", default=",".join(PHASES))
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "abuse.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    where = machine()  # before the server and its load start
    settings = {"move_budget_s": args.budget, "analysis_budget_s": args.analysis_budget,
                "sqlite_synchronous": "NORMAL", **NO_CREATION_LIMITS}  # bots make many
    rows = []
    for row in ["before", "after"] if args.before else ["after"]:
        with tempfile.TemporaryDirectory() as tmp, edge_server(
                row, Path(tmp) / "abuse.db", args.before, args.processes,
                **settings) as server:
            rss = RssSampler(server.pids())
            rss.start()
            try:
                for name in args.phases.split(","):
                    seconds = args.seconds
                    if name.startswith("dense") and args.dense_seconds is not None:
                        seconds = args.dense_seconds
                    result = phase(server.url, name, PHASES[name], seconds, args.bots, rss)
                    rows.append({"row": row, **result})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            finally:
                rss.stop.set()
    print(f"{args.bots} bots (intermediate), {args.seconds:g} s a phase, budget "
          f"{args.budget:g} s (analysis {args.analysis_budget:g} s), cpus={os.cpu_count()}, "
          f"load at start {load[0]:.1f}")
    print(f"{'row':<6} {'phase':<10} {'GET p50':>8} {'GET p99':>8} {'GET max':>8} "
          f"{'bot p99':>8} {'abusive':>8} {'slowest':>22} {'RSS peak':>9}")
    for r in rows:
        slow = [(k[:-6], v) for k, v in r.items() if k.endswith("_max_s") and k != "get_max_s"]
        worst = max(slow, key=lambda kv: kv[1], default=("-", 0.0))
        print(f"{r['row']:<6} {r['phase']:<10} {r['get_p50_ms']:>6}ms {r['get_p99_ms']:>6}ms "
              f"{r['get_max_ms']:>6}ms {r['bot_reveal_p99_ms']:>6}ms {r['abusive']:>8} "
              f"{worst[0]:>12} {worst[1]:>7.2f} s {r['rss_peak_mb']:>6.0f} MB")
    out = {"bots": args.bots, "seconds": args.seconds, "budget_s": args.budget,
           "analysis_budget_s": args.analysis_budget, "processes": args.processes,
           "cpus": os.cpu_count(), "machine": where, "load_at_start": round(load[0], 1),
           "load_at_end": round(os.getloadavg()[0], 1), "phases": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
