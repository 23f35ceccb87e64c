"""Open pages at scale: thousands of event streams through nginx, two processes, PostgreSQL.

Usage: python bench/open_pages.py [--streams 1000] [--games 100] [--rounds 5]
           [--per-address 25] [--paired 100] [--idle 30] [--before CHECKOUT]
           [--rows before,before_server,after] [--repeat 1] [--json PATH]

Rows (``--rows``, in that order): ``after``, this checkout's ``kaboom serve`` and nginx
configuration (``deploy/``); with ``--before`` (an older checkout with its own ``.venv``),
first ``before``, that checkout's server and nginx configuration as they were, and
``before_server``, its server behind this checkout's nginx configuration (the same load on
the server when the old configuration refused some of it).  ``--repeat`` runs them again,
in the opposite order every other time (the machine's load drifts).  Each row runs on a
database of its own in one PostgreSQL cluster, with two server processes behind nginx
(:class:`kaboom.testing.ProxiedServer`), and:

1. ``--streams`` page event streams (``GET /games/<id>/events``, what every open game page
   holds) open through nginx, spread evenly over ``--games`` Expert games, from client
   addresses 127.10.x.y, ``--per-address`` streams each (nginx limits connections per
   address; the limit is not what is measured): opened and refused are counted;
2. ``--rounds`` rounds: the player flags one cell of every game (through nginx, from
   addresses of its own, in a process of its own), and each stream's event of each move is
   timed from the move's answer: delivered, missed (no event within 30 s), latency
   p50/p99/max (an event that came before the answer counts 0);
3. the server processes' memory (RSS) before the streams opened and after: per stream;
4. the streams left idle for ``--idle`` s: the database's transactions a second, from
   ``pg_stat_database`` (``xact_commit + xact_rollback`` of the store's database: the
   servers' connections are in autocommit, so every statement they send is one; its
   ``tup_returned`` too).  PostgreSQL flushes a backend's counts at most a second after its
   transaction, and an idle backend's within 10 s: the window starts 12 s after the last
   round;
5. the paired phase: ``--paired`` streams connected straight to each of the two processes
   (nginx hides which process a stream reached) over ten games of their own, moves made on
   the first: a spectator on the process that made the move and one on the other, timed in
   the same rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, cast

import httpx
import psycopg
import uvloop

from kaboom.solver.bench.machine import machine
from kaboom.testing import NO_CREATION_LIMITS, PostgresServer, ProxiedServer, find_postgres

ROOT = Path(__file__).resolve().parents[1]
EXPERT = {"width": 30, "height": 16, "mines": 99}
ROUND_WAIT_S = 30.0
"""How long a round waits for every stream's event before the rest count as missed."""
OPEN_CONCURRENCY = 100


@dataclass(slots=True)
class Stream:
    """One open page's event stream: the game it watches and when each version came."""

    game: int
    status: int | None = None
    """The answer's status (None: no answer, the connection failed)."""
    seen: dict[int, float] = field(default_factory=dict)
    """Each version announced by a ``change`` event, with the (monotonic) time it came."""
    ended: bool = False
    error: str | None = None
    """Why the stream ended, when it did not end with a closed body."""


def _address(n: int, network: int) -> str:
    """The ``n``-th client address of the network 127.<network>.0.0/16."""
    return f"127.{network}.{n // 250}.{1 + n % 250}"


class _Watching(asyncio.Protocol):
    """One stream's connection, read as it comes (a protocol rather than a stream reader:
    ten thousand of them share this process's one core with the servers): its status,
    then its chunked body, in which each ``change`` event's version is noted with the
    time it came."""

    def __init__(self, stream: Stream, request: bytes, opened: asyncio.Event) -> None:
        self.stream = stream
        self.request = request
        self.opened = opened
        self.head = b""
        self.raw = b""
        """Chunked body not yet decoded."""
        self.left = 0
        """Bytes of the current chunk still to come, its CRLF included."""
        self.events = b""
        """Decoded body not yet split into events."""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        if self.stream.status is None:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            head, data = self.head[:end], self.head[end + 4:]
            self.stream.status = int(head.split(b" ", 2)[1])
            if self.stream.status != 200 or b"chunked" not in head.lower():
                self._end("refused")
                return
        self.raw += data
        body = []
        while self.raw:
            if self.left == 0:
                line = self.raw.find(b"\r\n")
                if line < 0:
                    break
                size = int(self.raw[:line].split(b";")[0], 16)
                if size == 0:
                    self._end("closed")
                    return
                self.raw, self.left = self.raw[line + 2:], size + 2
            taken, self.raw = self.raw[:self.left], self.raw[self.left:]
            self.left -= len(taken)
            body.append(taken[:len(taken) - max(0, 2 - self.left)])  # not the CRLF
        self.events += b"".join(body)
        while (end := self.events.find(b"\n\n")) >= 0:
            event, self.events = self.events[:end], self.events[end + 2:]
            if event.startswith(b": open"):
                self.opened.set()
            elif event.startswith(b"event: change"):
                version = int(event.split(b"\nid: ", 1)[1].split(b"\n", 1)[0])
                self.stream.seen.setdefault(version, now)

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(type(exc).__name__ if exc else "closed")

    def _end(self, why: str) -> None:
        if not self.stream.ended:
            self.stream.ended, self.stream.error = True, why
        self.opened.set()
        if self.transport is not None:
            self.transport.close()


