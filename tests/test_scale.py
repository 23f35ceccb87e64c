"""Many server processes, one store: every test runs on SQLite (one file) and on a real
PostgreSQL that the suite starts itself.

Two ``kaboom serve`` processes share the store; clients spread parallel, conflicting
moves over both.  Every 200 answer must be in the game's final history, the move counter
must have no gap or duplicate, and every verdict must be what a fresh process (and a
brute-force enumeration) says — also after undos made by the other process.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from kaboom.server.config import Settings
from kaboom.server.game import Game, Rules
from kaboom.server.store import open_store
from kaboom.solver.position import GameStatus, Position
from kaboom.testing import LiveServer, PostgresServer, ProxiedServer, free_port
from tests import oracle
from tests.apikit import new_game

pytestmark = pytest.mark.timeout(400)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return str(tmp_path_factory.mktemp("scale") / "shared.db")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.url()


@pytest.fixture(scope="module")
def pair(store_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two server processes on one store, for every test of a backend (a test that kills
    one starts it again)."""
    a = LiveServer(store_url).start()
    b = LiveServer(store_url).start()
    yield a, b
    a.stop()
    b.stop()


class Spread:
    """Sends each request to the next server in turn, as the player's token holder."""

    def __init__(self, servers: tuple[LiveServer | ProxiedServer, ...],
                 game: dict[str, Any]) -> None:
        self.clients = [httpx.Client(base_url=s.url, timeout=60) for s in servers]
        for c in self.clients:
            c.headers["Authorization"] = f"Bearer {game['player_token']}"
        self.gid = game["id"]
        self._turn = 0
        self._lock = threading.Lock()

    def move(self, kind: str, x: int, y: int, on: int | None = None) -> httpx.Response:
        """Sends a move; a 503 (the game's queue is full, nothing changed) is sent again,
        as its Retry-After asks."""
        with self._lock:
            i = self._turn if on is None else on
            self._turn = (i + 1) % len(self.clients)
        while True:
            r = self.clients[i].post(f"/api/games/{self.gid}/{kind}", json={"x": x, "y": y})
            if r.status_code != 503:
                return r
            time.sleep(0.05)

    def undo(self, on: int) -> httpx.Response:
        return self.clients[on].post(f"/api/games/{self.gid}/undo")

    def game(self, on: int = 0) -> dict[str, Any]:
        game: dict[str, Any] = self.clients[on].get(f"/api/games/{self.gid}").json()
        return game

    def history(self) -> list[str]:
        """The game's whole history, page by page (the pages must be of one version)."""
        moves: list[str] = []
        offset: int | None = 0
        versions = set()
        while offset is not None:
            page = self.clients[0].get(f"/api/games/{self.gid}/moves",
                                       params={"offset": offset}).json()
            moves += page["moves"]
            versions.add(page["version"])
            offset = page["next_offset"]
        assert len(versions) == 1, "the game changed while its history was read"
        return moves

    def close(self) -> None:
        for c in self.clients:
            c.close()


def _check_acknowledged(spread: Spread, answers: list[tuple[str, httpx.Response]]) -> None:
    """Every 200 answer is in the final history under its own move number, once."""
    history = spread.history()
    final = spread.game()
    assert final["moves"] == len(history)
    acknowledged = [(r.json()["moves"], move) for move, r in answers if r.status_code == 200]
    numbers = [n for n, _ in acknowledged]
    assert len(numbers) == len(set(numbers)), "two answers claim one move number"
    for n, move in acknowledged:
        assert history[n - 1] == move, (n, move, history[n - 1])
    assert all(r.status_code in (200, 409) for _, r in answers), [
        r.text for _, r in answers if r.status_code not in (200, 409)]


def test_parallel_flags_over_two_processes_lose_nothing(pair: tuple[LiveServer, ...]) -> None:
    game = new_game(pair[0].url, width=16, height=16, mines=40)
    spread = Spread(pair, game)
    cells = [(x, y) for y in range(4) for x in range(16)][:50]
    try:
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(
                lambda c: (f"flag {c[0]} {c[1]}", spread.move("flag", *c)), cells))
        assert all(r.status_code == 200 for _, r in answers)
        _check_acknowledged(spread, answers)
        final = spread.game()
        assert final["moves"] == 50
        assert sum(row.count("F") for row in final["board"]) == 50
    finally:
        spread.close()


