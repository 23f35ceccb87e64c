"""Every move is bounded: a real server over real HTTP, a dense 256x256 game.

The bounds asserted here are generous (a loaded 2-core machine runs the suite) but far
below what an unbounded move took (seconds, see issue #10); the figures themselves are
measured by ``bench/abuse.py``.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from kaboom.server.game import Game, Referee, Rules, Step
from kaboom.server.store import SqliteStore
from kaboom.server.store.codec import step_to_json as store_step_json
from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError
from kaboom.solver.frontier import frontier_of
from kaboom.solver.position import Move, neighbours
from kaboom.testing import LiveServer

SIDE, DENSE = 256, 256 * 256 // 2
MARGIN_S = 1.5
"""CPU time past the deadline (the referee, in process)."""
WALL_MARGIN_S = 3.0
"""Wall time past the deadline over HTTP, as the test's clients see it: the
uninterruptible tail (a loss on 256x256 draws, stores and sends 32,768 mines; an
analysis sends 1.3 MB) stretched by a machine loaded 6-10x, plus the clients' own wait
(a 503 for a request that waited its whole 1 s budget, nothing computed, was seen after
1.75 s under a load of 19 on 2 cores).  Unbounded moves took 5.5 s in the first test
with the same 1 s budget, and 11.8 s with 5 s in issue #10."""


@pytest.fixture
def one_second(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(
        tmp_path / "bounded.db", move_budget_s=1.0, analysis_budget_s=1.0, queued_moves=2
    ).start()
    yield server
    server.stop()


def _dense_game(client: httpx.Client, seed: int) -> str:
    """A 256x256 debug game at 50 % mines where guesses away from the numbers survive;
    ``client`` keeps the player's token for the game."""
    body = {"width": SIDE, "height": SIDE, "mines": DENSE, "debug": True, "seed": seed}
    r = client.post("/api/games", json={**body, "outside_guess": True})
    assert r.status_code == 201, r.text
    client.headers["Authorization"] = f"Bearer {r.json()['player_token']}"
    game_id: str = r.json()["id"]
    return game_id


def _lattice(seed: int) -> list[tuple[int, int]]:
    cells = [(x, y) for y in range(1, SIDE, 3) for x in range(1, SIDE, 3)]
    random.Random(seed).shuffle(cells)
    return cells


def _click(client: httpx.Client, gid: str, cell: tuple[int, int]) -> tuple[httpx.Response, float]:
    """One reveal, timed; a loss is undone (a debug game) so the lattice keeps growing."""
    t = time.monotonic()
    r = client.post(f"/api/games/{gid}/reveal", json={"x": cell[0], "y": cell[1]})
    took = time.monotonic() - t
    if r.status_code == 200 and r.json()["status"] == "lost":
        # A full queue on the game answers 503 with Retry-After: a client tries again.
        for _ in range(100):
            undo = client.post(f"/api/games/{gid}/undo")
            if undo.status_code != 503:
                break
            time.sleep(0.1)
        undo.raise_for_status()
    return r, took


def _get_p99(url: str, game_id: str, *, after_s: float, for_s: float) -> float:
    """The p99 of another game's GET, read every 20 ms for ``for_s`` seconds once
    ``after_s`` have passed (while something else loads the server)."""
    gets: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as client:
        time.sleep(after_s)
        deadline = time.monotonic() + for_s
        while time.monotonic() < deadline:
            t = time.monotonic()
            client.get(f"/api/games/{game_id}").raise_for_status()
            gets.append(time.monotonic() - t)
            time.sleep(0.02)
    gets.sort()
    return gets[int(0.99 * (len(gets) - 1))]


def test_a_slow_game_never_delays_another_games_get(one_second: LiveServer) -> None:
    """Four clients hammer a dense game with reveals and analyses (more than the game's
    queue takes); meanwhile another game's GET stays fast.  (More client threads in this
    one process would measure their own wait for the GIL, not the server.)"""
    with httpx.Client(base_url=one_second.url, timeout=30) as client:
        gid = _dense_game(client, seed=3)
        other = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).json()
        cells = _lattice(3)
        for cell in cells[:30]:
            _click(client, gid, cell)
        player = dict(client.headers)
    stop = threading.Event()
    answers: list[tuple[int, float]] = []
    pool = iter(cells[30:])
    lock = threading.Lock()

    def hammer(i: int) -> None:
        with httpx.Client(base_url=one_second.url, timeout=30, headers=player) as c:
            while not stop.is_set():
                if i % 2:
                    t = time.monotonic()
                    r = c.get(f"/api/games/{gid}/analysis")
                    took = time.monotonic() - t
                else:
                    with lock:
                        cell = next(pool)
                    r, took = _click(c, gid, cell)
                answers.append((r.status_code, took))

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    p99 = _get_p99(one_second.url, other["id"], after_s=0.5, for_s=8)
    stop.set()
    for th in threads:
        th.join()
    busy = sum(took for _, took in answers)
    assert busy > 6.0, "the dense game did not keep the server busy"
    assert {code for code, _ in answers} <= {200, 409, 503}, answers
    assert max(took for _, took in answers) < 1.0 + WALL_MARGIN_S
    # Before the gate, one dense game stalled every other game for seconds (6 s to 66 s in
    # issue #10). The bound leaves room for a machine shared by other work (a GET p99 of
    # 1.1 s was seen at load average 15 on 2 cores) while still failing on such stalls.
    assert p99 < 2.0, f"other game's GET p99 {p99:.3f} s while the dense game was hammered"


