"""Changes reach the watchers of every process: PostgreSQL's own change feed
(``LISTEN``/``NOTIFY``), told only of committed changes; the fallback while a process's
listening connection is down, which misses no change; and idle watchers that cost the
database no query.  Real PostgreSQL and real server processes throughout."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import httpx
import psycopg
import pytest

from kaboom.server.config import Settings
from kaboom.server.game import Game, Rules
from kaboom.server.games import Games
from kaboom.server.store import PostgresStore, Told
from kaboom.server.store.feed import CHANNEL, LISTENER_NAME
from kaboom.server.store.postgres import APPLICATION_NAME
from kaboom.solver.position import Move
from kaboom.testing import LiveServer, PostgresServer

pytestmark = pytest.mark.timeout(300)

EXPERT = {"width": 30, "height": 16, "mines": 99}


def _told(listener: psycopg.Connection[tuple[object, ...]], wait_s: float) -> list[str]:
    """The payloads notified on the channel within ``wait_s`` (all of them that came)."""
    return [n.payload for n in listener.notifies(timeout=wait_s)]


def _carried(payloads: list[str]) -> list[Game | None]:
    """The games the payloads carry (their id and version first)."""
    found = []
    for text in payloads:
        game_id, version, *stored = text.split(" ", 2)
        game = Told(game_id, int(version), stored[0] if stored else None).game()
        assert game is None or (game.id, game.version) == (game_id, int(version))
        found.append(game)
    return found


def test_a_committed_change_is_told_and_a_rolled_back_one_is_not(
        postgres: PostgresServer) -> None:
    """A move (one statement) and a change of several statements notify their game as
    committed when they commit; the same changes failing after their notice was queued
    roll back, and nobody is told.  A game too large for a notice is told by its id and
    version alone."""
    url = postgres.url()
    store = PostgresStore(url)
    try:
        games = Games(store, Settings(db=url, create_per_minute=0))
        game, token = games.create(Rules(30, 16, 99))
        with psycopg.connect(url, autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANNEL}")
            moved = games.play(game.id, Move.flag(0, 0), token).after
            assert _carried(_told(listener, 10)) == [moved]
            marked = replace(moved, version=moved.version + 1)
            assert store.commit(moved, marked)  # the assisted mark: UPDATE, then NOTIFY
            assert _carried(_told(listener, 10)) == [marked]
            large, large_token = games.create(Rules(100, 100, 2000))
            played = games.play(large.id, Move.flag(0, 0), large_token).after
            assert _told(listener, 10) == [f"{large.id} {played.version}"]

            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
                              " AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$")
                admin.execute("CREATE TRIGGER refuse_insert BEFORE INSERT ON steps"
                              " FOR EACH ROW EXECUTE FUNCTION refuse()")
                admin.execute("CREATE TRIGGER refuse_delete BEFORE DELETE ON steps"
                              " FOR EACH STATEMENT EXECUTE FUNCTION refuse()")
                with pytest.raises(psycopg.errors.RaiseException):
                    games.play(game.id, Move.flag(1, 0), token)  # the step's INSERT fails
                with pytest.raises(psycopg.errors.RaiseException):
                    store.commit_undo(marked, replace(marked, version=marked.version + 1))
                assert store.get(game.id) == marked  # both rolled back...
                assert _told(listener, 1.0) == []  # ...and told nobody
                admin.execute("DROP TRIGGER refuse_insert ON steps")
                admin.execute("DROP TRIGGER refuse_delete ON steps")

            again = games.play(game.id, Move.flag(1, 0), token).after
            assert _carried(_told(listener, 10)) == [again]
    finally:
        store.close()


# ---------------------------------------------------------------- across processes
class Spectator:
    """A page's event stream on one server, read on a thread: the version of each
    ``change`` event, as it comes."""

    def __init__(self, url: str, game: str, version: int) -> None:
        self.versions: list[int] = []
        self.open = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._read, args=(f"{url}/games/{game}/events", version), daemon=True)
        self._thread.start()
        assert self.open.wait(30), "the stream did not open"

    def _read(self, url: str, version: int) -> None:
        try:
            with httpx.stream("GET", url, params={"version": version},
                              timeout=httpx.Timeout(60, read=None)) as answer:
                if answer.status_code != 200:
                    return
                for line in answer.iter_lines():
                    if line == ": open":
                        self.open.set()
                    elif line.startswith("id: "):
                        self.versions.append(int(line[4:]))
                    if self._stop.is_set():
                        return
        except httpx.TransportError:  # the server stopped under it, at the test's end
            pass

    def wait_for(self, version: int, seconds: float = 30) -> list[int]:
        """The versions seen once ``version`` came (a failure if it did not)."""
        deadline = time.monotonic() + seconds
        while version not in self.versions:
            assert time.monotonic() < deadline, f"version {version} never came: {self.versions}"
            time.sleep(0.05)
        return list(self.versions)

    def close(self) -> None:
        self._stop.set()


class Player:
    """A game's player on one server (an Expert game, or ``rules``)."""

    def __init__(self, url: str, rules: dict[str, int] = EXPERT) -> None:
        self.http = httpx.Client(base_url=url, timeout=60)
        game = self.http.post("/api/games", json=rules).json()
        self.id: str = game["id"]
        self.version: int = game["version"]
        self.http.headers["Authorization"] = f"Bearer {game['player_token']}"
        self._cell = 0

    def move(self) -> int:
        """Flags the next cell; the game's new version."""
        r = self.http.post(f"/api/games/{self.id}/flag", json={"x": self._cell, "y": 0})
        assert r.status_code == 200, r.text
        self._cell += 1
        self.version = int(r.json()["version"])
        return self.version


