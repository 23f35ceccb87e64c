"""Hypothesis strategies shared by the tests: positions drawn without a layout behind them."""

from __future__ import annotations

from hypothesis import strategies as st

from kaboom.solver.position import Position


@st.composite
def any_numbers(draw: st.DrawFn, max_side: int = 4, cells: str = "###F0123") -> Position:
    """Boards of 1 to ``max_side`` a side whose cells are drawn from ``cells`` at random,
    with any mine count: most of them impossible."""
    width, height = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    rows = ["".join(draw(st.sampled_from(cells)) for _ in range(width))
            for _ in range(height)]
    return Position.from_rows(rows, draw(st.integers(0, width * height)))
