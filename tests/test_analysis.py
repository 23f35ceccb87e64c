"""The analysis of any position, against brute force on small boards: statuses and
probabilities exact, the recommended move safe whenever a safe cell exists and proven
minimally, a guess's win chances the plain recursion's, an impossible position's reason
minimal; and on a large board out of budget, nothing said that is not so."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from kaboom.solver.analysis import (
    CHANCE_CANDIDATES,
    FIRST_CLICK,
    MIN_ROLLOUTS,
    TOO_LARGE,
    analysable,
    analyse,
)
from kaboom.solver.budget import Budget
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.position import Cell, GameStatus, MoveKind, Position
from kaboom.solver.session import Solver
from kaboom.solver.simulator import SimulatedGame
from kaboom.solver.winchance import EXACT_LAYOUTS
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position
from tests.strategies import any_numbers
from tests.test_contradiction import assert_minimal
from tests.test_proof import assert_proves


@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_statuses_probabilities_and_the_move_are_exact(params: BoardParams) -> None:
    position = make_position(params)
    analysis = analyse(position)
    assert analysis.complete and analysis.exact and not analysis.impossible
    truth = oracle.statuses(position)
    status = analysis.status_rows()
    assert {c: status[c[1]][c[0]] for c in truth} == truth, position.to_text()
    odds = oracle.probabilities(position)
    rows = analysis.probability_rows()
    for (x, y), p in odds.items():
        row = rows[y]
        assert row is not None and row[x] == pytest.approx(p, abs=1e-9)
    found = analysis.recommendation
    assert found is not None
    reveals = [m.cell for m in found.moves if m.kind is MoveKind.REVEAL]
    if "s" in truth.values():
        assert found.certain and reveals and all(truth[c] == "s" for c in reveals)
        assert found.proof is not None and found.proof.cell == reveals[0]
        assert not found.proof.mine
        assert_proves(position, found.proof)
    else:
        assert not found.certain and found.proof is None
        assert all(truth[c] != "m" for c in reveals), (position.to_text(), found)


@settings(max_examples=300, deadline=None)
@given(position=any_numbers())
def test_an_impossible_position_says_why(position: Position) -> None:
    possible = next(oracle.layouts(position), None) is not None
    analysis = analyse(position)
    assert analysis.impossible == (not possible), position.to_text()
    if analysis.impossible:
        assert analysis.knowledge is None and analysis.recommendation is None
        assert analysis.contradiction is not None
        assert_minimal(position, analysis.contradiction)
        assert all(set(row) <= set("?0123456789") for row in analysis.status_rows())


@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_a_guess_comes_with_the_exact_win_chances_of_the_best_guesses(params: BoardParams
                                                                      ) -> None:
    """Up to :data:`EXACT_LAYOUTS` layouts the chances are exact, the recursion's, the
    recommended guess first (and, when the endgame search chose it, the best)."""
    position = make_position(params)
    found = analyse(position, chances=True).recommendation
    assert found is not None
    if found.certain or not found.moves:
        assert found.chances is None and found.no_chances is None
        return
    if position.is_start:
        assert found.chances is None and found.no_chances == FIRST_CLICK
        return
    odds = found.chances
    assert odds is not None and found.no_chances is None
    assert odds.chances[0].cell == found.moves[-1].cell
    assert 1 <= len(odds.chances) <= CHANCE_CANDIDATES
    assert len({c.cell for c in odds.chances}) == len(odds.chances)
    lays = list(oracle.layouts(position))
    if len(lays) > EXACT_LAYOUTS:  # past the endgame search: rollouts (a 5x4 board has 10^4)
        assert not odds.exact and odds.rollouts > 0
        for c in odds.chances:
            assert 0 <= c.low <= c.chance <= c.high <= c.safety + 1e-12
        return
    assert odds.exact
    if found.reason.startswith("endgame"):
        assert odds.chances[0].chance >= max(c.chance for c in odds.chances) - 1e-9
    if len(lays) <= 24:
        cells = list(position.covered())
        for c in odds.chances:
            assert c.chance == pytest.approx(oracle.win_chance(position, lays, cells, c.cell),
                                             abs=1e-9), (position.to_text(), c)


def first_guess(width: int, height: int, mines: int, seed: int) -> Position:
    """The first position of a simulated game where the solver has to guess."""
    game, solver = SimulatedGame(width, height, mines, seed=seed), Solver("fast")
    while game.outcome is GameStatus.PLAYING:
        position = game.position()
        decision = solver.decide(position)
        if not decision.certain and not position.is_start:
            return position
        game.play_all(decision.moves)
    raise AssertionError("the game ended without a guess")


def test_a_guess_on_a_larger_board_gets_estimated_win_chances() -> None:
    """Past the exact search, rollouts: as many as the cap when the budget allows, each
    chance inside its interval and below its safety, the guesses compared in pairs."""
    position = first_guess(9, 9, 10, 4)
    found = analyse(position, Budget(120), chances=True).recommendation
    assert found is not None and not found.certain
    odds = found.chances
    assert odds is not None and not odds.exact and odds.policy == "fast"
    assert odds.rollouts == 1000 and len(odds.chances) == CHANCE_CANDIDATES
    assert odds.chances[0].cell == found.moves[-1].cell
    for c in odds.chances:
        assert 0 <= c.low <= c.chance <= c.high <= c.safety + 1e-12
        d = odds.difference(c.cell, odds.chances[0].cell)
        assert d.low <= d.estimate <= d.high
    again = analyse(position, Budget(120), chances=True).recommendation
    assert again is not None and odds == again.chances  # the same seed, the same answer


def test_a_guess_too_large_for_the_budget_says_so() -> None:
    """A 200x200 board's whole games (a third of a second of CPU each) do not fit ten
    seconds: fewer rollouts than :data:`MIN_ROLLOUTS` give no win chance, and the reason
    is said instead."""
    position = first_guess(200, 200, 8000, 3)
    found = analyse(position, Budget(10.0), chances=True).recommendation
    assert found is not None and not found.certain
    assert found.chances is None and found.no_chances == TOO_LARGE
    assert MIN_ROLLOUTS >= 30


def test_a_flag_on_a_safe_cell_is_a_note() -> None:
    """A flag never changes what is proven: a flagged safe cell is safe, and recommended."""
    position = Position.from_text("mines=1\n0 1 #\n0 1 #\n0 1 F")
    analysis = analyse(position)
    assert analysis.status_rows() == ["01s", "01m", "01s"]
    found = analysis.recommendation
    assert found is not None and found.certain
    assert [str(m) for m in found.moves] == ["reveal 2 0", "reveal 2 2"]


def large_position(seed: int, side: int = 256, mines: int = 13_000
                   ) -> tuple[Position, frozenset[Cell]]:
    """A position of a simulated game on a large board, opened at 400 random safe cells
    (a frontier all over it), and the game's mines."""
    game = SimulatedGame(side, side, mines, seed=seed)
    rng = random.Random(seed)
    game.reveal(side // 2, side // 2)
    assert game.layout is not None
    free = [(x, y) for y in range(side) for x in range(side) if (x, y) not in game.layout]
    for x, y in rng.sample(free, 400):
        if game.char(x, y) == "#":
            game.reveal(x, y)
    return game.position(), frozenset(game.layout)


def test_a_large_board_out_of_time_says_only_what_is_so() -> None:
    """A 256x256 board from a simulated game, analysed with far too little time: every
    cell called safe or a mine is so in the game's layout, those not reached are ``?``,
    and no guess is recommended while cells are unsettled (only moves proven safe)."""
    position, layout = large_position(5)
    for seconds in (0.0, 0.05, 0.3):
        analysis = analyse(position, Budget(seconds))
        status = analysis.status_rows()
        settled = 0
        for y, row in enumerate(status):
            for x, ch in enumerate(row):
                if ch in "sm":
                    settled += 1
                    assert ((x, y) in layout) == (ch == "m"), (seconds, x, y)
        unsettled = sum(row.count("?") for row in status)
        assert analysis.complete == (unsettled == 0)
        found = analysis.recommendation
        if not analysis.complete:
            assert found is None or found.certain
        if found is not None and found.certain:
            assert all(m.cell not in layout for m in found.moves)
        if seconds == 0.0:  # the solver's own rules may still prove a move safe
            assert unsettled and not analysis.exact


@pytest.mark.parametrize(("rows", "says"), [
    (["###", "#1#", "##"], "row 2 has 2 cells where row 0 has 3"),
    (["###", "#1#", "#Z#"], r"row 2, column 1: 'Z' is not a cell"),
    (["#X#"], r"row 0, column 1: 'X' is not a cell of a position in play"),
    ([], "at least one row"),
    ([""], "row 0 is empty"),
])
def test_a_bad_board_names_the_row_and_column(rows: list[str], says: str) -> None:
    with pytest.raises(InvalidPositionError, match=says):
        analysable(rows, 1)
