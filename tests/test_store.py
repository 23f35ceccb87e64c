"""The store keeps each move's undo record, in order, until the move is undone, and
opens one new SQLite file from several processes at once."""

from __future__ import annotations

import multiprocessing
from dataclasses import replace
from multiprocessing.synchronize import Barrier
from pathlib import Path

from server import migrations
from server.game import Game, Referee, Rules
from server.store import MemoryStore, SqliteStore
from solver.position import Move


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
    steps = store.steps("g1")
    assert [s.move for s in steps] == [str(m) for m in moves]
    # Each record restores the board before its move.
    rows = game.rows
    for n in range(len(moves), 0, -1):
        rows = steps[n - 1].undo(replace(game, rows=rows)).rows
        assert rows == boards[n - 1]
    undone = replace(referee.undo(game, store.last_step(game)), version=game.version + 1)
    assert store.commit_undo(game, undone)
    assert [s.move for s in store.steps("g1")] == [str(m) for m in moves[:2]]
    assert store.steps("other") == []


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
