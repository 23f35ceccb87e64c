"""Slow clients (slowloris): can another player still play?

Usage: python bench/slow_clients.py [--before KABOOM] [--processes 1] [--attackers 4]
           [--per-attacker 400] [--seconds 20] [--fds 1024] [--repeat 1] [--json PATH]

Rows: ``after``, this checkout's ``kaboom serve`` (``--processes`` of them) behind nginx
with the project's configuration (``deploy/``: headers within 10 s, the connections
nginx's); and with ``--before`` (the ``kaboom`` command of an older checkout),
``before``: that server alone, guarding its own connections (headers within 10 s, 64
connections a client); ``--repeat`` times, alternating.  The server processes get
``--fds`` open files (a common default; nginx sets its own, ``worker_rlimit_nofile``).
In each, ``--attackers`` client addresses (127.0.0.2, 127.0.0.3, …; loopback answers to
all of 127/8) each hold ``--per-attacker`` connections that send a request's headers a
line every two seconds and never finish them, reconnecting a second after the server
closes one (a process of their own), while a player at 127.0.0.200 reads a game every
200 ms on a fresh connection (5 s timeout).  Prints the player's answered share and
latency with and without the attack, and how many connections the attackers held.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, LiveServer, ProxiedServer, edge_server

ROOT = Path(__file__).resolve().parents[1]


async def _attacker(port: int, source: str, stop: asyncio.Event, held: list[int],
                    opened: list[int]) -> None:
    """One slow connection, reopened a second after the server refuses or closes it.
    ``held`` counts the connections open for at least a second."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 5)
        except (OSError, TimeoutError):
            await asyncio.sleep(0.5)
            continue
        opened[0] += 1
        counted = False
        try:
            writer.write(b"GET /api/games HTTP/1.1\r\nHost: kaboom\r\n")
            if await asyncio.wait_for(reader.read(4096), 1.0) == b"":
                raise ConnectionResetError  # refused at once
        except TimeoutError:
            counted = True
            held[0] += 1
            try:
                while not stop.is_set():
                    try:
                        if await asyncio.wait_for(reader.read(4096), 2.0) == b"":
                            break  # closed by the server
                    except TimeoutError:
                        writer.write(b"X-Slow: a\r\n")
                        await writer.drain()
            except OSError:
                pass
        except OSError:
            pass
        finally:
            if counted:
                held[0] -= 1
            writer.close()
        await asyncio.sleep(1.0)


async def _player(port: int, game: str, stop: asyncio.Event,
                  failures: Counter[str]) -> list[float | None]:
    """Latency of each read of a game on a fresh connection (``None``: not answered with
    a 200 within 5 s).  A plain socket, so that the figure is the server's, not a
    client library's set-up."""
    request = (f"GET /api/games/{game} HTTP/1.1\r\nHost: kaboom\r\n"
               "Connection: close\r\n\r\n").encode()
    times: list[float | None] = []
    while not stop.is_set():
        start = time.perf_counter()
        try:
            async with asyncio.timeout(5):
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=("127.0.0.200", 0))
                try:
                    writer.write(request)
                    answer = await reader.read()
                finally:
                    writer.close()
            ok = answer.startswith(b"HTTP/1.1 200 ")
            times.append(time.perf_counter() - start if ok else None)
            if not ok:
                failures[answer[:12].decode(errors="replace") or "closed"] += 1
        except TimeoutError:
            times.append(None)
            failures["timeout"] += 1
        except OSError as exc:
            times.append(None)
            failures[type(exc).__name__] += 1
        await asyncio.sleep(max(0.0, 0.2 - (time.perf_counter() - start)))
    return times


def _summary(times: list[float | None]) -> dict[str, Any]:
    ok = sorted(t for t in times if t is not None)
    return {
        "reads": len(times),
        "answered_pct": round(100 * len(ok) / len(times), 1) if times else None,
        "median_ms": round(1000 * statistics.median(ok), 1) if ok else None,
        "p90_ms": round(1000 * ok[min(len(ok) - 1, int(0.9 * len(ok)))], 1) if ok else None,
        "p99_ms": round(1000 * ok[min(len(ok) - 1, int(0.99 * len(ok)))], 1) if ok else None,
    }


