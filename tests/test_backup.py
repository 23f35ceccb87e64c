"""``kaboom backup`` (``kaboom/server/backup.py``): a copy of a live SQLite store, taken while
two processes (behind nginx) write to it, holds every move acknowledged before it began and
serves as a store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from kaboom.server.config import Settings
from kaboom.server.errors import GameNotFoundError
from kaboom.server.game import Rules
from kaboom.server.games import Games
from kaboom.server.store import open_store
from kaboom.solver.position import Move
from kaboom.testing import LiveServer, PostgresServer, ProxiedServer, free_port
from tests.apikit import new_game

pytestmark = pytest.mark.timeout(180)


def _backup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaboom", "backup", *args],
                          capture_output=True, text=True, timeout=120)


def test_a_backup_taken_under_load_holds_every_acknowledged_move(tmp_path: Path) -> None:
    with ProxiedServer(tmp_path / "live.db") as server:  # two processes write
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
            # A game's one move in flight may be in the copy before its reply is counted.
            assert before[game_id] <= kept.moves <= after[game_id] + 1, game_id
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
    service = Games(open_store(url), Settings(db=url))
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


def _files_of_every_kind(folder: Path) -> None:
    """A Kaboom store (``live.db``), a file that is not a database, and a database that is
    not Kaboom's."""
    open_store(str(folder / "live.db")).close()
    (folder / "text.db").write_text("not a database, but long enough to look like one" * 9)
    other = sqlite3.connect(folder / "other.db")
    other.execute("CREATE TABLE notes (body TEXT)")
    other.commit()
    other.close()


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize(("source", "target", "says"), [
    ("missing.db", "new.db", "missing.db is not a SQLite file"),
    ("text.db", "new.db", "file is not a database"),
    ("other.db", "new.db", "is not a Kaboom store"),
    ("live.db", "taken.db", "taken.db exists already"),
])
def test_a_backup_that_cannot_be_made_says_why_and_writes_nothing(
    tmp_path: Path, source: str, target: str, says: str
) -> None:
    _files_of_every_kind(tmp_path)
    (tmp_path / "taken.db").write_text("keep me")
    before = _contents(tmp_path)
    done = _backup(str(tmp_path / target), "--db", str(tmp_path / source))
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert _contents(tmp_path) == before


def _restore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaboom", "restore", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def _flags(url: str, game: dict[str, object], cells: range) -> int:
    """Flags (x, 0) for each x in ``cells`` over HTTP; the moves the game then has."""
    moves = 0
    for x in cells:
        reply = httpx.post(f"{url}/api/games/{game['id']}/flag", json={"x": x, "y": 0},
                           headers={"Authorization": f"Bearer {game['player_token']}"},
                           timeout=30)
        assert reply.status_code == 200, reply.text
        moves = reply.json()["moves"]
    return moves


def test_a_restore_puts_the_backup_back_and_keeps_the_store_it_replaced(tmp_path: Path
                                                                         ) -> None:
    live, copy = tmp_path / "live.db", tmp_path / "copy.db"
    server = LiveServer(live).start()
    try:
        game = new_game(server.url, width=9, height=9, mines=10, debug=True)
        assert _flags(server.url, game, range(3)) == 3
        assert _backup(str(copy), "--db", str(live)).returncode == 0
        assert _flags(server.url, game, range(3, 6)) == 6  # after the backup: undone
        later = new_game(server.url, width=9, height=9, mines=10)

        refused = _restore(str(copy), "--db", str(live))  # the server has it open
        assert refused.returncode == 2 and "open in another process" in refused.stderr
        assert sorted(p.name for p in tmp_path.iterdir() if "before-restore" in p.name) == []
        assert httpx.get(f"{server.url}/api/games/{game['id']}", timeout=30
                         ).json()["moves"] == 6  # the store and the server carry on
    finally:
        server.kill()  # as a crash would: the moves after the backup may be in live.db-wal

    done = _restore(str(copy), "--db", str(live))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("kaboom restore: 1 games from ")
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("live.db.before-restore-")]
    assert len(kept) == 1 and str(kept[0]) in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["live.db", "copy.db",
                                                                  kept[0].name])

    with LiveServer(live) as restored:  # the backup's moment, and play goes on from it
        assert httpx.get(f"{restored.url}/api/games/{game['id']}", timeout=30
                         ).json()["moves"] == 3
        assert httpx.get(f"{restored.url}/api/games/{later['id']}", timeout=30
                         ).status_code == 404
        assert _flags(restored.url, game, range(3, 4)) == 4
    replaced = open_store(str(kept[0]))  # the store as it was, the later game and moves in it
    try:
        assert replaced.get(str(game["id"])).moves == 6
        assert replaced.get(str(later["id"])).moves == 0
    finally:
        replaced.close()

    fresh = tmp_path / "new" / "kaboom.db"  # a store that does not exist yet: nothing kept
    done = _restore(str(copy), "--db", str(fresh))
    assert done.returncode == 0 and "replaced" not in done.stdout, done.stderr
    assert sorted(p.name for p in fresh.parent.iterdir()) == ["kaboom.db"]


