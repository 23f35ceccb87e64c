"""Faults behind the server, answered honestly: a PostgreSQL restarted or stopped under
load, a connection cut during a move's commit, a SQLite store on a full disk.  Never a
500; never an acknowledged move lost; a 503 with ``Retry-After`` while the database
cannot answer, a 507 that names the full disk (and ``/api/health`` and the metrics say
so)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
import psycopg
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from kaboom.server.config import Settings
from kaboom.server.errors import StoreUnavailableError
from kaboom.server.game import Rules
from kaboom.server.games import Games
from kaboom.server.schemas import PAGE_MAX
from kaboom.server.store import PostgresStore
from kaboom.solver.position import Move
from kaboom.testing import (
    NO_CREATION_LIMITS,
    LiveServer,
    PostgresServer,
    ProxiedServer,
)
from tests.conftest import throwaway_postgres

EXPERT = {"width": 30, "height": 16, "mines": 99}


# ---------------------------------------------------------------- players under load
@dataclass(frozen=True, slots=True)
class Answer:
    """One answer a player got: to a move (``flag x y``) or to a read (``move`` None)."""

    game: str
    move: str | None
    status: int
    retry_after: str | None
    moves: int | None
    """The game's move count in a 200, else None."""


def _play(url: str, game: str, token: str, stop: threading.Event,
          answers: list[Answer], errors: list[Exception]) -> None:
    """Flags the game's cells one after another and reads the game after each move, until
    ``stop``; keeps every answer (status 0: none came, the connection failed) and any
    error that stopped the player."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, timeout=60) as http:

        def ask(method: str, path: str, move: str | None, body: object = None) -> None:
            try:
                r = http.request(method, path, json=body, headers=headers)
            except httpx.TransportError:
                answers.append(Answer(game, move, 0, None, None))
                return
            answers.append(Answer(game, move, r.status_code, r.headers.get("Retry-After"),
                                  r.json()["moves"] if r.status_code == 200 else None))

        try:
            i = 0
            while not stop.is_set():
                x, y = i % EXPERT["width"], i // EXPERT["width"] % EXPERT["height"]
                ask("POST", f"/api/games/{game}/flag", f"flag {x} {y}", {"x": x, "y": y})
                ask("GET", f"/api/games/{game}", None)
                i += 1
                time.sleep(0.01)  # a brisk player, not a flood: the machine is shared
        except Exception as exc:
            errors.append(exc)


def _under_load(url: str, players: int, fault: Iterator[None]) -> list[Answer]:
    """Runs ``players`` players on games of their own while ``fault`` runs (a generator:
    its first step starts the fault, its end ends it); returns every answer."""
    games = []
    with httpx.Client(base_url=url, timeout=30) as http:
        for _ in range(players):
            r = http.post("/api/games", json=EXPERT)
            assert r.status_code == 201, r.text
            games.append((r.json()["id"], r.json()["player_token"]))
    answers: list[Answer] = []
    errors: list[Exception] = []
    stop = threading.Event()
    threads = [threading.Thread(target=_play, args=(url, g, t, stop, answers, errors))
               for g, t in games]
    for t in threads:
        t.start()
    try:
        time.sleep(2)  # playing before the fault
        for _ in fault:
            pass
        time.sleep(3)  # and after it
    finally:
        stop.set()
        for t in threads:
            t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors
    return answers


def _assert_answered_honestly(answers: list[Answer]) -> None:
    statuses = Counter(a.status for a in answers)
    assert set(statuses) <= {200, 503}, f"answers by status {statuses} (0: none came)"
    assert all(a.retry_after for a in answers if a.status == 503), "a 503 without Retry-After"


def _stored_moves(http: httpx.Client, game: str) -> list[str]:
    moves: list[str] = []
    while True:
        page = http.get(f"/api/games/{game}/moves", params={"offset": len(moves)}).json()
        moves += page["moves"]
        if len(page["moves"]) < PAGE_MAX:
            return moves


def _assert_nothing_acknowledged_lost(url: str, answers: list[Answer]) -> int:
    """Every move answered 200 is in its game's history under the move count it was
    answered with; returns how many were checked."""
    checked = 0
    with httpx.Client(base_url=url, timeout=30) as http:
        for game in {a.game for a in answers}:
            stored = _stored_moves(http, game)
            acknowledged = [a for a in answers
                            if a.game == game and a.move and a.status == 200]
            counts = [a.moves or 0 for a in acknowledged]
            assert counts == sorted(set(counts)), "one player's moves answered out of order"
            for n, a in zip(counts, acknowledged, strict=True):
                assert 0 < n <= len(stored) and stored[n - 1] == a.move, \
                    f"move {n} of {game} lost"
                checked += 1
    return checked


def _metric(url: str, name: str, labels: dict[str, str] | None = None) -> float:
    text = httpx.get(f"{url}/api/metrics", timeout=30).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v
                                           for k, v in (labels or {}).items()):
                return float(sample.value)
    return 0.0


def _wait_healthy(url: str, timeout_s: float = 90) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            r = httpx.get(f"{url}/api/health", timeout=30)
            if r.status_code == 200:
                health: dict[str, object] = r.json()
                return health
            assert r.status_code == 503 and r.headers.get("Retry-After"), r.text
        except httpx.TimeoutException:
            pass
        assert time.monotonic() < deadline, "the server did not recover"
        time.sleep(0.5)


# ---------------------------------------------------------------- PostgreSQL
@pytest.fixture(scope="module")
def own_postgres() -> Iterator[PostgresServer]:
    """A cluster of this module's own: its tests restart and stop it, which the session's
    shared one must not see."""
    with throwaway_postgres() as server:
        yield server


def _restart(pg: PostgresServer) -> Iterator[None]:
    pg.restart()
    yield


def _stop_for_5_s(pg: PostgresServer) -> Iterator[None]:
    pg.halt()
    try:
        time.sleep(5)
    finally:
        pg.start()
    yield


@pytest.mark.timeout(300)
@pytest.mark.parametrize("fault", [_restart, _stop_for_5_s], ids=["restarted", "stopped_5s"])
def test_a_postgresql_restarted_or_stopped_under_load_is_a_503_and_loses_no_move(
        own_postgres: PostgresServer,
        fault: Callable[[PostgresServer], Iterator[None]]) -> None:
    """Four players flag and read their games while PostgreSQL restarts, or stops for
    5 s: each request is answered 200 or 503 with Retry-After (a 500 before), every move
    answered 200 is in the store after, and the server serves again by itself."""
    with LiveServer(own_postgres.url()) as server:
        answers = _under_load(server.url, 4, fault(own_postgres))
        _assert_answered_honestly(answers)
        assert _wait_healthy(server.url)["status"] == "ok"
        assert _assert_nothing_acknowledged_lost(server.url, answers) > 50
        # the fault reached the server: its pooled connections died with the database
        assert _metric(server.url, "kaboom_store_faults_total",
                       {"fault": "connection_lost"}) >= 1


class CuttingRelay:
    """A TCP relay in front of PostgreSQL that cuts one connection on demand, as a network
    or a dying server does: ``cut("request")`` drops the next statement sent (it never
    reaches the server), ``cut("reply")`` lets it run and drops its answer.  With
    ``then_down`` the cut takes every connection with it and the relay refuses new ones
    until :meth:`up`."""

    def __init__(self, port: int) -> None:
        self._target = port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._armed: str | None = None
        self._matching = b""
        self._then_down = False
        self._down = False
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self, where: Literal["request", "reply"], *, then_down: bool = False,
            matching: bytes = b"") -> None:
        """Arms the cut, for the next data sent that holds ``matching`` (a statement's
        words, not a pool's connection opening in the background)."""
        self._armed, self._then_down, self._matching = where, then_down, matching

    def up(self) -> None:
        self._down = False

    def close(self) -> None:
        self._listener.close()

    def _take(self, where: str, data: bytes) -> bool:
        with self._lock:
            if self._armed != where or self._matching not in data:
                return False
            self._armed = None
            self.cuts += 1
            return True

    def _cut(self, *sockets: socket.socket) -> None:
        if self._then_down:
            self._down = True
            sockets = (*sockets, *self._open)
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._down:
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", self._target))
            self._open += [client, server]
            doomed = threading.Event()
            for src, dst, up in ((client, server, True), (server, client, False)):
                threading.Thread(target=self._pump, args=(src, dst, up, doomed),
                                 daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, up: bool,
              doomed: threading.Event) -> None:
        try:
            while data := src.recv(65536):
                if (up and self._take("request", data)) or (not up and doomed.is_set()):
                    self._cut(src, dst)
                    return
                if up and self._take("reply", data):
                    doomed.set()
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


@pytest.mark.parametrize("where", ["reply", "request"])
def test_a_move_whose_connection_is_cut_is_committed_once(
        own_postgres: PostgresServer, where: Literal["request", "reply"]) -> None:
    """The connection dies under a move's compare-and-set: after the server committed it
    (``reply``: the answer never came) or before it arrived (``request``).  The move is
    answered, and in the history once: the game read again on a fresh connection told
    which it was, and only the move not committed was committed once more."""
    url = own_postgres.url()
    relay = CuttingRelay(own_postgres.port)
    store = PostgresStore(url.replace(f":{own_postgres.port}/", f":{relay.port}/"))
    try:
        service = Games(store, Settings(db=url, create_per_minute=0))
        game, token = service.create(Rules(30, 16, 99))
        service.play(game.id, Move.flag(0, 0), token)  # the session now remembers the game
        lost_before = REGISTRY.get_sample_value(
            "kaboom_store_faults_total", {"fault": "connection_lost"}) or 0.0
        relay.cut(where)
        played = service.play(game.id, Move.flag(1, 0), token).after
        assert relay.cuts == 1, "the relay cut no connection: the test tested nothing"
        assert played.moves == 2
        assert store.moves(game.id, 0, 10) == ["flag 0 0", "flag 1 0"]
        assert store.get(game.id) == played
        assert REGISTRY.get_sample_value(
            "kaboom_store_faults_total", {"fault": "connection_lost"}) == lost_before + 1
        assert service.play(game.id, Move.flag(2, 0), token).after.moves == 3  # and plays on
    finally:
        store.close()
        relay.close()


def test_a_read_whose_connection_is_cut_is_read_again_on_a_fresh_one(
        own_postgres: PostgresServer) -> None:
    """The connection dies under a read (the relay drops its statement): the read is
    asked again on a fresh connection and answered (it was a 503), and the lost
    connection is counted."""
    url = own_postgres.url()
    relay = CuttingRelay(own_postgres.port)
    store = PostgresStore(url.replace(f":{own_postgres.port}/", f":{relay.port}/"))
    try:
        service = Games(store, Settings(db=url, create_per_minute=0))
        game, token = service.create(Rules(30, 16, 99))
        played = service.play(game.id, Move.flag(0, 0), token).after
        lost_before = REGISTRY.get_sample_value(
            "kaboom_store_faults_total", {"fault": "connection_lost"}) or 0.0
        relay.cut("request", matching=b"FROM games")
        assert store.get(game.id) == played
        relay.cut("request", matching=b"FROM steps")
        assert store.moves(game.id, 0, 10) == ["flag 0 0"]
        assert relay.cuts == 2, "the relay cut no connection: the test tested nothing"
        assert REGISTRY.get_sample_value(
            "kaboom_store_faults_total", {"fault": "connection_lost"}) == lost_before + 2
    finally:
        store.close()
        relay.close()


def test_reads_after_the_servers_connections_were_killed_are_answered(
        own_postgres: PostgresServer) -> None:
    """Every connection a running server holds to PostgreSQL is killed (as a failover or
    an administrator's ``pg_terminate_backend`` does): the next reads are answered 200,
    not 503, and a move after them too."""
    url = own_postgres.url()
    with LiveServer(url) as server, httpx.Client(base_url=server.url, timeout=30) as http:
        r = http.post("/api/games", json=EXPERT)
        game, auth = r.json()["id"], {"Authorization": f"Bearer {r.json()['player_token']}"}
        assert http.post(f"/api/games/{game}/flag", json={"x": 0, "y": 0},
                         headers=auth).status_code == 200
        with psycopg.connect(url, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name LIKE %s",
                (f"% {server.pids()[0]}",)).fetchone()
        assert killed is not None and killed[0] >= 1
        assert http.get(f"/api/games/{game}").status_code == 200
        assert http.get(f"/api/games/{game}/moves").json()["moves"] == ["flag 0 0"]
        assert http.get("/api/health").json()["status"] == "ok"
        assert http.post(f"/api/games/{game}/flag", json={"x": 1, "y": 0},
                         headers=auth).status_code == 200
        assert _metric(server.url, "kaboom_store_faults_total",
                       {"fault": "connection_lost"}) >= 1  # the reads met a dead one


# ---------------------------------------------------------------- a full disk
@contextlib.contextmanager
def _mounted(mount: Path, size: str) -> Iterator[Path]:
    """A real filesystem of ``size`` (tmpfs) at ``mount``, gone on the way out."""
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"cannot mount a small tmpfs (the test needs root): {done.stderr}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real filesystem of 4 MiB (tmpfs), mounted for the test and gone after it."""
    with _mounted(tmp_path / "disk", "4m") as mount:
        yield mount


def _fill(disk: Path) -> Path:
    """Fills ``disk`` to its last byte with a file of its own; returns the file."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
        while f.write(b"\0" * 4096):
            pass
    return filler


def _flagged_games(http: httpx.Client) -> dict[str, str]:
    """Three new Expert games, a flag played in each: their ids and player tokens."""
    earlier = {}
    for i in range(3):
        r = http.post("/api/games", json=EXPERT)
        assert r.status_code == 201
        game, token = r.json()["id"], r.json()["player_token"]
        assert http.post(f"/api/games/{game}/flag", json={"x": i, "y": 0},
                         headers={"Authorization": f"Bearer {token}"}).status_code == 200
        earlier[game] = token
    return earlier


def _created_on_a_full_disk(http: httpx.Client) -> list[httpx.Response]:
    """Twenty games asked for on a full disk: a few may fit pages the database had
    already taken, then each is a 507 that names the disk."""
    created = [http.post("/api/games", json=EXPERT) for _ in range(20)]
    statuses = [r.status_code for r in created]
    assert set(statuses) <= {201, 507}, statuses
    assert statuses[-10:] == [507] * 10, statuses
    refusal = created[-1].json()["detail"]
    assert "disk is full" in refusal and "nothing changed" in refusal
    return created


def _check_earlier_games(http: httpx.Client, earlier: dict[str, str],
                         before: dict[str, object], created: list[httpx.Response]) -> None:
    """On the full disk a move is stored or a 507, and every game reads as it was (or
    with the move stored), its moves too."""
    for n, (game, token) in enumerate(earlier.items()):
        r = http.post(f"/api/games/{game}/flag", json={"x": 10 + n, "y": 5},
                      headers={"Authorization": f"Bearer {token}"})
        assert r.status_code in (200, 507), r.text
        after = http.get(f"/api/games/{game}")
        assert after.status_code == 200
        assert after.json() == (r.json() if r.status_code == 200 else before[game])
        assert http.get(f"/api/games/{game}/moves").status_code == 200
    for r in created:
        if r.status_code == 201:
            assert http.get(f"/api/games/{r.json()['id']}").status_code == 200


def test_a_sqlite_store_on_a_full_disk_says_so_and_keeps_every_game(
        small_disk: Path) -> None:
    """A full disk under a SQLite store: a new game is a 507 that names the disk (a 500
    before), moves are stored or refused so, earlier games stay readable as they were,
    /api/health and the metrics say the disk is full; freed, it creates games again."""
    with LiveServer(small_disk / "games.db") as server, \
            httpx.Client(base_url=server.url, timeout=30) as http:
        earlier = _flagged_games(http)
        before = {g: http.get(f"/api/games/{g}").json() for g in earlier}
        filler = _fill(small_disk)
        created = _created_on_a_full_disk(http)
        statuses = [r.status_code for r in created]
        _check_earlier_games(http, earlier, before, created)

        health = http.get("/api/health")
        assert health.status_code == 200 and health.json()["status"] == "disk_full"
        assert _metric(server.url, "kaboom_store_disk_full") == 1
        assert _metric(server.url, "kaboom_store_faults_total",
                       {"fault": "disk_full"}) >= statuses.count(507)
        assert _metric(server.url, "kaboom_http_requests_total", {"status": "500"}) == 0

        filler.unlink()  # the operator frees space: no restart needed
        assert http.post("/api/games", json=EXPERT).status_code == 201
        assert http.get("/api/health").json()["status"] == "ok"
        assert _metric(server.url, "kaboom_store_disk_full") == 0


@pytest.fixture
def small_tablespace(own_postgres: PostgresServer) -> Iterator[tuple[str, Path]]:
    """A database of its own whose every table lives on a small disk (a tmpfs of 32 MiB
    holding its tablespace, in the cluster's folder, which its server can reach;
    PostgreSQL's own files stay where they are): its URL, and the disk."""
    with _mounted(own_postgres.root / "small-disk", "32m") as disk:
        where = disk / "tablespace"
        where.mkdir(mode=0o700)
        if os.geteuid() == 0:  # the cluster runs as postgres (kaboom.testing.PostgresServer)
            shutil.chown(where, "postgres", "postgres")
        admin = f"postgresql://kaboom@127.0.0.1:{own_postgres.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE TABLESPACE kaboom_small LOCATION '{where}'")
            conn.execute("CREATE DATABASE kaboom_full TABLESPACE kaboom_small")
        try:
            yield admin.replace("/postgres", "/kaboom_full"), disk
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute("DROP DATABASE kaboom_full WITH (FORCE)")
                conn.execute("DROP TABLESPACE kaboom_small")


def test_a_postgresql_store_on_a_full_disk_says_so_and_keeps_every_game(
        small_tablespace: tuple[str, Path]) -> None:
    """PostgreSQL's tables on a full disk, two processes behind nginx: a new game is a 507
    that names the disk, a move is stored or refused so (an update may still fit its
    page), every earlier game reads as it was, no answer is a 500.  Each process answers
    the balancer's health check 200 with ``disk_full`` after its write failed, so that a
    balancer keeps every process, and their reads; freed, each process creates games
    again and says ``ok``."""
    url, disk = small_tablespace
    with ProxiedServer(url, 2, **NO_CREATION_LIMITS) as site, \
            httpx.Client(base_url=site.url, timeout=30) as http:
        earlier = _flagged_games(http)
        before = {g: http.get(f"/api/games/{g}").json() for g in earlier}
        filler = _fill(disk)
        created = _created_on_a_full_disk(http)
        for server in site.servers:  # each process refuses a game, and says so, but
            # answers the balancer 200: it still serves every read
            assert httpx.post(f"{server.url}/api/games", json=EXPERT,
                              timeout=30).status_code == 507
            health = httpx.get(f"{server.url}/api/health", timeout=30)
            assert health.status_code == 200, health.text
            assert health.json()["status"] == "disk_full"

        _check_earlier_games(http, earlier, before, created)
        for server in site.servers:
            assert _metric(server.url, "kaboom_http_requests_total", {"status": "500"}) == 0
            assert _metric(server.url, "kaboom_store_faults_total", {"fault": "disk_full"}) > 0
        assert http.get("/api/health").status_code == 200  # through nginx

        filler.unlink()  # the operator frees space: no restart needed
        for server in site.servers:
            assert httpx.post(f"{server.url}/api/games", json=EXPERT,
                              timeout=30).status_code == 201
            assert httpx.get(f"{server.url}/api/health").json()["status"] == "ok"


def test_a_move_whose_store_goes_down_under_its_commit_says_it_may_be_in(
        own_postgres: PostgresServer) -> None:
    """The connection dies after PostgreSQL committed the move, and the store cannot be
    reached to read the game again: the answer is a 503 that says the move may have been
    stored, not that nothing changed; once the store is back, the move is there."""
    url = own_postgres.url()
    relay = CuttingRelay(own_postgres.port)
    store = PostgresStore(url.replace(f":{own_postgres.port}/", f":{relay.port}/"),
                          wait_s=1.0)
    try:
        service = Games(store, Settings(db=url, create_per_minute=0))
        game, token = service.create(Rules(30, 16, 99))
        service.play(game.id, Move.flag(0, 0), token)
        relay.cut("reply", then_down=True)
        with pytest.raises(StoreUnavailableError, match="whether it was stored cannot be"):
            service.play(game.id, Move.flag(1, 0), token)
        relay.up()
        # The pool reconnects in the background: read once it answers again (under load,
        # its first try may outlast the store's 1 s wait).
        deadline = time.monotonic() + 30
        while True:
            try:
                moves = store.moves(game.id, 0, 10)
                break
            except StoreUnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert moves == ["flag 0 0", "flag 1 0"]
    finally:
        store.close()
        relay.close()


# ---------------------------------------------------------------- a process killed behind nginx
def _kill_one(site: ProxiedServer) -> Iterator[None]:
    site.servers[0].kill()
    yield


def _spectate(url: str, games: list[str], statuses: list[int]) -> list[threading.Thread]:
    """A spectator's long poll (10 s) on each of ``games``, which nobody plays; started,
    each keeps its answer's status."""
    def wait(game: str) -> None:
        try:
            r = httpx.get(f"{url}/api/games/{game}", params={"wait_moves": 0, "timeout": 10},
                          timeout=60)
            statuses.append(r.status_code)
        except httpx.TransportError:
            statuses.append(0)

    threads = [threading.Thread(target=wait, args=(g,)) for g in games]
    for t in threads:
        t.start()
    return threads


def test_a_process_killed_behind_nginx_loses_nothing_and_its_reads_go_to_another(
        tmp_path: Path) -> None:
    """Two processes on one store behind the project's nginx; one is killed with SIGKILL
    while four players flag and read and four spectators' long polls wait (nginx's
    least_conn puts some on each process).  Every read, the long polls the dead process
    held included, is answered 200: nginx tries a read that a process dropped, or could
    not take, on the other.  A move is 200 or nginx's 503 with Retry-After (a POST is
    sent once: the one in flight may be in), never a 500, and every move answered 200 is
    in the store after."""
    with ProxiedServer(tmp_path / "games.db", **NO_CREATION_LIMITS) as site:
        watched = [httpx.post(f"{site.url}/api/games", json=EXPERT, timeout=30).json()["id"]
                   for _ in range(4)]
        polls: list[int] = []
        spectators = _spectate(site.url, watched, polls)
        time.sleep(1)  # the long polls are waiting on both processes
        answers = _under_load(site.url, 4, _kill_one(site))
        for t in spectators:
            t.join(60)
        assert polls == [200] * 4, polls
        _assert_answered_honestly(answers)
        assert all(a.status == 200 for a in answers if a.move is None), \
            Counter(a.status for a in answers if a.move is None)
        assert _assert_nothing_acknowledged_lost(site.url, answers) > 50
