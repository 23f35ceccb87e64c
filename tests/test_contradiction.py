"""Impossible positions explained, against brute force: the reason's numbers (and the
count, when named) admit no layout, and dropping any one of them admits one."""

from __future__ import annotations

from hypothesis import given, settings

from kaboom.solver.budget import Budget
from kaboom.solver.contradiction import Contradiction, why_impossible
from kaboom.solver.position import Position
from tests import oracle
from tests.strategies import any_numbers


def assert_minimal(position: Position, reason: Contradiction) -> None:
    numbers = [c for c, _ in reason.numbers]
    for c, n in reason.numbers:
        assert position.number(*c) == n
    assert reason.minimal
    assert not oracle.fits(position, numbers, reason.count), reason.text
    for i in range(len(numbers)):
        rest = numbers[:i] + numbers[i + 1 :]
        assert oracle.fits(position, rest, reason.count), (
            f"{reason.text}: does not need {numbers[i]}")
    if reason.count is not None:
        assert reason.count == position.mines
        assert oracle.fits(position, numbers), f"{reason.text}: does not need the count"


@settings(max_examples=400, deadline=None)
@given(position=any_numbers())
def test_an_impossible_position_has_a_minimal_reason(position: Position) -> None:
    possible = next(oracle.layouts(position), None) is not None
    reason = why_impossible(position)
    assert (reason is None) == possible, position.to_text()
    if reason is not None:
        assert_minimal(position, reason)


def test_a_number_with_too_few_cells() -> None:
    position = Position.from_text("mines=1\n# 3\n1 #")
    reason = why_impossible(position)
    assert reason == Contradiction((((1, 0), 3),), None, 2)
    assert reason.text == "the 3 at (1, 0) cannot hold: it asks for 3 mines and has fewer" \
        " covered cells"


def test_numbers_that_cannot_all_hold() -> None:
    position = Position.from_text(
        """mines=2
        # # # #
        0 2 # #
        0 0 1 #"""
    )
    reason = why_impossible(position)
    assert reason is not None and reason.count is None
    assert [c for c, _ in reason.numbers] == [(0, 1), (1, 1), (1, 2)]
    assert reason.text == "the 0 at (0, 1), the 2 at (1, 1) and the 0 at (1, 2) cannot all hold"
    assert_minimal(position, reason)


def test_the_count_with_numbers() -> None:
    position = Position.from_text(
        """mines=1
        # 1 # # 1 #"""
    )
    reason = why_impossible(position)
    assert reason is not None and reason.count == 1
    assert reason.text == "with 1 mine in all, the 1 at (1, 0) and the 1 at (4, 0) cannot" \
        " both hold"
    assert_minimal(position, reason)


def test_the_count_alone() -> None:
    reason = why_impossible(Position.from_text("mines=3\n# 0\n# 0"))
    assert reason == Contradiction((), 3, 2)
    assert reason.text == "3 mines do not fit in the 2 covered cells"


def test_a_possible_position_has_none() -> None:
    assert why_impossible(Position.from_text("mines=1\n# 1\n1 1")) is None


def test_a_wrong_count_on_a_large_board_is_explained() -> None:
    """A 256x256 board from a simulated game, its count set far below what its numbers
    need: the reason is found by counting components (a SAT query over the count found
    nothing in 30 s), well inside a generous budget."""
    from tests.test_analysis import large_position

    position, _ = large_position(5)
    wrong = Position(position.width, position.height, 100, position.rows)
    reason = why_impossible(wrong, Budget(60))
    assert reason is not None and reason.count == 100 and reason.minimal
    assert 1 < len(reason.numbers) < len(wrong.numbers())
    assert reason.text.startswith("with 100 mines in all, ")
