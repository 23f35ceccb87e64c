"""Strategy settings, registered by name: ``fast``, ``strong`` and ``deep`` (``find_profile``).

Every option is a :class:`Profile` field, and a profile spec can change any of them
(``kaboom bench --profile 'strong,tolerance=0.04'``, ``bench/solver_compare.py``); the
defaults are the ones that won those comparisons (``docs/solver.md``).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import types
import typing
from typing import Any, Literal

__all__ = ["OPENINGS", "PROFILES", "Profile", "find_profile", "opening_cell", "profile_spec"]

OPENINGS: dict[tuple[int, int, int], tuple[int, int]] = {(30, 16, 99): (3, 2)}
"""The best first click when its neighbours are safe too, measured per board (width,
height, mines) against its neighbours on the same boards (``docs/solver.md``, first
clicks): Expert opens at (3, 2), 0.3 points above (2, 2); on Beginner and Intermediate
(2, 2) was the best, and it is the default."""


def opening_cell(width: int, height: int, mines: int) -> tuple[int, int]:
    """The measured first click of :data:`OPENINGS` (a board turned on its side opens at
    the same cell turned), else (2, 2)."""
    cell = OPENINGS.get((width, height, mines))
    if cell is not None:
        return cell
    turned = OPENINGS.get((height, width, mines))
    return (turned[1], turned[0]) if turned is not None else (2, 2)


@dataclasses.dataclass(frozen=True, slots=True)
class Profile:
    """Strategy settings; :func:`find_profile` looks one up by name (``fast``,
    ``strong``) or spec."""

    name: str
    """The profile's name, or the spec it was built from (results say what played)."""
    lookahead: bool = True
    """Break near-ties between the safest cells with the one-move lookahead's ``score``."""
    tolerance: float = 0.02
    """Candidates for the lookahead: mine probability within this of the safest cell."""
    candidates: int = 8
    """At most this many candidates get the lookahead."""
    progress_weight: float = 0.5
    """Weight of P(the click proves another cell safe) in the lookahead score."""
    score: Literal["progress", "blended", "secondary", "cleared", "hybrid"] = "progress"
    """Lookahead score of a candidate with mine probability ``p``, ``w`` being
    ``progress_weight``: ``progress``, ``(1 - p) * (1 + w * P(progress))``; ``blended``,
    the next click's safety blended with the runner-up's (``blend``:1), times
    ``1 + w * P(progress)``; ``secondary``, P(surviving this click and the safest next
    one), the same factor; ``cleared``, ``(1 - p) * (1 + w * E[cells proven safe])``;
    ``hybrid``, a number worth ``1 + w`` when it proves a cell safe, else the safety of
    the guess it leaves."""
    blend: float = 4.0
    """``blended``: the weight of the best next safety against the runner-up's
    (JSMinesweeper: 4)."""
    ratio: float = 0.0
    """When set, candidates are the cells whose safety is at least ``ratio`` times the
    best safety (JSMinesweeper: 0.9) instead of within ``tolerance``."""
    outside_candidates: int = 3
    """Outside cells among the candidates (fewest undecided neighbours first)."""
    outside_pick: Literal["edge", "witness"] = "edge"
    """Which outside cells are candidates: ``edge``, the fewest undecided neighbours
    first; ``witness`` (JSMinesweeper), only when the outside passes ``outside_gate``,
    the outside cells two steps straight from a number and those with two or three
    undecided neighbours (all of them when fewer than 30)."""
    outside_gate: float = 0.95
    """``witness``: outside cells are candidates only when their safety is above this
    fraction of the safest frontier cell's (JSMinesweeper: 0.95; 0: whenever ``ratio``
    admits them)."""
    living: bool = False
    """The lookahead's next safeties count only cells whose number is not already
    fixed (JSMinesweeper's living tiles)."""
    near_outside: int = 0
    """More outside candidates: cells next to an undecided frontier cell (their number
    can tell the frontier apart), fewest undecided neighbours first."""
    avoid_dead: bool = False
    """Rank cells that can show only one number (they teach nothing) last."""
    dominance: bool = False
    """Prefer a safer candidate that is safe whenever the chosen one is."""
    regions: int = 0
    """Play a closed region (a frontier component that no other undecided cell touches,
    with the same mine count in every solution) with at most this many solutions
    perfectly, before any other guess."""
    fifty: bool = False
    """Guess an unavoidable 50/50 (a pair holding one mine that no number can tell
    apart), or a cell that is safe or a 50/50, before anything else."""
    sole_safest: bool = False
    """When whatever the chosen cell shows leaves the same single safest living cell,
    and that cell is safer now, play it instead (JSMinesweeper's dominating tile)."""
    risk: float = 0.0
    """Long-term risk (JSMinesweeper): the lookahead score of a cell is multiplied by
    ``1 + risk * I / S``, ``I`` the layouts in which the cell lies in a 50/50 that will
    have to be guessed anyway, ``S`` those in which it is safe."""
    risk_walls: int = 0
    """When set, the long-term risk counts JSMinesweeper's way: pairs and 2x2 blocks that
    up to this many more mines would wall in (a cell's pairs added, its worst block),
    and the cells whose mine would complete a likely one (over 2.5 % of the layouts)."""
    node_limit: int = 100_000
    """Search nodes per component before counting gives up for the SAT engine."""
    endgame_cells: int | None = 0
    """Run the win-probability search when at most this many undecided cells remain
    (``None``: however many; the layout count below bounds the search)."""
    endgame_layouts: int = 400
    """... and they have at most this many consistent layouts."""
    endgame_nodes: int = 20_000
    """Search nodes (distinct layout sets) before the endgame or region search gives up."""
    rollouts: int = 0
    """When set, a guess the lookahead chose among several is searched: its best
    candidates are played on this many layouts each (``kaboom.solver.deep``)."""
    deep_covered: int | None = 350
    """Only guesses with at most this many covered cells are searched (``None``: all);
    earlier, rollouts are long and the candidates closer than they can tell apart."""
    deep_candidates: int = 3
    """At most this many of the lookahead's candidates are searched, its choice first."""
    deep_margin: float = 0.05
    """... each with a lookahead score within this fraction of the best score."""
    deep_z: float = 1.0
    """A candidate replaces the lookahead's choice only when its win chance is higher
    by at least this many standard errors of the paired difference."""
    rollout_policy: Literal["fast", "strong"] = "fast"
    """The profile that plays the rest of each rollout."""
    first_safe: tuple[int, int] = (0, 0)
    """First click when only the clicked cell is guaranteed safe (from the corner)."""
    first_opening: tuple[int, int] | None = None
    """First click when its neighbours are safe too (from the corner); ``None``: the
    board's measured best, as :func:`~kaboom.solver.first_cell` picks it."""


