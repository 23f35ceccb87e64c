"""Server settings, read from ``KABOOM_*`` environment variables or given directly."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from kaboom.solver import CountEncoding

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Everything configurable about a running server.  Each field's range is checked
    when the settings are read: a budget of 0 or a thread count of 0 would start a
    server that refuses every move."""

    model_config = SettingsConfigDict(env_prefix="KABOOM_")

    db: str = "kaboom.db"
    """Where games live: a SQLite file (the default, nothing to install), ``:memory:``
    (only while the process lives), or a ``postgresql://user@host/db`` URL, the store
    that several server processes share."""
    move_budget_s: float = Field(default=5.0, gt=0, allow_inf_nan=False)
    """Time the solver may spend on one move before the fallback rule applies."""
    analysis_budget_s: float = Field(default=3.0, gt=0, allow_inf_nan=False)
    """Time the analysis endpoint may spend on exact probabilities."""
    count_encoding: CountEncoding = CountEncoding.TOTALIZER
    """How the mine count is encoded; the totalizer won the reveal benchmark (docs/benchmarks.md:
    equal on Expert, a third lower reveal p99 and a quarter of the worst case on 200x200)."""
    sqlite_synchronous: Literal["OFF", "NORMAL", "FULL"] = "NORMAL"
    """WAL + NORMAL keeps every answered move across a crash or kill of the server; FULL
    also survives an OS crash or power loss, at an fsync per move (docs/benchmarks.md)."""
    long_poll_max_s: float = Field(default=30.0, ge=0, allow_inf_nan=False)
    long_poll_interval_s: float = Field(default=0.05, gt=0, allow_inf_nan=False)
    """How often a process asks for changes other processes made to watched games, where
    it is not told of them: on SQLite (a cheap ``PRAGMA data_version``, then the versions
    when it moved), and on PostgreSQL only while its listening connection is down."""
    cached_games: int = Field(default=256, ge=1)
    """Games whose engines stay warm in memory."""
    max_body_bytes: int = Field(default=80 * 1024, ge=1)
    """Larger request bodies are refused with 413 before anything parses them (nginx in
    front refuses them first: ``client_max_body_size`` in ``deploy/kaboom.conf.template``).
    The largest body the API takes is a position to analyse: 256 rows of 256 cells are
    66 KB of JSON, 68 KB indented."""
    create_per_minute: float = Field(default=30.0, ge=0, allow_inf_nan=False)
    """Games one client (IP address) may create a minute, on average, over all processes
    on the store (0 turns the limit off)."""
    create_burst: int = Field(default=20, ge=1)
    """Games one client may create at once before the rate applies."""
    create_cells_per_day: int = Field(default=4_000_000, ge=0)
    """Cells of new games one client may create a day, over all processes (0 turns the
    limit off): 8,333 Expert games, or 61 of the largest (256x256), which bounds what one
    address can store a day whatever sizes it asks for."""
    create_cells_per_day_total: int = Field(default=200_000_000, ge=0)
    """Cells of new games all clients together may create a day (0 turns the limit off):
    past it every creation gets a 503 until the bucket refills.  Clients of many
    addresses escape the per-client limits; this bounds what the store grows by a day
    whoever asks (416,000 Expert games; about 240 MB of new boards)."""
    finished_expiry_s: float = Field(default=30 * 86400.0, gt=0, allow_inf_nan=False)
    """Finished games are deleted this long after they ended (replays and links work
    until then)."""
    idle_expiry_s: float = Field(default=7 * 86400.0, gt=0, allow_inf_nan=False)
    """Unfinished games with no move for this long are deleted as abandoned."""
    expiry_interval_s: float = Field(default=3600.0, ge=0, allow_inf_nan=False)
    """How often each process runs the expiry (0 turns it off)."""
    cache_mb: int = Field(default=256, ge=0)
    """Memory (estimated) all games' solver caches share; past it the least recently used
    entries go, cold games first.  Nothing correct depends on a cache."""
    game_cache_mb: int = Field(default=64, ge=0)
    """Memory (estimated) one game's solver caches may hold."""
    cached_cells: int = Field(default=2_000_000, ge=0)
    """Decided cells the warm engines remember in total (about 100 bytes each); past it
    the least recently used games' engines are dropped and rebuilt from the board."""
    solver_threads: int = Field(default=2, ge=1)
    """Moves and analyses computed at once; they run on their own threads, so the thread
    pool that serves everything else is never exhausted by slow games.  The solver is
    mostly Python, which holds the GIL: threads beyond the cores only slow each other."""
    queued_moves: int = Field(default=4, ge=0)
    """Moves of one game that may wait behind the one being computed; more get a 503."""
    queued_total: int = Field(default=64, ge=0)
    """Moves of all games that may wait for a solver thread; more get a 503."""
    move_limit_per_cell: int = Field(default=4, ge=1)
    """Moves a game may keep per cell of its board (at least ``move_limit_min``); the next
    is refused with a 409 and changes nothing.  Every move is stored for undo and the
    replay (a flag's record is about 670 bytes), and one client made 20,000 flag moves on
    one game at 208 a second.  A game needs at most one move per cell to be won (each cell
    revealed or flagged once), so four leaves room for marks changed and taken back: 324
    moves on Beginner, 1,920 on Expert, 262,144 on 256x256."""
    move_limit_min: int = Field(default=256, ge=1)
    """The fewest moves any game may keep, for tiny boards (2x2 at four a cell would be 16)."""
    metrics_token: SecretStr | None = Field(default=None, min_length=16)
    """When set, ``GET /api/metrics`` answers only ``Authorization: Bearer <token>`` (401
    otherwise); unset, anyone may read the counts, as they may ``/api/health``."""
