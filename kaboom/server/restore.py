"""``kaboom restore``: put a backup back as the store, keeping the store it replaces.

Moving a copy over ``kaboom.db`` by hand goes wrong two ways: SQLite replays the old
file's ``-wal`` onto the restored one, and a server still running keeps writing to the
file it has open.  So the restore refuses while any other process has the store open
(SQLite: it cannot take the file's exclusive lock; PostgreSQL: another connection to the
database), first saves the store as it was with ``kaboom backup``, then writes the backup
into the store in one transaction (SQLite's backup API into the locked store, which keeps
its WAL straight; ``pg_restore --single-transaction``): a restore that fails or is killed
leaves the store as it was.  The server brings an older backup's schema up to date when it
opens the store, as it does for any store.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from kaboom.server import migrations
from kaboom.server.backup import BackupError, backup, dump_lists_games, sqlite_path, store_url
from kaboom.server.store import is_postgres

__all__ = ["Restored", "add_arguments", "restore", "run"]

LOCK_WAIT_S = 2.0
"""How long the restore waits for the store's lock before it says another process has it."""


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restore did: the games the store now holds, and where the old store went."""

    games: int
    kept: Path | None
    seconds: float


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _check_sqlite_backup(source: Path) -> sqlite3.Connection:
    """An open, read-only connection to the backup ``source``, once it proves to be a
    whole Kaboom store that this version can serve."""
    if not source.is_file():
        raise BackupError(f"{source} is not a file")
    try:  # immutable: a backup is a finished file, so no -wal or -shm is made beside it
        copy = sqlite3.connect(f"file:{source}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {source}: {exc}") from exc
    try:
        tables = _tables(copy)
        if "games" not in tables:
            raise BackupError(f"{source} is not a Kaboom store (it has no games table)")
        check = copy.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"{source} failed SQLite's integrity check: {check}")
        if "schema_version" in tables:
            version = copy.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            if version is not None and version > migrations.latest():
                raise BackupError(f"{source} was written by a newer Kaboom (schema {version},"
                                  f" this one knows {migrations.latest()})")
    except sqlite3.Error as exc:
        copy.close()
        raise BackupError(f"cannot read {source}: {exc}") from exc
    except BaseException:
        copy.close()
        raise
    return copy


def _lock_sqlite_store(path: Path) -> sqlite3.Connection:
    """A connection holding the store's exclusive lock until it closes: no server can
    have the file open meanwhile, nor open it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # as the server would make it
        store = sqlite3.connect(path, timeout=LOCK_WAIT_S, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise BackupError(f"cannot open {path}: {exc}") from exc
    try:
        store.execute("PRAGMA locking_mode=EXCLUSIVE")  # keep every lock taken until close
        store.execute("BEGIN EXCLUSIVE")
        tables = _tables(store)
        store.execute("COMMIT")
        if tables and "games" not in tables:
            raise BackupError(f"{path} is not a Kaboom store (it has no games table): not"
                              " replaced")
        if not tables:  # a new file: the server's journal, not a rollback one left beside
            store.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError as exc:
        store.close()
        if "locked" in str(exc):
            raise BackupError(f"{path} is open in another process (a server?): stop it"
                              " first") from exc
        raise BackupError(f"cannot open {path}: {exc}") from exc
    except BaseException as exc:
        store.close()
        if isinstance(exc, sqlite3.Error):
            raise BackupError(f"cannot open {path}: {exc}") from exc
        raise
    return store


def _tidy(path: Path) -> None:
    """Opens and closes the store as the server does: the last connection to close takes
    the WAL's files away, and the exclusive one leaves a crashed server's ``-shm``."""
    try:
        tidy = sqlite3.connect(path, timeout=LOCK_WAIT_S)
        try:
            tidy.execute("SELECT count(*) FROM games").fetchone()
        finally:
            tidy.close()
    except sqlite3.Error:
        pass  # a server opened it meanwhile: it keeps the files, as it should


def _restore_sqlite(source: Path, db: str, keep: bool) -> tuple[int, Path | None]:
    path = sqlite_path(db)
    if path.exists() and source.exists() and path.samefile(source):
        raise BackupError(f"{source} is the store itself: name a backup")
    copy = _check_sqlite_backup(source)
    try:
        existed = path.is_file() and path.stat().st_size > 0
        store = _lock_sqlite_store(path)
        try:
            kept = None
            if existed and keep:
                kept = path.with_name(f"{path.name}.before-restore-{_stamp()}")
                backup(str(path), kept, through=store)
            copy.backup(store)  # one write transaction: all of the backup, or nothing
            games = int(store.execute("SELECT count(*) FROM games").fetchone()[0])
        except sqlite3.Error as exc:
            raise BackupError(f"cannot write {path}: {exc}") from exc
        finally:
            store.close()
    finally:
        copy.close()
    _tidy(path)
    return games, kept


def _restore_postgres(source: Path, url: str, keep: bool) -> tuple[int, Path | None]:
    try:
        import psycopg
    except ImportError as exc:
        raise BackupError("the store is PostgreSQL: install the 'postgres' extra"
                          " (kaboom-minesweeper[postgres])") from exc
    pg_restore = shutil.which("pg_restore")
    if pg_restore is None:
        raise BackupError("the store is PostgreSQL, and pg_restore is not installed"
                          " (Debian: postgresql-client)")
    if not source.is_file() or not dump_lists_games(source):
        raise BackupError(f"{source} is not a dump of a Kaboom store (pg_dump's custom"
                          " format, with a games table)")
    try:
        with psycopg.connect(url, connect_timeout=10, autocommit=True) as db:
            others, has_games = db.execute(
                "SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname ="
                " current_database() AND pid <> pg_backend_pid()"
                " AND backend_type = 'client backend'),"  # not autovacuum's
                " to_regclass('public.games') IS NOT NULL").fetchone() or (0, False)
    except psycopg.Error as exc:
        raise BackupError(f"cannot reach {url}: {exc}") from exc
    if others:
        raise BackupError(f"{others} other connection(s) to the database (servers?):"
                          " stop them first")
    kept = None
    if has_games and keep:
        # beside the backup, in the operator's backups folder: the working folder may
        # be a container's, gone with it
        kept = source.parent / f"kaboom-before-restore-{_stamp()}.dump"
        backup(url, kept)
    done = subprocess.run([pg_restore, "--clean", "--if-exists", "--no-owner",
                           "--single-transaction", "--exit-on-error", "--no-password",
                           f"--dbname={url}", str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise BackupError(f"pg_restore failed, the store is as it was: {reason}")
    with psycopg.connect(url, connect_timeout=10) as db:
        row = db.execute("SELECT count(*) FROM games").fetchone()
    return int(row[0]) if row else 0, kept


def restore(source: Path, db: str, keep: bool = True) -> Restored:
    """Replaces the store ``db`` (a SQLite file, or a PostgreSQL URL) with the backup
    ``source``; unless ``keep`` is false, the store as it was is first backed up beside
    it (SQLite) or beside ``source`` (PostgreSQL)."""
    start = time.monotonic()
    if is_postgres(db):
        games, kept = _restore_postgres(source, db, keep)
    else:
        games, kept = _restore_sqlite(source, db, keep)
    return Restored(games, kept, time.monotonic() - start)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", type=Path, help="the backup to restore (a file written by"
                        " kaboom backup)")
    parser.add_argument("--db", default=None, help="the store to replace, a SQLite file or a"
                        " PostgreSQL URL (default: $KABOOM_DB or kaboom.db)")
    parser.add_argument("--no-keep", dest="keep", action="store_false", help="do not back"
                        " up the store being replaced first")


def run(args: argparse.Namespace) -> int:
    db = store_url(args.db)
    try:
        done = restore(args.source, db, keep=args.keep)
    except BackupError as exc:
        print(f"kaboom restore: {exc}", file=sys.stderr)
        return 2
    kept = f"; the store it replaced is in {done.kept}" if done.kept else ""
    print(f"kaboom restore: {done.games:,} games from {args.source} into {db}"
          f" in {done.seconds:.1f} s{kept}")
    return 0
