"""The bot's move choice against the brute-force oracle: complete deduction, legal guesses."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.bots.base import choose
from kaboom.solver.position import MoveKind, Position
from tests import oracle


def check_choice(position: Position, outside_guess: bool) -> None:
    """Asserts what a complete bot must do in ``position`` (any consistent one)."""
    status = oracle.statuses(position)
    choice = choose(position, outside_guess=outside_guess)
    safe = {c for c, s in status.items() if s == "s"}
    cells = [(m.x, m.y) for m in choice.moves]
    if safe:
        # Never a guess while a safe cell exists, frontier or outside, count included.
        assert choice.certain, f"guessed while {sorted(safe)} are safe:\n{position}"
        for move in choice.moves:
            assert (move.x, move.y) in safe, f"{move} is not safe:\n{position}"
            if move.kind is MoveKind.FLAG:
                assert position.char(move.x, move.y) == "F"  # only to lift a wrong flag
        # Complete: some safe cell is always played (the solver may stop at the cheap ones).
        assert choice.moves, f"no move while {sorted(safe)} are safe:\n{position}"
        return
    playable = [c for c, s in status.items() if s != "m" and position.char(*c) != "F"]
    if not playable:
        assert not [m for m in choice.moves if m.kind is MoveKind.REVEAL]
        return
    assert len(choice.moves) == 1, f"more than one guess: {choice}"
    move, cell = choice.moves[0], cells[0]
    if move.kind is MoveKind.FLAG:  # the guess lies under a flag: lift it first
        assert position.char(*cell) == "F"
    else:
        assert move.kind is MoveKind.REVEAL and not choice.certain
        assert position.char(*cell) != "F"
    assert status[cell] == "u", f"guessed a certain mine {cell}:\n{position}"
    front = set(position.frontier())
    if not outside_guess and cell not in front:
        assert all(status[c] == "m" for c in front), f"outside guess {cell}:\n{position}"


boards = st.tuples(
    st.integers(2, 5), st.integers(2, 4), st.floats(0.05, 0.45), st.floats(0.1, 0.9),
    st.integers(0, 2**32), st.booleans(),
)


@settings(max_examples=600, deadline=None)
@given(boards)
def test_choice_matches_oracle(board: tuple[int, int, float, float, int, bool]) -> None:
    width, height, density, open_fraction, seed, outside = board
    rng = random.Random(seed)
    mines = max(1, min(width * height - 1, round(density * width * height)))
    position, _ = oracle.random_position(rng, width, height, mines, open_fraction)
    if position.is_start:
        return
    check_choice(position, outside)


@pytest.mark.parametrize(
    "diagram",
    [
        # One mine, pinned next to the 1: only the count proves the outside cells safe.
        "mines=1\n1 # # #\n# # # #\n# # # #",
        # The count puts mines on every outside cell, so a frontier cell must be safe.
        "mines=3\n1 # #\n1 # #\n# # 1",
        "mines=3\n# 1 #\n# # #\n# # 1",
    ],
)
def test_count_only_deductions(diagram: str) -> None:
    position = Position.from_text(diagram)
    assert "s" in oracle.statuses(position).values()
    assert choose(position).certain
    check_choice(position, False)


def test_safe_cell_under_a_flag_is_unflagged_first() -> None:
    # Both cells next to the 1 cannot be mines... only (1,0) can: (0,1) is safe but flagged.
    position = Position.from_text("mines=1\n1 #\nF #")
    status = oracle.statuses(position)
    assert status[(0, 1)] != "m"
    check_choice(position, False)
