"""A move's chance to win the game: exact against the plain recursion, rollouts against
the exact search and against a policy's own play on every layout, paired differences,
seeds and budgets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kaboom.solver import (
    Budget,
    BudgetExceededError,
    GameStatus,
    Position,
    SimulatedGame,
    Solver,
    win_chances,
)
from kaboom.solver.endgame import layouts
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position

# Positions of 7x7/9 games (seeds 70 and 111, `fast` playing) at a forced guess, where
# cells equally safe differ in their chance to win.
BRANCHES = Position.from_text("""mines=9
2##2100
####211
####2##
###1111
###1000
###2100
####100""")
"""450 layouts; (2, 2) wins 73.1 %, (2, 3) 82.0 %, both safe in 86.7 % of them."""
CORNER = Position.from_text("""mines=9
0001###
1101###
#2012##
#201###
1101###
00123##
001####""")
"""324 layouts; (4, 0) wins 64.5 %, (5, 0) 51.2 %, both safe in 77.8 % of them."""


@settings(max_examples=60, deadline=None)
@given(params=boards)
def test_exact_chances_are_the_plain_recursions(params: BoardParams) -> None:
    position = make_position(params)
    lays = layouts(position, limit=10**6)
    if not lays or len(lays) > 24 or position.is_start:
        return
    cells = list(position.covered())
    found = win_chances(position, cells)
    assert found.exact and found.rollouts == 0
    for c in found.chances:
        assert c.low == c.chance == c.high
        assert c.chance == pytest.approx(oracle.win_chance(position, lays, cells, c.cell),
                                         abs=1e-9)
        assert c.chance <= c.safety + 1e-12


@pytest.mark.parametrize(("position", "cells"), [(BRANCHES, [(2, 2), (2, 3)]),
                                                  (CORNER, [(4, 0), (5, 0)])])
def test_rollouts_agree_with_the_exact_search(position: Position, cells: list[tuple[int, int]]
                                              ) -> None:
    """With ``strong`` playing on, a rollout plays best wherever the exact search takes
    over, so the estimate is of the exact chance: inside its 95 % interval, and the
    paired difference inside its own, which is narrower than the two intervals allow."""
    exact = win_chances(position, cells)
    assert exact.exact
    found = win_chances(position, cells, rollouts=300, exact_layouts=0, policy="strong")
    assert found.rollouts == 300 and not found.exact and found.policy == "strong"
    for c in found.chances:
        assert c.low <= exact.of(c.cell).chance <= c.high
        assert c.safety == pytest.approx(exact.of(c.cell).safety)
    a, b = cells
    truth = exact.of(a).chance - exact.of(b).chance
    d = found.difference(a, b)
    assert d.low <= truth <= d.high
    assert d.estimate == pytest.approx(found.of(a).chance - found.of(b).chance)
    apart = (found.of(a).high - found.of(a).low) / 2 + (found.of(b).high - found.of(b).low) / 2
    assert d.high - d.low < apart  # the layouts are shared: what they share cancels
    assert abs(truth) > 0.05 and d.low * d.high > 0  # the search tells these two apart


def test_rollouts_estimate_the_policys_own_play() -> None:
    """``fast`` played from the position on every one of its layouts, each equally likely,
    wins a known share: the rollouts (which stop where its endgame search takes over)
    estimate that share, not best play's."""
    cell = (5, 0)
    lays = layouts(CORNER, limit=10**6)
    assert lays is not None
    won = 0
    for lay in lays:
        if cell in lay:
            continue
        game = SimulatedGame.resume(CORNER, lay)
        game.reveal(*cell)
        solver = Solver("fast")
        while game.outcome is GameStatus.PLAYING:
            game.play_all(solver.decide(game.position()).moves)
        won += game.outcome is GameStatus.WON
    found = win_chances(CORNER, [cell], rollouts=300, exact_layouts=0).of(cell)
    assert found.low <= won / len(lays) <= found.high


def test_the_same_seed_gives_the_same_answer() -> None:
    cells = [(2, 2), (2, 3)]
    one = win_chances(BRANCHES, cells, rollouts=40, exact_layouts=0, seed=7)
    assert one == win_chances(BRANCHES, cells, rollouts=40, exact_layouts=0, seed=7)
    assert one.outcomes != win_chances(BRANCHES, cells, rollouts=40, exact_layouts=0,
                                       seed=8).outcomes


def test_a_mined_cell_has_no_chance_and_a_budget_bounds_the_rollouts() -> None:
    position = Position.from_rows(["1#", "##"], 1)  # (1, 0), (0, 1), (1, 1): one mine
    found = win_chances(position, [(1, 1)], rollouts=10, exact_layouts=0)
    # a third of the layouts mine it; in the others the 1 it shows leaves a coin flip
    assert found.rollouts == 10 and found.of((1, 1)).safety == pytest.approx(2 / 3)
    assert all(x in (None, 0.5) for x in found.outcomes[0])
    with pytest.raises(BudgetExceededError):
        win_chances(BRANCHES, [(2, 2)], budget=Budget(0.0), exact_layouts=0)
    none = win_chances(BRANCHES, [(2, 2), (2, 3)], rollouts=0, exact_layouts=0)
    assert none.rollouts == 0 and not none.exact  # nothing played is not exact
    assert none.of((2, 2)).low == 0.0 and none.of((2, 2)).high == pytest.approx(13 / 15)
    assert (none.difference((2, 2), (2, 3)).low, none.difference((2, 2), (2, 3)).high) == (
        -1.0, 1.0)
    assert win_chances(Position.from_rows(["1#", "11"], 1), [(1, 0)]).of((1, 0)).chance == 0.0
