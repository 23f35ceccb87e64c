"""The incremental solver: the same frontier and the same moves as the stateless one."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from kaboom.solver.advisor import decide
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import FrontierTracker, components, frontier_of
from kaboom.solver.position import GameStatus, Position
from kaboom.solver.session import Solver
from kaboom.solver.simulator import SimulatedGame


def _random_safe_play(game: SimulatedGame, rng: random.Random) -> Iterator[Position]:
    """Yields the positions of a game played by opening 1-5 random safe cells a move."""
    game.reveal(rng.randrange(game.width), rng.randrange(game.height))
    while game.outcome is GameStatus.PLAYING:
        position = game.position()
        yield position
        assert game.layout is not None
        safe = [c for c in position.covered() if c not in game.layout]
        for c in rng.sample(safe, min(len(safe), rng.choice([1, 1, 2, 5]))):
            if game.char(*c) == "#":
                game.reveal(*c)


@pytest.mark.parametrize(
    ("size", "games"), [((5, 4, 6), 40), ((9, 9, 10), 25), ((16, 16, 40), 6), ((30, 16, 99), 2)]
)
def test_tracker_equals_a_fresh_scan(size: tuple[int, int, int], games: int) -> None:
    rng = random.Random(sum(size))
    for seed in range(games):
        tracker = FrontierTracker()
        for position in _random_safe_play(SimulatedGame(*size, seed=seed), rng):
            tracker.update(position)
            fresh = FrontierTracker()
            fresh.update(position)
            # the single-number closure does not depend on the order of the steps
            assert dict(tracker.decided) == dict(fresh.decided)
            scan = frontier_of(position, tracker.decided)
            got = tracker.frontier()
            assert got.constraints == scan.constraints
            assert (got.cells, got.outside_flat, got.mines_left) == (
                scan.cells, scan.outside_flat, scan.mines_left
            )
            assert dict(got.known) == dict(scan.known)
            tracked = [(c.cells, set(c.constraints)) for c in tracker.components()]
            assert tracked == [(cells, set(cs)) for cells, cs in components(scan.constraints)]
            assert [c.constraints for c in tracker.components()] == [
                c.constraints for c in fresh.components()
            ]


def test_tracker_starts_over_on_another_game_and_rejects_a_contradiction() -> None:
    before = Position.from_text("mines=1\n0 1 #\n0 1 #\n0 1 #")
    after = Position.from_text("mines=1\n0 1 #\n0 1 #\n0 1 1")
    tracker = FrontierTracker()
    tracker.update(before)
    assert dict(tracker.decided) == {}
    tracker.update(after)  # (2, 1) is the lower 1's only cell, so (2, 0) is safe
    assert dict(tracker.decided) == {(2, 1): True, (2, 0): False}
    tracker.update(before)  # a cell covered again: an undo
    assert dict(tracker.decided) == {}
    with pytest.raises(InvalidPositionError):
        tracker.update(Position.from_text("mines=1\n0 2 #\n0 1 #\n0 1 1"))
    tracker.update(after)  # usable after an error
    assert dict(tracker.decided) == {(2, 1): True, (2, 0): False}


def test_tracker_rejects_numbers_that_disagree_on_the_same_cells() -> None:
    """The middle numbers both cover the three covered cells, one needing 1 mine and
    the other 2: no number decides a cell, so only comparing them finds it, as
    :func:`frontier_of` does."""
    position = Position.from_text("mines=2\n1 # 1\n1 # 2\n1 # 1")
    with pytest.raises(InvalidPositionError):
        frontier_of(position)
    with pytest.raises(InvalidPositionError, match="contradict"):
        FrontierTracker().update(position)
    tracker = FrontierTracker()
    tracker.update(Position.from_text("mines=2\n1 # 1\n1 # #\n1 # 1"))
    with pytest.raises(InvalidPositionError, match="contradict"):
        tracker.update(position)  # found when the second number opens, too


@pytest.mark.parametrize(
    ("size", "rule", "profile", "games"),
    [
        ((9, 9, 10), "sfar", "strong", 60),
        ((9, 9, 10), "snr", "fast", 30),
        ((16, 16, 40), "sfar", "strong", 12),
        ((16, 16, 40), "snr", "strong", 8),
        ((30, 16, 99), "sfar", "fast", 4),
        ((30, 16, 99), "sfar", "strong", 3),
    ],
)
def test_solver_makes_the_stateless_moves(
    size: tuple[int, int, int], rule: str, profile: str, games: int
) -> None:
    """Every position of whole games: the session's decision equals ``decide``'s."""
    first = "opening" if rule == "snr" else "safe"
    for seed in range(games):
        game = SimulatedGame(*size, rule=rule, seed=1000 + seed)
        solver = Solver(profile, first_click=first)
        while game.outcome is GameStatus.PLAYING:
            position = game.position()
            d = solver.decide(position)
            assert d == decide(position, profile=profile, first_click=first), position
            game.play_all(d.moves)
