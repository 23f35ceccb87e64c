"""The chance to win the whole game after a move, from any position.

Exact when the position has few layouts: the endgame search lists them all and gives
each cell's chance with best play after (:func:`kaboom.solver.endgame.win_chances`).
Otherwise it is estimated by rollouts: layouts drawn uniformly from the exact
distribution (:func:`~kaboom.solver.sampling.sampler`), the move played on each and the
rest of the game by a fast policy (the ``fast`` profile unless told).  Every candidate is
played on the same layouts (common random numbers), so two candidates are compared pair
by pair: :meth:`WinChances.difference` is far narrower than their two intervals, since
a layout that is hard for one is mostly hard for the other.

Two things make a rollout tell more than one game's outcome, without bias:

* a candidate's exact safety is known, so its chance is that safety times its mean
  outcome over the layouts where it is safe (post-stratified: whether the drawn
  layouts happened to mine it adds no noise, and those layouts are not played);
* a rollout stops at the first guess its policy gives to the exact endgame search and
  counts that search's chance to win instead of one coin flip (the late 50/50s, a
  third of Expert's losses, add no noise either).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from kaboom.solver import endgame
from kaboom.solver.budget import Budget
from kaboom.solver.counting import LayoutCounter, probabilities
from kaboom.solver.frontier import FrontierTracker
from kaboom.solver.position import Cell, GameStatus, Position
from kaboom.solver.profiles import Profile, find_profile
from kaboom.solver.sampling import sampler
from kaboom.solver.simulator import SimulatedGame
from kaboom.solver.strategy import choose

__all__ = ["EXACT_LAYOUTS", "Difference", "WinChance", "WinChances", "win_chances"]

EXACT_LAYOUTS = 3000
"""Layouts up to which :func:`win_chances` is exact (``strong``'s endgame search)."""

_EXACT_NODES = 200_000
_Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class WinChance:
    """A move's chance to win the game, with its 95 % interval."""

    cell: Cell
    """The cell the move reveals."""
    chance: float
    """The chance to win the game after it (exact, or the rollouts' estimate)."""
    low: float
    """The 95 % interval's lower end (the chance itself when exact)."""
    high: float
    """... and its upper end."""
    safety: float
    """The chance that the cell is safe (always exact)."""


@dataclass(frozen=True, slots=True)
class Difference:
    """One move's chance minus another's, on the same layouts."""

    estimate: float
    """The difference of the two chances."""
    se: float
    """Its standard error, paired layout by layout (0 when exact)."""
    low: float
    """The 95 % interval's lower end (the estimate itself when exact)."""
    high: float
    """... and its upper end."""


@dataclass(frozen=True, slots=True)
class WinChances:
    """Win chances of moves from one position, over the same layouts."""

    chances: tuple[WinChance, ...]
    """One a move, in the order asked."""
    rollouts: int
    """Layouts drawn, every move played on each (0 when exact)."""
    policy: str
    """The profile that played the rest of each game (``"best play"`` when exact)."""
    exact: bool = False
    """Whether the chances are exact (the endgame search's, with best play after)."""
    outcomes: tuple[tuple[float | None, ...], ...] = ()
    """Per move, per layout: the rollout's outcome (1 won, 0 lost, between: the
    endgame search's chance where the rollout stopped), ``None`` where the layout
    mines the move."""

    def of(self, cell: Cell) -> WinChance:
        """The chance of the move that reveals ``cell`` (:class:`KeyError` if not asked)."""
        for c in self.chances:
            if c.cell == cell:
                return c
        raise KeyError(cell)

    def best(self) -> WinChance:
        """The move with the highest estimate (the first asked among equals)."""
        return max(self.chances, key=lambda c: c.chance)

    def difference(self, a: Cell, b: Cell) -> Difference:
        """``a``'s chance minus ``b``'s, paired layout by layout.

        Each layout's share in each estimate is its post-stratified residual; the
        difference's variance is that of the residuals' differences, so what the two
        moves share (a layout with an unavoidable 50/50 later, say) cancels."""
        ca, cb = self.of(a), self.of(b)
        estimate = ca.chance - cb.chance
        if self.exact:
            return Difference(estimate, 0.0, estimate, estimate)
        ra = _residuals(self.outcomes[self.chances.index(ca)], ca.safety)
        rb = _residuals(self.outcomes[self.chances.index(cb)], cb.safety)
        n = len(ra)
        if n < 2:  # no spread to measure: the difference could be anything
            return Difference(estimate, math.inf, -1.0, 1.0)
        d = [x - y for x, y in zip(ra, rb, strict=True)]
        mean = sum(d) / n
        se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
        return Difference(estimate, se, estimate - _Z95 * se, estimate + _Z95 * se)


def win_chances(
    position: Position,
    cells: Sequence[Cell],
    *,
    rollouts: int = 1000,
    budget: Budget | None = None,
    seed: int = 0,
    policy: str | Profile = "fast",
    exact_layouts: int = EXACT_LAYOUTS,
    counter: LayoutCounter | None = None,
) -> WinChances:
    """The chance to win the game after revealing each of ``cells`` (covered cells).

    Exact when the position has at most ``exact_layouts`` layouts and the endgame
    search fits its node limit; otherwise up to ``rollouts`` layouts are played, fewer
    if ``budget`` runs out (the layouts played so far count: :attr:`WinChances.rollouts`
    says how many, possibly 0 with no interval worth the name, which the caller
    judges).  ``policy`` (a profile or its spec) plays the rest of each game; the same
    ``seed`` gives the same layouts, hence the same answer.  Flags are the player's
    notes: lifted.  ``counter`` may carry the game's component tables.

    Raises :class:`~kaboom.solver.errors.InvalidPositionError` when no layout fits, and
    :class:`~kaboom.solver.errors.BudgetExceededError` when the position cannot be
    counted and drawn from within the budget.
    """
    budget = budget or Budget(None)
    counter = counter or LayoutCounter()
    position = position.without_flags()
    odds = probabilities(position, budget=budget, counter=counter).cells
    safety = [1.0 - odds[c] for c in cells]
    if exact_layouts:
        exact = endgame.win_chances(position, {}, list(cells), max_layouts=exact_layouts,
                                    node_limit=_EXACT_NODES)
        if exact is not None:
            return WinChances(tuple(WinChance(c, w, w, w, s)
                                    for c, w, s in zip(cells, exact.values(), safety,
                                                       strict=True)), 0, "best play", True)
    draws = sampler(position, budget=budget, counter=counter)
    profile = find_profile(policy) if isinstance(policy, str) else policy
    rng = random.Random(seed)
    outcomes: list[list[float | None]] = [[] for _ in cells]
    for _ in range(rollouts):
        if budget.expired():
            break
        layout = draws.sample(rng)
        got = [None if c in layout else _play_on(position, layout, c, profile, budget)
               for c in cells]
        if any(g is None and c not in layout for g, c in zip(got, cells, strict=True)):
            break  # out of time within this layout: it is left out for every move
        for row, g in zip(outcomes, got, strict=True):
            row.append(g)
    chances = tuple(_estimate(c, row, s) for c, row, s in zip(cells, outcomes, safety,
                                                              strict=True))
    return WinChances(chances, len(outcomes[0]) if cells else 0, profile.name, False,
                      tuple(tuple(row) for row in outcomes))


def _play_on(position: Position, layout: frozenset[Cell], cell: Cell, profile: Profile,
             budget: Budget) -> float | None:
    """The rollout: ``cell`` revealed on ``layout`` (where it is safe), the rest played by
    ``profile``; 1 won, 0 lost, or the endgame search's chance where it took over;
    ``None`` when the budget ran out first (a decision cut short by it is never
    counted: the budget is looked at again after each one)."""
    game = SimulatedGame.resume(position, layout)
    game.reveal(*cell)
    tracker = FrontierTracker()
    while game.outcome is GameStatus.PLAYING:
        if budget.expired():
            return None
        d = choose(game.position(), profile, tracker=tracker, budget=budget)
        if not d.moves:
            break
        if d.win is not None:
            return d.win
        game.play_all(d.moves)
    return 1.0 if game.outcome is GameStatus.WON else 0.0


def _estimate(cell: Cell, row: list[float | None], safety: float) -> WinChance:
    """Safety times the mean outcome where the move is safe, with the Wilson interval of
    that mean scaled by the safety (outcomes lie in [0, 1], so their variance is at
    most a coin's of the same mean: the interval is conservative, and never empty when
    every rollout won)."""
    safe = [x for x in row if x is not None]
    n = len(safe)
    mean = sum(safe) / n if n else 0.5
    low, high = _wilson(mean, n)
    return WinChance(cell, safety * mean, safety * low, safety * high, safety)


def _wilson(mean: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z2 = _Z95 * _Z95
    denom = 1 + z2 / n
    centre = (mean + z2 / (2 * n)) / denom
    half = _Z95 * math.sqrt(mean * (1 - mean) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _residuals(row: Sequence[float | None], safety: float) -> list[float]:
    """Each layout's share in the post-stratified estimate, less the estimate: 0 where
    the layout mines the move (that stratum's mean is known, 0), ``safety / share`` times
    the outcome less the safe layouts' mean elsewhere (the estimator linearised)."""
    safe = [x for x in row if x is not None]
    if not safe:
        return [0.0] * len(row)
    mean, scale = sum(safe) / len(safe), safety * len(row) / len(safe)
    return [0.0 if x is None else scale * (x - mean) for x in row]
