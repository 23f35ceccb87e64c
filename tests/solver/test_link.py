"""Position links: every position round-trips, and a broken link says what is wrong."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.link import from_link, to_link
from kaboom.solver.position import Position
from kaboom.solver.simulator import SimulatedGame

_CHARS = "#F?012345678X*!"


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any well-formed position, runs included (a few characters drawn per board)."""
    width, height = draw(st.integers(1, 40)), draw(st.integers(1, 12))
    alphabet = draw(st.text(st.sampled_from(_CHARS), min_size=1, max_size=4))
    flat = draw(st.text(st.sampled_from(alphabet), min_size=width * height,
                        max_size=width * height))
    rows = [flat[y * width : (y + 1) * width] for y in range(height)]
    return Position.from_rows(rows, draw(st.integers(0, width * height)))


@settings(max_examples=500, deadline=None)
@given(position=positions())
def test_every_position_round_trips(position: Position) -> None:
    word = to_link(position)
    assert from_link(word) == position
    assert all(ch.isascii() and (ch.isalnum() or ch in "-._~") for ch in word), word


def test_a_played_board_is_short() -> None:
    game = SimulatedGame(9, 9, 10, rule="opening", seed=2)
    game.reveal(4, 4)
    word = to_link(game.position())
    assert word == "9x9m10.H15cb2H2c2dcba2H2ba6H2ba6H2ca6H2ca6b3a15"
    assert to_link(Position.new(256, 256, 13000)) == "256x256m13000.H65536"


@pytest.mark.parametrize(("word", "says"), [
    ("", "starts with WIDTHxHEIGHTmMINES"),
    ("9x9.H81", "starts with WIDTHxHEIGHTmMINES"),
    ("0x9m1.H", "starts with WIDTHxHEIGHTmMINES"),
    ("2x2m1.H3z", "character 8 of the link, 'z', is not a cell letter"),
    ("2x2m1.H5", "does not fit the 2x2 board"),
    ("2x2m1.H0", "does not fit"),
    ("2x2m1.H03", "does not fit"),
    ("2x2m1.H3", "the link holds 3 cells; a 2x2 board has 4"),
    ("99999x99999m1.H99999999999", "does not fit"),
    ("2x2m5.H4", "5 mines do not fit on the board"),
])
def test_a_broken_link_says_what_is_wrong(word: str, says: str) -> None:
    with pytest.raises(InvalidPositionError, match=says):
        from_link(word)
