"""The deep guess: the lookahead's best candidates compared by their chance to win.

At a guess where the one-move lookahead weighed several cells, the profile's
``deep_candidates`` best (within ``deep_margin`` of the best score, the lookahead's
choice first) are played on the same ``rollouts`` layouts each
(:func:`~kaboom.solver.winchance.win_chances`).  The lookahead's choice stays unless
another candidate wins more often by ``deep_z`` standard errors of the paired
difference: a few hundred rollouts cannot tell apart candidates a point apart, and
a choice made on their noise alone loses to the lookahead (``docs/solver.md``).
Every other decision is the profile's own, untouched.
"""

from __future__ import annotations

from dataclasses import replace

from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError
from kaboom.solver.position import Cell, Move, Position, covered_count
from kaboom.solver.profiles import Profile
from kaboom.solver.strategy import Decision
from kaboom.solver.winchance import WinChances, win_chances

__all__ = ["candidates", "deepen", "preferred"]


def candidates(position: Position, decision: Decision, profile: Profile) -> list[Cell]:
    """The cells to search: the lookahead's choice, then its next best within the
    margin, at most ``deep_candidates`` in all; none at a certain move, where the
    lookahead did not weigh several cells, or before the profile's stage."""
    limit = profile.deep_covered
    if (not profile.rollouts or decision.certain or not decision.ranked
            or (limit is not None and covered_count(position.rows) > limit)):
        return []
    top = max(score for _, score in decision.ranked)
    chosen = decision.ranked[0][0]
    near = [c for c, score in decision.ranked[1:] if score >= top * (1.0 - profile.deep_margin)]
    return [chosen, *near][: profile.deep_candidates]


def deepen(position: Position, decision: Decision, profile: Profile,
           budget: Budget | None = None) -> Decision:
    """``decision``, its guess searched when the profile asks for it
    (``profile.rollouts``) and the lookahead weighed more than one candidate."""
    cells = candidates(position, decision, profile)
    if len(cells) < 2:
        return decision
    try:
        found = win_chances(position, cells, rollouts=profile.rollouts, budget=budget,
                            policy=profile.rollout_policy, exact_layouts=0)
    except BudgetExceededError:
        return decision
    if found.rollouts < 2:
        return decision
    chosen, pick = cells[0], preferred(found, profile)
    w = found.of(pick)
    reason = (f"deep: win chance {w.chance:.3f} ({w.low:.3f}-{w.high:.3f}) over "
              f"{found.rollouts} layouts, {len(cells)} candidates"
              + ("" if pick == chosen else f"; the lookahead's {chosen}: "
                 f"{found.of(chosen).chance:.3f}"))
    return replace(decision, moves=(*decision.moves[:-1], Move.reveal(*pick)), reason=reason,
                   algorithm="deep")


def preferred(found: WinChances, profile: Profile) -> Cell:
    """The move to play among those searched (the lookahead's choice first): the one
    with the best chance among those that beat the choice by ``deep_z`` standard errors
    of the paired difference, else the choice."""
    chosen = pick = found.chances[0].cell
    for c in found.chances[1:]:
        d = found.difference(c.cell, chosen)
        if d.estimate > profile.deep_z * d.se and c.chance > found.of(pick).chance:
            pick = c.cell
    return pick