def _attack(port: int, attackers: int, per: int, seconds: float, peak: Any,
            opened: Any) -> None:
    """The attackers for ``seconds``, in a process of their own: their connects and closes
    (a thousand a second) must not delay the player's reads in the same event loop."""

    async def attack() -> None:
        stop = asyncio.Event()
        held, count = [0], [0]
        tasks = [asyncio.create_task(_attacker(port, f"127.0.0.{2 + a}", stop, held, count))
                 for a in range(attackers) for _ in range(per)]
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            await asyncio.sleep(0.5)
            peak.value = max(peak.value, held[0])
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        opened.value = count[0]

    asyncio.run(attack())


def _phase(server: LiveServer | ProxiedServer, game: str, attackers: int, per: int,
           seconds: float) -> dict[str, Any]:
    spawn = multiprocessing.get_context("spawn")
    peak, opened = spawn.Value("q", 0), spawn.Value("q", 0)
    attack = spawn.Process(target=_attack, args=(server.port, attackers, per, seconds, peak,
                                                 opened))
    if attackers:
        attack.start()

    async def play() -> tuple[list[float | None], Counter[str]]:
        stop = asyncio.Event()
        failures: Counter[str] = Counter()
        player = asyncio.create_task(_player(server.port, game, stop, failures))
        await asyncio.sleep(seconds)
        stop.set()
        return await player, failures

    times, failures = asyncio.run(play())
    if attackers:
        attack.join()
    return {**_summary(times), "failures": dict(failures),
            "attack_connections_peak": peak.value, "attack_connections_opened": opened.value}


def run(rows: list[str], before: str | None, processes: int, attackers: int, per: int,
        seconds: float, fds: int) -> list[dict[str, Any]]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = attackers * per + 200
    if hard != resource.RLIM_INFINITY and hard < need:
        raise SystemExit(f"this bench needs {need} open files; the hard limit is {hard}")
    results: list[dict[str, Any]] = []
    for name in rows:
        resource.setrlimit(resource.RLIMIT_NOFILE, (fds, hard))  # the server inherits it
        if name == "before":  # alone: trust no loopback address as a proxy
            os.environ["FORWARDED_ALLOW_IPS"] = "192.0.2.1"
        else:  # behind nginx: its address, 127.0.0.1 (uvicorn's default)
            os.environ.pop("FORWARDED_ALLOW_IPS", None)
        with tempfile.TemporaryDirectory() as tmp:
            server = edge_server(name, Path(tmp) / "slow.db", before, processes,
                                 **NO_CREATION_LIMITS).start()
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
            try:
                game = httpx.post(f"{server.url}/api/games", timeout=10,
                                  json={"width": 9, "height": 9, "mines": 10}).json()["id"]
                quiet = _phase(server, game, 0, 0, seconds / 2)
                attacked = _phase(server, game, attackers, per, seconds)
            finally:
                server.stop()
        results.append({"row": name, "quiet": quiet, "attacked": attacked})
        for phase, r in (("quiet", quiet), ("attacked", attacked)):
            print(f"{name:6} {phase:8} player answered {r['answered_pct']} % of {r['reads']} "
                  f"reads, median {r['median_ms']} ms, p90 {r['p90_ms']} ms, p99 {r['p99_ms']}"
                  f" ms; attackers held "
                  f"{r['attack_connections_peak']} connections at most "
                  f"({r['attack_connections_opened']} opened); failures {r['failures']}",
                  flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="an older checkout's kaboom command, run alone")
    ap.add_argument("--processes", type=int, default=1, help="server processes behind nginx")
    ap.add_argument("--attackers", type=int, default=4, help="client addresses attacking")
    ap.add_argument("--per-attacker", type=int, default=400, help="connections each holds")
    ap.add_argument("--seconds", type=float, default=20.0, help="length of the attack")
    ap.add_argument("--fds", type=int, default=1024, help="the server's open-file limit")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each row, alternating")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "slow_clients.json"))
    args = ap.parse_args()
    load = os.getloadavg()[0]
    where = machine()
    rows = (["before", "after"] if args.before else ["after"]) * args.repeat
    results = run(rows, args.before, args.processes, args.attackers, args.per_attacker,
                  args.seconds, args.fds)
    settings = {k: v for k, v in vars(args).items() if k != "json"}  # not where it was written
    out = {"settings": settings, "machine": where, "load_at_start": load, "results": results}
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
