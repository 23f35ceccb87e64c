"""The playing strategy: every certain move first, then the best guess.

Certain moves come from the cheapest method that finds any: the single-number
closure (kept by :class:`kaboom.solver.frontier.FrontierTracker`), then the group method,
then exact counting (complete: it uses every number and the mine count), and the SAT
engine when a component is too large to count.  When nothing is certain, the ordered
policies of :mod:`kaboom.solver.guess` pick the cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kaboom.solver import counting
from kaboom.solver.approx import approximate
from kaboom.solver.budget import Budget
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import Component, Frontier, FrontierTracker
from kaboom.solver.groups import GroupResult, reduce_groups
from kaboom.solver.guess import Situation, guess
from kaboom.solver.knowledge import classify
from kaboom.solver.position import Cell, CellState, FirstClick, Move, MoveKind, Position, row_major
from kaboom.solver.profiles import PROFILES, Profile, opening_cell

__all__ = ["Decision", "choose", "first_cell"]


@dataclass(frozen=True, slots=True)
class Decision:
    """Moves to play now, in order, with how they were found."""

    moves: tuple[Move, ...]
    """The moves, to play in order, skipping a reveal of a cell already open (none when
    the game is over)."""
    reason: str
    """Why, in words: ``certain: groups``, ``first click (safe)``, a guess's odds..."""
    algorithm: str
    """The method that found the moves: ``first``, ``trivial``, ``groups``, ``count``,
    ``sat``, ``endgame``, ``region``, ``guess`` or ``none``."""
    certain: bool
    """Whether every move is proven (a first click counts, under its rule)."""
    probabilities: dict[Cell, float] | None = None
    """Every covered cell's mine probability, when asked for."""
    win: float | None = None
    """The exact chance to win the game from the position, when the endgame search chose
    the guess (a rollout of :func:`~kaboom.solver.win_chances` stops there)."""
    ranked: tuple[tuple[Cell, float], ...] = ()
    """The guesses the lookahead weighed with their scores, the chosen one first and the
    others best first (when it weighed more than one)."""


def first_cell(
    position: Position, rule: FirstClick | str = FirstClick.SAFE, profile: Profile | None = None
) -> Cell:
    """The first click per first-click rule: a corner when only the cell is safe
    (seed 002); when its neighbours are safe too, a cell a few in from the corner, the
    best measured on that board (``OPENINGS`` in ``kaboom.solver.profiles``).

    Clamped to the board (measured figures in ``docs/solver.md``).
    """
    profile = profile or PROFILES["strong"]
    if FirstClick(rule) is not FirstClick.OPENING:
        x, y = profile.first_safe
    elif profile.first_opening is not None:
        x, y = profile.first_opening
    else:
        x, y = opening_cell(position.width, position.height, position.mines)
    return min(x, position.width - 1), min(y, position.height - 1)


# ---------------------------------------------------------------------- analysis
def choose(
    position: Position,
    profile: Profile,
    *,
    outside_guess: bool = True,
    want_probabilities: bool = False,
    flag_mines: bool = False,
    budget: Budget | None = None,
    first_click: FirstClick | str = FirstClick.SAFE,
    tracker: FrontierTracker | None = None,
) -> Decision:
    """Picks the moves to play; see :func:`kaboom.solver.advisor.decide`.

    ``tracker`` may carry the frontier of the game's earlier positions, with what was
    computed on its components (:class:`kaboom.solver.session.Solver` keeps one); the
    decision is the same with or without it.
    """
    budget = budget or Budget(None)
    if position.is_finished:
        return Decision((), "the game is over", "none", True)
    if position.is_start:
        return _first_click(position, profile, FirstClick(first_click), want_probabilities,
                            flag_mines)
    tracker = tracker or FrontierTracker()
    tracker.update(position)
    flagged = frozenset(position.flags())  # flags block reveals
    certain = tracker.safe - flagged
    algorithm = "trivial"
    known: Mapping[Cell, bool] = tracker.decided
    proved: dict[Cell, bool] = {}  # what the group method adds to the tracker's
    if not certain:
        certain = _groups(tracker.components(), proved) - flagged
        if proved:
            known = {**known, **proved}
        algorithm = "groups"
    analysis: _Analysis | None = None
    if not certain or want_probabilities:
        analysis = _analyse(position, tracker.frontier(), known, proved, profile, budget)
        if not certain:
            certain = {
                c for c, m in analysis.known.items()
                if not m and c not in flagged
            }
            known = analysis.known
            algorithm = "count" if analysis.count is not None else "sat"
    moves: list[Move] = []
    if flag_mines:
        moves += [
            Move.flag(*c) for c in position.covered()
            if known.get(c) and c not in flagged
        ]
    probs = analysis.probs if analysis is not None and want_probabilities else None
    if certain:
        # a game plays hundreds of these: built directly, not through Move.reveal
        moves += [Move(MoveKind.REVEAL, x, y) for x, y in sorted(certain, key=row_major)]
        return Decision(tuple(moves), f"certain: {algorithm}", algorithm, True, probs)
    assert analysis is not None
    return _guess(position, profile, analysis, flagged, outside_guess, budget, moves, probs)


