"""The deep guess: the lookahead's near-tied candidates searched by win chance, its choice
kept unless another is better beyond the rollouts' noise."""

from __future__ import annotations

from kaboom.solver import Decision, Move, Solver, decide, find_profile
from kaboom.solver.deep import candidates, deepen
from tests.solver.test_winchance import BRANCHES

# In BRANCHES (2, 2) and (2, 3) are equally safe, and (2, 3) wins 82.0 % against 73.1 %.
LOOKAHEAD = Decision((Move.reveal(2, 2),), "guess: lookahead", "guess", False,
                     ranked=(((2, 2), 1.0), ((2, 3), 0.99), ((0, 0), 0.5)))


def test_a_candidate_better_beyond_the_noise_replaces_the_lookaheads_choice() -> None:
    profile = find_profile("deep,rollouts=200")
    assert candidates(BRANCHES, LOOKAHEAD, profile) == [(2, 2), (2, 3)]  # (0, 0): past the margin
    found = deepen(BRANCHES, LOOKAHEAD, profile)
    assert found.moves == (Move.reveal(2, 3),) and found.algorithm == "deep"
    assert "the lookahead's (2, 2)" in found.reason and not found.certain


def test_the_lookaheads_choice_stays_without_the_evidence_or_the_search() -> None:
    doubtful = deepen(BRANCHES, LOOKAHEAD, find_profile("deep,rollouts=200,deep_z=100"))
    assert doubtful.moves == LOOKAHEAD.moves and doubtful.algorithm == "deep"
    for spec in ("strong", "deep,deep_covered=20", "deep,deep_margin=0,deep_candidates=1"):
        assert deepen(BRANCHES, LOOKAHEAD, find_profile(spec)) is LOOKAHEAD
    certain = Decision((Move.reveal(0, 0),), "certain: trivial", "trivial", True)
    assert deepen(BRANCHES, certain, find_profile("deep")) is certain


def test_the_solver_and_decide_search_alike() -> None:
    spec = "deep,rollouts=30,endgame_layouts=0,regions=0"  # the lookahead guesses here
    found = decide(BRANCHES, profile=spec)
    assert found.algorithm == "deep"
    assert Solver(spec).decide(BRANCHES) == found
