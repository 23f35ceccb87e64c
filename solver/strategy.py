"""The playing strategy: every certain move first, then the best guess.

Certain moves come from the cheapest method that finds any: the trivial rules, then the
group method, then exact counting (complete: it uses every number and the mine count),
and the SAT engine when a component is too large to count.  When nothing is certain,
the guess is the safest cell, with near-ties broken by a one-move lookahead (seed 002,
step 4): how likely the click is to make some other cell certainly safe.  With few
unknown cells left, the endgame search maximises the chance to win outright.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from solver import counting, endgame
from solver.approx import approximate
from solver.budget import Budget
from solver.errors import InvalidPositionError
from solver.frontier import Constraint, Frontier, components, frontier_of
from solver.groups import reduce_groups
from solver.knowledge import classify
from solver.position import Cell, Move, Position

__all__ = ["PROFILES", "Decision", "Profile", "choose", "find_profile", "first_cell"]


@dataclass(frozen=True, slots=True)
class Decision:
    """Moves to play now, in order, with how they were found."""

    moves: tuple[Move, ...]
    reason: str
    algorithm: str
    certain: bool
    probabilities: dict[Cell, float] | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    """Strategy settings; see :data:`PROFILES`."""

    name: str
    lookahead: bool = True
    tolerance: float = 0.05
    """Candidates for the lookahead: mine probability within this of the safest cell."""
    candidates: int = 8
    """At most this many candidates get the lookahead."""
    progress_weight: float = 0.25
    """Score = (1 - p) * (1 + progress_weight * P(the click proves another cell safe))."""
    node_limit: int = 100_000
    """Search nodes per component before counting gives up for the SAT engine."""
    endgame_cells: int = 0
    """Run the win-probability search when at most this many undecided cells remain."""


PROFILES: dict[str, Profile] = {
    "fast": Profile("fast", lookahead=False, node_limit=20_000),
    "strong": Profile("strong", endgame_cells=10),
}


def find_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None


def first_cell(position: Position, rule: str = "safe") -> Cell:
    """The first click per first-click rule: a corner when only the cell is safe
    (seed 002), a cell two in from the corner when its neighbours are safe too."""
    if rule in ("opening", "snr") and position.width >= 5 and position.height >= 5:
        return 2, 2
    return 0, 0


# ---------------------------------------------------------------------- analysis
@dataclass(slots=True)
class _Analysis:
    position: Position
    frontier: Frontier
    known: dict[Cell, bool]
    count: counting.Count | None
    probs: dict[Cell, float]


def choose(
    position: Position,
    profile: Profile,
    *,
    outside_guess: bool = True,
    want_probabilities: bool = False,
    flag_mines: bool = False,
    budget: Budget | None = None,
    first_click: str = "safe",
) -> Decision:
    """Picks the moves to play; see :func:`solver.advisor.decide`."""
    budget = budget or Budget(None)
    if position.is_start:
        cell = first_cell(position, first_click)
        return Decision((Move.reveal(*cell),), f"first click ({first_click})", "first", True)
    fr = frontier_of(position)
    known: dict[Cell, bool] = {}
    certain, algorithm = _cheap(fr, known)
    analysis: _Analysis | None = None
    if not certain or want_probabilities:
        analysis = _analyse(position, known, profile, budget)
        if not certain:
            certain = {c for c, m in analysis.known.items() if not m}
            known = analysis.known
            algorithm = "count" if analysis.count is not None else "sat"
    moves: list[Move] = []
    if flag_mines:
        moves += [
            Move.flag(*c) for c in position.covered()
            if known.get(c) and position.char(*c) != "F"
        ]
    probs = analysis.probs if analysis is not None and want_probabilities else None
    reveal = [c for c in position.covered() if c in certain and position.char(*c) != "F"]
    if reveal:
        moves += [Move.reveal(*c) for c in reveal]
        return Decision(tuple(moves), f"certain: {algorithm}", algorithm, True, probs)
    assert analysis is not None
    return _guess(analysis, profile, outside_guess, tuple(moves), probs)


def _cheap(fr: Frontier, known: dict[Cell, bool]) -> tuple[set[Cell], str]:
    """Trivial rules, then the group method; fills ``known`` with what they prove."""
    for algorithm, rounds in (("trivial", 0), ("groups", 50)):
        result = reduce_groups(fr.constraints, max_rounds=rounds)
        if result.safe or algorithm == "groups":
            known.update(dict.fromkeys(result.safe, False))
            known.update(dict.fromkeys(result.mines, True))
            return set(result.safe), algorithm
    return set(), "groups"


def _analyse(
    position: Position, known: Mapping[Cell, bool], profile: Profile, budget: Budget
) -> _Analysis:
    """Exact counting with a SAT + approximation fallback; proves every decidable cell."""
    fr = frontier_of(position, known)
    decided = dict(known)
    try:
        cnt = _count(fr.constraints, len(fr.outside), fr.mines_left, profile.node_limit)
    except counting.TooBig:
        knowledge = classify(position, known=known, budget=budget)
        decided.update(knowledge.decided())
        probs = approximate(position, decided).cells
        return _Analysis(position, fr, decided, None, probs)
    probs = {c: w / cnt.weight for c, w in cnt.mine_weight.items()}
    for c, w in cnt.mine_weight.items():
        if w == 0:
            decided[c] = False
        elif w == cnt.weight:
            decided[c] = True
    if fr.outside:
        p_out = cnt.outside_probability
        for c in fr.outside:
            probs[c] = p_out
        if cnt.outside_mine_weight == 0:
            decided.update(dict.fromkeys(fr.outside, False))
        elif cnt.outside_mine_weight == cnt.weight:
            decided.update(dict.fromkeys(fr.outside, True))
    for c, m in decided.items():
        probs[c] = 1.0 if m else 0.0
    return _Analysis(position, fr, decided, cnt, probs)


def _count(
    constraints: tuple[Constraint, ...] | list[Constraint],
    outside: int,
    mines_left: int,
    node_limit: int,
) -> counting.Count:
    comps = [cs for _, cs in components(constraints)]
    try:
        return counting.count(comps, outside, mines_left, node_limit)
    except ValueError as exc:
        raise InvalidPositionError(str(exc)) from None


# ---------------------------------------------------------------------- guessing
def _guess(
    a: _Analysis,
    profile: Profile,
    outside_guess: bool,
    moves: tuple[Move, ...],
    probs: dict[Cell, float] | None,
) -> Decision:
    position = a.position
    undecided = [c for c in position.covered() if c not in a.known]
    if not undecided:
        return Decision(moves, "nothing left to reveal", "none", True, probs)
    frontier = set(a.frontier.cells)
    candidates = [c for c in undecided if position.char(*c) != "F"] or undecided
    if not outside_guess:
        candidates = [c for c in candidates if c in frontier] or candidates
    if (
        a.count is not None
        and profile.endgame_cells
        and len(undecided) <= profile.endgame_cells
    ):
        result = endgame.best_move(position, a.known, candidates)
        if result is not None:
            cell, win = result
            reason = f"endgame: win probability {win:.3f}"
            return Decision((*moves, Move.reveal(*cell)), reason, "endgame", False, probs)
    p = a.probs
    best_p = min(p[c] for c in candidates)
    cell = min(candidates, key=lambda c: (p[c], c[1], c[0]))
    reason = f"guess: lowest mine probability {best_p:.3f}"
    if profile.lookahead and a.count is not None:
        near = _shortlist(a, candidates, best_p + profile.tolerance, profile.candidates)
        if len(near) > 1:
            scored = [(_score(a, c, profile), c) for c in near]
            score, cell = max(scored, key=lambda t: (t[0], -t[1][1], -t[1][0]))
            reason = (
                f"guess: mine probability {p[cell]:.3f} "
                f"(safest {best_p:.3f}), lookahead score {score:.3f}"
            )
    return Decision((*moves, Move.reveal(*cell)), reason, "guess", False, probs)


def _shortlist(a: _Analysis, candidates: list[Cell], limit: float, size: int) -> list[Cell]:
    """The safest candidates, with only a few representatives of the outside cells."""
    p = a.probs
    frontier = set(a.frontier.cells)
    inner = sorted((c for c in candidates if c in frontier and p[c] <= limit), key=p.__getitem__)
    out = [c for c in candidates if c not in frontier and p[c] <= limit]
    width, height = a.position.width, a.position.height

    def openness(c: Cell) -> tuple[int, int, int]:
        # corners and edges first: fewer neighbours, more likely to be a zero
        around = sum(1 for _ in a.position.neighbours(*c))
        return around, c[1], c[0]

    out.sort(key=openness)
    del width, height
    return inner[: max(1, size - 3)] + out[:3]


def _score(a: _Analysis, cell: Cell, profile: Profile) -> float:
    """(1 - p) * (1 + w * P(revealing ``cell`` proves some other cell safe | it is safe))."""
    safety = 1.0 - a.probs[cell]
    progress = _progress(a, cell)
    return safety * (1.0 + profile.progress_weight * progress)


def _progress(a: _Analysis, cell: Cell) -> float:
    """P(the number under ``cell`` makes another cell certainly safe | ``cell`` is safe)."""
    position, fr, known = a.position, a.frontier, a.known
    around = [c for c in position.neighbours(*cell) if position.is_covered(*c)]
    fixed = sum(1 for c in around if known.get(c))
    free = [c for c in around if c not in known]
    outside = set(fr.outside)
    base = [
        Constraint(tuple(c for c in con.cells if c != cell), con.mines)
        for con in fr.constraints
    ]
    base = [con for con in base if con.cells]
    n_out = len(fr.outside) - (cell in outside) - sum(1 for c in free if c in outside)
    total = 0
    good = 0
    for v in range(len(free) + 1):
        cons = [*base, Constraint(tuple(sorted(free)), v)] if free else base
        try:
            cnt = _count(cons, n_out, fr.mines_left, 20_000)
        except (InvalidPositionError, counting.TooBig):
            continue
        total += cnt.weight
        if any(w == 0 for w in cnt.mine_weight.values()) or (
            n_out and cnt.outside_mine_weight == 0
        ):
            good += cnt.weight
    del fixed
    return good / total if total else 0.0
