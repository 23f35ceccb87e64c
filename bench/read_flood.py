"""One client floods reads: how long does another player's read take?

Usage: python bench/read_flood.py [--before KABOOM] [--processes 1] [--connections 60]
           [--seconds 10] [--repeat 2] [--json PATH]

Rows, alternating ``--repeat`` times: ``after``, this checkout's ``kaboom serve``
(``--processes`` of them) behind nginx with the project's configuration (``deploy/``:
100 requests a second an address, the rest delayed); and with ``--before`` (the ``kaboom``
command of an older checkout, its ``.venv/bin/kaboom``), ``before``: that
server alone, guarding itself (its own client turns and request rate).  In each, a player
at 127.0.0.200 reads a game every 50 ms on a kept-alive connection, first alone and then
while a client at 127.0.0.2 reads another game as fast as ``--connections`` kept-alive
connections allow (a process of its own, a thread a connection, so that it does not share
the player's interpreter).  Prints the player's read times, quiet and flooded, and the
flood's rate.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, edge_server

ROOT = Path(__file__).resolve().parents[1]


def _flood(port: int, path: str, connections: int, seconds: float, answered: Any,
           took: Any) -> None:
    """Reads ``path`` from 127.0.0.2 on ``connections`` kept-alive connections for
    ``seconds``, then waits for the answers still owed: ``took`` is the whole time, so
    the reads a second count those too."""
    request = f"GET {path} HTTP/1.1\r\nHost: kaboom\r\n\r\n".encode()
    start = time.monotonic()
    stop = start + seconds

    def loop() -> None:
        sock = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
        sock.settimeout(30)
        buffered = b""
        while time.monotonic() < stop:
            sock.sendall(request)
            while b"\r\n\r\n" not in buffered:
                buffered += sock.recv(65536)
            head, _, buffered = buffered.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            while len(buffered) < length:
                buffered += sock.recv(65536)
            buffered = buffered[length:]
            with answered.get_lock():
                answered.value += 1
        sock.close()

    threads = [threading.Thread(target=loop) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took.value = time.monotonic() - start


def _reads(url: str, path: str, seconds: float) -> list[float]:
    """A player's reads, one every 50 ms on one kept-alive connection: milliseconds."""
    times = []
    transport = httpx.HTTPTransport(local_address="127.0.0.200")
    with httpx.Client(base_url=url, transport=transport, timeout=30) as http:
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            start = time.perf_counter()
            assert http.get(path).status_code == 200
            times.append((time.perf_counter() - start) * 1000)
            time.sleep(0.05)
    return times


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"reads": len(ordered), "p50_ms": round(statistics.median(ordered), 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2)}


def run(row: str, before: str | None, processes: int, connections: int,
        seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, edge_server(
            row, Path(tmp) / "flood.db", before, processes, **NO_CREATION_LIMITS) as server:
        games = [httpx.post(f"{server.url}/api/games", timeout=30,
                            json={"width": 30, "height": 16, "mines": 99}).json()["id"]
                 for _ in range(2)]
        quiet = _reads(server.url, f"/api/games/{games[0]}", seconds / 2)
        spawn = multiprocessing.get_context("spawn")
        answered, took = spawn.Value("q", 0), spawn.Value("d", 0.0)
        flood = spawn.Process(target=_flood, args=(
            server.port, f"/api/games/{games[1]}", connections, seconds, answered, took))
        flood.start()
        time.sleep(0.5)  # the flood's connections open
        flooded = _reads(server.url, f"/api/games/{games[0]}", seconds - 1.0)
        flood.join()
        return {"row": row, "quiet": _summary(quiet), "flooded": _summary(flooded),
                "flood_reads_per_s": round(answered.value / took.value)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="an older checkout's kaboom command, run alone")
    ap.add_argument("--processes", type=int, default=1, help="server processes behind nginx")
    ap.add_argument("--connections", type=int, default=60, help="the flood's connections")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of each flood")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each row, alternating")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "read_flood.json"))
    args = ap.parse_args()
    load = os.getloadavg()[0]
    where = machine()
    rows = ["before", "after"] if args.before else ["after"]
    results = []
    for _ in range(args.repeat):
        for row in rows:
            result = run(row, args.before, args.processes, args.connections, args.seconds)
            results.append(result)
            q, f = result["quiet"], result["flooded"]
            print(f"{row:6} quiet p50 {q['p50_ms']:6.2f} p99 {q['p99_ms']:6.2f} ms | flooded"
                  f" p50 {f['p50_ms']:6.2f} p99 {f['p99_ms']:6.2f} ms ({f['reads']} reads)"
                  f" | flood {result['flood_reads_per_s']:,} reads/s", flush=True)
    settings = {k: v for k, v in vars(args).items() if k != "json"}
    out = {"settings": settings, "machine": where, "load_at_start": load,
           "load_at_end": os.getloadavg()[0], "results": results}
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
