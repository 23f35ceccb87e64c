"""Benchmarks of the solver on simulated games: ``kaboom bench`` and ``kaboom calibrate``."""

from kaboom.solver.bench.runner import GameResult, Summary, play_game, run_games, wilson

__all__ = ["GameResult", "Summary", "play_game", "run_games", "wilson"]
