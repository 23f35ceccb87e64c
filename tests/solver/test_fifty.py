"""Unavoidable 50/50s and 50/50 pockets against brute-force enumeration."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kaboom.solver._kernels.fifty import pocket_places
from kaboom.solver.fifty import forced_pair, influence, pockets
from kaboom.solver.frontier import frontier_of
from kaboom.solver.position import Cell, Position
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position, make_situation


def _known(position: Position, lays: list[frozenset[Cell]]) -> dict[Cell, bool]:
    return {
        c: all(c in lay for lay in lays)
        for c in position.covered()
        if all(c in lay for lay in lays) or not any(c in lay for lay in lays)
    }


def _swap(lay: frozenset[Cell], pairs: dict[Cell, Cell]) -> frozenset[Cell]:
    return frozenset(pairs.get(c, c) for c in lay)


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_forced_pair_is_a_symmetric_coin_flip(params: BoardParams) -> None:
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
@given(params=boards, walls=st.sampled_from([(1, 0), (3, 3)]))
def test_pocket_weights_equal_enumeration(params: BoardParams, walls: tuple[int, int]) -> None:
    position = make_position(params)
    lays = list(oracle.layouts(position))
    # with three missing mines allowed nearly every pair is a pocket: keep the
    # enumeration of each one's layouts small
    assume(walls == (1, 0) or len(lays) <= 500)
    known = _known(position, lays)
    mines_left = position.mines - sum(known.values())

    def count(forced: Mapping[Cell, bool]) -> int:
        return sum(all((c in lay) == m for c, m in forced.items()) for lay in lays)

    pair_walls, box_walls = walls
    found = pockets(position, known, mines_left, count, pair_walls, box_walls)
    for p in found:
        assert len(p.enablers) <= (pair_walls if len(p.cells) == 2 else box_walls)
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


@settings(max_examples=150, deadline=None)
@given(params=boards, picks=st.lists(st.tuples(st.integers(0, 99), st.booleans()),
                                     min_size=1, max_size=4))
def test_forced_counts_equal_enumeration(
    params: BoardParams, picks: list[tuple[int, bool]]
) -> None:
    # the guess policies count layouts with a few cells forced (a pocket and its walls)
    # by re-counting only what those cells touch; enumeration counts them directly
    position = make_position(params)
    if position.is_start:
        return
    lays = list(oracle.layouts(position))
    known = _known(position, lays)
    situation = make_situation(position, known)
    undecided = [c for c in position.covered() if c not in known]
    if not undecided:
        return
    forced = {undecided[i % len(undecided)]: m for i, m in picks}
    expected = sum(all((c in lay) == m for c, m in forced.items()) for lay in lays)
    assert situation._count_with(forced) == expected, (position.to_text(), forced)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_pocket_places_follow_the_definition(data: st.DataObject) -> None:
    """The compiled scan against the definition read plainly, cell by cell: undecided
    pairs and blocks whose distinguishing cells are none open and at most so many
    covered cells not known mines (off the board counts as neither)."""
    width, height = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 6))
    state = bytes(data.draw(st.lists(st.integers(0, 3), min_size=width * height,
                                     max_size=width * height)))
    pair_walls, box_walls = data.draw(st.integers(-1, 6)), data.draw(st.integers(-1, 4))

    def at(x: int, y: int) -> int | None:
        return state[y * width + x] if 0 <= x < width and 0 <= y < height else None

    pair = [(dx, k) for dx in (-1, 2) for k in (-1, 0, 1)]
    kinds = [
        ([(0, 0), (1, 0)], pair, pair_walls),
        ([(0, 0), (0, 1)], [(k, d) for d, k in pair], pair_walls),
        ([(0, 0), (1, 0), (0, 1), (1, 1)], [(-1, -1), (2, -1), (-1, 2), (2, 2)], box_walls),
    ]
    expected = []
    for y in range(height):
        for x in range(width):
            for k, (cells, sides, limit) in enumerate(kinds):
                if any(at(x + dx, y + dy) != 1 for dx, dy in cells):
                    continue
                around = [(x + dx, y + dy) for dx, dy in sides]
                missing = tuple(c for c in around if at(*c) in (1, 3))
                if all(at(*c) != 0 for c in around) and len(missing) <= limit:
                    expected.append((x, y, k, missing))
    assert pocket_places(width, height, state, pair_walls, box_walls) == expected
