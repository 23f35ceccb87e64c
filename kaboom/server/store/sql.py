"""The SQL store both backends share: its tables' statements, its schema's migrations, and
its expiry; a backend gives the transactions (``_tx``, whose cursor takes ``?``
placeholders) and says which of its driver's errors are faults (``_fault``)."""

from __future__ import annotations

from typing import Any

from kaboom.server import migrations
from kaboom.server.store.buckets import Buckets
from kaboom.server.store.counted import CountedGames
from kaboom.server.store.faults import Faults, read_again
from kaboom.server.store.games import GameRows

__all__ = ["SqlStore"]


class SqlStore(GameRows, Buckets, CountedGames, Faults):
    """Games, their records, creation buckets and counted games in one SQL database."""

    dialect = "sqlite"

    def _migrate(self, cur: Any, has_table: bool) -> None:
        cur.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = cur.execute("SELECT max(version) FROM schema_version").fetchone()
        current = row[0] if row and row[0] is not None else (1 if has_table else 0)
        for n, statements in migrations.pending(current, self.dialect):
            for sql in statements:
                cur.execute(sql)
            cur.execute("DELETE FROM schema_version")
            cur.execute("INSERT INTO schema_version (version) VALUES (?)", (n,))

    @read_again
    def schema_version(self) -> int:
        with self._tx(write=False) as cur:
            return int(cur.execute("SELECT max(version) FROM schema_version").fetchone()[0])

    def expire(self, finished_before: float, idle_before: float) -> int:
        """Deletes games finished before ``finished_before`` and unfinished games with no
        change since ``idle_before`` (and creation buckets as idle); returns how many
        games.  The condition is checked by the DELETE itself, so a game that changed
        meanwhile is never removed."""
        with self._tx() as cur:
            cur.execute(
                "DELETE FROM steps WHERE game_id IN (SELECT id FROM games WHERE"
                " (status <> 'playing' AND updated_at < ?) OR updated_at < ?)",
                (finished_before, idle_before),
            )
            cur.execute(
                "DELETE FROM games WHERE (status <> 'playing' AND updated_at < ?)"
                " OR updated_at < ?",
                (finished_before, idle_before),
            )
            removed = int(cur.rowcount)
            # a creation bucket untouched that long is full again (unless its refill takes
            # longer than the idle expiry): forgetting it changes nothing
            cur.execute("DELETE FROM create_buckets WHERE updated_at < ?", (idle_before,))
            # a game whose statistics were reset, once it is gone, cannot count again
            cur.execute("DELETE FROM counted_games WHERE browser IS NULL AND game_id NOT IN"
                        " (SELECT id FROM games)")
            return removed
