"""The group method: sound against enumeration, and seed 000's subtraction example."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import Constraint
from kaboom.solver.groups import Group, deduce, reduce_groups
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_groups_are_sound(params: BoardParams) -> None:
    position = make_position(params)
    truth = oracle.statuses(position)
    result = deduce(position)
    assert all(truth[c] == "s" for c in result.safe), position.to_text()
    assert all(truth[c] == "m" for c in result.mines), position.to_text()


def test_seed_000_subset_example() -> None:
    # (5678, 2) and (5, 1) -> (678, 1) and (5, 1); then 5 is a mine.
    c = {i: (i, 0) for i in (5, 6, 7, 8)}
    result = reduce_groups(
        [Constraint((c[5], c[6], c[7], c[8]), 2), Constraint((c[5],), 1)]
    )
    assert result.mines == {c[5]}
    assert Group(frozenset({c[6], c[7], c[8]}), 1) in result.groups


def test_overlap_rule_seed_001_case_4() -> None:
    # "1" over cells 1,2,3 and "1" over cells 2,3: cell 1 is safe.
    a, b, d = (1, 0), (2, 0), (3, 0)
    result = reduce_groups([Constraint((a, b, d), 1), Constraint((b, d), 1)])
    assert result.safe == {a}


def test_overlap_forces_mines_outside() -> None:
    # A = {x, y} with 1 mine, B = {y, z, w} with 3 mines -> overlap y is a mine... and
    # the mirror: B - A = {z, w} all mines, A - B = {x} safe.
    x, y, z, w = (0, 0), (1, 0), (2, 0), (3, 0)
    result = reduce_groups([Constraint((x, y), 1), Constraint((y, z, w), 3)])
    assert result.safe == {x}
    assert result.mines == {y, z, w}


def test_seed_002_subtraction_pattern() -> None:
    # 1-2-1 on a wall: the 2's private cells: numbers over a row of covered cells
    # "1 2 1" above cells a b c d e -> b and d are mines, a, c, e safe.
    a, b, c, d, e = ((i, 1) for i in range(5))
    cons = [
        Constraint((a, b, c), 1),  # the 1 over b
        Constraint((b, c, d), 2),  # the 2 over c
        Constraint((c, d, e), 1),  # the 1 over d
    ]
    result = reduce_groups(cons)
    assert result.mines == {b, d}
    assert result.safe == {a, c, e}


_cells = [(x, y) for y in range(2) for x in range(4)]
_systems = st.lists(
    st.tuples(st.sets(st.sampled_from(_cells), min_size=1), st.integers(0, 3)),
    min_size=1, max_size=6,
)
"""Random constraints over eight cells, as (cells, mines) with mines capped by
:func:`_constraints` at the cells' number."""


def _constraints(systems: list[tuple[set[tuple[int, int]], int]]) -> list[Constraint]:
    return [Constraint(tuple(sorted(c)), min(m, len(c))) for c, m in systems]


@settings(max_examples=300, deadline=None)
@given(
    systems=_systems,
    stop_at_safe=st.booleans(),
)
def test_groups_hold_in_every_solution(
    systems: list[tuple[set[tuple[int, int]], int]], stop_at_safe: bool
) -> None:
    """Random constraints against every assignment of their cells: what the compiled
    fixpoint proves, and every group it leaves, holds in each solution, and it raises
    only when there is none."""
    cons = _constraints(systems)
    cells = sorted({c for con in cons for c in con.cells})
    solutions = [
        {c for c, bit in zip(cells, bits, strict=True) if bit}
        for bits in itertools.product((0, 1), repeat=len(cells))
        if all(sum(bit for c, bit in zip(cells, bits, strict=True) if c in con.cells)
               == con.mines for con in cons)
    ]
    try:
        result = reduce_groups(cons, stop_at_safe=stop_at_safe)
    except InvalidPositionError:
        assert not solutions
        return
    for mines in solutions:
        assert not result.safe & mines
        assert result.mines <= mines
        assert all(len(g.cells & mines) == g.mines for g in result.groups)


@settings(max_examples=100, deadline=None)
@given(
    systems=_systems,
    stop_at_safe=st.booleans(),
)
def test_copies_across_many_words_each_get_the_single_result(
    systems: list[tuple[set[tuple[int, int]], int]], stop_at_safe: bool
) -> None:
    """The compiled fixpoint keeps its groups as bitsets of 64-cell words: 25 disjoint
    copies of one system (200 cells, their constraints interleaved so that each copy's
    cells spread over the words) must each come out as the system alone does."""
    cons = _constraints(systems)
    copies = 25

    def shifted(cells: frozenset[tuple[int, int]] | tuple[tuple[int, int], ...], k: int
                ) -> frozenset[tuple[int, int]]:
        return frozenset((x + 4 * k, y) for x, y in cells)

    many = [Constraint(tuple(sorted(shifted(con.cells, k))), con.mines)
            for con in cons for k in range(copies)]
    try:
        one = reduce_groups(cons, stop_at_safe=stop_at_safe)
    except InvalidPositionError:
        with pytest.raises(InvalidPositionError):
            reduce_groups(many, stop_at_safe=stop_at_safe)
        return
    result = reduce_groups(many, stop_at_safe=stop_at_safe)
    assert result.safe == frozenset().union(*(shifted(one.safe, k) for k in range(copies)))
    assert result.mines == frozenset().union(*(shifted(one.mines, k) for k in range(copies)))
    assert sorted((sorted(g.cells), g.mines) for g in result.groups) == sorted(
        (sorted(shifted(g.cells, k)), g.mines) for g in one.groups for k in range(copies)
    )
