"""Exact counting against brute-force enumeration."""

from __future__ import annotations

from math import comb

import pytest
from hypothesis import given, settings

from solver import counting
from solver.frontier import Constraint, components, frontier_of
from solver.position import Position
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_probabilities_equal_enumeration(params: BoardParams) -> None:
    position = make_position(params)
    expected = oracle.probabilities(position)
    fr = frontier_of(position)
    cnt = counting.count(
        [cs for _, cs in components(fr.constraints)], len(fr.outside), fr.mines_left
    )
    assert cnt.weight == len(list(oracle.layouts(position)))
    assert counting.total_weight([t.totals for t in cnt.tables], len(fr.outside),
                                 fr.mines_left) == cnt.weight
    for c, p in expected.items():
        assert cnt.probability(c) == pytest.approx(p, abs=1e-12), position.to_text()
    # exact zeros are proofs
    truth = oracle.statuses(position)
    assert set(cnt.safe()) == {c for c in fr.cells if truth[c] == "s"}


def test_node_limit_raises() -> None:
    position = Position.from_text("mines=3\n1 # # #\n# # # #\n# # 2 #")
    constraints = frontier_of(position).constraints
    counting._CACHE.clear()
    with pytest.raises(counting.TooBig):
        counting.count([cs for _, cs in components(constraints)], 0, 3, 0)


def test_weights_past_64_bits_are_exact() -> None:
    cells = tuple((x, y) for y in range(4) for x in range(25))  # 100 cells, 50 mines
    table = counting.tabulate([Constraint(cells, 50)])
    assert table.totals == {50: comb(100, 50)}  # about 1e29
    assert table.cell_counts[50] == [comb(99, 49)] * 100
    more = tuple((x, 4) for x in range(21))  # 121 cells: past what the search can weigh
    with pytest.raises(counting.TooBig):
        counting.tabulate([Constraint(cells + more, 60)])


@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_solutions_list_every_layout(params: BoardParams) -> None:
    position = make_position(params)
    fr = frontier_of(position)
    free = (*fr.cells, *fr.outside)
    constraints = [*fr.constraints, Constraint(free, fr.mines_left)]
    expected = sorted(map(sorted, oracle.layouts(position)))
    # nodes are not what is tested here (the default, 20 a layout, is too few for a
    # board with one layout behind a deep search)
    every = counting.solutions(constraints, len(expected), node_limit=10**6)
    assert every is not None
    assert sorted(map(sorted, every)) == expected
    if len(every) > 1:  # one fewer than there are: too many
        assert counting.solutions(constraints, len(every) - 1, node_limit=10**6) is None
