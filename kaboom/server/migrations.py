"""The database schema as numbered migrations, applied in order on start-up.

A small table of numbered SQL steps rather than alembic: the store speaks SQL through the
drivers directly (no SQLAlchemy models for alembic to diff), the schema is four tables, and
each step must run on SQLite and PostgreSQL alike.  ``schema_version`` holds the number of
the last step applied, so an existing database upgrades in place; a database made before
the table existed (games and steps only) counts as version 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["MIGRATIONS", "latest", "pending"]

# Each migration is a list of statements; ``{json}`` is the dialect's JSON text accessor.
MIGRATIONS: list[list[str]] = [
    # 1: the original schema: a game's state as JSON, and one undo record per move.
    [
        "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, state TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS steps (game_id TEXT NOT NULL, n INTEGER NOT NULL,"
        " step TEXT NOT NULL, PRIMARY KEY (game_id, n))",
    ],
    # 2: the columns that concurrency and expiry query: a version for compare-and-set,
    # the status and the time of the last change.
    [
        "ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN status TEXT NOT NULL DEFAULT 'playing'",
        "ALTER TABLE games ADD COLUMN updated_at DOUBLE PRECISION NOT NULL DEFAULT 0",
        "UPDATE games SET status = {status}, updated_at = {created_at}",
        "CREATE INDEX IF NOT EXISTS games_expiry ON games (status, updated_at)",
    ],
    # 3: the game-creation rate limit's token buckets, one per client address, kept here
    # so that every process on the store draws on the same bucket.
    [
        "CREATE TABLE IF NOT EXISTS create_buckets (client TEXT PRIMARY KEY,"
        " tokens DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL)",
        "CREATE INDEX IF NOT EXISTS create_buckets_age ON create_buckets (updated_at)",
    ],
    # 4: the page's statistics: one row per game counted for a browser (its anonymous
    # cookie), kept when the game expires; the game's id as the key counts it once.
    [
        "CREATE TABLE IF NOT EXISTS counted_games (game_id TEXT PRIMARY KEY, browser TEXT,"
        " preset TEXT NOT NULL, won INTEGER NOT NULL, elapsed_ms BIGINT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS counted_games_browser ON counted_games (browser, preset)",
    ],
]


def latest() -> int:
    return len(MIGRATIONS)


def pending(
    current: int, dialect: str
) -> Sequence[tuple[int, list[str]]]:
    """The steps after ``current``, with each dialect's JSON accessors filled in."""
    fields: dict[str, Callable[[str], str]] = {
        "sqlite": lambda f: f"json_extract(state, '$.{f}')",
        "postgresql": lambda f: f"(state::json->>'{f}')",
    }
    field = fields[dialect]
    casts = {
        "status": field("status"),
        "created_at": f"CAST({field('created_at')} AS DOUBLE PRECISION)",
    }
    return [
        (n, [s.format(**casts) for s in MIGRATIONS[n - 1]])
        for n in range(current + 1, latest() + 1)
    ]
