"""``kaboom bot play``: plays Kaboom games through the HTTP API and reports how they went.

With ``--concurrency K`` it plays K games at once on one event loop, which makes it the
server's load generator too (see ``bench/bot_load.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

from kaboom.bots.base import (
    ClientError,
    GameClient,
    GameResult,
    GameSettings,
    GameView,
    play_game,
    think_in_thread,
)
from kaboom.bots.http import HttpClient
from kaboom.solver import PRESETS, LossReason, profile_spec
from kaboom.solver.bench.args import at_least, seconds

__all__ = ["Summary", "add_arguments", "run", "run_games", "summarize"]

# Losses no complete bot may suffer whatever the settings: each one is a bug.
BOT_FAULTS = frozenset({LossReason.GUESS_WHILE_SAFE, LossReason.CERTAIN_MINE,
                        LossReason.OUTSIDE_GUESS})


@dataclass(frozen=True, slots=True)
class Summary:
    """Totals of a run; latencies are the client's request round trips in milliseconds."""

    games: int
    wins: int
    losses: int
    errors: int
    win_rate: float
    loss_reasons: dict[str, int]
    forced_guesses_per_game: float
    guesses_per_game: float
    moves: int
    moves_per_s: float
    wall_s: float
    latency_ms: dict[str, float | None]
    reveal_ms: dict[str, float | None]
    requests: int
    retries: int
    waits: int = 0
    """New games asked for again after the server's creation limit said to wait (429)."""
    error_messages: list[str] = field(default_factory=list)

    @property
    def bot_faults(self) -> int:
        return sum(n for r, n in self.loss_reasons.items() if r in BOT_FAULTS)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile, in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[max(0, math.ceil(p * len(ordered)) - 1)], 3)


def _spread(values: Sequence[float]) -> dict[str, float | None]:
    return {"p50": _percentile(values, 0.50), "p99": _percentile(values, 0.99)}


def summarize(
    results: Sequence[GameResult], latencies: dict[str, list[float]], wall_s: float, retries: int,
    waits: int = 0,
) -> Summary:
    """Totals a run's results and the client's request latencies."""
    finished = [r for r in results if r.error is None]
    n = max(1, len(finished))
    wins = sum(r.won for r in finished)
    moves = sum(r.moves for r in results)
    every = [t for times in latencies.values() for t in times]
    errors = [f"{r.game_id or '(no game)'}: {r.error}" for r in results if r.error]
    return Summary(
        games=len(results),
        wins=wins,
        losses=len(finished) - wins,
        errors=len(errors),
        win_rate=round(wins / n, 4),
        loss_reasons=dict(Counter(r.loss.reason for r in finished if r.loss)),
        forced_guesses_per_game=round(sum(r.forced_guesses for r in finished) / n, 3),
        guesses_per_game=round(sum(r.guesses for r in finished) / n, 3),
        moves=moves,
        moves_per_s=round(moves / wall_s, 2) if wall_s > 0 else 0.0,
        wall_s=round(wall_s, 3),
        latency_ms=_spread(every),
        reveal_ms=_spread(latencies.get("reveal", [])),
        requests=len(every),
        retries=retries,
        waits=waits,
        error_messages=errors,
    )


async def run_games(
    client: GameClient,
    settings: Sequence[GameSettings],
    *,
    concurrency: int = 1,
    delay: float = 0.0,
    on_start: Callable[[GameView], None] | None = None,
    on_move: Callable[[GameView], None] | None = None,
    on_done: Callable[[GameResult], None] | None = None,
    max_errors: int | None = None,
    profile: str = "strong",
) -> list[GameResult]:
    """Plays the games, ``concurrency`` at a time, with the solver ``profile``; results
    come back in input order.

    After ``max_errors`` games ended in errors no new game starts (a server that is gone
    should not be retried once per remaining game); the results then stop short.
    """
    results: list[GameResult | None] = [None] * len(settings)
    queue = iter(range(len(settings)))
    think = think_in_thread if concurrency > 1 else None
    errors = 0

    async def worker() -> None:
        nonlocal errors
        for i in queue:
            if max_errors is not None and errors >= max_errors:
                return
            kw: dict[str, Any] = {"think": think} if think else {}
            result = await play_game(client, settings[i], delay=delay, on_start=on_start,
                                     on_move=on_move, profile=profile, **kw)
            results[i] = result
            errors += result.error is not None
            if on_done is not None:
                on_done(result)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    return [r for r in results if r is not None]


# ----------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declares ``kaboom bot play``'s options."""
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="Kaboom server URL")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="board size (default expert)")
    parser.add_argument("--width", type=int)
    parser.add_argument("--height", type=int)
    parser.add_argument("--mines", type=int)
    parser.add_argument("--first-click", choices=["safe", "opening"])
    parser.add_argument("--forced-guess", choices=["survive", "fair"])
    parser.add_argument("--outside-guess", action=argparse.BooleanOptionalAction, default=None,
                        help="allow guesses away from the numbers (server default: no)")
    parser.add_argument("--seed", type=at_least(1),
                        help="seed of the first game; game i uses seed+i")
    parser.add_argument("--games", type=at_least(1), default=1, help="games to play (default 1)")
    parser.add_argument("--concurrency", type=at_least(1), default=1,
                        help="games played at once")
    parser.add_argument("--spectate", action="store_true",
                        help="pause between moves so the game can be watched in the browser")
    parser.add_argument("--delay", type=float, help="seconds between moves (--spectate: 0.3)")
    parser.add_argument("--timeout", type=seconds(above=0), default=30.0,
                        help="seconds per request")
    parser.add_argument("--retry-for", type=seconds(above=None), default=30.0,
                        help="seconds to keep retrying a failing request (server restarts)")
    parser.add_argument("--max-errors", type=at_least(1), default=5,
                        help="stop starting games after this many failed (default 5)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no game URLs")
    parser.add_argument("--profile", type=profile_spec, default="strong",
                        help="the solver's profile: strong (default), fast, or either with "
                             "option=value overrides, as 'strong,ratio=0.85'")