def test_every_answer_within_budget_and_refusals_change_nothing(one_second: LiveServer) -> None:
    """With a 1 s budget every reveal is answered within 1 s + margin, one at a time and
    in bursts; a refused move (503) leaves no trace: the move count grows by exactly
    the moves answered 200."""
    with httpx.Client(base_url=one_second.url, timeout=30) as client:
        gid = _dense_game(client, seed=5)
        cells = _lattice(5)
        took = [_click(client, gid, cell)[1] for cell in cells[:40]]
        assert max(took) < 1.0 + WALL_MARGIN_S
        before = client.get(f"/api/games/{gid}").json()
        player = dict(client.headers)
    burst = cells[40:56]
    results: list[tuple[int, float]] = []
    start = threading.Barrier(len(burst))

    def reveal(cell: tuple[int, int]) -> None:
        with httpx.Client(base_url=one_second.url, timeout=30, headers=player) as c:
            start.wait()
            t = time.monotonic()
            r = c.post(f"/api/games/{gid}/reveal", json={"x": cell[0], "y": cell[1]})
            results.append((r.status_code, time.monotonic() - t))
            if r.status_code == 503:
                assert r.headers["Retry-After"]

    threads = [threading.Thread(target=reveal, args=(c,)) for c in burst]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    codes = [code for code, _ in results]
    assert set(codes) <= {200, 409, 503}, codes
    assert 503 in codes, "a burst of 16 moves on one game should overflow its queue"
    assert max(t for _, t in results) < 1.0 + WALL_MARGIN_S
    with httpx.Client(base_url=one_second.url, timeout=30) as client:
        after = client.get(f"/api/games/{gid}").json()
    assert after["moves"] == before["moves"] + codes.count(200)


def test_out_of_time_move_on_a_huge_frontier_is_bounded_and_never_punished() -> None:
    """A lattice of 3,600 numbers on 256x256 at 50 % mines cannot be classified in no
    time.  Out of time, the referee never punishes without a proof: the click opens if
    the SAT fallback finds a layout with it safe within its floor, or the move is refused
    (a 503) -- which of the two depends on the machine's speed, and both spend no more
    than the fixed margin of CPU time past the deadline."""
    rng = random.Random(5)
    mines = set(rng.sample([(x, y) for y in range(SIDE) for x in range(SIDE)], DENSE))
    rows = [["#"] * SIDE for _ in range(SIDE)]
    lattice = [c for c in _lattice(5) if c not in mines]
    for x, y in lattice[:-1]:
        around = [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        rows[y][x] = str(sum(c in mines for c in around))
    rules = Rules(SIDE, SIDE, DENSE, outside_guess=True, debug=True, seed=5)
    game = replace(Game.new("g", rules), rows=tuple("".join(r) for r in rows), moves=1)
    frontier_of(game.position)  # a board size's neighbour table is built once per process
    referee = Referee(budget_s=0.0)
    x, y = lattice[-1]
    cpu = time.process_time()  # the work done past the deadline, whatever the machine's load
    try:
        after, _ = referee.apply(game, Move.reveal(x, y), Budget(0.0))
    except BudgetExceededError:
        assert referee.timeouts == 1
    else:
        assert after.status == "playing"
        assert after.rows[y][x] not in "#F?*"
        assert referee.timeouts == 1 and after.moves == game.moves + 1
    assert time.process_time() - cpu < MARGIN_S


_FLOOD = """
import random, sys, threading, time, httpx
url, gid, seconds, clients = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
cells = [tuple(map(int, c.split(","))) for c in sys.argv[5:]]
stop = time.monotonic() + seconds
def ask(i):
    rng = random.Random(i)
    with httpx.Client(base_url=url, timeout=60) as c:
        while time.monotonic() < stop:
            x, y = rng.choice(cells)
            c.get(f"/api/games/{gid}/proof", params={"x": x, "y": y})
threads = [threading.Thread(target=ask, args=(i,)) for i in range(clients)]
for t in threads: t.start()
for t in threads: t.join()
"""


def test_a_flood_of_proofs_never_delays_another_games_get(one_second: LiveServer) -> None:
    """After a game anyone may ask for proofs, without a token, and each may take the
    analysis budget on a dense board.  They queue for the game's solver turn as moves do:
    as a plain route they ran on the threads that serve every GET, and 60 anonymous
    clients held another game's GET for up to 14.6 s.  The flood runs in a process of its
    own, so that this one times the GETs without waiting for the flood's GIL."""
    with httpx.Client(base_url=one_second.url, timeout=30) as client:
        gid = _dense_game(client, seed=9)
        other = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).json()
        mines: list[tuple[int, int]] = []
        lattice = _lattice(9)
        while not mines:  # 30 clicks at a time, until a mine is proven (the draws decide)
            for cell in lattice[:30]:
                _click(client, gid, cell)
            del lattice[:30]
            status = client.get(f"/api/games/{gid}/analysis").json()["status"]
            mines = [(x, y) for y, row in enumerate(status) for x, ch in enumerate(row)
                     if ch == "m"]
        mine = mines[0]
        lost = client.post(f"/api/games/{gid}/reveal", json={"x": mine[0], "y": mine[1]})
        assert lost.json()["status"] == "lost"
    board = lost.json()["board"]
    near = [f"{x},{y}" for y, row in enumerate(board) for x, ch in enumerate(row)
            if ch == "#" and any(board[b][a].isdigit() for a, b in neighbours(x, y, SIDE, SIDE))]
    flood = subprocess.Popen(
        [sys.executable, "-c", _FLOOD, one_second.url, gid, "10", "60", *near[:400]]
    )
    try:
        p99 = _get_p99(one_second.url, other["id"], after_s=2.0, for_s=6)
    finally:
        flood.wait(timeout=60)
    assert p99 < 2.0, f"other game's GET p99 {p99:.3f} s while proofs flooded a finished game"