def test_parallel_reveals_and_chords_over_two_processes(pair: tuple[LiveServer, ...]) -> None:
    game = new_game(pair[0].url, width=30, height=16, mines=99, seed=5, first_click="opening")
    spread = Spread(pair, game)
    try:
        first = spread.move("reveal", 15, 8)
        assert first.status_code == 200
        position = Position.from_rows(first.json()["board"], 99)
        # Every certain cell, revealed (safe ones) or flagged (mines) at once from both sides,
        # and a chord on every number: many of them race for the same cells.
        from kaboom.solver.knowledge import classify

        knowledge = classify(position)
        moves = [("reveal", c) for c in sorted(knowledge.safe) if position.is_covered(*c)]
        moves += [("flag", c) for c in sorted(knowledge.mines)]
        moves += [("chord", c) for c, _ in list(position.numbers())[:20]]
        random.Random(1).shuffle(moves)
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(
                lambda m: (f"{m[0]} {m[1][0]} {m[1][1]}", spread.move(m[0], *m[1])), moves))
        answers.insert(0, ("reveal 15 8", first))
        _check_acknowledged(spread, answers)
        final = spread.game()
        assert final["status"] != "lost", final["loss"]
        # Cells shown open in any 200 answer are open at the end (nothing covered again).
        for _, r in answers:
            if r.status_code == 200:
                for y, row in enumerate(r.json()["board"]):
                    for x, ch in enumerate(row):
                        if ch.isdigit():
                            assert final["board"][y][x] == ch
    finally:
        spread.close()


def test_kill_9_of_one_process_mid_load_loses_nothing(pair: tuple[LiveServer, ...]) -> None:
    game = new_game(pair[0].url, width=16, height=16, mines=40)
    spread = Spread(pair, game)
    answers: list[tuple[str, httpx.Response]] = []
    lock = threading.Lock()

    def flag(i: int) -> None:
        x, y = i % 16, i // 16
        try:
            r = spread.move("flag", x, y)
        except httpx.HTTPError:
            return  # the killed process's connection: not acknowledged
        with lock:
            answers.append((f"flag {x} {y}", r))

    try:
        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(flag, i) for i in range(120)]
            time.sleep(0.3)
            pair[1].kill()
            for f in futures:
                f.result()
        acknowledged = [a for a in answers if a[1].status_code == 200]
        assert acknowledged, "nothing was acknowledged before the kill"
        spread.clients[1] = spread.clients[0]  # the survivor answers from now on
        _check_acknowledged(spread, [a for a in answers if a[1].status_code in (200, 409)])
    finally:
        spread.close()
        pair[1].start()


def test_rules_with_moves_and_undos_alternating_between_processes(
    pair: tuple[LiveServer, ...],
) -> None:
    """Small debug games played with moves and undos on alternate processes; every
    verdict is checked against brute-force enumeration of the position it was made on."""
    rng = random.Random(7)
    for round_ in range(3):
        game = new_game(pair[0].url, width=5, height=4, mines=4, debug=True, seed=round_ + 1)
        spread = Spread(pair, game)
        try:
            g = spread.move("reveal", 2, 2, on=0).json()
            for step in range(14):
                if g["status"] != "playing":
                    r = spread.undo(on=step % 2)
                    assert r.status_code == 200, r.text
                    g = r.json()
                    continue
                if step % 4 == 3:  # an undo on one process, the next move on the other
                    r = spread.undo(on=step % 2)
                    assert r.status_code == 200, r.text
                    g = r.json()
                    continue
                position = Position.from_rows(g["board"], 4)
                truth = oracle.statuses(position)
                cell = rng.choice(sorted(truth))
                r = spread.move("reveal", *cell, on=(step + 1) % 2)
                assert r.status_code == 200, r.text
                g = r.json()
                ch = g["board"][cell[1]][cell[0]]
                safe_exists = any(s == "s" for s in truth.values())
                if truth[cell] == "s":
                    assert ch.isdigit(), (position, cell)
                elif truth[cell] == "m":
                    assert g["loss"]["reason"] == "certain_mine", (position, cell)
                elif safe_exists:
                    assert g["loss"]["reason"] == "guess_while_safe", (position, cell)
                    sc = g["loss"]["safe_cell"]
                    assert truth[(sc["x"], sc["y"])] == "s"
        finally:
            spread.close()


