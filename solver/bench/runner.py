"""Plays simulated games with :func:`solver.advisor.decide` and summarises them.

Game ``i`` of a run with seed ``s`` uses the layout seed ``s * 1_000_003 + i``, so two
runs with the same seed play the same boards (paired comparisons).
"""

from __future__ import annotations

import math
import multiprocessing
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field

from solver.advisor import decide
from solver.approx import approximate
from solver.position import MoveKind
from solver.simulator import FirstClick, Outcome, SimulatedGame

__all__ = ["GameResult", "Summary", "game_seed", "play_game", "run_games", "wilson"]


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game."""

    seed: int
    won: bool
    seconds: float
    cpu_seconds: float
    decisions: int
    guesses: int
    moves_by_algorithm: dict[str, int]
    predictions: tuple[tuple[float, float, bool], ...] = ()
    """(exact mine probability, approximate one, was a mine) per guess, when
    calibration is on."""


@dataclass(frozen=True, slots=True)
class Summary:
    """Aggregated figures of a run."""

    games: int
    wins: int
    win_rate: float
    wilson_low: float
    wilson_high: float
    ms_median: float
    ms_mean: float
    cpu_ms_median: float
    cpu_ms_mean: float
    moves_by_algorithm: dict[str, int]
    guesses_per_game: float
    settings: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def wilson(wins: int, games: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def play_game(
    width: int,
    height: int,
    mines: int,
    rule: str,
    seed: int,
    profile: str = "strong",
    calibrate: bool = False,
) -> GameResult:
    """Plays one game to the end with the advisor; ``rule`` is ``sfar`` or ``snr``."""
    game = SimulatedGame(width, height, mines, rule=rule, seed=seed)
    first = "opening" if FirstClick(rule) is FirstClick.SNR else "safe"
    by_alg: Counter[str] = Counter()
    decisions = guesses = 0
    predictions: list[tuple[float, float, bool]] = []
    start = time.perf_counter()
    cpu_start = time.process_time()
    while game.outcome is Outcome.PLAYING:
        position = game.position()
        d = decide(position, profile=profile, first_click=first, probabilities=calibrate)
        decisions += 1
        if not d.moves:
            break
        by_alg[d.algorithm] += len(d.moves)
        if not d.certain:
            guesses += 1
            if calibrate and d.probabilities is not None:
                m = d.moves[-1]
                assert game.layout is not None
                rough = approximate(position).cells[m.cell]
                predictions.append((d.probabilities[m.cell], rough, m.cell in game.layout))
        for move in d.moves:
            if move.kind is MoveKind.REVEAL and game.char(move.x, move.y) != "#":
                continue  # opened meanwhile by a flood fill
            if game.play(move) is not Outcome.PLAYING:
                break
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return GameResult(
        seed, game.outcome is Outcome.WON, seconds, cpu, decisions, guesses, dict(by_alg),
        tuple(predictions),
    )


def _play(args: tuple[int, int, int, str, int, str, bool]) -> GameResult:
    return play_game(*args)


def run_games(
    width: int,
    height: int,
    mines: int,
    rule: str,
    games: int,
    *,
    seed: int = 0,
    jobs: int = 1,
    profile: str = "strong",
    calibrate: bool = False,
    progress: Callable[[Iterator[GameResult], int], Iterator[GameResult]] | None = None,
) -> list[GameResult]:
    """Plays ``games`` games, in ``jobs`` processes, and returns them in seed order."""
    tasks = [
        (width, height, mines, rule, game_seed(seed, i), profile, calibrate)
        for i in range(games)
    ]
    wrap = progress or (lambda it, n: it)
    if jobs <= 1:
        results = list(wrap(map(_play, tasks), games))
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = list(wrap(pool.imap_unordered(_play, tasks, chunksize=4), games))
    results.sort(key=lambda r: r.seed)
    return results


def summarise(results: list[GameResult], settings: dict[str, object] | None = None) -> Summary:
    games = len(results)
    wins = sum(r.won for r in results)
    low, high = wilson(wins, games)
    ms = [r.seconds * 1000 for r in results] or [0.0]
    cpu = [r.cpu_seconds * 1000 for r in results] or [0.0]
    by_alg: Counter[str] = Counter()
    for r in results:
        by_alg.update(r.moves_by_algorithm)
    return Summary(
        games=games,
        wins=wins,
        win_rate=wins / games if games else 0.0,
        wilson_low=low,
        wilson_high=high,
        ms_median=statistics.median(ms),
        ms_mean=statistics.fmean(ms),
        cpu_ms_median=statistics.median(cpu),
        cpu_ms_mean=statistics.fmean(cpu),
        moves_by_algorithm=dict(sorted(by_alg.items())),
        guesses_per_game=sum(r.guesses for r in results) / games if games else 0.0,
        settings=dict(settings or {}),
    )
