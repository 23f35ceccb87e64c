"""Hypothesis strategies for small random positions the oracle can enumerate."""

from __future__ import annotations

import random
from collections.abc import Mapping

from hypothesis import strategies as st

from kaboom.solver import counting
from kaboom.solver.frontier import components, frontier_of
from kaboom.solver.guess import Situation
from kaboom.solver.position import Cell, Position
from kaboom.solver.profiles import PROFILES, Profile
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


def make_situation(position: Position, known: Mapping[Cell, bool] | None = None,
                   profile: Profile = PROFILES["strong"]) -> Situation:
    """The guess's view of ``position`` with ``known`` cells decided, counted exactly;
    every undecided cell is a candidate."""
    known = dict(known or {})
    decided = frontier_of(position).fold(known)
    count = counting.count([cs for _, cs in components(decided.constraints)],
                           decided.outside_count, decided.mines_left)
    undecided = [c for c in position.covered() if c not in known]
    probs = {c: count.probability(c) for c in undecided}
    return Situation(position, profile, decided, known, count, probs, undecided, undecided)