def test_a_long_poll_on_one_process_sees_a_move_made_on_the_other(
    pair: tuple[LiveServer, ...],
) -> None:
    game = new_game(pair[0].url)
    spread = Spread(pair, game)
    result: dict[str, float] = {}

    def watch() -> None:
        r = httpx.get(f"{pair[0].url}/api/games/{game['id']}",
                      params={"wait_moves": 0, "timeout": 20}, timeout=30)
        result["at"] = time.monotonic()
        result["moves"] = r.json()["moves"]

    try:
        watcher = threading.Thread(target=watch)
        watcher.start()
        time.sleep(0.5)
        sent = time.monotonic()
        assert spread.move("flag", 0, 0, on=1).status_code == 200
        watcher.join(25)
        assert result["moves"] == 1
        assert result["at"] - sent < 1.0, result["at"] - sent
    finally:
        spread.close()


def test_processes_behind_nginx_lose_nothing(tmp_path: Path) -> None:
    """Two ``kaboom serve`` processes behind nginx on SQLite: parallel flags through one
    address, spread over both (least_conn)."""
    with ProxiedServer(tmp_path / "proxied.db") as server:
        game = new_game(server.url, width=16, height=16, mines=40)
        spread = Spread((server,), game)
        cells = [(x, y) for y in range(4) for x in range(16)][:50]
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(
                lambda c: (f"flag {c[0]} {c[1]}", spread.move("flag", *c)), cells))
        assert all(r.status_code == 200 for _, r in answers)
        _check_acknowledged(spread, answers)
        assert spread.game()["moves"] == 50
        spread.close()


def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    """A second ``kaboom serve`` on the port of a running one exits with the reason."""
    with LiveServer(tmp_path / "first.db") as first:
        second = subprocess.run(
            [sys.executable, "-m", "kaboom", "serve", "--port", str(first.port),
             "--db", str(tmp_path / "second.db")],
            capture_output=True, text=True, timeout=60,
        )
        assert second.returncode == 1
        assert "cannot listen" in second.stderr
        assert httpx.get(f"{first.url}/api/health", timeout=30).status_code == 200


def test_a_store_that_cannot_be_opened_stops_the_server_in_one_line(tmp_path: Path) -> None:
    """A store ``kaboom serve`` cannot open fails it at once, in one line, before a
    banner names a port."""
    (tmp_path / "a-file").write_text("")
    server = LiveServer(tmp_path / "a-file" / "games.db")
    with pytest.raises(RuntimeError, match="cannot open the SQLite database") as failed:
        server.start()
    assert str(failed.value).count("kaboom serve:") == 1
    assert server.proc is not None and server.proc.returncode == 2


def test_a_postgresql_url_that_answers_nothing_is_one_line_at_once() -> None:
    """The pool retried a refused URL in the background for its 30 s timeout and then
    printed psycopg's traceback; the server says why it cannot start, at once."""
    url = f"postgresql://kaboom@127.0.0.1:{free_port()}/kaboom"
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "kaboom", "serve", "--port", str(free_port()), "--db", url],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and time.monotonic() - start < 15
    assert done.stderr.count("kaboom serve: cannot connect to PostgreSQL: ") == 1
    assert "Connection refused" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""  # no banner naming a port nothing listens on


def test_postgresql_without_its_extra_says_what_to_install(tmp_path: Path) -> None:
    """``./run.sh`` installs the base only: a PostgreSQL URL gave a traceback."""
    # the server starts as if psycopg were not there
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['psycopg'] = None\n")
    url = f"postgresql://kaboom@127.0.0.1:{free_port()}/kaboom"
    done = subprocess.run(
        [sys.executable, "-m", "kaboom", "serve", "--port", str(free_port()), "--db", url],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), os.environ.get("PYTHONPATH", "")])},
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert ("kaboom serve: PostgreSQL needs the 'postgres' extra" in done.stderr
            and "pip install -e '.[postgres]'" in done.stderr)


