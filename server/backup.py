"""``kaboom backup``: a consistent copy of a SQLite store, taken while the server runs.

``cp kaboom.db`` under a running server can copy a page half-written, and misses every
move still in ``kaboom.db-wal``: a backup that opens, or not, with games missing.  SQLite's
online backup copies the database as it was at one moment, the WAL's pages included, under
one read transaction, which in WAL mode holds up no writer.  The copy is written beside
the target and renamed onto it only once it passes ``PRAGMA integrity_check``, so a
target never holds half a backup.  PostgreSQL has ``pg_dump`` for the same job.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Backup", "BackupError", "add_arguments", "backup", "run"]


class BackupError(RuntimeError):
    """The backup cannot be made (the message says why); nothing was written."""


@dataclass(frozen=True, slots=True)
class Backup:
    """What a backup copied."""

    games: int
    bytes: int
    seconds: float


def _source_path(db: str) -> Path:
    if db.startswith(("postgresql://", "postgres://")):
        raise BackupError("the store is PostgreSQL: back it up with pg_dump, as"
                          " `pg_dump --format=custom --file=kaboom.dump URL`")
    path = Path(db.removeprefix("sqlite:///"))
    if db == ":memory:" or not path.is_file():
        raise BackupError(f"{db} is not a SQLite file")
    return path


def backup(db: str, target: Path) -> Backup:
    """Copies the SQLite store ``db`` to ``target`` (which must not exist yet)."""
    start = time.monotonic()
    source = _source_path(db)
    if target.exists():
        raise BackupError(f"{target} exists already: name a new file")
    partial = target.with_name(target.name + ".partial")
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {source}: {exc}") from exc
    try:
        try:
            if src.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='games'"
                           ).fetchone() is None:
                raise BackupError(f"{source} is not a Kaboom store (it has no games table)")
            partial.unlink(missing_ok=True)  # left by a backup that was killed
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)  # every page in one step: one moment's database
                check = dst.execute("PRAGMA integrity_check").fetchone()[0]
                if check != "ok":
                    raise BackupError(f"the copy failed SQLite's integrity check: {check}")
                games = int(dst.execute("SELECT count(*) FROM games").fetchone()[0])
            finally:
                dst.close()
        except sqlite3.Error as exc:
            raise BackupError(f"cannot back up {source}: {exc}") from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    with partial.open("rb") as copy:
        os.fsync(copy.fileno())  # on the disk before it has the target's name
    os.replace(partial, target)
    return Backup(games, target.stat().st_size, time.monotonic() - start)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", type=Path, help="the backup file to write (must be new)")
    parser.add_argument("--db", default=None,
                        help="the SQLite store to copy (default: $KABOOM_DB or kaboom.db)")


def run(args: argparse.Namespace) -> int:
    db = args.db or os.environ.get("KABOOM_DB") or "kaboom.db"
    try:
        done = backup(db, args.target)
    except BackupError as exc:
        print(f"kaboom backup: {exc}", file=sys.stderr)
        return 2
    print(f"kaboom backup: {done.games:,} games ({done.bytes / 1e6:.1f} MB) from {db} to"
          f" {args.target} in {done.seconds:.1f} s")
    return 0
