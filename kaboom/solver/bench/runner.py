"""Plays simulated games with :func:`kaboom.solver.advisor.decide` and summarises them.

Game ``i`` of a run with seed ``s`` uses the layout seed ``s * 1_000_003 + i``, so two
runs with the same seed play the same boards (paired comparisons), on this machine's
processes or on a cluster's workers (:mod:`kaboom.solver.bench.cluster`).
"""

from __future__ import annotations

import math
import multiprocessing
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field

from kaboom.solver.approx import approximate
from kaboom.solver.position import FirstClick, GameStatus
from kaboom.solver.session import Solver
from kaboom.solver.simulator import SimulatedGame

__all__ = [
    "GameResult", "Setup", "Summary", "game_seed", "play_game", "play_games", "play_out",
    "run_games", "summarise", "wilson",
]


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game."""

    seed: int
    """The layout seed the game was played on."""
    won: bool
    """Whether the solver won it."""
    seconds: float
    """Wall-clock time the game took."""
    cpu_seconds: float
    """CPU time the game took (of the process that played it)."""
    decisions: int
    """Decisions the solver made."""
    guesses: int
    """Decisions that were guesses."""
    moves_by_algorithm: dict[str, int]
    """Moves played, by the :attr:`~kaboom.solver.Decision.algorithm` that found them."""
    predictions: tuple[tuple[float, float, bool], ...] = ()
    """(exact mine probability, approximate one, was a mine) per guess, when
    calibration is on."""


@dataclass(frozen=True, slots=True)
class Summary:
    """Aggregated figures of a run."""

    games: int
    """Games played."""
    wins: int
    """Games won."""
    win_rate: float
    """``wins / games`` (0 for no games)."""
    wilson_low: float
    """The low end of the win rate's 95 % Wilson interval."""
    wilson_high: float
    """The high end of the win rate's 95 % Wilson interval."""
    ms_median: float
    """Median wall-clock milliseconds a game."""
    ms_mean: float
    """Mean wall-clock milliseconds a game."""
    cpu_ms_median: float
    """Median CPU milliseconds a game."""
    cpu_ms_mean: float
    """Mean CPU milliseconds a game."""
    moves_by_algorithm: dict[str, int]
    """Moves played over all games, by the algorithm that found them."""
    guesses_per_game: float
    """Mean guesses a game."""
    settings: dict[str, object] = field(default_factory=dict)
    """What the run was set up with (board, rule, profile...), as its caller gives it."""

    def to_dict(self) -> dict[str, object]:
        """The summary as a dict of its fields, for JSON."""
        return asdict(self)


def wilson(wins: int, games: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    # Exact at the ends: no wins is 0, not 1e-17 (a plot's error bar went negative).
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    return low, 1.0 if wins == games else min(1.0, centre + half)


SEEDS_A_RUN = 1_000_003
"""Games a run's ``--seed`` names: each seed's games are ``seed * SEEDS_A_RUN + i``, so
runs of different seeds never share a board as long as each plays no more."""


def game_seed(seed: int, index: int) -> int:
    return seed * SEEDS_A_RUN + index


def play_out(game: SimulatedGame, solver: Solver) -> GameStatus:
    """Plays ``game`` to its end with ``solver``'s moves (what-ifs and whole-board
    measurements that set their game up themselves)."""
    while game.outcome is GameStatus.PLAYING:
        d = solver.decide(game.position())
        if not d.moves:
            break
        game.play_all(d.moves)
    return game.outcome


def play_game(
    width: int,
    height: int,
    mines: int,
    rule: str,
    seed: int,
    profile: str = "strong",
    calibrate: bool = False,
) -> GameResult:
    """Plays one game to the end with a :class:`~kaboom.solver.session.Solver`; ``rule`` is
    ``sfar`` or ``snr``."""
    game = SimulatedGame(width, height, mines, rule=rule, seed=seed)
    solver = Solver(profile, first_click=FirstClick(rule))
    by_alg: Counter[str] = Counter()
    decisions = guesses = 0
    predictions: list[tuple[float, float, bool]] = []
    start = time.perf_counter()
    cpu_start = time.process_time()
    while game.outcome is GameStatus.PLAYING:
        position = game.position()
        d = solver.decide(position, probabilities=calibrate)
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
        game.play_all(d.moves)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return GameResult(
        seed, game.outcome is GameStatus.WON, seconds, cpu, decisions, guesses, dict(by_alg),
        tuple(predictions),
    )


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything a game depends on besides its seed: equal setups and seeds, equal games."""

    width: int
    height: int
    mines: int
    rule: str
    profile: str = "strong"

    @property
    def board(self) -> str:
        return f"{self.width}x{self.height}/{self.mines}"

    def play(self, seed: int, calibrate: bool = False) -> GameResult:
        return play_game(self.width, self.height, self.mines, self.rule, seed, self.profile,
                         calibrate)


def _play(args: tuple[Setup, int, bool]) -> GameResult:
    return args[0].play(args[1], args[2])


def play_games(
    setup: Setup, seeds: Iterable[int], *, jobs: int = 1, calibrate: bool = False,
) -> Iterator[GameResult]:
    """Plays the games of ``seeds`` in ``jobs`` processes, yielding each as it ends."""
    tasks = ((setup, s, calibrate) for s in seeds)
    if jobs <= 1:
        yield from map(_play, tasks)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap_unordered(_play, tasks, chunksize=4)


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
    setup = Setup(width, height, mines, rule, profile)
    seeds = [game_seed(seed, i) for i in range(games)]
    wrap = progress or (lambda it, n: it)
    results = wrap(play_games(setup, seeds, jobs=jobs, calibrate=calibrate), games)
    return sorted(results, key=lambda r: r.seed)


def summarise(results: Iterable[GameResult], settings: dict[str, object] | None = None) -> Summary:
    """Aggregates games in one pass (a million of them read back from a results file)."""
    wins = guesses = 0
    ms: list[float] = []
    cpu: list[float] = []
    by_alg: Counter[str] = Counter()
    for r in results:
        wins += r.won
        guesses += r.guesses
        ms.append(r.seconds * 1000)
        cpu.append(r.cpu_seconds * 1000)
        by_alg.update(r.moves_by_algorithm)
    games = len(ms)
    low, high = wilson(wins, games)
    ms = ms or [0.0]
    cpu = cpu or [0.0]
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
        guesses_per_game=guesses / games if games else 0.0,
        settings=dict(settings or {}),
    )