def test_ctrl_c_stops_the_server_without_a_traceback(tmp_path: Path) -> None:
    """A terminal's Ctrl-C: uvicorn raises it again once stopped, which printed a
    KeyboardInterrupt traceback."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kaboom", "serve", "--port", str(port),
         "--db", str(tmp_path / "g.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).is_success:
                    break
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


@pytest.mark.parametrize(("limits", "side", "made", "says", "wait", "refused"), [
    # sixteen 9x9 games, a burst of four: per-process buckets gave eight
    ({"create_per_minute": 6, "create_burst": 4}, 9, 4, "too many new games", (1, 10), 429),
    # sixteen 10x10 games, 1,000 cells a day: a board's cells taken in one statement
    ({"create_per_minute": 0, "create_cells_per_day": 1000}, 10, 10, "too many cells",
     (8500, 8640), 429),
    # sixteen clients' 10x10 games, 1,000 cells a day for all of them
    ({"create_per_minute": 0, "create_cells_per_day": 0, "create_cells_per_day_total": 1000},
     10, 10, "from all clients", (8500, 8640), 503),
], ids=["games", "cells", "cells-of-all-clients"])
def test_a_creation_limit_is_one_bucket_over_every_process(
    store_url: str, limits: dict[str, int], side: int, made: int, says: str,
    wait: tuple[int, int], refused: int,
) -> None:
    """A client's new games draw on one bucket in the store, not one a process: sixteen
    parallel creations split over two processes get exactly what one bucket holds.  So
    do all clients' games, from the bucket they share (each creation from its own
    client, forwarded by this host, which uvicorn trusts)."""
    limited = [LiveServer(store_url, **limits).start() for _ in range(2)]
    shared = "create_cells_per_day_total" in limits
    try:
        def create(i: int) -> httpx.Response:
            headers = {"X-Forwarded-For": f"203.0.113.{i}"} if shared else {}
            return httpx.post(f"{limited[i % 2].url}/api/games", headers=headers,
                              json={"width": side, "height": side, "mines": 10}, timeout=30)

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(create, range(16)))
        codes = sorted(r.status_code for r in answers)
        assert codes == [201] * made + [refused] * (16 - made), codes
        for r in answers:
            if r.status_code == refused:
                assert wait[0] <= int(r.headers["retry-after"]) <= wait[1]
                assert says in r.json()["detail"]
    finally:
        for server in limited:
            server.stop()


def test_behind_a_trusted_balancer_each_player_has_a_bucket(tmp_path: Path) -> None:
    """Behind a load balancer whose address is in ``FORWARDED_ALLOW_IPS`` (uvicorn's
    default trusts this host), the bucket is the forwarded client's, not the balancer's."""
    server = LiveServer(tmp_path / "g.db", create_per_minute=1, create_burst=1).start()
    try:
        def create(player: str) -> int:
            return httpx.post(f"{server.url}/api/games", timeout=30,
                              json={"width": 9, "height": 9, "mines": 10},
                              headers={"X-Forwarded-For": player}).status_code

        assert [create("203.0.113.7"), create("203.0.113.7"), create("198.51.100.2")] == [
            201, 429, 201]
    finally:
        server.stop()


def test_a_stale_write_never_commits(store_url: str) -> None:
    """The compare-and-set at the store: a move computed on an old version writes
    neither the game nor its undo record; after an undo, the next move's record replaces
    the one the undone move left under the same number."""
    from dataclasses import replace

    from kaboom.server.game import Step

    store = open_store(store_url)
    game = Game.new(f"stale-{random.random()}", Rules(9, 9, 10))
    store.create(game)
    first = replace(game, rows=("F" + "#" * 8, *game.rows[1:]), moves=1, version=1)
    step = Step("f0,0", ((0, 0, "#"),), game)
    assert store.commit_move(game, first, step)
    late = Step("f1,0", ((1, 0, "#"),), game)
    assert not store.commit_move(game, replace(first, version=1), late)
    assert store.get(game.id).version == 1
    assert store.moves(game.id, 0, 10) == ["f0,0"]

    undone = replace(game, version=2)
    assert store.commit_undo(first, undone)
    assert store.moves(game.id, 0, 10) == []
    again = replace(first, version=3)
    assert store.commit_move(undone, again, late)
    assert store.moves(game.id, 0, 10) == ["f1,0"]
    assert store.last_step(again).move == "f1,0"
    # A record left under the next move's number (a plain commit took the game back
    # without deleting it) is replaced, not a conflict.
    back = replace(game, version=4)
    assert store.commit(again, back)
    assert store.commit_move(back, replace(first, version=5), step)
    assert store.moves(game.id, 0, 10) == ["f0,0"]
    store.close()


# A chord of five reveals on the number 0 at (4, 2): the referee learns from the positions
# between its reveals, which exist only if the chord is stored.
_CHORD_ROWS = ("##1##", "#4###", "####0", "###1#")


def _chord_game(store_url: str, seed: int) -> tuple[Game, Any, Any]:
    """A game at :data:`_CHORD_ROWS` and two services on one store (two processes)."""
    from dataclasses import replace

    from kaboom.server.games import Games
    from kaboom.server.players import token_hash

    settings = Settings(db=store_url, create_per_minute=0)
    first, other = (Games(open_store(store_url), settings) for _ in range(2))
    rules = Rules(5, 4, 5, seed=seed, seeded=True, debug=True)
    game = replace(Game.new(f"chord-{seed}-{random.random()}", rules), rows=_CHORD_ROWS,
                   started_at=0.0, player_hash=token_hash("player"))
    first.store.create(game)
    return game, first, other


def _commit_first_from(other: Any, move: Any, *, before: Any, game: Game) -> None:
    """Makes ``other`` commit ``move`` just before ``before`` commits its first change
    to ``game``: the race a second process wins."""
    commit = before.store.commit_move

    def racing(was: Game, now: Game, step: Any) -> bool:
        if was.version == game.version:
            other.play(game.id, move, "player")
        return bool(commit(was, now, step))

    before.store.commit_move = racing


def _false_beliefs(service: Any, game_id: str) -> dict[tuple[int, int], bool]:
    """What the service's referee holds as decided but brute force does not."""
    truth = oracle.statuses(service.get(game_id).position)
    with service.sessions.referee(service.get(game_id)) as referee:
        known = referee.engine.known
    return {c: m for c, m in known.items() if c in truth and truth[c] != ("m" if m else "s")}


