"""Exact counting against brute-force enumeration."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from solver import counting
from solver.frontier import components, frontier_of
from tests import oracle
from tests.solver.boards import boards, make_position


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_probabilities_equal_enumeration(params) -> None:
    position = make_position(params)
    expected = oracle.probabilities(position)
    fr = frontier_of(position)
    cnt = counting.count(
        [cs for _, cs in components(fr.constraints)], len(fr.outside), fr.mines_left
    )
    assert cnt.weight == len(list(oracle.layouts(position)))
    for c, p in expected.items():
        assert cnt.probability(c) == pytest.approx(p, abs=1e-12), position.to_text()
    # exact zeros are proofs
    truth = oracle.statuses(position)
    assert set(cnt.safe()) == {c for c in fr.cells if truth[c] == "s"}


def test_node_limit_raises() -> None:
    position = make_position((5, 4, 0.3, 0.4, 7))
    fr = frontier_of(position)
    if not fr.constraints:
        pytest.skip("no frontier")
    counting._CACHE.clear()
    with pytest.raises(counting.TooBig):
        counting.count([cs for _, cs in components(fr.constraints)], 0, fr.mines_left, 0)
