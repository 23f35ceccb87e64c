"""Proofs against brute force: each one proves its cell and no number in it can go."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kaboom.solver.errors import InvalidPositionError, NoProofError
from kaboom.solver.position import Position
from kaboom.solver.proof import Proof, prove
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position
from tests.strategies import any_numbers


def assert_proves(position: Position, proof: Proof) -> None:
    """The named numbers (and the count, if named) alone leave the cell one value, and
    dropping any one of them leaves it both."""
    numbers = [c for c, _ in proof.numbers]
    for c, n in proof.numbers:
        assert position.number(*c) == n
    assert proof.minimal
    assert oracle.values(position, proof.cell, numbers, proof.count) == {proof.mine}
    for i in range(len(numbers)):
        rest = numbers[:i] + numbers[i + 1 :]
        assert oracle.values(position, proof.cell, rest, proof.count) == {True, False}, (
            f"the proof of {proof.cell} does not need {numbers[i]}"
        )
    if proof.count is not None:
        assert proof.count == position.mines
        assert oracle.values(position, proof.cell, numbers) == {True, False}, (
            f"the proof of {proof.cell} does not need the count"
        )


@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_every_decided_cell_has_a_minimal_proof(params: BoardParams) -> None:
    position = make_position(params)
    for cell, status in oracle.statuses(position).items():
        if status == "u":
            with pytest.raises(NoProofError):
                prove(position, cell)
            continue
        proof = prove(position, cell)
        assert proof.mine == (status == "m"), position.to_text()
        assert_proves(position, proof)


def test_two_numbers_leave_no_room() -> None:
    position = Position.from_text(
        """mines=3
        1 1 1 #
        # # # #
        # # # #"""
    )
    proof = prove(position, (2, 1))
    assert proof == Proof((2, 1), False, (((0, 0), 1), ((1, 0), 1)), None, 9)
    assert proof.text == "the 1 at (0, 0) and the 1 at (1, 0) leave no room for a mine at (2, 1)"
    assert_proves(position, proof)


def test_numbers_need_a_mine() -> None:
    position = Position.from_text(
        """mines=1
        0 1 #
        0 1 #
        0 0 0"""
    )
    proof = prove(position, (2, 0))
    assert proof.mine and proof.count is None
    assert proof.text == "the 1 at (1, 0) and the 0 at (1, 2) need a mine at (2, 0)"
    assert_proves(position, proof)


def test_the_count_with_a_number_keeps_mines_away() -> None:
    position = Position.from_text(
        """mines=2
        # # #
        2 # #
        # # 0"""
    )
    proof = prove(position, (2, 0))
    assert not proof.mine and proof.count == 2 and [c for c, _ in proof.numbers] == [(0, 1)]
    assert proof.text == (
        "the 2 mines must all be around the 2 at (0, 1), so none is left for (2, 0)"
    )
    assert_proves(position, proof)


def test_the_count_with_numbers_next_to_the_cell() -> None:
    position = Position.from_text(
        """mines=4
        # 3 # #
        # 3 # 2
        # 2 # #"""
    )
    proof = prove(position, (0, 0))
    assert proof.mine and proof.count == 4
    assert proof.text.startswith("with 4 mines in all, ")
    assert_proves(position, proof)


def test_the_count_alone() -> None:
    full = Position.from_text("mines=4\n# # # #")
    proof = prove(full, (1, 0))
    assert (proof.mine, proof.numbers, proof.count) == (True, (), 4)
    assert proof.text == "the 4 covered cells hold all 4 mines, so (1, 0) is one"
    assert_proves(full, proof)
    empty = Position.from_text("mines=0\n# # 0")
    proof = prove(empty, (0, 0))
    assert (proof.mine, proof.numbers, proof.count) == (False, (), 0)
    assert proof.text == "no mines are left, so (0, 0) is safe"


def test_open_and_undecided_cells_have_no_proof() -> None:
    position = Position.from_text("mines=1\n1 #\n# #")
    with pytest.raises(NoProofError, match="not a covered cell"):
        prove(position, (0, 0))
    with pytest.raises(NoProofError, match="not decided"):
        prove(position, (1, 1))


@settings(max_examples=300, deadline=None)
@given(position=any_numbers(3, "##0123"))
def test_a_proof_never_rests_on_numbers_that_cannot_all_hold(position: Position) -> None:
    """Numbers that contradict each other contradict either claim about a cell: a proof
    from them (the 2 of ``2#`` "left no room" for a mine) proves nothing.  Every proof
    given names numbers that can all hold and leave the cell one value; otherwise the
    answer is InvalidPositionError (a 3 with one covered neighbour raised a bare
    ValueError) or NoProofError."""
    for cell in position.covered():
        try:
            proof = prove(position, cell)
        except (InvalidPositionError, NoProofError):
            continue
        numbers = [c for c, _ in proof.numbers]
        assert oracle.values(position, cell, numbers, proof.count) == {proof.mine}, (
            position.to_text(), cell, proof.text)
