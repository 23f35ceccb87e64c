"""Profile specs: a registered profile with ``option=value`` overrides, as every command
and the library take them."""

from __future__ import annotations

import dataclasses

import pytest

from kaboom.solver.advisor import decide
from kaboom.solver.position import MoveKind, Position
from kaboom.solver.profiles import PROFILES, find_profile
from kaboom.solver.session import Solver


def test_a_spec_overrides_each_kind_of_option() -> None:
    spec = ("strong,risk_walls=4,ratio=0.85,living=no,endgame_cells=12,first_safe=3:2,"
            "first_opening=none,score=secondary")
    p = find_profile(spec)
    assert p.name == spec  # results say exactly what played
    assert (p.risk_walls, p.ratio, p.living, p.endgame_cells) == (4, 0.85, False, 12)
    assert find_profile("strong,risk=0,candidates=0").risk == 0  # zero switches an option off
    assert (p.first_safe, p.first_opening, p.score) == ((3, 2), None, "secondary")
    untouched = {f.name for f in dataclasses.fields(p)} - {
        "name", "risk_walls", "ratio", "living", "endgame_cells", "first_safe",
        "first_opening", "score"}
    strong = PROFILES["strong"]
    assert all(getattr(p, k) == getattr(strong, k) for k in untouched)
    assert strong.risk_walls == 2 and strong.name == "strong"  # the registered one is intact
    assert "strong,risk_walls=4" not in PROFILES


def test_a_name_alone_is_the_registered_profile() -> None:
    assert find_profile("fast") is PROFILES["fast"]
    assert find_profile("strong,risk=0.5") == find_profile("strong,risk=0.5")


@pytest.mark.parametrize(("spec", "says"), [
    ("slow", "unknown profile 'slow'; known: fast, strong, deep"),
    ("strong,bogus=1", "unknown option 'bogus' in 'strong,bogus=1'; known: lookahead,"),
    ("strong,name=mine", "unknown option 'name'"),
    ("strong,", "unknown option ''"),
    ("strong,ratio=high", "'ratio=high' in 'strong,ratio=high': ratio takes a number >= 0"),
    ("strong,ratio=nan", "ratio takes a number >= 0"),
    ("strong,risk=inf", "risk takes a number >= 0"),
    ("strong,tolerance=-0.1", "tolerance takes a number >= 0"),
    ("strong,candidates=2.5", "candidates takes a whole number >= 0"),
    ("strong,candidates=-1", "candidates takes a whole number >= 0"),
    ("strong,risk_walls=none", "risk_walls takes a whole number >= 0"),
    ("strong,endgame_cells=many", "endgame_cells takes a whole number >= 0, or none"),
    ("strong,living=maybe", "living takes yes or no"),
    ("strong,first_safe=3", "first_safe takes a cell x:y (from the corner)"),
    ("strong,first_safe=-1:0", "first_safe takes a cell x:y"),
    ("strong,first_opening=3:2:1", "first_opening takes a cell x:y (from the corner), or none"),
    ("strong,outside_pick=far", "outside_pick takes one of edge, witness"),
])
def test_a_bad_spec_says_what_is_wrong(spec: str, says: str) -> None:
    with pytest.raises(ValueError) as e:
        find_profile(spec)
    assert says in str(e.value)


def test_the_library_plays_a_spec() -> None:
    """A spec reaches the options it names: the first click moves with ``first_safe``."""
    start = Position.from_rows(["#" * 9] * 9, 10)
    for spec, cell in (("strong", (0, 0)), ("strong,first_safe=4:4", (4, 4))):
        d = decide(start, profile=spec)
        assert [(m.kind, m.cell) for m in d.moves] == [(MoveKind.REVEAL, cell)]
        assert Solver(spec).profile is find_profile(spec)
