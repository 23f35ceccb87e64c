"""Exact probabilities and layout sampling against brute-force enumeration."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver.frontier import Constraint
from kaboom.solver.position import Cell, Position
from kaboom.solver.probability import count_component, draw_layout, probabilities, sample_layout
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_probabilities_equal_enumeration(params: BoardParams) -> None:
    position = make_position(params)
    expected = oracle.probabilities(position)
    got = probabilities(position)
    for cell, p in expected.items():
        assert got.of(cell) == pytest.approx(p, abs=1e-9), (cell, position.to_text())


@settings(max_examples=100, deadline=None)
@given(params=boards, seed=st.integers(0, 1000))
def test_sample_is_a_consistent_layout(params: BoardParams, seed: int) -> None:
    position = make_position(params)
    consistent = set(oracle.layouts(position))
    layout = sample_layout(position, random.Random(seed))
    assert layout in consistent


def test_sampling_is_uniform_over_consistent_layouts() -> None:
    """Chi-square test of 8,000 draws against the exact uniform distribution."""
    position = Position.from_text(
        """
        mines=6
        # # # # #
        # 2 # 3 #
        # # # # #
        # # 1 # #
        """
    )
    all_layouts = list(oracle.layouts(position))
    assert len(all_layouts) > 50
    rng = random.Random(7)
    draws = 8_000
    seen = Counter(sample_layout(position, rng) for _ in range(draws))
    assert set(seen) <= set(all_layouts)
    expected = draws / len(all_layouts)
    chi2 = sum((seen.get(lay, 0) - expected) ** 2 / expected for lay in all_layouts)
    dof = len(all_layouts) - 1
    # Mean dof, sd sqrt(2 dof): 5 sd above is a failure at p < 1e-6.
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)


def test_fixed_cell_is_respected() -> None:
    position = Position.from_text("mines=1\n1 #\n# #")
    for seed in range(20):
        layout = sample_layout(position, random.Random(seed), fixed={(1, 1): False})
        assert (1, 1) not in layout and len(layout) == 1


def test_component_counts_by_mines() -> None:
    # "exactly 1 of a, b" and "exactly 1 of b, c": solutions {b} (1 mine) and {a, c} (2 mines).
    a, b, c = (0, 0), (1, 0), (2, 0)
    cc = count_component([a, b, c], [Constraint((a, b), 1), Constraint((b, c), 1)])
    assert cc.count(1) == 1 and cc.count(2) == 1
    assert cc.hits(2) == [1, 0, 1]


def test_lazy_layout_stays_uniform_when_asked_adaptively() -> None:
    """Outside cells decided one at a time, in an order that depends on the answers
    (as a flood fill does), still give every consistent layout the same chance."""
    position = Position.from_text(
        """
        mines=4
        1 # # # #
        # # # # #
        # # # # #
        """
    )
    all_layouts = list(oracle.layouts(position))
    rng = random.Random(11)
    draws = 8_000
    seen: Counter[frozenset[Cell]] = Counter()
    for _ in range(draws):
        layout = draw_layout(position, rng)
        x, y = 4, 2
        answers = {}
        for _ in range(5):  # walk left while safe, up when a mine is met
            answers[(x, y)] = (x, y) in layout
            x, y = (x - 1, y) if not answers[(x, y)] else (x, max(0, y - 1))
        full = layout.materialize()
        assert all((c in full) == m for c, m in answers.items())
        seen[full] += 1
    assert set(seen) <= set(all_layouts)
    expected = draws / len(all_layouts)
    chi2 = sum((seen.get(lay, 0) - expected) ** 2 / expected for lay in all_layouts)
    dof = len(all_layouts) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)
