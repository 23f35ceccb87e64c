"""The matrix method: seed 001's case-3 matrix, and soundness against enumeration."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings

from kaboom.solver.matrix import deduce, eliminate, read_rows
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


def test_seed_001_case_3() -> None:
    rows = [
        [1, 1, 1, 0, 0, 0, 1],
        [0, 1, 1, 1, 0, 0, 1],
        [0, 0, 1, 1, 1, 0, 2],
        [0, 0, 0, 1, 1, 1, 2],
    ]
    reduced = eliminate([[Fraction(v) for v in r] for r in rows])
    # the seed's second row: x1 - x4 = -1, so cell 4 is a mine and cell 1 is safe
    assert [0, 1, 0, 0, -1, 0, -1] in [[int(v) for v in r] for r in reduced]
    assert read_rows(reduced) == {1: False, 4: True}


def test_row_reading_rules() -> None:
    f = Fraction
    assert read_rows([[f(1), f(1), f(0), f(-1), f(2)]]) == {0: True, 1: True, 3: False}
    assert read_rows([[f(1), f(1), f(0), f(0)]]) == {0: False, 1: False}
    assert read_rows([[f(-1), f(-1), f(-2)]]) == {0: True, 1: True}
    assert read_rows([[f(1), f(-1), f(0)]]) == {}


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_matrix_is_sound(params: BoardParams) -> None:
    position = make_position(params)
    truth = oracle.statuses(position)
    result = deduce(position)
    assert all(truth[c] == "s" for c in result.safe), position.to_text()
    assert all(truth[c] == "m" for c in result.mines), position.to_text()
