"""The entry point: complete deduction, sound guesses, Kaboom's outside rule."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings

from kaboom.solver.advisor import decide, decide_rows
from kaboom.solver.position import MoveKind, Position
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@pytest.mark.parametrize("profile", ["fast", "strong"])
@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_deduction_is_complete(profile: str, params: BoardParams) -> None:
    position = make_position(params)
    if position.is_start:
        return
    truth = oracle.statuses(position)
    d = decide(position, profile=profile, probabilities=True, flag_mines=True)
    reveals = {m.cell for m in d.moves if m.kind is MoveKind.REVEAL}
    flags = {m.cell for m in d.moves if m.kind is MoveKind.FLAG}
    safe = {c for c, s in truth.items() if s == "s" and position.char(*c) != "F"}
    assert all(truth[c] == "m" for c in flags)
    if safe:
        assert d.certain and reveals and reveals <= safe, position.to_text()
    else:
        assert not d.certain or not reveals
        for c in reveals:
            assert truth[c] != "m", position.to_text()
    assert d.probabilities is not None
    expected = oracle.probabilities(position)
    for c, p in expected.items():
        assert d.probabilities[c] == pytest.approx(p, abs=1e-9)


def test_outside_rule_keeps_guess_on_frontier() -> None:
    # The frontier cells are 50/50, the far outside cells are safer; Kaboom's default
    # outside rule still forbids them.
    rows = ["1#######", "########", "########", "########"]
    position = Position.from_rows(rows, 3)
    free = decide(position, outside_guess=True)
    kept = decide(position, outside_guess=False)
    assert not kept.certain
    assert kept.moves[-1].cell in position.frontier()
    assert free.moves[-1].cell not in position.frontier()


def test_outside_allowed_when_frontier_all_mines() -> None:
    position = Position.from_rows(["3#####", "######", "######"], 4)
    d = decide(position, outside_guess=False)
    assert d.moves[-1].cell not in {(1, 0), (0, 1), (1, 1)}


def test_mine_count_makes_outside_safe() -> None:
    # The only mine is forced into the frontier pair; the outside is safe by the count.
    position = Position.from_rows(["01#", "01#", "01#", "###"], 1)
    d = decide(position)
    assert d.certain
    assert (0, 3) in {m.cell for m in d.moves}


def test_first_click_and_rows() -> None:
    d = decide_rows(["#" * 9] * 9, 10)
    assert d.algorithm == "first" and d.moves[0].kind is MoveKind.REVEAL
    d = decide_rows(["#" * 30] * 16, 99, first_click="opening")
    assert d.moves[0].cell == (3, 2)  # Expert's measured opening
    d = decide_rows(["#" * 16] * 30, 99, first_click="opening")
    assert d.moves[0].cell == (2, 3)  # the same board on its side
    d = decide_rows(["#" * 16] * 16, 40, first_click="opening")
    assert d.moves[0].cell == (2, 2)
    d = decide_rows(["#" * 30] * 16, 99, first_click="safe")
    assert d.moves[0].cell == (0, 0)


def test_the_first_click_keeps_off_flags_and_says_what_it_knows() -> None:
    """Flags block reveals on an untouched board too: a flagged corner moved the first
    click nowhere, and a game loop that flagged it first never opened a cell."""
    d = decide_rows(["F##", "###", "###"], 1)
    assert [m.cell for m in d.moves] == [(1, 0)] and d.algorithm == "first"
    d = decide_rows(["FF", "FF"], 1)  # every cell flagged: a flag blocks nothing then
    assert [m.cell for m in d.moves] == [(0, 0)]
    d = decide_rows(["###", "###"], 2, probabilities=True)
    assert d.probabilities == dict.fromkeys(Position.new(3, 2, 2).covered(), 2 / 6)


def test_no_move_in_a_finished_game_or_on_a_board_of_mines() -> None:
    for rows in (["X##", "###"], ["#*#", "###"], ["1X", "##"]):
        d = decide_rows(rows, 1)
        assert d.moves == () and d.reason == "the game is over"
    d = decide_rows(["##", "##"], 4)
    assert d.moves == () and d.certain
    d = decide_rows(["F#", "##"], 4, flag_mines=True)
    assert {m.cell for m in d.moves} == {(1, 0), (0, 1), (1, 1)}
    assert all(m.kind is MoveKind.FLAG for m in d.moves)


def test_nothing_to_do_when_only_mines_left() -> None:
    d = decide_rows(["11", "1#"], 1)
    assert d.moves == () or all(m.kind is not MoveKind.REVEAL for m in d.moves)


@settings(max_examples=60, deadline=None)
@given(params=boards)
def test_sat_fallback_is_complete(params: BoardParams) -> None:
    """With counting disabled (node limit 0) the SAT engine must still find every proof."""
    from kaboom.solver import counting
    from kaboom.solver.profiles import Profile
    from kaboom.solver.strategy import choose

    position = make_position(params)
    if position.is_start:
        return
    counting._SHARED.clear()
    truth = oracle.statuses(position)
    d = choose(position, Profile("sat-only", lookahead=False, node_limit=0))
    counting._SHARED.clear()
    reveals = {m.cell for m in d.moves if m.kind is MoveKind.REVEAL}
    safe = {c for c, s in truth.items() if s == "s" and position.char(*c) != "F"}
    if safe:
        assert d.certain and reveals and reveals <= safe, position.to_text()
    else:
        assert all(truth[c] != "m" for c in reveals), position.to_text()


@pytest.mark.parametrize("profile", ["fast", "strong"])
def test_boards_with_more_layouts_than_a_float_holds_are_played(profile: str) -> None:
    """40x40 with 400 mines has over 1e308 layouts: the lookahead's scores multiplied
    exact counts by floats, and ``strong`` stopped at its first guess with an
    OverflowError (a bot on such a server game failed every game)."""
    from kaboom.solver.bench.runner import play_game

    results = [play_game(40, 40, 400, "sfar", seed, profile) for seed in range(3)]
    assert all(r.guesses > 0 and r.decisions > r.guesses for r in results)


def _pairs_board(width: int, height: int, mines: int, seed: int) -> Position:
    """A covered board with isolated pairs of equal numbers every few cells: hundreds of
    small components and a huge outside (found by an audit: minutes in exact counting)."""
    rng = random.Random(seed)
    mine = set(rng.sample([(x, y) for y in range(height) for x in range(width)], mines))
    rows = [["#"] * width for _ in range(height)]
    for y in range(1, height - 1, 4):
        for x in range(1, width - 2, 5):
            if (x, y) in mine or (x + 1, y) in mine:
                continue
            a, b = (sum((cx + dx, y + dy) in mine for dx in (-1, 0, 1) for dy in (-1, 0, 1))
                    for cx in (x, x + 1))
            if a == b and 1 <= a <= 3:
                rows[y][x] = rows[y][x + 1] = str(a)
    return Position.from_rows(["".join(r) for r in rows], mines)


@pytest.mark.parametrize("mines", [32_768, 13_000])
def test_a_budget_bounds_a_board_of_many_small_components(mines: int) -> None:
    """256x256 with hundreds of isolated pairs: the exact count would take seconds a
    count and the lookahead would count again per candidate (over 90 s before); it goes
    to the SAT engine instead, within the budget."""
    position = _pairs_board(256, 256, mines, seed=3)
    start = time.process_time()
    decision = decide(position, budget_s=1.0)
    assert time.process_time() - start < 20  # generous: a shared machine
    assert decision.moves and not decision.certain
