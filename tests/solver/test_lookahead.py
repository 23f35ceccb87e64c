"""The one-move lookahead against brute-force enumeration."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver import counting
from kaboom.solver._kernels.lookahead import living_lows
from kaboom.solver.frontier import Frontier, components, frontier_of
from kaboom.solver.lookahead import outlook
from kaboom.solver.position import Cell, Position, neighbours
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=120, deadline=None)
@given(params=boards)
def test_branches_equal_enumeration(params: BoardParams) -> None:
    for position, lays, fr, cell, free in _clicks(params):
        outside = frozenset(fr.outside)
        covered = position.covered()
        got = outlook(fr.constraints, outside, fr.mines_left, len(lays), cell, free)
        base = counting.count(
            [cs for _, cs in components(fr.constraints)], len(outside), fr.mines_left
        )
        # reusing the untouched components' tables changes nothing
        assert outlook(fr.constraints, outside, fr.mines_left, len(lays), cell, free,
                       base=base) == got
        by_value: dict[int, list[frozenset[Cell]]] = {}
        for lay in lays:
            if cell not in lay:
                by_value.setdefault(sum(c in lay for c in free), []).append(lay)
        assert {b.mines: b.weight for b in got.branches} == {
            v: len(ls) for v, ls in by_value.items()
        }, position.to_text()
        assert got.dead == (len(by_value) == 1)
        blended = {k: 0.0 for k in (1.0, 2.0, 4.0)}  # Σ P(safe, shows v) · (k s1 + s2) / (k + 1)
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
            for k in blended:
                blended[k] += len(ls) / len(lays) * (k * best + second) / (k + 1)
        for k, want in blended.items():
            assert got.blended(k) == pytest.approx(want, abs=1e-12)
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


@settings(max_examples=120, deadline=None)
@given(params=boards)
def test_living_next_safeties_skip_only_dead_cells(params: BoardParams) -> None:
    # With ``around`` the next safeties count living cells only.  Enumeration decides
    # which cells the rule calls dead (no undecided neighbour, or exactly the undecided
    # cells of one number), checks that each of them really can show one number only,
    # and that the best and second-best safeties are over the others.
    for position, lays, fr, cell, free in _clicks(params):
        outside = frozenset(fr.outside)
        covered = position.covered()

        def around(c: Cell, position: Position = position) -> frozenset[Cell]:
            return frozenset(n for n in position.neighbours(*c) if position.is_covered(*n))

        numbers = [
            frozenset(n for n in position.neighbours(x, y) if position.is_covered(*n))
            for y, row in enumerate(position.rows) for x, ch in enumerate(row) if ch.isdigit()
        ]
        got = outlook(fr.constraints, outside, fr.mines_left, len(lays), cell, free,
                      around=around)
        for b in got.branches:
            ls = [lay for lay in lays
                  if cell not in lay and sum(c in lay for c in free) == b.mines]
            others = [c for c in covered if c != cell]
            safety = {c: sum(c not in lay for lay in ls) / len(ls) for c in others}
            undecided = {c for c in others if 0 < safety[c] < 1}
            sets = [n & undecided for n in (*numbers, frozenset(free))]
            edge = (set(fr.cells) | set(free)) - {cell}
            dead = {c for c in edge
                    if not (near := around(c) & undecided) or near in sets}
            for c in dead:
                if safety[c] > 0:
                    shown = {sum(n in lay for n in around(c)) for lay in ls if c not in lay}
                    assert len(shown) == 1, (position.to_text(), cell, c)
            out_open = any(0 < safety[c] < 1 for c in others if c not in edge)
            alive = out_open or any(safety[c] > 0 and c not in dead for c in edge)
            # when nothing living is left, one of the dead cells must be guessed
            pool = [c for c in others if c not in edge or c not in dead] if alive else others
            living = sorted((safety[c] for c in pool if safety[c] > 0), reverse=True)
            best = living[0] if living else 1.0
            second = living[1] if len(living) > 1 else best
            assert b.best == pytest.approx(best, abs=1e-12), (position.to_text(), cell)
            assert b.second == pytest.approx(second, abs=1e-12), (position.to_text(), cell)
            # the sole safest: a living frontier cell strictly safer than all the others,
            # when there is another
            top = [c for c in pool if safety[c] > 0 and safety[c] == best]
            sole = (top[0] if alive and len(top) == 1 and top[0] in edge and len(living) > 1
                    else None)
            assert b.sole == sole, (position.to_text(), cell)


def test_living_cells_change_some_outlooks() -> None:
    # the property test above is not vacuous: on small boards dead cells often hold
    # the best next safety
    changed = soles = 0
    for seed in range(300):
        position = make_position((4, 3, 0.3, 0.6, seed))
        if position.is_start:
            continue
        fr = frontier_of(position)
        total = len(list(oracle.layouts(position)))

        def around(c: Cell, position: Position = position) -> frozenset[Cell]:
            return frozenset(n for n in position.neighbours(*c) if position.is_covered(*n))

        for cell in position.covered():
            free = [c for c in position.neighbours(*cell) if position.is_covered(*c)]
            args = (fr.constraints, frozenset(fr.outside), fr.mines_left, total, cell, free)
            living = outlook(*args, around=around)
            changed += outlook(*args) != living
            soles += living.sole_safest() is not None
    assert changed > 0
    assert soles > 0  # and some clicks leave the same single safest cell whatever they show


def _clicks(
    params: BoardParams,
) -> Iterator[tuple[Position, list[frozenset[Cell]], Frontier, Cell, list[Cell]]]:
    """Every cell of a random small position that some layout leaves safe (a certain mine
    is never clicked), with the position's layouts, frontier and covered neighbours."""
    position = make_position(params)
    if position.is_start:
        return
    lays = list(oracle.layouts(position))
    fr = frontier_of(position)
    for cell in position.covered():
        if not all(cell in lay for lay in lays):
            free = [c for c in position.neighbours(*cell) if position.is_covered(*c)]
            yield position, lays, fr, cell, free


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_living_lows_follow_the_definition(data: st.DataObject) -> None:
    """The compiled search for the two lowest living cells against the definition read
    plainly: every cell in weight order, dead when its undecided neighbours (other than
    the clicked cell) are none or exactly some number's undecided cells."""
    cells = [(x, y) for y in range(3) for x in range(4)]
    total = data.draw(st.integers(1, 6))
    weights = data.draw(st.dictionaries(st.sampled_from(cells), st.integers(0, total)))
    covered = data.draw(st.sets(st.sampled_from(cells)))
    numbers = data.draw(st.lists(st.sets(st.sampled_from(cells), min_size=1), max_size=5))
    number_cells = [tuple(sorted(n)) for n in numbers]
    index: dict[Cell, list[tuple[Cell, ...]]] = {}
    for cs in number_cells:
        for c in cs:
            index.setdefault(c, []).append(cs)
    out_open = data.draw(st.booleans())
    clicked = data.draw(st.sampled_from(cells))

    def around(c: Cell) -> frozenset[Cell]:
        return frozenset(n for n in neighbours(*c, 4, 3) if n in covered)

    def undecided(c: Cell) -> bool:
        return out_open if c not in weights else 0 < weights[c] < total

    def dead(c: Cell) -> bool:
        near = {n for n in around(c) if n != clicked and undecided(n)}
        return not near or any({x for x in cs if undecided(x)} == near for cs in number_cells)

    living = [(w, c) for w, c in sorted((w, c) for c, w in weights.items() if w < total)
              if not dead(c)][:2]
    expected = living if living or out_open else None
    assert living_lows(weights, total, out_open, around, index, clicked) == expected
