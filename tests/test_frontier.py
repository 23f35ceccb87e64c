"""The frontier reduction: folding decided cells in later equals scanning with them."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import Constraint, components, frontier_of
from kaboom.solver.position import Position
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
    # the folded frontier's components, linked once for every policy that asks
    assert folded.components() == components(folded.constraints)
    assert folded.components() is folded.components()


def test_fold_rejects_a_contradiction() -> None:
    position = Position.from_text("mines=1\n1 # #\n# # #")
    base = frontier_of(position)
    with pytest.raises(InvalidPositionError):
        base.fold({(1, 0): True, (0, 1): True})


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_components_are_the_connected_groups(data: st.DataObject) -> None:
    """The compiled split against growing each group from its first constraint: the
    same groups, cells row-major, constraints in the order given, groups by first cell."""
    cells = [(x, y) for y in range(4) for x in range(data.draw(st.integers(1, 12)))]
    cons = [
        Constraint(tuple(sorted(c, key=lambda c: (c[1], c[0]))), m)
        for c, m in data.draw(st.lists(
            st.tuples(st.sets(st.sampled_from(cells), min_size=1, max_size=8),
                      st.integers(0, 3)), max_size=12))
    ]
    left = list(range(len(cons)))
    expected = []
    while left:
        group = [left.pop(0)]
        linked = set(cons[group[0]].cells)
        grown = True
        while grown:
            grown = False
            for i in list(left):
                if linked & set(cons[i].cells):
                    left.remove(i)
                    group.append(i)
                    linked |= set(cons[i].cells)
                    grown = True
        expected.append((tuple(sorted(linked, key=lambda c: (c[1], c[0]))),
                         [cons[i] for i in sorted(group)]))
    expected.sort(key=lambda g: (g[0][0][1], g[0][0][0]))
    assert components(cons) == expected
