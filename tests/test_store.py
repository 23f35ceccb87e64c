"""The store keeps each move's undo record, in order, until the move is undone."""

from __future__ import annotations

from dataclasses import replace

from server.game import Game, Referee, Rules
from server.store import MemoryStore
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