@pytest.mark.parametrize(("source", "store", "says"), [
    ("missing.db", "live.db", "missing.db is not a file"),
    ("text.db", "live.db", "file is not a database"),
    ("other.db", "live.db", "other.db is not a Kaboom store"),
    ("newer.db", "live.db", "written by a newer Kaboom"),
    ("copy.db", "other.db", "other.db is not a Kaboom store"),
    ("live.db", "live.db", "live.db is the store itself"),
])
def test_a_restore_that_cannot_be_made_says_why_and_changes_nothing(
    tmp_path: Path, source: str, store: str, says: str
) -> None:
    _files_of_every_kind(tmp_path)
    assert _backup(str(tmp_path / "copy.db"), "--db", str(tmp_path / "live.db")
                   ).returncode == 0
    newer = sqlite3.connect(tmp_path / "newer.db")
    newer.executescript("CREATE TABLE games (id TEXT); CREATE TABLE schema_version (version"
                        " INTEGER); INSERT INTO schema_version VALUES (999);")
    newer.close()
    before = _contents(tmp_path)
    done = _restore(str(tmp_path / source), "--db", str(tmp_path / store))
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert _contents(tmp_path) == before


def test_a_backup_of_a_stopped_store_leaves_nothing_beside_it(tmp_path: Path) -> None:
    open_store(str(tmp_path / "live.db")).close()
    assert _backup(str(tmp_path / "copy.db"), "--db", str(tmp_path / "live.db")
                   ).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.db", "live.db"]


def test_a_postgresql_store_is_restored_in_one_transaction(tmp_path: Path,
                                                          postgres: PostgresServer) -> None:
    url = postgres.url()
    service = Games(open_store(url), Settings(db=url))
    game, token = service.create(Rules(9, 9, 10, debug=True))
    service.play(game.id, Move.flag(0, 0), token)
    assert _backup(str(tmp_path / "kaboom.dump"), "--db", url).returncode == 0
    service.play(game.id, Move.flag(1, 0), token)
    later, _ = service.create(Rules(9, 9, 10))

    elsewhere = tmp_path / "elsewhere"  # the working folder: nothing is left there
    elsewhere.mkdir()
    refused = _restore(str(tmp_path / "kaboom.dump"), "--db", url, cwd=elsewhere)
    assert refused.returncode == 2 and "other connection(s)" in refused.stderr, refused.stderr
    assert service.get(game.id).moves == 2  # untouched
    service.store.close()
    not_a_dump = tmp_path / "notes.txt"
    not_a_dump.write_text("hello")
    refused = _restore(str(not_a_dump), "--db", url, cwd=elsewhere)
    assert refused.returncode == 2 and "is not a dump of a Kaboom store" in refused.stderr

    done = _restore(str(tmp_path / "kaboom.dump"), "--db", url, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    kept = list(tmp_path.glob("kaboom-before-restore-*.dump"))  # beside the backup
    assert len(kept) == 1 and str(kept[0]) in done.stdout
    assert list(elsewhere.iterdir()) == []
    store = open_store(url)
    try:
        assert store.get(game.id).moves == 1
        assert store.moves(game.id, 0, 1) == ["flag 0 0"]
        with pytest.raises(GameNotFoundError):
            store.get(later.id)
    finally:
        store.close()
    other = postgres.url()  # the kept dump restores the replaced store, later game and all
    assert _restore(str(kept[0]), "--db", other, "--no-keep", cwd=tmp_path).returncode == 0
    store = open_store(other)
    try:
        assert store.get(game.id).moves == 2 and store.get(later.id).moves == 0
    finally:
        store.close()
