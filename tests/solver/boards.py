"""Hypothesis strategies for small random positions the oracle can enumerate."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from solver.position import Position
from tests import oracle

BoardParams = tuple[int, int, float, float, int]
"""Width, height, mine density, open fraction and seed of a random small position."""

boards: st.SearchStrategy[BoardParams] = st.tuples(
    st.integers(2, 5),
    st.integers(2, 4),
    st.floats(0.05, 0.5),
    st.floats(0.0, 0.9),
    st.integers(0, 2**32),
)


def make_position(params: BoardParams) -> Position:
    w, h, density, open_fraction, seed = params
    rng = random.Random(seed)
    mines = max(1, min(w * h - 1, round(w * h * density)))
    return oracle.random_position(rng, w, h, mines, open_fraction)[0]
