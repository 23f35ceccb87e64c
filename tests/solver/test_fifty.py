"""Unavoidable 50/50s and 50/50 pockets against brute-force enumeration."""

from __future__ import annotations

from hypothesis import given, settings

from solver.fifty import forced_pair, influence, pockets
from solver.frontier import frontier_of
from solver.position import Position
from tests import oracle
from tests.solver.boards import boards, make_position


def _known(position: Position, lays: list[frozenset]) -> dict:
    return {
        c: all(c in lay for lay in lays)
        for c in position.covered()
        if all(c in lay for lay in lays) or not any(c in lay for lay in lays)
    }


def _swap(lay: frozenset, pairs: dict) -> frozenset:
    return frozenset(pairs.get(c, c) for c in lay)


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_forced_pair_is_a_symmetric_coin_flip(params) -> None:
    position = make_position(params)
    lays = list(oracle.layouts(position))
    known = _known(position, lays)
    fr = frontier_of(position)
    pair = forced_pair(position, fr.fold(known).constraints, known)
    if pair is None:
        return
    a, b = pair
    assert all((a in lay) != (b in lay) for lay in lays)
    # swapping the two cells maps the consistent layouts onto themselves: no number
    # can ever tell them apart
    assert {_swap(lay, {a: b, b: a}) for lay in lays} == set(lays)


def test_forced_pairs_and_pockets_do_occur() -> None:
    # the property tests above are not vacuous: small random boards hold both
    pairs = found = 0
    for seed in range(3000):
        position = make_position((4, 3, 0.3, 0.6, seed))
        lays = list(oracle.layouts(position))
        known = _known(position, lays)
        if forced_pair(position, frontier_of(position, known).constraints, known):
            pairs += 1
        mines_left = position.mines - sum(known.values())
        found += len(pockets(position, known, mines_left, lambda forced: 1))
    assert pairs > 0 and found > 0


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_pocket_weights_equal_enumeration(params) -> None:
    position = make_position(params)
    lays = list(oracle.layouts(position))
    known = _known(position, lays)
    mines_left = position.mines - sum(known.values())

    def count(forced) -> int:
        return sum(all((c in lay) == m for c, m in forced.items()) for lay in lays)

    found = pockets(position, known, mines_left, count)
    for p in found:
        if len(p.cells) == 2:
            a, b = p.cells
            arrangement, mirror = {a: True, b: False}, {a: b, b: a}
        else:
            tl, tr, bl, br = p.cells
            arrangement = {tl: True, br: True, tr: False, bl: False}
            mirror = {tl: tr, tr: tl, bl: br, br: bl}
        formed = [
            lay for lay in lays
            if all(c in lay for c in p.enablers)
            and all((c in lay) == m for c, m in arrangement.items())
        ]
        assert p.weight == len(formed) > 0
        # where the pocket has formed, the mirrored arrangement fits too: a true 50/50
        assert all(_swap(lay, mirror) in set(lays) for lay in formed)
        for c in p.cells:
            assert influence(found, c) >= p.weight
