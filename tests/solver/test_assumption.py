"""The assumption method: soundness against enumeration, and a chain it must find."""

from __future__ import annotations

from hypothesis import given, settings

from kaboom.solver.assumption import deduce, solve_assumptions
from kaboom.solver.frontier import Constraint
from kaboom.solver.groups import reduce_groups
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_assumptions_are_sound(params: BoardParams) -> None:
    position = make_position(params)
    truth = oracle.statuses(position)
    result = deduce(position)
    assert all(truth[c] == "s" for c in result.safe), position.to_text()
    assert all(truth[c] == "m" for c in result.mines), position.to_text()


def test_assumption_beats_pairwise_groups() -> None:
    # Three overlapping numbers where no pair decides anything but a chain does:
    # a+b=1, b+c=1, c+d=1, a+d=1 with 3 total... use the mine count: a+b+c+d = 2 only
    # if alternating; with mines_left=1 and no outside, every assumption but one fails.
    a, b, c, d = (0, 0), (1, 0), (2, 0), (3, 0)
    cons = [Constraint((a, b), 1), Constraint((b, c), 1), Constraint((c, d), 1)]
    assert not reduce_groups(cons).safe
    result = solve_assumptions(cons, outside=0, mines_left=2)
    # a=c (mines) or b=d: two solutions, nothing certain
    assert not result.safe
    result = solve_assumptions([*cons, Constraint((a,), 0)], outside=0, mines_left=2)
    assert result.mines == {b, d} and result.safe == {a, c}
