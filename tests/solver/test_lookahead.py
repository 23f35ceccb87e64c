"""The one-move lookahead against brute-force enumeration."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from solver import counting
from solver.frontier import components, frontier_of
from solver.lookahead import outlook
from solver.position import Position
from tests import oracle
from tests.solver.boards import boards, make_position


@settings(max_examples=120, deadline=None)
@given(params=boards)
def test_branches_equal_enumeration(params) -> None:
    position = make_position(params)
    if position.is_start:
        return
    lays = list(oracle.layouts(position))
    fr = frontier_of(position)
    outside = frozenset(fr.outside)
    covered = position.covered()
    for cell in covered:
        if all(cell in lay for lay in lays):
            continue  # a certain mine is never clicked
        free = [c for c in position.neighbours(*cell) if position.is_covered(*c)]
        got = outlook(fr.constraints, outside, fr.mines_left, len(lays), cell, free)
        base = counting.count(
            [cs for _, cs in components(fr.constraints)], len(outside), fr.mines_left
        )
        # reusing the untouched components' tables changes nothing
        assert outlook(fr.constraints, outside, fr.mines_left, len(lays), cell, free,
                       base=base) == got
        by_value: dict[int, list[frozenset]] = {}
        for lay in lays:
            if cell not in lay:
                by_value.setdefault(sum(c in lay for c in free), []).append(lay)
        assert {b.mines: b.weight for b in got.branches} == {
            v: len(ls) for v, ls in by_value.items()
        }, position.to_text()
        assert got.dead == (len(by_value) == 1)
        for b in got.branches:
            ls = by_value[b.mines]
            others = [c for c in covered if c != cell]
            safety = {c: sum(c not in lay for lay in ls) / len(ls) for c in others}
            assert b.cleared == sum(1 for s in safety.values() if s == 1.0)
            edge = (set(fr.cells) | set(free)) - {cell}  # the frontier after the click
            assert b.safe == {c for c in edge if safety[c] == 1.0}
            living = sorted((s for s in safety.values() if s > 0), reverse=True)
            best = living[0] if living else 1.0
            second = living[1] if len(living) > 1 else best
            assert b.best == pytest.approx(best, abs=1e-12)
            assert b.second == pytest.approx(second, abs=1e-12)
        assert got.safety == pytest.approx(1 - sum(cell in lay for lay in lays) / len(lays))


def test_common_safe_and_scores() -> None:
    # The 1 at (0, 0) sees (1, 0), (0, 1), (1, 1): one mine.  With 1 mine in all,
    # everything else is safe, so whatever (2, 0) shows, (2, 1) and (2, 2) stay safe.
    position = Position.from_rows(["1###", "####", "####"], 1)
    fr = frontier_of(position)
    free = [c for c in position.neighbours(3, 0) if position.is_covered(*c)]
    o = outlook(fr.constraints, frozenset(fr.outside), fr.mines_left, 3, (3, 0), free)
    assert o.safety == 1.0 and o.dead  # (3, 0) can only show 0
    assert o.secondary == pytest.approx(1.0)  # outside cells are certainly safe afterwards
    assert {(2, 0), (2, 1), (3, 1)} <= o.common_safe()
