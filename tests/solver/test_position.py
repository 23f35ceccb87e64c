"""A position's whole-board readings against a plain scan of its cells."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver.position import CellState, Position

_CHARS = "".join(s.value for s in CellState)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.data())
def test_whole_board_readings_match_a_plain_scan(
    width: int, height: int, data: st.DataObject
) -> None:
    """The board is joined once and read from there (a solver asks at every move);
    each reading must be what the cells say."""
    alphabet = data.draw(st.sampled_from([_CHARS, "#F?", "#0123", "#F1"]))
    rows = tuple(data.draw(st.text(alphabet, min_size=width, max_size=width))
                 for _ in range(height))
    position = Position(width, height, 0, rows)
    cells = [(x, y, rows[y][x]) for y in range(height) for x in range(width)]
    assert position.flat == "".join(rows)
    assert position.flags() == tuple((x, y) for x, y, ch in cells if ch == "F")
    assert position.covered() == tuple((x, y) for x, y, ch in cells if ch in "#F?")
    assert position.is_start == (not any(ch.isdigit() for _, _, ch in cells))
    assert position.is_finished == any(ch in "X*!" for _, _, ch in cells)


def test_without_flags_covers_every_flag_and_keeps_the_rest() -> None:
    p = Position.from_rows(["1F#", "F2?", "###"], mines=3)
    lifted = p.without_flags()
    assert lifted.rows == ("1##", "#2?", "###") and lifted.mines == 3
    assert lifted.flags() == () and lifted.without_flags() is lifted
