"""``kaboom backup`` (``server/backup.py``): a copy of a live SQLite store, taken while two
workers write to it, holds every move acknowledged before it began and serves as a store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from kaboom.testing import LiveServer, PostgresServer, free_port
from server.config import Settings
from server.game import Rules
from server.service import GameService
from server.store import open_store
from solver.position import Move
from tests.apikit import new_game

pytestmark = pytest.mark.timeout(180)


def _backup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaboom", "backup", *args],
                          capture_output=True, text=True, timeout=120)


def test_a_backup_taken_under_load_holds_every_acknowledged_move(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "live.db", workers=2) as server:
        games = [new_game(server.url, width=16, height=16, mines=40, debug=True)
                 for _ in range(6)]
        acked = {game["id"]: 0 for game in games}
        stop = threading.Event()

        def play(game: dict[str, object]) -> None:
            with httpx.Client(base_url=server.url, timeout=30, headers={
                    "Authorization": f"Bearer {game['player_token']}"}) as http:
                n = 0
                while not stop.is_set():
                    reply = http.post(f"/api/games/{game['id']}/flag",
                                      json={"x": n % 16, "y": n // 16 % 16})
                    assert reply.status_code == 200, reply.text
                    acked[str(game["id"])] = reply.json()["moves"]
                    n += 1

        players = [threading.Thread(target=play, args=(game,)) for game in games]
        for player in players:
            player.start()
        try:
            time.sleep(1.0)
            before = dict(acked)
            done = _backup(str(tmp_path / "copy.db"), "--db", str(tmp_path / "live.db"))
            after = dict(acked)
            time.sleep(0.3)
        finally:
            stop.set()
            for player in players:
                player.join()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("kaboom backup: 6 games (")
    assert sum(after.values()) > sum(before.values()) > 0  # moves landed during the copy

    copy = open_store(str(tmp_path / "copy.db"))
    try:
        for game_id in acked:
            kept = copy.get(game_id)
            assert before[game_id] <= kept.moves <= after[game_id], game_id
            assert len(copy.moves(game_id, 0, kept.moves)) == kept.moves  # no record torn off
    finally:
        copy.close()
    with LiveServer(tmp_path / "copy.db") as restored:  # the copy serves as a store
        for game_id in acked:
            assert httpx.get(f"{restored.url}/api/games/{game_id}", timeout=30
                             ).json()["moves"] >= before[game_id]


def test_a_postgresql_store_is_dumped_by_pg_dump_and_restores(tmp_path: Path,
                                                             postgres: PostgresServer) -> None:
    url = postgres.url()
    service = GameService(open_store(url), Settings(db=url))
    games = []
    for n in range(3):
        game, token = service.create(Rules(9, 9, 10, debug=True))
        for i in range(n + 1):
            service.play(game.id, Move.flag(i, 0), token)
        games.append(service.get(game.id))
    service.store.close()

    done = _backup(str(tmp_path / "kaboom.dump"), "--db", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("kaboom backup: pg_dump's custom format (")
    restored_url = postgres.url()  # an empty database, as a new server's would be
    restore = subprocess.run(["pg_restore", "--no-owner", f"--dbname={restored_url}",
                              str(tmp_path / "kaboom.dump")], capture_output=True, text=True)
    assert restore.returncode == 0, restore.stderr
    restored = open_store(restored_url)
    try:
        for game in games:
            again = restored.get(game.id)
            assert (again.moves, again.rows, again.version) == (game.moves, game.rows,
                                                                game.version)
            assert restored.moves(game.id, 0, game.moves) == [
                f"flag {i} 0" for i in range(game.moves)]
    finally:
        restored.close()

    unreachable = f"postgresql://kaboom@127.0.0.1:{free_port()}/nowhere"
    for db, says in ((unreachable, "pg_dump failed: "),
                     (postgres.url(), "is not a Kaboom store")):  # an empty database
        refused = _backup(str(tmp_path / "other.dump"), "--db", db)
        assert refused.returncode == 2 and says in refused.stderr, refused.stderr
        assert not (tmp_path / "other.dump").exists()
        assert not (tmp_path / "other.dump.partial").exists()


@pytest.mark.parametrize(("source", "target", "says"), [
    ("missing.db", "new.db", "missing.db is not a SQLite file"),
    ("text.db", "new.db", "file is not a database"),
    ("other.db", "new.db", "is not a Kaboom store"),
    ("live.db", "taken.db", "taken.db exists already"),
])
def test_a_backup_that_cannot_be_made_says_why_and_writes_nothing(
    tmp_path: Path, source: str, target: str, says: str
) -> None:
    open_store(str(tmp_path / "live.db")).close()
    (tmp_path / "text.db").write_text("not a database, but long enough to look like one" * 9)
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE notes (body TEXT)")
    other.close()
    (tmp_path / "taken.db").write_text("keep me")
    before = sorted(p.name for p in tmp_path.iterdir())
    url = source if "://" in source else str(tmp_path / source)
    done = _backup(str(tmp_path / target), "--db", url)
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))
                  ) == before
    assert (tmp_path / "taken.db").read_text() == "keep me"
