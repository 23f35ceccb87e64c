"""Server settings, read from ``KABOOM_*`` environment variables or given directly."""

from __future__ import annotations

from typing import Literal

from pydantic_settings import BaseSettings, SettingsConfigDict

from solver.knowledge import CountEncoding

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Everything configurable about a running server."""

    model_config = SettingsConfigDict(env_prefix="KABOOM_")

    db_path: str = "kaboom.db"
    """SQLite file; ``:memory:`` keeps games only while the process lives."""
    move_budget_s: float = 5.0
    """Time the solver may spend on one move before the fallback rule applies."""
    analysis_budget_s: float = 3.0
    """Time the analysis endpoint may spend on exact probabilities."""
    count_encoding: CountEncoding = CountEncoding.TOTALIZER
    """How the mine count is encoded; the totalizer won the reveal benchmark (docs/benchmarks.md:
    equal on Expert, a third lower reveal p99 and a quarter of the worst case on 200x200)."""
    sqlite_synchronous: Literal["OFF", "NORMAL", "FULL"] = "NORMAL"
    """WAL + NORMAL keeps every answered move across a crash or kill of the server; FULL
    also survives an OS crash or power loss, at an fsync per move (docs/benchmarks.md)."""
    long_poll_max_s: float = 30.0
    cached_games: int = 256
    """Games whose engines stay warm in memory."""