async def _watch(stream: Stream, port: int, source: str, path: str,
                 opened: asyncio.Event) -> asyncio.BaseTransport | None:
    """Opens the stream; ``opened`` is set once it is open, refused or failed."""
    request = (f"GET {path} HTTP/1.1\r\nHost: kaboom\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()
    try:
        transport, _ = await asyncio.get_running_loop().create_connection(
            lambda: _Watching(stream, request, opened), "127.0.0.1", port,
            local_addr=(source, 0))
    except OSError as exc:
        stream.ended, stream.error = True, type(exc).__name__
        opened.set()
        return None
    return transport


# ---------------------------------------------------------------- the player
def _player(conn: Connection, url: str, games: list[tuple[str, str]], sources: int) -> None:
    """The players of ``games`` (id, token), in a process of their own so that the streams'
    reading cannot delay the answers' times: for each round's cell it receives, flags that
    cell of every game and sends back (game, version, answered at) for each 200."""

    async def run() -> None:
        clients = [httpx.AsyncClient(base_url=url, timeout=60, transport=httpx.AsyncHTTPTransport(
            local_address=_address(a, 20))) for a in range(sources)]
        gate = asyncio.Semaphore(16)

        async def move(i: int, game: str, token: str, cell: tuple[int, int],
                       ) -> tuple[int, int, float] | None:
            async with gate:
                try:
                    r = await clients[i % sources].post(
                        f"/api/games/{game}/flag", json={"x": cell[0], "y": cell[1]},
                        headers={"Authorization": f"Bearer {token}"})
                except httpx.TransportError:
                    return None
                at = time.monotonic()
            return (i, int(r.json()["version"]), at) if r.status_code == 200 else None

        while (cell := conn.recv()) is not None:
            done = await asyncio.gather(*(move(i, g, t, cell) for i, (g, t) in enumerate(games)))
            conn.send([d for d in done if d is not None])
        for c in clients:
            await c.aclose()

    asyncio.run(run())


# ---------------------------------------------------------------- one row
def _percentiles(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"p50_ms": None, "p99_ms": None, "max_ms": None}
    ordered = sorted(values)

    def ms(q: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return {"p50_ms": ms(0.5), "p99_ms": ms(0.99), "max_ms": ms(1.0)}


def _rss_mb(pids: Sequence[int]) -> float:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def _db_counts(admin: str, db: str) -> tuple[int, int]:
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit + xact_rollback, tup_returned"
                           " FROM pg_stat_database WHERE datname = %s", (db,)).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _new_games(url: str, n: int) -> list[tuple[str, str, int]]:
    with httpx.Client(base_url=url, timeout=60) as http:
        made = [http.post("/api/games", json=EXPERT).json() for _ in range(n)]
    return [(g["id"], g["player_token"], g["version"]) for g in made]


class Rounds:
    """The player's process, and the rounds it plays."""

    def __init__(self, url: str, games: list[tuple[str, str, int]], sources: int) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._conn, theirs = spawn.Pipe()
        self._proc = spawn.Process(target=_player, args=(
            theirs, url, [(g, t) for g, t, _ in games], sources))
        self._proc.start()
        self._round = 0

    def play(self) -> list[tuple[int, int, float]]:
        """One move of every game (a flag on the round's own cell); (game, version, answered
        at) of those answered 200."""
        cell = (self._round % EXPERT["width"], self._round // EXPERT["width"])
        self._round += 1
        self._conn.send(cell)
        done: list[tuple[int, int, float]] = self._conn.recv()
        return done

    def close(self) -> None:
        self._conn.send(None)
        self._proc.join(60)


async def _delivered(streams: list[Stream], moves: list[tuple[int, int, float]],
                     ) -> tuple[list[float], int, int]:
    """Waits up to :data:`ROUND_WAIT_S` for each open stream's event of its game's move;
    returns the latencies (from the answer; 0 for an event that came first), how many came
    before the answer, and how many were missed."""
    made = {game: (version, at) for game, version, at in moves}
    watching = [s for s in streams if s.status == 200 and s.game in made]
    deadline = time.monotonic() + ROUND_WAIT_S
    while time.monotonic() < deadline:
        if all(any(v >= made[s.game][0] for v in s.seen) for s in watching):
            break
        await asyncio.sleep(0.05)
    latencies, early, missed = [], 0, 0
    for s in watching:
        version, at = made[s.game]
        came = [t for v, t in s.seen.items() if v >= version]
        if not came:
            missed += 1
            continue
        delay = min(came) - at
        early += delay < 0
        latencies.append(max(0.0, delay))
    return latencies, early, missed


async def _open(port: int, games: list[tuple[str, str, int]], n: int, per_address: int,
                network: int, held: list[asyncio.BaseTransport]) -> list[Stream]:
    """Opens ``n`` streams over ``games`` (spread evenly), ``per_address`` from each
    client address, at most :data:`OPEN_CONCURRENCY` being opened at once; their
    connections go in ``held``."""
    streams = [Stream(i % len(games)) for i in range(n)]
    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def one(i: int, stream: Stream) -> None:
        async with gate:
            opened = asyncio.Event()
            game, _, version = games[stream.game]
            transport = await _watch(stream, port, _address(i // per_address, network),
                                     f"/games/{game}/events?version={version}", opened)
            if transport is not None:
                held.append(transport)
            await opened.wait()

    await asyncio.gather(*(one(i, s) for i, s in enumerate(streams)))
    return streams


def _close(held: list[asyncio.BaseTransport]) -> None:
    for transport in held:
        transport.close()


async def _row(site: ProxiedServer, admin: str, db: str, args: argparse.Namespace,
               ) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    games = await loop.run_in_executor(None, _new_games, site.url, args.games)
    pids = site.pids()
    rss_before = _rss_mb(pids)
    held: list[asyncio.BaseTransport] = []
    start = time.monotonic()
    streams = await _open(site.port, games, args.streams, args.per_address, 10, held)
    open_s = time.monotonic() - start
    opened = sum(s.status == 200 and not s.ended for s in streams)
    refusals = Counter(f"{s.status or 0} {s.error or ''}".strip() for s in streams
                       if s.status != 200 or s.ended)
    await asyncio.sleep(2)
    rss_open = _rss_mb(pids)

    rounds = Rounds(site.url, games, sources=64)
    latencies: list[float] = []
    each: list[dict[str, Any]] = []
    early = missed = answered = 0
    try:
        for _ in range(args.rounds):
            await asyncio.sleep(1)
            moves = await loop.run_in_executor(None, rounds.play)
            answered += len(moves)
            got, e, m = await _delivered(streams, moves)
            each.append({"moves": len(moves), "delivered": len(got), "missed": m,
                         **_percentiles(got)})
            latencies += got
            early += e
            missed += m
    finally:
        rounds.close()
    rss_after = _rss_mb(pids)

    await asyncio.sleep(12)  # the last round's counts flushed (see the docstring)
    counts0 = await loop.run_in_executor(None, _db_counts, admin, db)
    await asyncio.sleep(args.idle)
    counts1 = await loop.run_in_executor(None, _db_counts, admin, db)
    still_open = sum(s.status == 200 and not s.ended for s in streams)
    _close(held)

    paired = await _paired(site, args)
    return {
        "streams": args.streams, "games": args.games,
        "opened": opened, "refused": args.streams - opened,
        "refused_statuses": dict(sorted(refusals.items())),
        "open_s": round(open_s, 1),
        "still_open_after_idle": still_open,
        "moves_answered": answered, "moves_made": args.rounds * args.games,
        "delivered": len(latencies), "missed": missed, "before_answer": early,
        "latency": _percentiles(latencies),
        "rounds": each,
        "rss_mb": {"before": round(rss_before, 1), "open": round(rss_open, 1),
                   "after_rounds": round(rss_after, 1)},
        "kb_per_stream": round(1024 * (rss_open - rss_before) / max(1, opened), 1),
        "idle_s": args.idle,
        "idle_db_transactions_per_s": round((counts1[0] - counts0[0]) / args.idle, 1),
        "idle_db_rows_returned_per_s": round((counts1[1] - counts0[1]) / args.idle, 1),
        "paired": paired,
    }


async def _paired(site: ProxiedServer, args: argparse.Namespace) -> dict[str, Any]:
    """Streams on both processes, moves on the first: same process against the other."""
    if not args.paired:
        return {}
    loop = asyncio.get_running_loop()
    mover, other = site.servers
    games = await loop.run_in_executor(None, _new_games, mover.url, 10)
    held: list[asyncio.BaseTransport] = []
    on_mover = await _open(mover.port, games, args.paired, args.per_address, 30, held)
    on_other = await _open(other.port, games, args.paired, args.per_address, 31, held)
    rounds = Rounds(mover.url, games, sources=4)
    same: list[float] = []
    cross: list[float] = []
    missed = 0
    try:
        for _ in range(args.rounds * 4):
            await asyncio.sleep(0.5)
            moves = await loop.run_in_executor(None, rounds.play)
            got, _, m = await _delivered(on_mover, moves)
            same += got
            missed += m
            got, _, m = await _delivered(on_other, moves)
            cross += got
            missed += m
    finally:
        rounds.close()
        _close(held)
    return {"streams_per_process": args.paired, "games": 10, "rounds": args.rounds * 4,
            "missed": missed, "same_process": _percentiles(same),
            "other_process": _percentiles(cross),
            "same_mean_ms": round(1000 * statistics.fmean(same), 1) if same else None,
            "other_mean_ms": round(1000 * statistics.fmean(cross), 1) if cross else None}


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    bindir = find_postgres()
    if bindir is None:
        raise SystemExit("PostgreSQL is not installed")
    before = Path(args.before) if args.before else None
    pg = PostgresServer(bindir).start()
    results: list[dict[str, Any]] = []
    try:
        admin = f"postgresql://kaboom@127.0.0.1:{pg.port}/postgres"
        order = [r for i in range(args.repeat) for r in args.rows[::(-1) ** i]]
        for name in order:
            url = pg.url()
            checkout = before if name.startswith("before") else None
            deploy = before / "deploy" if before and name == "before" else None
            site = ProxiedServer(url, 2, deploy=deploy, **NO_CREATION_LIMITS)
            if checkout is not None:
                for server in site.servers:
                    server.command = [str(checkout / ".venv" / "bin" / "kaboom")]
                    server.env["PYTHONPATH"] = ""  # its own checkout's code
            site.start()
            began = time.monotonic()
            load = os.getloadavg()
            try:
                row = uvloop.run(_row(site, admin, url.rsplit("/", 1)[1], args))
                log = site.nginx.errors(last=10**7)
                row["nginx_errors"] = {
                    "worker_connections_not_enough": log.count("worker_connections are not"),
                    "lines": log.count("\n")}
            finally:
                site.stop()
            row = {"row": name, "load_at_start": [round(x, 2) for x in load],
                   "load_at_end": [round(x, 2) for x in os.getloadavg()],
                   "seconds": round(time.monotonic() - began, 1), **row}
            results.append(row)
            _print(row)
    finally:
        pg.stop()
    return results


def _print(r: dict[str, Any]) -> None:
    lat, p = r["latency"], r["paired"]
    print(f"{r['row']:6} {r['streams']} streams over {r['games']} games: opened {r['opened']}"
          f" refused {r['refused']} {r['refused_statuses']} in {r['open_s']} s; delivered"
          f" {r['delivered']} missed {r['missed']}; latency p50 {lat['p50_ms']} p99"
          f" {lat['p99_ms']} max {lat['max_ms']} ms; {r['kb_per_stream']} KB a stream;"
          f" idle db {r['idle_db_transactions_per_s']} xact/s; load {r['load_at_start']}",
          flush=True)
    if p:
        print(f"       paired: same process p50 {p['same_process']['p50_ms']} p99"
              f" {p['same_process']['p99_ms']} ms, other process p50"
              f" {p['other_process']['p50_ms']} p99 {p['other_process']['p99_ms']} ms,"
              f" missed {p['missed']}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=1000, help="event streams through nginx")
    ap.add_argument("--games", type=int, default=100, help="games the streams watch")
    ap.add_argument("--rounds", type=int, default=5, help="moves of every game")
    ap.add_argument("--per-address", type=int, default=25, help="streams a client address")
    ap.add_argument("--paired", type=int, default=100,
                    help="streams straight to each process in the paired phase (0: none)")
    ap.add_argument("--idle", type=float, default=30.0, help="seconds of idle streams")
    ap.add_argument("--repeat", type=int, default=1, help="runs of the rows, alternating")
    ap.add_argument("--before", help="an older checkout (with its .venv) to run first")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "open_pages.json"))
    ap.add_argument("--rows", default="before,before_server,after",
                    help="rows to run, in order (before*: with --before only)")
    args = ap.parse_args()
    args.rows = [r for r in args.rows.split(",") if args.before or not r.startswith("before")]
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.streams + 2 * args.paired + 500:
        raise SystemExit(f"{args.streams} streams need more open files than {hard}")
    where = machine()
    began = time.monotonic()
    results = run(args)
    settings = {k: v for k, v in vars(args).items() if k != "json"}
    out = {"settings": settings, "machine": where, "seconds": round(time.monotonic() - began),
           "results": results}
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
