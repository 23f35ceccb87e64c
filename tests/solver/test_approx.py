"""The iterative approximation: seed 000's worked example, and basic sanity."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kaboom.solver.approx import approximate, iterate
from kaboom.solver.position import Position
from tests.solver.boards import BoardParams, boards, make_position

# Seed 000: group A (3 own cells + 4 shared) holds 4 mines, group B (3 own + the same
# 4 shared) holds 2.  Start: 4/7 = 0.57, 2/7 = 0.28, shared 1 - (1-0.57)(1-0.28) = 0.69.
A_OWN = [(0, 0), (1, 0), (2, 0)]
SHARED = [(3, 0), (4, 0), (5, 0), (6, 0)]
B_OWN = [(7, 0), (8, 0), (9, 0)]
GROUPS = [(A_OWN + SHARED, 4), (SHARED + B_OWN, 2)]


def test_seed_000_start_values() -> None:
    p = iterate(GROUPS, rounds=0)
    assert p[A_OWN[0]] == pytest.approx(0.57, abs=0.005)
    assert p[B_OWN[0]] == pytest.approx(0.28, abs=0.01)  # the seed truncates 2/7
    assert p[SHARED[0]] == pytest.approx(0.69, abs=0.005)


def test_seed_000_first_round() -> None:
    # A: 4 / (3*0.57 + 4*0.69) = 0.895 -> shared 0.618; then B: 2 / (...) = 0.604
    # -> B's own 0.169 and shared 0.373 (the seed rounds at every step).
    p = iterate(GROUPS, rounds=1, tolerance=0.0)
    assert p[B_OWN[0]] == pytest.approx(0.169, abs=0.005)
    assert p[SHARED[0]] == pytest.approx(0.373, abs=0.005)


def test_seed_000_converges_to_consistent_sums() -> None:
    p = iterate(GROUPS, rounds=500, tolerance=1e-12)
    for cells, mines in GROUPS:
        assert sum(p[c] for c in cells) == pytest.approx(mines, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_probabilities_are_probabilities(params: BoardParams) -> None:
    position = make_position(params)
    probs = approximate(position).cells
    assert set(probs) == set(position.covered())
    assert all(0.0 <= p <= 1.0 for p in probs.values())


def test_zero_makes_neighbours_safe() -> None:
    position = Position.from_rows(["0##", "###", "###"], 2)
    probs = approximate(position).cells
    assert probs[(1, 0)] == 0.0 and probs[(0, 1)] == 0.0 and probs[(1, 1)] == 0.0
