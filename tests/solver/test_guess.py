"""Which cells the guess weighs (its candidates), on positions small enough to count by hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver import guess, lookahead
from kaboom.solver.budget import Budget
from kaboom.solver.guess import shortlist
from kaboom.solver.position import Position
from kaboom.solver.profiles import PROFILES
from tests.solver.boards import BoardParams, boards, make_position, make_situation

# The 1 holds one mine among its three neighbours (safety 2/3); the other eight cells
# hold the other three (safety 5/8): 0.9375 of the frontier's safety.
CORNER_ONE = Position.from_text("mines=4\n###1\n####\n####\n")
OUTSIDE = {(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (3, 2)}


@pytest.mark.parametrize(("gate", "outside_weighed"), [(0.95, False), (0.93, True), (0.0, True)])
def test_outside_cells_are_weighed_only_within_the_gate(gate: float,
                                                        outside_weighed: bool) -> None:
    profile = replace(PROFILES["strong"], outside_gate=gate)
    situation = make_situation(CORNER_ONE, profile=profile)
    assert situation.probs[(2, 0)] == pytest.approx(1 / 3)
    assert situation.probs[(0, 0)] == pytest.approx(3 / 8)
    chosen = set(shortlist(situation, min(situation.probs.values())))
    assert {(2, 0), (2, 1), (3, 1)} <= chosen
    # fewer than 30 outside cells: every one of them, or none
    assert chosen & OUTSIDE == (OUTSIDE if outside_weighed else set())


def test_out_of_time_the_lookahead_weighs_only_the_safest_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request's budget reaches the lookahead: once it has run out, no more candidates
    are weighed (a large board's counts take up to 0.1 s each), and the pick is the best
    of those weighed; without a budget every shortlisted candidate is."""
    weighed: list[tuple[int, int]] = []
    real = guess._outlook

    def counted(s: guess.Situation, cell: tuple[int, int], outside: frozenset[tuple[int, int]]
                ) -> lookahead.Outlook:
        weighed.append(cell)
        return real(s, cell, outside)

    monkeypatch.setattr(guess, "_outlook", counted)
    guess.safest(make_situation(CORNER_ONE))
    assert len(weighed) > 1
    first = weighed[0]
    weighed.clear()
    late = make_situation(CORNER_ONE)
    late.budget = Budget(0.0)
    assert guess.safest(late).cell == first
    assert weighed == [first]


@settings(max_examples=150, deadline=None)
@given(params=boards, limit=st.floats(0.0, 1.0), approximate=st.booleans())
def test_within_is_the_candidates_under_the_limit(
    params: BoardParams, limit: float, approximate: bool
) -> None:
    """The guess reads the outside cells' shared probability once; it must find the
    cells a scan of every candidate finds, frontier cells row-major, and the same
    safest probability, also with approximate probabilities (no count), where the
    outside cells' differ."""
    position = make_position(params)
    situation = make_situation(position)
    if not situation.candidates:
        return
    if approximate:
        rng = random.Random(params[-1])
        situation = replace(situation, count=None, _memo={},
                            probs={c: rng.random() for c in situation.candidates})
    p, frontier = situation.probs, set(situation.frontier.cells)
    near, far = situation.within(limit)
    assert near == [c for c in situation.candidates if c in frontier and p[c] <= limit]
    assert sorted(far) == sorted(
        c for c in situation.candidates if c not in frontier and p[c] <= limit)
    assert situation.best_probability() == min(p[c] for c in situation.candidates)
