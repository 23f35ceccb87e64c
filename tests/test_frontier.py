"""The frontier reduction: folding decided cells in later equals scanning with them."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from solver.errors import InvalidPositionError
from solver.frontier import frontier_of
from solver.position import Position
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_fold_equals_a_fresh_scan(params: BoardParams) -> None:
    position = make_position(params)
    truth = oracle.statuses(position)
    rng = random.Random(params[-1])
    decided = [c for c, s in truth.items() if s != "u" and position.char(*c) != "F"]
    first = {c: truth[c] == "m" for c in decided if rng.random() < 0.5}
    more = {c: truth[c] == "m" for c in decided if c not in first and rng.random() < 0.7}
    base = frontier_of(position, first)
    folded = base.fold(more)
    fresh = frontier_of(position, {**first, **more})
    assert set(folded.constraints) == set(fresh.constraints)
    assert folded.cells == fresh.cells
    assert folded.outside_flat == fresh.outside_flat
    assert folded.mines_left == fresh.mines_left
    assert dict(folded.known) == dict(fresh.known)


def test_fold_rejects_a_contradiction() -> None:
    position = Position.from_text("mines=1\n1 # #\n# # #")
    base = frontier_of(position)
    with pytest.raises(InvalidPositionError):
        base.fold({(1, 0): True, (0, 1): True})
