"""The store keeps each move's undo record, in order, until the move is undone, reads
a page of them without the rest, and opens one new SQLite file from several processes at
once."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from dataclasses import replace
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest

from kaboom.server import migrations
from kaboom.server.config import Settings
from kaboom.server.game import Game, Referee, Rules
from kaboom.server.games import Games
from kaboom.server.history import History
from kaboom.server.store import GameStore, MemoryStore, SqliteStore, codec, open_store
from kaboom.solver.position import GameStatus, Move


def test_steps_are_the_moves_in_order_and_undo_drops_the_last() -> None:
    store = MemoryStore()
    game = Game.new("g1", Rules(9, 9, 10, debug=True, seed=7))
    store.create(game)
    referee = Referee()
    boards = [game.rows]
    moves = [Move.reveal(4, 4), Move.flag(0, 0), Move.flag(0, 0)]
    for move in moves:
        after, step = referee.apply(game, move)
        after = replace(after, version=game.version + 1)
        assert store.commit_move(game, after, step)
        game = after
        boards.append(game.rows)
    steps = store.steps("g1", 0, 10)
    assert [s.move for s in steps] == [str(m) for m in moves]
    # Each record restores the board before its move.
    rows = game.rows
    for n in range(len(moves), 0, -1):
        rows = steps[n - 1].undo(replace(game, rows=rows)).rows
        assert rows == boards[n - 1]
    undone = replace(referee.undo(game, store.last_step(game)), version=game.version + 1)
    assert store.commit_undo(game, undone)
    assert [s.move for s in store.steps("g1", 0, 10)] == [str(m) for m in moves[:2]]
    assert store.steps("other", 0, 10) == []


def _open_at_once(path: str, barrier: Barrier) -> None:
    barrier.wait()
    SqliteStore(path).close()  # raises, and exits non-zero, if the store cannot open


def test_processes_opening_a_new_database_together_all_open_it(tmp_path: Path) -> None:
    """Workers starting together each open the same new SQLite file: SQLite can refuse the
    switch to WAL at once to one of them, which failed ``--workers 2`` now and then."""
    context = multiprocessing.get_context("fork")
    for n in range(60):
        barrier = context.Barrier(2)
        procs = [context.Process(target=_open_at_once, args=(str(tmp_path / f"{n}.db"), barrier))
                 for _ in range(2)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(60)
        assert [proc.exitcode for proc in procs] == [0, 0], f"database {n}"
        store = SqliteStore(tmp_path / f"{n}.db")
        assert store.schema_version() == migrations.latest()
        store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    """Each backend: a SQLite file, and a fresh database on the session's PostgreSQL."""
    if request.param == "sqlite":
        store: GameStore = SqliteStore(tmp_path / "pages.db", synchronous="OFF")
    else:
        store = open_store(request.getfixturevalue("postgres").url())
    yield store
    store.close()


class _CountingJson:
    """The store codec's ``json`` module, counting the texts it parses."""

    def __init__(self) -> None:
        self.parsed = 0

    def loads(self, text: str) -> Any:
        self.parsed += 1
        return json.loads(text)

    dumps = staticmethod(json.dumps)


def _long_game(store: GameStore, game_id: str, moves: int) -> Game:
    """A debug game with ``moves`` flag moves (one cell cycled through its marks)."""
    game = Game.new(game_id, Rules(9, 9, 10, debug=True, seed=7))
    store.create(game)
    referee = Referee()
    for n in range(moves):
        after, step = referee.apply(game, Move.flag(n % 3, 0))
        after = replace(after, version=game.version + 1)
        assert store.commit_move(game, after, step)
        game = after
    return game


def test_pages_of_moves_and_steps_concatenate_to_the_history(
    any_store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of any size, read from any offset, are exactly the history's slices, on both
    backends; a page parses only its own records, and listing moves parses none in
    Python (the database takes the move out)."""
    game = _long_game(any_store, "paged", 23)
    played = [f"flag {n % 3} 0" for n in range(23)]
    counting = _CountingJson()
    monkeypatch.setattr(codec, "json", counting)
    for limit in (1, 5, 23, 50):
        pages = [any_store.moves("paged", offset, limit) for offset in range(0, 23, limit)]
        assert [m for page in pages for m in page] == played
        assert counting.parsed == 0, "listing moves parsed step records in Python"
        step_pages = [any_store.steps("paged", offset, limit) for offset in range(0, 23, limit)]
        assert [s.move for page in step_pages for s in page] == played
        assert counting.parsed == 23  # one parse per record of the pages, none besides
        counting.parsed = 0
    assert any_store.moves("paged", 7, 3) == played[7:10]
    assert [s.move for s in any_store.steps("paged", 20, 2)] == played[20:22]
    assert counting.parsed == 2
    assert any_store.steps("paged", 23, 5) == [] and any_store.moves("paged", 40, 5) == []
    # Each record knows what its cells show after the move: the next record's "before".
    steps = any_store.steps("paged", 0, 23)
    assert all(s.after is not None and len(s.after) == len(s.cells) for s in steps)
    assert steps[0].after == "F" and steps[3].cells[0][2] == "F"
    assert game.moves == 23


def test_a_replay_of_records_kept_before_the_after_cells_is_the_same() -> None:
    """Records stored before a step kept its cells' ``after`` still replay, page by page,
    exactly as records that keep it (the service rebuilds them from the later moves)."""
    service = Games(MemoryStore(), Settings(db=":memory:", create_per_minute=0))
    replays = []
    for legacy in (False, True):
        store = service.store
        game = Game.new(f"g{legacy}", Rules(9, 9, 10, debug=True, seed=11))
        store.create(game)
        referee = Referee()
        for move in [Move.reveal(4, 4), *(Move.flag(0, n % 2) for n in range(9)),
                     Move.reveal(0, 0)]:
            if game.status is not GameStatus.PLAYING:
                break
            after, step = referee.apply(game, move)
            if legacy:
                step = replace(step, after=None)
            after = replace(after, version=game.version + 1)
            assert store.commit_move(game, after, step)
            game = after
        if game.status is GameStatus.PLAYING:  # end it for the replay
            finished = replace(game, status=GameStatus.WON, version=game.version + 1)
            assert store.commit(game, finished)
        pages = [History(store).replay(game.id, offset, 4)[1]
                 for offset in range(0, game.moves, 4)]
        replays.append([m for page in pages for m in page.moves])
        assert pages[0].start == Game.new(game.id, game.rules).rows
    assert replays[0] == replays[1] and len(replays[0]) == 11