HISTORY = 40_000
"""Moves of the long game the spectators read: twice what one client made in the audit
that found the whole history sent in one answer (20,000 flags at 208 a second)."""

_SPECTATORS = """
import sys, threading, time, httpx
url, gid, seconds, clients = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
stop = time.monotonic() + seconds
read = []
def spectate():
    with httpx.Client(base_url=url, timeout=120) as c:
        offset = 0
        while time.monotonic() < stop:
            page = c.get(f"/api/games/{gid}/moves", params={"offset": offset}).json()
            read.append(len(page["moves"]))
            offset = page.get("next_offset") or 0  # the whole history, again and again
threads = [threading.Thread(target=spectate) for _ in range(clients)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(read))
"""


def _long_history(db: Path, moves: int) -> str:
    """A debug game of ``moves`` flag moves (a corner's mark cycled), their records
    written in one transaction before the server starts (a commit per move took 10 s for
    40,000).  More moves than a 9x9 game may now make: the limit is the service's, and
    here the reads are what is tested."""
    store = SqliteStore(db, synchronous="OFF")
    game = Game.new("long-history", Rules(9, 9, 10, debug=True, seed=1))
    store.create(game)
    records, board = [], game
    for n in range(1, moves + 1):
        mark = "#F?"[n % 3]
        step = Step("flag 0 0", ((0, 0, board.rows[0][0]),), board, mark)
        records.append((game.id, n, store_step_json(step)))
        board = replace(board, rows=(mark + board.rows[0][1:], *board.rows[1:]), moves=n)
    with store._tx() as cur:
        cur.executemany("INSERT INTO steps (game_id, n, step) VALUES (?, ?, ?)", records)
    assert store.commit(game, replace(board, version=1))
    store.close()
    return game.id


def test_spectators_reading_a_long_history_never_delay_another_games_get(
    tmp_path: Path,
) -> None:
    """Eight spectators read every move of a 40,000-move game, again and again, while
    another game's GET is timed.  When ``/moves`` answered the whole history at once,
    each answer parsed every step under the GIL on the shared thread pool: the GET's
    p99 was 2.27 s (load 4.4 on 2 cores; the audit saw 2.1 s with 20,000 moves).  Now a
    page is at most 1000 moves, read alone from the store: 0.10 s at the same load, so
    the bound of 1 s leaves room for a busier machine and still fails on the old stall.
    The spectators run in a process of their own, so that this one times the GETs
    without waiting for the spectators' GIL."""
    db = tmp_path / "history.db"
    gid = _long_history(db, HISTORY)
    with LiveServer(db) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        other = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).json()
        spectators = subprocess.Popen(
            [sys.executable, "-c", _SPECTATORS, server.url, gid, "10", "8"],
            stdout=subprocess.PIPE, text=True,
        )
        try:
            p99 = _get_p99(server.url, other["id"], after_s=2.0, for_s=6)
        finally:
            out, _ = spectators.communicate(timeout=120)
    assert int(out) >= 2 * HISTORY, "the spectators did not read the whole history twice"
    assert p99 < 1.0, f"other game's GET p99 {p99:.3f} s while spectators read a long history"
