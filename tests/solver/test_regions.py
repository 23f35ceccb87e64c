"""Closed regions against brute-force enumeration."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kaboom.solver import endgame, regions
from kaboom.solver.frontier import frontier_of
from kaboom.solver.position import Cell, Position
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


def _known(position: Position, lays: list[frozenset[Cell]]) -> dict[Cell, bool]:
    return {
        c: all(c in lay for lay in lays)
        for c in position.covered()
        if all(c in lay for lay in lays) or not any(c in lay for lay in lays)
    }


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_regions_are_closed_and_complete(params: BoardParams) -> None:
    position = make_position(params)
    lays = list(oracle.layouts(position))
    known = _known(position, lays)
    for region in regions.closed_regions(position, frontier_of(position, known)):
        cells = set(region.cells)
        for c in cells:
            for n in position.neighbours(*c):
                assert n in cells or n in known or not position.is_covered(*n)
        restricted = {lay & cells for lay in lays}
        got = regions.solutions(region)
        assert len(got) == region.count == len(set(got))
        assert set(got) == restricted
        assert all(len(s) == region.mines for s in got)
        best = regions.best_move(position, region)
        assert best is not None
        cell, win = best
        assert cell in cells
        assert win <= sum(cell not in s for s in got) / len(got) + 1e-12


@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_a_region_that_is_the_whole_board_is_the_endgame(params: BoardParams) -> None:
    position = make_position(params)
    lays = list(oracle.layouts(position))
    known = _known(position, lays)
    undecided = [c for c in position.covered() if c not in known]
    found = regions.closed_regions(position, frontier_of(position, known))
    whole = [r for r in found if set(r.cells) == set(undecided)]
    if not whole:
        return
    best = regions.best_move(position, whole[0])
    assert best is not None
    _, win = best
    expected = endgame.best_move(position, known, undecided, max_layouts=10**6)
    assert expected is not None
    assert win == pytest.approx(expected[1], abs=1e-12)


def test_a_walled_pair_is_a_coin_flip() -> None:
    # (0, 0) and (1, 0) hold the 1's mine and touch nothing else that is covered
    position = Position.from_rows(["##", "11"], 1)
    (region,) = regions.closed_regions(position, frontier_of(position))
    assert set(region.cells) == {(0, 0), (1, 0)} and region.mines == 1
    best = regions.best_move(position, region)
    assert best is not None and best[1] == pytest.approx(0.5)
