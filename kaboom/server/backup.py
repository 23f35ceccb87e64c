"""``kaboom backup``: a consistent copy of the store, taken while the server runs.

``cp kaboom.db`` under a running server can copy a page half-written, and misses every
move still in ``kaboom.db-wal``: a backup that opens, or not, with games missing.  SQLite's
online backup copies the database as it was at one moment, the WAL's pages included, under
one read transaction, which in WAL mode holds up no writer.  The copy is written beside
the target and renamed onto it only once it passes ``PRAGMA integrity_check``, so a
target never holds half a backup.  A PostgreSQL store is dumped by ``pg_dump`` (one
snapshot, its custom format, for ``pg_restore``), written and renamed the same way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from kaboom.server.config import Settings
from kaboom.server.store import is_postgres, sqlite_file

__all__ = ["Backup", "BackupError", "add_arguments", "backup", "dump_lists_games", "run",
           "sqlite_path", "store_url"]


class BackupError(RuntimeError):
    """The backup cannot be made (the message says why); nothing was written."""


@dataclass(frozen=True, slots=True)
class Backup:
    """What a backup copied (``games``: None for a PostgreSQL dump, not counted)."""

    games: int | None
    bytes: int
    seconds: float


def store_url(given: str | None) -> str:
    """The store a command works on: ``--db``, else the server's (``$KABOOM_DB`` or its
    default)."""
    return given or Settings().db


def sqlite_path(db: str) -> Path:
    """The file of the SQLite store ``db`` (which may not exist)."""
    file = sqlite_file(db)
    if file is None:
        raise BackupError("an in-memory store has no file")
    return Path(file)


def _source_path(db: str) -> Path:
    path = sqlite_path(db)
    if not path.is_file():
        raise BackupError(f"{db} is not a SQLite file")
    return path


def dump_lists_games(dump: Path) -> bool:
    """Whether the pg_dump archive ``dump`` holds Kaboom's ``games`` table."""
    listing = subprocess.run([shutil.which("pg_restore") or "pg_restore", "--list", str(dump)],
                             capture_output=True, text=True)
    return " TABLE public games " in listing.stdout


def _dump(url: str, partial: Path) -> None:
    """``pg_dump`` of the PostgreSQL store ``url`` into ``partial``."""
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise BackupError("the store is PostgreSQL, and pg_dump is not installed"
                          " (Debian: postgresql-client)")
    done = subprocess.run([pg_dump, "--format=custom", f"--file={partial}", "--no-password",
                           f"--dbname={url}"], capture_output=True, text=True)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise BackupError(f"pg_dump failed: {reason}")
    if not dump_lists_games(partial):
        raise BackupError(f"{url} is not a Kaboom store (it has no games table)")


def backup(db: str, target: Path, through: sqlite3.Connection | None = None) -> Backup:
    """Copies the store ``db`` (a SQLite file, or a PostgreSQL URL: ``pg_dump``) to
    ``target``, which must not exist yet; ``through``: a connection to the SQLite store
    that already holds its lock (a restore's), to read it by."""
    start = time.monotonic()
    source = None if is_postgres(db) else _source_path(db)
    if target.exists():
        raise BackupError(f"{target} exists already: name a new file")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)  # left by a backup that was killed
    try:
        games: int | None = None
        if source is None:
            _dump(db, partial)
        elif through is not None:
            games = _copy_sqlite(source, through, partial)
        else:
            src = _open_sqlite(source)
            try:
                games = _copy_sqlite(source, src, partial)
            finally:
                src.close()
        with partial.open("rb") as copy:
            os.fsync(copy.fileno())  # on the disk before it has the target's name
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)
    return Backup(games, target.stat().st_size, time.monotonic() - start)


def _open_sqlite(source: Path) -> sqlite3.Connection:
    try:
        # Read-write if the file allows it, though it only reads: the last connection to
        # close removes the WAL's files, which a read-only one leaves beside a stopped store.
        return sqlite3.connect(f"file:{source}?mode=rw", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {source}: {exc}") from exc


def _copy_sqlite(source: Path, src: sqlite3.Connection, partial: Path) -> int:
    """SQLite's online backup of the store ``source``, open as ``src``, into ``partial``;
    the games it holds."""
    try:
        if src.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='games'"
                       ).fetchone() is None:
            raise BackupError(f"{source} is not a Kaboom store (it has no games table)")
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)  # every page in one step: one moment's database
            check = dst.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise BackupError(f"the copy failed SQLite's integrity check: {check}")
            return int(dst.execute("SELECT count(*) FROM games").fetchone()[0])
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot back up {source}: {exc}") from exc


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", type=Path, help="the backup file to write (must be new)")
    parser.add_argument("--db", default=None, help="the store to copy, a SQLite file or a"
                        " PostgreSQL URL (default: $KABOOM_DB or kaboom.db)")


def run(args: argparse.Namespace) -> int:
    db = store_url(args.db)
    try:
        done = backup(db, args.target)
    except BackupError as exc:
        print(f"kaboom backup: {exc}", file=sys.stderr)
        return 2
    what = "pg_dump's custom format" if done.games is None else f"{done.games:,} games"
    print(f"kaboom backup: {what} ({done.bytes / 1e6:.1f} MB) from {db} to {args.target}"
          f" in {done.seconds:.1f} s")
    return 0