PROFILES: dict[str, Profile] = {
    "fast": Profile("fast", candidates=2, outside_candidates=1, node_limit=20_000,
                    endgame_cells=20, endgame_layouts=300, regions=1000, fifty=True),
    # JSMinesweeper's guess: survive this click and the best living next one (blended
    # 4:1 with the runner-up), times the long-term risk, over every cell within 0.9 of
    # the best safety; +0.96 points on 20,000 paired Expert boards; and the exact
    # endgame search whenever the whole board has at most 3,000 layouts, whatever its
    # cells (JSMinesweeper: 1,000), +0.15 points on 20,000 more.  The risk counts
    # pockets with up to two missing mines (JSMinesweeper: three): level or better on
    # the 200,000 target boards of each rule, for 12-16 % less CPU (docs/solver.md)
    "strong": Profile("strong", score="blended", progress_weight=0.001, ratio=0.9,
                      candidates=40, outside_candidates=20, outside_pick="witness",
                      living=True, avoid_dead=True, dominance=True, sole_safest=True,
                      risk=0.9, risk_walls=2, endgame_cells=None, endgame_layouts=3000,
                      endgame_nodes=200_000, regions=1000, fifty=True),
}
# `strong`, with its near-tied guesses compared by their chance to win the game
# (issue 56; docs/solver.md, the deep profile)
PROFILES["deep"] = dataclasses.replace(PROFILES["strong"], name="deep", rollouts=200)


def find_profile(spec: str) -> Profile:
    """A profile by name, with any ``,option=value`` overrides: ``"strong,risk_walls=3"``,
    ``"strong,first_safe=3:2"`` (a cell), ``"fast,endgame_cells=none"``.

    The returned profile is named ``spec``, so results say what played; a spec is
    parsed afresh in each process (a cluster's workers need no registration).  Raises
    :class:`ValueError` naming the unknown profile or option, or the bad value."""
    name, *overrides = spec.split(",")
    try:
        base = PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None
    return _overridden(base, spec) if overrides else base


def profile_spec(spec: str) -> str:
    """An argparse type for the commands' ``--profile``: the spec, checked before any game
    is played (a bad one is a usage error that says what is wrong)."""
    try:
        find_profile(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return spec


@functools.lru_cache(maxsize=64)
def _overridden(base: Profile, spec: str) -> Profile:
    """``base`` with the ``,option=value`` overrides that follow its name in ``spec``."""
    kinds = typing.get_type_hints(Profile)
    changes: dict[str, Any] = {}  # each checked against its field's type below
    for item in spec.split(",")[1:]:
        key, _, text = item.partition("=")
        if key not in kinds or key == "name":
            known = ", ".join(k for k in kinds if k != "name")
            raise ValueError(f"unknown option {key!r} in {spec!r}; known: {known}")
        try:
            changes[key] = _value(kinds[key], text)
        except ValueError:
            raise ValueError(f"{item!r} in {spec!r}: {key} takes "
                             f"{_describe(kinds[key])}") from None
    return dataclasses.replace(base, name=spec, **changes)


def _value(kind: object, text: str) -> object:
    """``text`` as a value of an option of type ``kind``: a finite number >= 0, ``yes``/
    ``no``, a cell ``x:y``, one of a few words, or ``none`` where the option may be off."""
    options = _options(kind)
    if text.lower() == "none":
        if type(None) in options:
            return None
        raise ValueError(text)
    kind = next(k for k in options if k is not type(None))
    if kind is bool:
        if text.lower() not in ("1", "true", "yes", "0", "false", "no"):
            raise ValueError(text)
        return text.lower() in ("1", "true", "yes")
    if typing.get_origin(kind) is tuple:
        cell = tuple(int(v) for v in text.split(":"))
        if len(cell) != 2 or min(cell) < 0:
            raise ValueError(text)
        return cell
    if typing.get_origin(kind) is Literal:
        if text not in typing.get_args(kind):
            raise ValueError(text)
        return text
    assert kind in (int, float), kind
    number = kind(text)
    if not 0 <= number < math.inf:  # every count, weight and fraction; also refuses nan
        raise ValueError(text)
    return number


def _describe(kind: object) -> str:
    """What an option of type ``kind`` takes, for an error message."""
    names: dict[object, str] = {int: "a whole number >= 0", float: "a number >= 0",
                                bool: "yes or no", type(None): "none"}
    return ", or ".join(
        "one of " + ", ".join(typing.get_args(k)) if typing.get_origin(k) is Literal
        else names.get(k, "a cell x:y (from the corner)") for k in _options(kind))


def _options(kind: object) -> tuple[object, ...]:
    """The types an option's value may have: both sides of ``int | None``."""
    return typing.get_args(kind) if isinstance(kind, types.UnionType) else (kind,)
