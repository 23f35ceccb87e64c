"""The endgame: layouts against the oracle, seed 000's LastTurns count, exact win search."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings

from kaboom.solver.endgame import _MEMO_ENTRY, MEMO_BYTES, Endgame, best_move, layouts
from kaboom.solver.frontier import FrontierTracker
from kaboom.solver.position import Position
from kaboom.solver.profiles import PROFILES
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_layouts_equal_enumeration(params: BoardParams) -> None:
    position = make_position(params)
    got = layouts(position, limit=10**6)
    assert got is not None
    assert set(got) == set(oracle.layouts(position))
    # a guess passes the frontier it holds, with the decided cells folded in
    tracker = FrontierTracker()
    tracker.update(position)
    held = layouts(position, tracker.decided, limit=10**6, frontier=tracker.frontier())
    assert held is not None and set(held) == set(got)


def test_seed_000_last_turns_count() -> None:
    # LastTurns(9, 21): 9 mines left over 21 unknown cells, C(21, 9) = 293,930 placements.
    assert math.comb(21, 9) == 293_930
    # A board with 21 undecided covered cells and 9 mines: the oracle tries all
    # C(21, 9) placements and keeps the consistent ones (144 in the seed's game); the
    # pruned search must list exactly those.
    rng = random.Random(5)
    while True:
        position, _ = oracle.random_position(rng, 6, 6, 9, 0.5)
        if len(position.covered()) == 21:
            break
    expected = set(oracle.layouts(position))  # tries all 293,930 placements
    got = layouts(position, limit=293_930)
    assert got is not None and set(got) == expected
    if expected:
        assert layouts(position, limit=len(expected) - 1) is None


def test_fifty_fifty_is_half() -> None:
    # Two cells, one mine, nothing tells them apart: a coin flip.
    position = Position.from_rows(["11", "##"], 1)
    result = best_move(position, {}, position.covered())
    assert result is not None
    assert abs(result[1] - 0.5) < 1e-12


@settings(max_examples=80, deadline=None)
@given(params=boards)
def test_win_chance_bounded_by_survival(params: BoardParams) -> None:
    position = make_position(params)
    lays = layouts(position, limit=10**6)
    assert lays is not None
    if len(lays) > 60:
        return
    cells = list(position.covered())
    best = Endgame(position, lays, cells).best()
    probs = oracle.probabilities(position)
    if best is None:
        return
    cell, win = best
    assert win <= 1.0 - probs[cell] + 1e-9
    if min(probs.values()) == 0.0:
        assert probs[cell] == 0.0


def test_two_cells_one_mine_then_certain() -> None:
    # The 1 sees three cells holding the only mine, so (2, 0) and (2, 1) are safe; they
    # both see (1, 0) and (1, 1): a 0 (mine at (0, 1)) wins, a 1 leaves a coin flip.
    position = Position.from_rows(["1##", "###"], 1)
    lays = layouts(position)
    assert lays is not None and len(lays) == 3
    game = Endgame(position, lays, list(position.covered()))
    best = game.best()
    assert best is not None
    cell, win = best
    assert win == pytest.approx(2 / 3) and cell in {(2, 0), (2, 1)}


@settings(max_examples=60, deadline=None)
@given(params=boards)
def test_win_chance_equals_plain_recursion(params: BoardParams) -> None:
    position = make_position(params)
    lays = layouts(position, limit=10**6)
    assert lays is not None
    if not lays or len(lays) > 24 or position.is_start:
        return
    cells = list(position.covered())
    found = Endgame(position, lays, cells, node_limit=10**6).best()
    if found is None:  # nothing to click: every covered cell is a mine
        assert all(c in lay for c in cells for lay in lays)
        return
    assert found[1] == pytest.approx(oracle.win_chance(position, lays, cells), abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(params=boards)
def test_best_move_without_the_known_mines_is_the_search_over_whole_layouts(
    params: BoardParams,
) -> None:
    """best_move leaves the mines every layout holds out of its tables (they shift a
    number by the same count in each layout): the same cell and chance as the search
    over the whole layouts."""
    position = make_position(params)
    truth = oracle.statuses(position)
    known = {c: s == "m" for c, s in truth.items() if s in "ms"}
    lays = layouts(position, known, limit=10**6)
    if not lays or len(lays) > 200 or position.is_start:
        return
    cells = [c for c in position.covered() if c not in known]
    whole = Endgame(position, lays, cells, node_limit=10**6).best(cells)
    assert best_move(position, known, cells, max_layouts=10**6, node_limit=10**6) == whole


def _board_of_two_words() -> tuple[Position, list[frozenset[tuple[int, int]]]]:
    """A 6x6 board with 65 to 200 layouts: two to four words of bitset a node."""
    rng = random.Random(5)
    while True:
        position, _ = oracle.random_position(rng, 6, 6, 9, 0.5)
        lays = layouts(position, limit=10**6)
        if lays and 65 <= len(lays) <= 200 and len(position.covered()) >= 14:
            return position, lays


def test_the_memo_is_bounded_in_bytes_as_by_the_node_limit_they_allow() -> None:
    """The memo holds a bitset over the layouts for each node: a search over many
    layouts is held to ``memo_bytes`` by lowering its node limit, with the same result
    as that limit."""
    position, lays = _board_of_two_words()
    cells = list(position.covered())
    free = Endgame(position, lays, cells, node_limit=10**6, memo_bytes=None)
    best = free.best()
    needed = free.nodes
    assert best is not None and needed > 10
    entry = 8 * ((len(lays) + 63) // 64) + _MEMO_ENTRY
    for nodes in (needed // 2, needed):
        capped = Endgame(position, lays, cells, node_limit=10**6, memo_bytes=nodes * entry)
        assert capped.nodes_allowed == nodes
        limited = Endgame(position, lays, cells, node_limit=nodes, memo_bytes=None)
        assert capped.best() == limited.best() == (None if nodes < needed else best)


def test_every_profiles_largest_search_fits_the_default_memo() -> None:
    """The bound changes no profile's moves: its largest endgame (and closed region)
    search keeps its node limit."""
    for name, profile in PROFILES.items():
        for most in (profile.endgame_layouts, profile.regions):
            entry = 8 * ((most + 63) // 64) + _MEMO_ENTRY
            assert MEMO_BYTES // entry >= profile.endgame_nodes, (name, most)
