"""Exact probabilities and layout draws against brute-force enumeration."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver.counting import ROUNDED_BITS, combine, probabilities, tabulate
from kaboom.solver.frontier import Constraint
from kaboom.solver.position import Cell, Position
from kaboom.solver.sampling import draw_layout, sample_layout, sampler
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


def _chi2_ok(seen: Counter[frozenset[Cell]], layouts: list[frozenset[Cell]], draws: int) -> None:
    """Every draw is a layout, and their spread passes a chi-square test against the
    uniform one (5 standard deviations above the mean: a failure at p < 1e-6)."""
    assert set(seen) <= set(layouts)
    expected = draws / len(layouts)
    chi2 = sum((seen.get(lay, 0) - expected) ** 2 / expected for lay in layouts)
    dof = len(layouts) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)


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
    _chi2_ok(Counter(sample_layout(position, rng) for _ in range(8_000)), all_layouts, 8_000)


def test_fixed_cell_is_respected() -> None:
    position = Position.from_text("mines=1\n1 #\n# #")
    for seed in range(20):
        layout = sample_layout(position, random.Random(seed), fixed={(1, 1): False})
        assert (1, 1) not in layout and len(layout) == 1


def test_component_counts_by_mines() -> None:
    # "exactly 1 of a, b" and "exactly 1 of b, c": solutions {b} (1 mine) and {a, c} (2 mines).
    a, b, c = (0, 0), (1, 0), (2, 0)
    table = tabulate([Constraint((a, b), 1), Constraint((b, c), 1)], counter=None)
    assert table.totals == {1: 1, 2: 1}
    assert dict(zip(table.cells, table.cell_counts[2], strict=True)) == {a: 1, b: 0, c: 1}


def test_one_count_draws_many_layouts_uniformly() -> None:
    """A sampler counts the position once; its draws, with a cell fixed safe, are
    uniform over the layouts that agree."""
    position = Position.from_text(
        """
        mines=5
        # # # # #
        # 2 # 3 #
        # # # # #
        """
    )
    fixed = {(0, 0): False}
    layouts = [lay for lay in oracle.layouts(position) if (0, 0) not in lay]
    assert len(layouts) > 30
    draws = sampler(position, fixed=fixed)
    rng = random.Random(3)
    _chi2_ok(Counter(draws.sample(rng) for _ in range(6_000)), layouts, 6_000)


def test_odds_beside_a_huge_outside_equal_the_exact_ones() -> None:
    """Forty chains "exactly 1 of a, b; exactly 1 of b, c" (b alone, or a and c) beside
    9,000 outside cells with 4,000 mines: the outside binomials run to thousands of
    bits, and the odds cut them to their leading ones; every probability still equals
    the exact one to the float, and the zeros and ones stay exact."""
    tables = []
    for i in range(40):
        a, b, c = (3 * i, 0), (3 * i + 1, 0), (3 * i + 2, 0)
        tables.append(tabulate([Constraint((a, b), 1), Constraint((b, c), 1)], counter=None))
    exact = combine(tables, 9_000, 4_000)
    cut = combine(tables, 9_000, 4_000, ROUNDED_BITS)
    assert cut.shift > 1000 and exact.shift == 0
    for cell in exact.mine_weight:
        assert cut.probability(cell) == pytest.approx(exact.probability(cell), rel=1e-15)
    assert cut.outside_probability == pytest.approx(exact.outside_probability, rel=1e-15)
    nothing_outside = combine(tables, 9_000, 40)  # one mine a chain at least: 40 fill them
    assert combine(tables, 9_000, 40, ROUNDED_BITS).safe() == nothing_outside.safe()
    assert nothing_outside.outside_mine_weight == 0


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
    _chi2_ok(seen, all_layouts, draws)


def test_a_256x256_board_is_counted_and_drawn_from() -> None:
    """A 256x256 board from a simulated game (hundreds of components beside 58,000
    outside cells, whose binomials are cut to their leading bits): its odds add up to
    the mine count, as expectations do, and a drawn layout fits every number."""
    from kaboom.solver.knowledge import classify
    from tests.test_analysis import large_position

    position, _ = large_position(5)
    known = classify(position).decided()
    odds = probabilities(position, known=known)
    assert sum(odds.cells.values()) == pytest.approx(position.mines, rel=1e-9)
    layout = sampler(position, known=known).sample(random.Random(2))
    assert len(layout) == position.mines
    for (x, y), n in position.numbers():
        assert sum(nb in layout for nb in position.neighbours(x, y)) == n
    assert not layout & {c for c, m in known.items() if not m}
