"""The server's rules against brute-force enumeration on small boards.

Each case builds a random consistent position, clicks a random covered cell, and checks
the outcome against what the independent oracle says about that cell.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kaboom.server.game import Game, Referee, Rules
from kaboom.solver.cnf import CountEncoding
from kaboom.solver.errors import BudgetExceededError
from kaboom.solver.position import Move, Position
from tests import oracle

Params = tuple[int, int, float, float, int]

REFUSALS_ALLOWED = 2
"""Refusals (503) in a row a click with no budget may get before it must be decided:
the SAT fallback's floor is wall time, so a stall of the shared machine can spend it,
but a fallback that cannot decide a small board at all must still fail the test."""

params: st.SearchStrategy[Params] = st.tuples(
    st.integers(2, 5),
    st.integers(2, 4),
    st.floats(0.1, 0.5),
    st.floats(0.2, 0.9),
    st.integers(0, 2**32),
)


def _game(position: Position, *, outside_guess: bool = False,
          forced_guess: Literal["survive", "fair"] = "survive") -> Game:
    r = Rules(position.width, position.height, position.mines, seed=1,
              outside_guess=outside_guess, forced_guess=forced_guess)
    return replace(Game.new("test", r), rows=position.rows, started_at=0.0)


def _random_case(p: Params) -> tuple[Position, tuple[int, int]] | None:
    w, h, density, open_fraction, seed = p
    rng = random.Random(seed)
    mines = max(1, min(w * h - 1, round(w * h * density)))
    position, _ = oracle.random_position(rng, w, h, mines, open_fraction)
    if position.is_start:
        return None
    clickable = [c for c in position.covered() if position.char(*c) != "F"]
    if not clickable:
        return None
    return position, rng.choice(clickable)


def _assert_loss_layout_consistent(before: Position, after: Game) -> None:
    """The layout shown on a loss fits every number and the mine count."""
    mines = {
        (x, y)
        for y, row in enumerate(after.rows)
        for x, ch in enumerate(row)
        if ch in "X*" or (ch == "F" and before.char(x, y) == "F")
    }
    assert len(mines) == before.mines
    for (x, y), n in before.numbers():
        assert oracle.number_at(frozenset(mines), x, y) == n
    for y, row in enumerate(after.rows):
        for x, ch in enumerate(row):
            if ch == "!":
                assert before.char(x, y) == "F" and (x, y) not in mines


def _assert_open_consistent(before: Position, after: Game, cell: tuple[int, int]) -> None:
    assert after.rows[cell[1]][cell[0]].isdigit() or after.status == "won"
    later = after.position if after.status == "playing" else None
    if later is not None:
        assert any(True for _ in oracle.layouts(later)), "the opened board fits no layout"


@pytest.mark.parametrize("encoding", list(CountEncoding))
@pytest.mark.parametrize("outside_guess", [False, True])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(p=params)
def test_click_follows_the_rules(encoding: CountEncoding, outside_guess: bool, p: Params) -> None:
    case = _random_case(p)
    if case is None:
        return
    position, cell = case
    truth = oracle.statuses(position)
    game = _game(position, outside_guess=outside_guess)
    after, _ = Referee(encoding).apply(game, Move.reveal(*cell))
    frontier = set(position.frontier())
    safe_cells = [c for c, s in truth.items() if s == "s"]
    status = truth[cell]
    if status == "s":
        assert after.status != "lost", "a provably safe cell exploded"
        _assert_open_consistent(position, after, cell)
        assert after.forced_guesses == 0
    elif status == "m":
        assert after.status == "lost" and after.loss is not None
        assert after.loss.reason == "certain_mine"
    elif safe_cells:
        assert after.status == "lost" and after.loss is not None
        assert after.loss.reason == "guess_while_safe"
        safe_cell = after.loss.safe_cell
        assert safe_cell is not None
        assert truth[safe_cell] == "s"
        assert position.is_covered(*safe_cell)
    elif cell in frontier or outside_guess or all(truth[f] == "m" for f in frontier):
        # A forced guess; the default `survive` opens it.
        assert after.status != "lost"
        assert after.forced_guesses == 1
        _assert_open_consistent(position, after, cell)
    else:
        assert after.status == "lost" and after.loss is not None
        assert after.loss.reason == "outside_guess"
    if after.status == "lost":
        assert after.loss is not None
        assert (after.loss.x, after.loss.y) == cell
        assert after.rows[cell[1]][cell[0]] == "X"
        _assert_loss_layout_consistent(position, after)


def test_outside_guess_rule_both_ways() -> None:
    # One mine among the three frontier cells, two among the eight outside: no safe cell.
    position = Position.from_text(
        """
        mines=3
        1 # # #
        # # # #
        # # # #
        """
    )
    truth = oracle.statuses(position)
    assert "s" not in truth.values()
    strict = Referee().apply(_game(position), Move.reveal(3, 2))[0]
    assert strict.status == "lost" and strict.loss is not None
    assert strict.loss.reason == "outside_guess"
    allowed = Referee().apply(_game(position, outside_guess=True), Move.reveal(3, 2))[0]
    assert allowed.status != "lost" and allowed.forced_guesses == 1
    # On the frontier the same guess is forced and survives under the default rule.
    frontier = Referee().apply(_game(position), Move.reveal(1, 1))[0]
    assert frontier.status != "lost" and frontier.forced_guesses == 1


def test_outside_guess_is_forced_when_the_frontier_is_all_mines() -> None:
    # The 3 makes its three neighbours certain mines; one more mine hides outside.
    position = Position.from_text("mines=4\n# # #\n3 # #")
    truth = oracle.statuses(position)
    assert all(truth[f] == "m" for f in position.frontier())
    assert "s" not in truth.values()
    for seed in range(1, 20):
        game = replace(_game(position), rules=replace(_game(position).rules, seed=seed))
        after = Referee().apply(game, Move.reveal(2, 0))[0]
        assert after.status != "lost" and after.forced_guesses == 1


def test_fair_forced_guess_loses_with_the_exact_probability() -> None:
    position = Position.from_text(
        """
        mines=2
        1 # #
        # # #
        """
    )
    truth = oracle.statuses(position)
    assert "s" not in truth.values()
    p = oracle.probabilities(position)[(1, 0)]
    n = 1500
    losses = 0
    for seed in range(n):
        game = replace(
            _game(position, forced_guess="fair"),
            rules=replace(_game(position).rules, forced_guess="fair", seed=seed + 1),
        )
        after = Referee().apply(game, Move.reveal(1, 0))[0]
        assert after.forced_guesses == 1
        if after.status == "lost":
            assert after.loss is not None and after.loss.reason == "forced_guess"
            _assert_loss_layout_consistent(position, after)
            losses += 1
    sd = (n * p * (1 - p)) ** 0.5
    assert abs(losses - n * p) < 5 * sd, (losses, n * p)


def test_survive_never_loses_a_forced_guess() -> None:
    position = Position.from_text("mines=2\n1 # #\n# # #")
    for seed in range(1, 200):
        game = replace(_game(position), rules=replace(_game(position).rules, seed=seed))
        after = Referee().apply(game, Move.reveal(1, 0))[0]
        assert after.status == "playing" and after.forced_guesses == 1


@pytest.mark.parametrize("size", [(9, 9, 10), (16, 16, 40), (30, 16, 99), (8, 8, 54)])
def test_opening_first_click_shows_a_zero(size: tuple[int, int, int]) -> None:
    w, h, m = size
    for seed in range(1, 30):
        rules = Rules(w, h, m, first_click="opening", seed=seed)
        game = Referee().apply(Game.new("g", rules), Move.reveal(3, 3))[0]
        assert game.rows[3][3] == "0"


def test_opening_falls_back_to_safe_when_the_count_leaves_no_room() -> None:
    rules = Rules(4, 4, 14, first_click="opening", seed=3)
    game = Referee().apply(Game.new("g", rules), Move.reveal(1, 1))[0]
    assert game.status != "lost" and game.rows[1][1] != "0"


def test_first_click_is_safe_even_when_nearly_all_mines() -> None:
    for seed in range(1, 50):
        rules = Rules(3, 3, 8, seed=seed)
        game = Referee().apply(Game.new("g", rules), Move.reveal(seed % 3, seed % 2))[0]
        assert game.status == "won"


def test_flood_fill_and_win() -> None:
    rules = Rules(5, 5, 1, seed=11)
    game = Referee().apply(Game.new("g", rules), Move.reveal(2, 2))[0]
    referee = Referee()
    while game.status == "playing":
        safe = [c for c in game.position.covered() if oracle.statuses(game.position)[c] == "s"]
        game = referee.apply(game, Move.reveal(*safe[0]))[0]
    assert game.status == "won"
    assert sum(row.count("F") for row in game.rows) == 1


def test_same_seed_same_game() -> None:
    def play(seed: int) -> tuple[str, ...]:
        game = Game.new("g", Rules(16, 16, 40, seed=seed))
        referee = Referee()
        for cell in [(0, 0), (15, 15), (7, 8)]:
            if game.status == "playing" and game.position.is_covered(*cell):
                game = referee.apply(game, Move.reveal(*cell))[0]
        return game.rows

    assert play(42) == play(42)
    assert play(42) != play(43)


def test_chord_opens_unflagged_neighbours_as_one_move() -> None:
    position = Position.from_text(
        """
        mines=1
        F 1 #
        1 1 #
        # # #
        """
    )
    game = _game(position)
    after = Referee().apply(game, Move.chord(1, 1))[0]
    assert after.moves == 1
    assert after.status == "won"


def test_undo_restores_the_previous_move_exactly() -> None:
    position = Position.from_text("mines=1\n1 #\n# #")
    game = replace(_game(position), rules=replace(_game(position).rules, debug=True))
    referee = Referee()
    after, step = referee.apply(game, Move.reveal(1, 1))
    back = referee.undo(after, step)
    assert back.rows == game.rows and back.moves == game.moves and back.assisted


@settings(max_examples=150, deadline=None)
@given(p=params)
def test_out_of_time_never_punishes_without_proof(p: Params) -> None:
    """With no time to think, a click opens unless it is proven to be a mine.

    The fairness rule for an exhausted budget: ``guess_while_safe`` and ``outside_guess``
    need a proof the referee did not finish, so they are never given; a cell opens if
    any layout has it safe (one SAT call in the time left, at least a short fixed floor),
    else it is a mine; past that floor the move is refused (503), never punished.
    """
    case = _random_case(p)
    if case is None:
        return
    position, cell = case
    truth = oracle.statuses(position)
    game = _game(position)
    for _attempt in range(REFUSALS_ALLOWED + 1):
        referee = Referee(budget_s=0.0)
        try:
            after, _ = referee.apply(game, Move.reveal(*cell))
            break
        except BudgetExceededError:
            # The refusal the contract allows when the floor itself runs out (a stalled
            # machine); the game is untouched, so the same click is tried again.
            assert referee.timeouts == 1
    else:
        pytest.fail(f"the click was refused {REFUSALS_ALLOWED + 1} times in a row")
    if truth[cell] == "m":
        assert after.status == "lost" and after.loss is not None
        assert after.loss.reason == "certain_mine"
        _assert_loss_layout_consistent(position, after)
    else:
        assert after.status != "lost", after.loss
        _assert_open_consistent(position, after, cell)
    assert referee.timeouts == 1