@pytest.fixture
def two(postgres: PostgresServer) -> Iterator[tuple[str, LiveServer, LiveServer]]:
    """Two server processes on one new PostgreSQL database (its URL first)."""
    url = postgres.url()
    with LiveServer(url) as a, LiveServer(url) as b:
        yield url, a, b


def _admin(url: str) -> str:
    return url.rsplit("/", 1)[0] + "/postgres"


def _listener(url: str, server: LiveServer) -> int | None:
    """The backend pid of ``server``'s listening connection, if it has one."""
    with psycopg.connect(_admin(url), autocommit=True) as admin:
        row = admin.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                            (f"{LISTENER_NAME} {server.pids()[0]}",)).fetchone()
    return None if row is None else int(row[0])


def _wait_listening(url: str, server: LiveServer) -> int:
    deadline = time.monotonic() + 30
    while (pid := _listener(url, server)) is None:
        assert time.monotonic() < deadline, "the process never listened"
        time.sleep(0.1)
    return pid


def test_a_spectator_on_the_other_process_misses_nothing_while_its_feed_is_down(
        two: tuple[str, LiveServer, LiveServer]) -> None:
    """A page watches on process B, the player moves on A.  B's listening connection is
    killed (``pg_terminate_backend``) and cannot come back (the database takes no new
    connection): every move still reaches the page, by B reading the versions while it
    has no feed.  Let back, B listens again, and the moves after reach the page too; a
    second kill with a move right behind it loses nothing either."""
    url, a, b = two
    player = Player(a.url)
    page = Spectator(b.url, player.id, player.version)
    name = url.rsplit("/", 1)[1]
    try:
        first = _wait_listening(url, b)
        assert page.wait_for(player.move()) == [player.version]  # told by the feed

        with psycopg.connect(_admin(url), autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            try:
                admin.execute("SELECT pg_terminate_backend(%s)", (first,))
                for _ in range(3):
                    assert page.wait_for(version := player.move())[-1] == version
                assert _listener(url, b) is None, "the moves came by the feed, not the poll"
            finally:
                admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            second = _wait_listening(url, b)
            assert second != first
            for _ in range(2):
                assert page.wait_for(version := player.move())[-1] == version

            admin.execute("SELECT pg_terminate_backend(%s)", (second,))
            version = player.move()  # in the gap, or right after it
            assert page.wait_for(version)[-1] == version
        # each move's event once, in order (a page sent a later version first would
        # have skipped the earlier one)
        assert page.versions == list(range(1, player.version + 1))
    finally:
        page.close()


def _last_queries(url: str, server: LiveServer) -> dict[int, object]:
    """When each of the server's pooled connections last began a statement."""
    with psycopg.connect(_admin(url), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pid, query_start FROM pg_stat_activity WHERE application_name = %s",
            (f"{APPLICATION_NAME} {server.pids()[0]}",)).fetchall()
    return {int(pid): started for pid, started in rows}


def test_idle_spectators_cost_the_database_no_query(
        two: tuple[str, LiveServer, LiveServer]) -> None:
    """Pages watch games on both processes, and nothing moves: while the feed is live, no
    pooled connection of either process starts a statement (they polled the watched
    games' versions every 50 ms before).  A move then reaches the pages on both, the
    game carried by its notice, or read where it is too large for one."""
    url, a, b = two
    players = [Player(a.url), Player(a.url), Player(a.url, {"width": 100, "height": 100,
                                                            "mines": 2000})]
    pages = [Spectator(server.url, p.id, p.version) for p in players for server in (a, b)]
    try:
        _wait_listening(url, a)
        _wait_listening(url, b)
        time.sleep(0.5)  # the streams' own first reads are done
        before = {s.port: _last_queries(url, s) for s in (a, b)}
        time.sleep(2)
        after = {s.port: _last_queries(url, s) for s in (a, b)}
        assert before == after, "an idle watcher made its process query the database"
        for n in (0, 2):
            version = players[n].move()
            for page in pages[2 * n:2 * n + 2]:
                assert page.wait_for(version) == [version]
    finally:
        for page in pages:
            page.close()


def _waiting(url: str) -> float:
    text = httpx.get(f"{url}/api/metrics", timeout=30).text
    line = next(line for line in text.splitlines()
                if line.startswith("kaboom_long_polls_waiting "))
    return float(line.split()[1])


def test_a_page_that_goes_stops_waiting(postgres: PostgresServer) -> None:
    """Pages close their streams between two keep-alives: each wait ends with its page,
    none is left behind waiting for a game nobody watches."""
    with LiveServer(postgres.url()) as server:
        player = Player(server.url)
        pages = [Spectator(server.url, player.id, player.version) for _ in range(3)]
        deadline = time.monotonic() + 30
        while _waiting(server.url) != 3:
            assert time.monotonic() < deadline, _waiting(server.url)
            time.sleep(0.1)
        for page in pages:
            page.close()
        player.move()  # each stream sends its event, then finds its page gone
        while _waiting(server.url) != 0:
            assert time.monotonic() < deadline, _waiting(server.url)
            time.sleep(0.1)
