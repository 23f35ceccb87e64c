"""The SAT engine against brute-force enumeration on small boards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver import cnf
from kaboom.solver import knowledge as knowledge_module
from kaboom.solver.budget import Budget
from kaboom.solver.cnf import CountEncoding
from kaboom.solver.knowledge import KnowledgeEngine, classify
from kaboom.solver.position import Position
from kaboom.solver.sampling import random_layout
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@pytest.mark.parametrize("encoding", list(CountEncoding))
@settings(max_examples=150, deadline=None)
@given(params=boards)
def test_classify_equals_enumeration(encoding: CountEncoding, params: BoardParams) -> None:
    position = make_position(params)
    expected = oracle.statuses(position)
    knowledge = classify(position, encoding=encoding)
    assert knowledge.complete
    got = {c: knowledge.status(c).value for c in expected}
    assert got == expected, position.to_text()


@pytest.mark.parametrize("encoding", list(CountEncoding))
@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_classify_with_sat_mine_bounds_equals_enumeration(
    encoding: CountEncoding, params: BoardParams
) -> None:
    """The components' mine bounds found by cardinality queries, as on components too
    wide to count, give the same answers."""
    position = make_position(params)
    expected = oracle.statuses(position)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(knowledge_module, "_BOUNDS_NODES", 0)
        knowledge = classify(position, encoding=encoding)
    assert knowledge.complete
    assert {c: knowledge.status(c).value for c in expected} == expected, position.to_text()


@settings(max_examples=60, deadline=None)
@given(params=boards, data=st.data())
def test_engine_cache_survives_more_open_cells(params: BoardParams, data: st.DataObject) -> None:
    """Decided cells carried over from an earlier position stay correct."""
    w, h, density, open_fraction, seed = params
    rng = random.Random(seed)
    mines = max(1, min(w * h - 1, round(w * h * density)))
    position, layout = oracle.random_position(rng, w, h, mines, open_fraction / 2)
    engine = KnowledgeEngine()
    first = engine.classify(position)
    again = engine.classify(position)  # now from the cache of decided cells
    assert again.status_rows(position) == first.status_rows(position)
    changes = {
        c: str(oracle.number_at(layout, *c))
        for c in position.covered()
        if c not in layout and rng.random() < 0.4
    }
    later = position.with_cells(changes)
    got = engine.classify(later)
    expected = oracle.statuses(later)
    assert {c: got.status(c).value for c in expected} == expected


def test_outside_safe_by_count_alone() -> None:
    """Kaboom's original missed this: the count makes every outside cell safe."""
    position = Position.from_text(
        """
        mines=1
        1 # # #
        # # # #
        # # # #
        """
    )
    # Before the fix this is unknown everywhere but the mine is among (1,0),(0,1),(1,1).
    k = classify(position)
    assert k.status((3, 2)).value == "s"
    assert k.status((1, 1)).value == "u"


def test_outside_mine_by_count_alone() -> None:
    position = Position.from_text(
        """
        mines=3
        0 1 # #
        0 1 # #
        """
    )
    # Frontier (2,0),(2,1) holds exactly one mine; the other two must be outside.
    k = classify(position)
    assert k.status((3, 0)).value == "m" and k.status((3, 1)).value == "m"


def test_expired_budget_proves_nothing() -> None:
    position = Position.from_text("mines=2\n1 # #\n# # #\n# # #")
    k = classify(position, budget=Budget(0.0))
    assert not k.complete
    assert not k.safe and not k.mines


@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_large_board_encodings_equal_enumeration(params: BoardParams) -> None:
    """The encodings large boards switch to (Minicard's native constraints for the count
    past the totalizer's clause cap, and for the numbers on big frontiers) give the same
    answers and layouts consistent with the position."""
    position = make_position(params)
    expected = oracle.statuses(position)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cnf, "TOTALIZER_CLAUSES", 0)
        mp.setattr(cnf, "NATIVE_NUMBERS_FROM", 0)
        knowledge = classify(position, encoding=CountEncoding.TOTALIZER)
        layout = random_layout(position, random.Random(1))
    assert knowledge.complete
    assert {c: knowledge.status(c).value for c in expected} == expected, position.to_text()
    assert layout in set(oracle.layouts(position)), position.to_text()