def test_a_chord_computed_again_after_a_race_keeps_no_belief_from_the_first_try(
    store_url: str,
) -> None:
    """The other process commits a flag while this one computes a chord: the chord is
    computed again on the new game and draws other mines, so what the first try learned
    between its reveals is false.  A referee that kept it punished fair clicks later
    (a forced guess lost as a ``certain_mine``).  Its beliefs must all be true."""
    from kaboom.solver.position import Move

    wrong = {}
    for seed in range(1, 61):  # 4 of these 60 draws left false beliefs before the fix
        game, first, other = _chord_game(store_url, seed)
        _commit_first_from(other, Move.flag(4, 0), before=first, game=game)
        after = first.play(game.id, Move.chord(4, 2), "player").after
        assert after.moves == 2 and after.rows[0][4] == "F"  # the flag, then the chord
        if after.status is GameStatus.PLAYING and (false := _false_beliefs(first, game.id)):
            wrong[seed] = false
    assert not wrong


def test_a_chord_out_of_time_between_its_reveals_leaves_nothing_learned(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/server.md: a move refused for time leaves the game unchanged and nothing
    learned, also when the time runs out inside a chord, after a reveal the chord drew."""
    from kaboom.solver.errors import BudgetExceededError
    from kaboom.solver.knowledge import KnowledgeEngine
    from kaboom.solver.position import Move

    classify = KnowledgeEngine.classify
    calls: list[object] = []

    def out_of_time_at_the_second(engine: KnowledgeEngine, position: Any,
                                  budget: Any = None) -> Any:
        knowledge = classify(engine, position, budget)
        calls.append(position)
        if len(calls) == 2:  # the position after the chord's first reveal
            raise BudgetExceededError("out of time")
        return knowledge

    game, first, _ = _chord_game(store_url, 7)
    monkeypatch.setattr(KnowledgeEngine, "classify", out_of_time_at_the_second)
    with pytest.raises(BudgetExceededError):
        first.play(game.id, Move.chord(4, 2), "player")
    monkeypatch.undo()
    assert len(calls) == 2
    assert first.get(game.id).rows == _CHORD_ROWS
    assert not _false_beliefs(first, game.id)


def test_an_old_sqlite_database_upgrades_in_place(tmp_path: Path) -> None:
    """A database written before versions and migrations existed keeps its games."""
    from kaboom.server.store import game_to_dict

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE games (id TEXT PRIMARY KEY, state TEXT NOT NULL)")
    db.execute("CREATE TABLE steps (game_id TEXT NOT NULL, n INTEGER NOT NULL,"
               " step TEXT NOT NULL, PRIMARY KEY (game_id, n))")
    old = game_to_dict(Game.new("old", Rules(9, 9, 10, seed=4)))
    for key in ("version", "undos", "player_hash"):
        del old[key]
    del old["rules"]["seeded"]

    db.execute("INSERT INTO games VALUES (?, ?)", ("old", json.dumps(old)))
    db.commit()
    db.close()
    store = open_store(str(path))
    from kaboom.server import migrations

    assert store.schema_version() == migrations.latest()
    game = store.get("old")
    assert game.rules.seed == 4 and game.version == 0 and game.status == "playing"
    assert store.versions(["old"]) == {"old": 0}
    store.close()
    assert open_store(str(path)).schema_version() == migrations.latest()