def _guess(
    position: Position,
    profile: Profile,
    analysis: _Analysis,
    flagged: frozenset[Cell],
    outside_guess: bool,
    budget: Budget,
    moves: list[Move],
    probs: dict[Cell, float] | None,
) -> Decision:
    """Nothing is certain: the guess, after ``moves`` (the flags), among the undecided
    cells that are not flagged (all of them when every one is) and, without
    ``outside_guess``, on the frontier when it has any."""
    undecided = [c for c in position.covered() if c not in analysis.known]
    if not undecided:
        return Decision(tuple(moves), "nothing left to reveal", "none", True, probs)
    candidates = [c for c in undecided if c not in flagged] if flagged else undecided
    candidates = candidates or undecided
    if not outside_guess:
        frontier = set(analysis.frontier.cells)
        candidates = [c for c in candidates if c in frontier] or candidates
    situation = Situation(position, profile, analysis.frontier, analysis.known,
                          analysis.count, analysis.probs, undecided, candidates, budget)
    pick = guess(situation)
    return Decision((*moves, Move.reveal(*pick.cell)), pick.reason, pick.algorithm, False, probs,
                    pick.win, pick.ranked)


def _first_click(
    position: Position, profile: Profile, rule: FirstClick, want_probabilities: bool,
    flag_mines: bool,
) -> Decision:
    """The rule's first cell, or the unflagged cell nearest to it (flags block reveals);
    nothing when every cell is a mine.  Every cell is covered on an untouched board, so
    the board is listed only when a flag, a board of mines or the probabilities need it
    (once a game, but a bench plays hundreds of thousands)."""
    cells = position.width * position.height
    probs = (dict.fromkeys(position.covered(), position.mines / cells)
             if want_probabilities else None)
    if position.mines == cells:
        flagged = set(position.flags())
        flags = (tuple(Move.flag(*c) for c in position.covered() if c not in flagged)
                 if flag_mines else ())
        return Decision(flags, "every cell is a mine", "none", True, probs)
    x, y = first_cell(position, rule, profile)
    if position.char(x, y) == CellState.FLAG:
        flagged = set(position.flags())
        free = [c for c in position.covered() if c not in flagged] or [(x, y)]
        x, y = min(free, key=lambda c: (max(abs(c[0] - x), abs(c[1] - y)), c[1], c[0]))
    return Decision((Move.reveal(x, y),), f"first click ({rule})", "first", True, probs)


@dataclass(frozen=True, slots=True)
class _Analysis:
    """What exact counting (or the SAT fallback) found: every decided cell and the
    probabilities; ``count`` is ``None`` after the fallback."""

    frontier: Frontier
    known: dict[Cell, bool]
    count: counting.Count | None
    probs: dict[Cell, float]


def _groups(comps: list[Component], known: dict[Cell, bool]) -> set[Cell]:
    """The group method, component by component (a component's result is kept with
    it); fills ``known`` with what it proves and returns the safe cells."""
    safe: set[Cell] = set()
    for comp in comps:
        result = comp.memo.get("groups")
        if result is None:
            result = comp.memo["groups"] = reduce_groups(comp.constraints, stop_at_safe=True)
        assert isinstance(result, GroupResult)
        known.update(dict.fromkeys(result.mines, True))
        known.update(dict.fromkeys(result.safe, False))
        safe |= result.safe
    return safe


def _analyse(
    position: Position,
    fr: Frontier,
    known: Mapping[Cell, bool],
    proved: Mapping[Cell, bool],
    profile: Profile,
    budget: Budget,
) -> _Analysis:
    """Exact counting with a SAT + approximation fallback; proves every decidable cell.

    ``fr`` holds every cell of ``known`` but those of ``proved`` (the tracker's frontier
    and what the group method added): only those are folded in, not the hundreds the
    tracker decided."""
    fr = fr.fold(proved)
    decided = dict(known)
    try:
        cnt = _count(fr, profile.node_limit)
    except counting.TooBig:
        knowledge = classify(position, known=known, budget=budget)
        decided.update(knowledge.decided())
        probs = approximate(position, decided).cells
        return _Analysis(fr, decided, None, probs)
    probs = {c: w / cnt.weight for c, w in cnt.mine_weight.items()}
    for c, w in cnt.mine_weight.items():
        if w == 0:
            decided[c] = False
        elif w == cnt.weight:
            decided[c] = True
    if fr.outside_count:
        p_out = cnt.outside_probability
        outside = fr.outside
        probs.update(dict.fromkeys(outside, p_out))
        if cnt.outside_mine_weight == 0:
            decided.update(dict.fromkeys(outside, False))
        elif cnt.outside_mine_weight == cnt.weight:
            decided.update(dict.fromkeys(outside, True))
    for c, m in decided.items():
        probs[c] = 1.0 if m else 0.0
    return _Analysis(fr, decided, cnt, probs)


def _count(fr: Frontier, node_limit: int) -> counting.Count:
    comps = [cs for _, cs in fr.components()]
    try:
        return counting.count(comps, fr.outside_count, fr.mines_left, node_limit)
    except ValueError as exc:
        raise InvalidPositionError(str(exc)) from None