MAX_SEED = 2**63 - 1
"""The largest seed the server takes."""


def _settings(args: argparse.Namespace) -> list[GameSettings] | str:
    """One GameSettings per game, or an error message."""
    sizes = (args.width, args.height, args.mines)
    if any(v is not None for v in sizes):
        if args.preset or None in sizes:
            return "give either --preset or all of --width, --height and --mines"
        width, height, mines = sizes
        # the API's ranges (docs/api.md): the server's 422 would end every game as an error
        if not (2 <= width <= 256 and 2 <= height <= 256):
            return f"a {width}x{height} board: --width and --height are 2 to 256"
        if not 1 <= mines <= width * height - 1:
            return (f"{mines} mines on {width}x{height}: --mines is 1 to"
                    f" {width * height - 1} (width*height - 1)")
    else:
        width, height, mines = PRESETS[args.preset or "expert"]
    if args.seed is not None and args.seed + args.games - 1 > MAX_SEED:
        return f"--seed {args.seed} with --games {args.games} passes the largest seed, {MAX_SEED}"
    return [
        GameSettings(width, height, mines, first_click=args.first_click,
                     forced_guess=args.forced_guess, outside_guess=args.outside_guess,
                     seed=None if args.seed is None else args.seed + i)
        for i in range(args.games)
    ]


def _report(summary: Summary, out: Any) -> None:
    def ms(d: dict[str, float | None]) -> str:
        return " / ".join("-" if v is None else f"{v:.1f}" for v in (d["p50"], d["p99"]))

    reasons = ", ".join(f"{r} {n}" for r, n in sorted(summary.loss_reasons.items())) or "none"
    lines = [
        f"games            {summary.games}",
        f"wins             {summary.wins} ({100 * summary.win_rate:.1f} % of finished games)",
        f"losses           {summary.losses} ({reasons})",
        f"errors           {summary.errors}",
        f"forced guesses   {summary.forced_guesses_per_game:.2f} a game",
        f"moves            {summary.moves} in {summary.wall_s:.1f} s = "
        f"{summary.moves_per_s:.1f} moves/s",
        f"latency p50/p99  {ms(summary.latency_ms)} ms over {summary.requests} requests",
        f"reveal p50/p99   {ms(summary.reveal_ms)} ms",
        f"retries          {summary.retries}",
    ]
    if summary.waits:
        lines.append(f"waits            {summary.waits} (the server's limit on new games)")
    lines += [f"error: {m}" for m in summary.error_messages[:10]]
    print("\n".join(lines), file=out)


async def _main(args: argparse.Namespace, settings: list[GameSettings]) -> int:
    from tqdm import tqdm

    delay = args.delay if args.delay is not None else (0.3 if args.spectate else 0.0)
    bar = tqdm(total=len(settings), unit="game", file=sys.stderr, dynamic_ncols=True,
               disable=True if args.quiet else None)
    async with HttpClient(args.server, timeout=args.timeout, retry_for=args.retry_for,
                          max_connections=max(8, 2 * args.concurrency)) as client:

        def started(view: GameView) -> None:
            if not args.quiet:
                tqdm.write(f"game {view.id}: watch at {client.spectate_url(view.id)}",
                           file=sys.stderr)

        tally: Counter[str] = Counter()

        def done(result: GameResult) -> None:
            tally[result.status] += 1
            if result.error:
                tqdm.write(f"game {result.game_id or '?'} failed: {result.error}", file=sys.stderr)
            bar.set_postfix(tally, refresh=False)
            bar.update()

        try:
            await client.ping()
        except ClientError as exc:
            bar.close()
            print(f"kaboom bot play: {exc}", file=sys.stderr)
            return 2
        start = time.perf_counter()
        results = await run_games(client, settings, concurrency=args.concurrency, delay=delay,
                                  on_start=started, on_done=done, max_errors=args.max_errors,
                                  profile=args.profile)
        wall = time.perf_counter() - start
        bar.close()
        if len(results) < len(settings):
            print(f"stopped after {sum(r.error is not None for r in results)} failed games; "
                  f"{len(settings) - len(results)} not played", file=sys.stderr)
        summary = summarize(results, client.latencies, wall, client.retries, client.waits)
    if args.json:
        payload = {"server": args.server, "concurrency": args.concurrency,
                   "profile": args.profile,
                   "settings": results[0].settings if results else {},
                   **summary.to_json(), "results": [r.to_json() for r in results]}
        print(json.dumps(payload, indent=2))
    else:
        _report(summary, sys.stdout)
    return 1 if summary.errors or summary.bot_faults else 0


def run(args: argparse.Namespace) -> int:
    """Runs ``kaboom bot play``; exit code 1 when a game failed or the bot lost by its fault."""
    settings = _settings(args)
    if isinstance(settings, str):
        print(f"kaboom bot play: {settings}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_main(args, settings))
    except httpx.InvalidURL as exc:
        print(f"kaboom bot play: bad --server URL: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
