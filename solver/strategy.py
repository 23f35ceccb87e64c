"""The playing strategy: every certain move first, then the best guess.

Certain moves come from the cheapest method that finds any: the trivial rules, then the
group method, then exact counting (complete: it uses every number and the mine count),
and the SAT engine when a component is too large to count.  When nothing is certain:
with few layouts left, the endgame search maximises the chance to win outright; a closed
region is played the same way on its own (:mod:`solver.regions`); a 50/50 that will
have to be guessed anyway is guessed first (:mod:`solver.fifty`); otherwise the guess is
the safest cell, with near-ties broken by a one-move lookahead (seed 002, step 4,
:mod:`solver.lookahead`): how likely the click is to make some other cell certainly
safe, a likely 50/50 making a cell cheaper than it looks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from solver import counting, endgame, fifty, lookahead, regions
from solver.approx import approximate
from solver.budget import Budget
from solver.errors import InvalidPositionError
from solver.frontier import Component, Constraint, Frontier, FrontierTracker, components
from solver.groups import GroupResult, reduce_groups
from solver.knowledge import classify
from solver.position import COVERED_CHARS, Cell, Move, Position

__all__ = [
    "PROFILES",
    "Decision",
    "Profile",
    "choose",
    "find_profile",
    "first_cell",
]


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
    tolerance: float = 0.02
    """Candidates for the lookahead: mine probability within this of the safest cell."""
    candidates: int = 8
    """At most this many candidates get the lookahead."""
    progress_weight: float = 0.5
    """Weight of P(the click proves another cell safe) in the lookahead score."""
    score: str = "progress"
    """Lookahead score: ``progress``, ``blended``, ``secondary`` or ``cleared`` (see
    :func:`_score`)."""
    ratio: float = 0.0
    """When set, candidates are the cells whose safety is at least ``ratio`` times the
    best safety (JSMinesweeper: 0.9) instead of within ``tolerance``."""
    outside_candidates: int = 3
    """Outside cells among the candidates (fewest undecided neighbours first)."""
    avoid_dead: bool = False
    """Rank cells that can show only one number (they teach nothing) last."""
    dominance: bool = False
    """Prefer a safer candidate that is safe whenever the chosen one is."""
    regions: int = 0
    """Play a closed region (:mod:`solver.regions`) with at most this many solutions
    perfectly, before any other guess."""
    fifty: bool = False
    """Guess an unavoidable 50/50, or a cell that is safe or a 50/50 (:mod:`solver.fifty`),
    before anything else."""
    risk: float = 0.0
    """Long-term risk (JSMinesweeper): the lookahead score of a cell is multiplied by
    ``1 + risk * I / S``, ``I`` the layouts in which the cell lies in a 50/50 that will
    have to be guessed anyway, ``S`` those in which it is safe."""
    node_limit: int = 100_000
    """Search nodes per component before counting gives up for the SAT engine."""
    endgame_cells: int = 0
    """Run the win-probability search when at most this many undecided cells remain."""
    endgame_layouts: int = 400
    """... and they have at most this many consistent layouts."""
    first_safe: tuple[int, int] = (0, 0)
    """First click when only the clicked cell is guaranteed safe (from the corner)."""
    first_opening: tuple[int, int] = (2, 2)
    """First click when its neighbours are safe too (from the corner)."""


PROFILES: dict[str, Profile] = {
    "fast": Profile("fast", lookahead=False, node_limit=20_000, endgame_cells=12,
                    endgame_layouts=100),
    "strong": Profile("strong", endgame_cells=20, endgame_layouts=300, regions=1000,
                      fifty=True, risk=0.9),
}


def find_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None


def first_cell(position: Position, rule: str = "safe", profile: Profile | None = None) -> Cell:
    """The first click per first-click rule: a corner when only the cell is safe
    (seed 002), a cell two in from the corner when its neighbours are safe too.

    Clamped to the board (measured figures in ``docs/solver.md``).
    """
    profile = profile or PROFILES["strong"]
    x, y = profile.first_opening if rule in ("opening", "snr") else profile.first_safe
    return min(x, position.width - 1), min(y, position.height - 1)


# ---------------------------------------------------------------------- analysis
@dataclass(slots=True)
class _Analysis:
    position: Position
    frontier: Frontier
    known: dict[Cell, bool]
    count: counting.Count | None
    probs: dict[Cell, float]
    around: list[list[int]] | None = None
    """Undecided covered neighbours per cell (``around[y][x]``), built when first asked."""


def choose(
    position: Position,
    profile: Profile,
    *,
    outside_guess: bool = True,
    want_probabilities: bool = False,
    flag_mines: bool = False,
    budget: Budget | None = None,
    first_click: str = "safe",
    tracker: FrontierTracker | None = None,
) -> Decision:
    """Picks the moves to play; see :func:`solver.advisor.decide`.

    ``tracker`` may carry the frontier of the game's earlier positions, with what was
    computed on its components (:class:`solver.session.Solver` keeps one); the
    decision is the same with or without it.
    """
    budget = budget or Budget(None)
    if position.is_start:
        cell = first_cell(position, first_click, profile)
        return Decision((Move.reveal(*cell),), f"first click ({first_click})", "first", True)
    tracker = tracker or FrontierTracker()
    tracker.update(position)
    known = dict(tracker.decided)
    certain = {c for c, m in known.items() if not m and position.char(*c) != "F"}
    algorithm = "trivial"
    if not certain:
        certain = _groups(tracker.components(), known)
        certain = {c for c in certain if position.char(*c) != "F"}  # flags block reveals
        algorithm = "groups"
    analysis: _Analysis | None = None
    if not certain or want_probabilities:
        analysis = _analyse(position, tracker.frontier(), known, profile, budget)
        if not certain:
            certain = {
                c for c, m in analysis.known.items() if not m and position.char(*c) != "F"
            }
            known = analysis.known
            algorithm = "count" if analysis.count is not None else "sat"
    moves: list[Move] = []
    if flag_mines:
        moves += [
            Move.flag(*c) for c in position.covered()
            if known.get(c) and position.char(*c) != "F"
        ]
    probs = analysis.probs if analysis is not None and want_probabilities else None
    if certain:
        moves += [Move.reveal(*c) for c in sorted(certain, key=_row_major)]
        return Decision(tuple(moves), f"certain: {algorithm}", algorithm, True, probs)
    assert analysis is not None
    return _guess(analysis, profile, outside_guess, tuple(moves), probs)


def _row_major(c: Cell) -> tuple[int, int]:
    return c[1], c[0]


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
    profile: Profile,
    budget: Budget,
) -> _Analysis:
    """Exact counting with a SAT + approximation fallback; proves every decidable cell."""
    fr = fr.fold(known)
    decided = dict(known)
    try:
        cnt = _count(fr.constraints, fr.outside_count, fr.mines_left, profile.node_limit)
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
    if fr.outside_count:
        p_out = cnt.outside_probability
        outside = fr.outside
        for c in outside:
            probs[c] = p_out
        if cnt.outside_mine_weight == 0:
            decided.update(dict.fromkeys(outside, False))
        elif cnt.outside_mine_weight == cnt.weight:
            decided.update(dict.fromkeys(outside, True))
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
        and a.count.weight <= profile.endgame_layouts
    ):
        result = endgame.best_move(
            position, a.known, candidates, max_layouts=profile.endgame_layouts
        )
        if result is not None:
            cell, win = result
            reason = f"endgame: win probability {win:.3f}"
            return Decision((*moves, Move.reveal(*cell)), reason, "endgame", False, probs)
    relief: dict[Cell, float] = {}
    decided = a.frontier.fold(a.known)
    if profile.regions and a.count is not None:
        cands = set(candidates)
        for region in regions.closed_regions(position, decided.constraints, a.known,
                                             profile.regions):
            if not cands.issuperset(region.cells):
                continue
            found = regions.best_move(position, region)
            if found is not None:
                cell, win = found
                reason = f"closed region: win probability {win:.3f}"
                return Decision((*moves, Move.reveal(*cell)), reason, "region", False, probs)
    if (profile.fifty or profile.risk) and a.count is not None:
        pair = fifty.forced_pair(position, decided.constraints, a.known) if profile.fifty else None
        if pair is not None and pair[0] in candidates:
            reason = "guess: an unavoidable 50/50, played first"
            return Decision((*moves, Move.reveal(*pair[0])), reason, "guess", False, probs)
        found = _pockets(a, decided)
        cands = set(candidates)
        if profile.fifty:
            for pocket in found:
                for c in pocket.cells:
                    if c in cands and _mine_weight(a, c) == pocket.weight:
                        reason = "guess: a 50/50 or safe, played first"
                        return Decision((*moves, Move.reveal(*c)), reason, "guess", False, probs)
        if profile.risk and found:
            for c in {c for pocket in found for c in (*pocket.cells, *pocket.enablers)}:
                mine = _mine_weight(a, c)
                safe = a.count.weight - mine
                if safe and c in cands:
                    relief[c] = min(fifty.influence(found, c), mine, safe) / safe
    p = a.probs
    best_p = min(p[c] for c in candidates)
    safest = [c for c in candidates if p[c] <= best_p + 1e-9]
    if len(safest) > 16:  # many tied outside cells: only the corners/edges can win
        degree = {c: _degree(a.position, c) for c in safest}
        low = min(degree.values())
        safest = [c for c in safest if degree[c] == low]
    cell = min(safest, key=lambda c: (_covered_around(a, c), c[1], c[0]))
    reason = f"guess: lowest mine probability {best_p:.3f}"
    if profile.lookahead and a.count is not None:
        near = _shortlist(a, candidates, best_p, profile)
        near += [  # cells a likely 50/50 makes cheaper than they look (JSMinesweeper)
            c for c, r in relief.items()
            if c not in near and (1 - p[c]) * (1 + profile.risk * r) >= 0.9 * (1 - best_p)
        ]
        if len(near) > 1:
            outside = frozenset(a.frontier.outside)
            looks = [_outlook(a, c, outside) for c in near]
            scores = {
                o.cell: _score(a, o, profile) * (1.0 + profile.risk * relief.get(o.cell, 0.0))
                for o in looks
            }

            def rank(o: lookahead.Outlook) -> tuple[bool, float, float, int, int, int]:
                c = o.cell
                return (
                    not (profile.avoid_dead and o.dead),
                    scores[c],
                    o.expected_cleared if profile.score == "blended" else 0.0,
                    -_covered_around(a, c),
                    -c[1],
                    -c[0],
                )

            best = max(looks, key=rank)
            if profile.dominance:
                # a safer candidate that is safe whenever the chosen one is: play it first
                common = best.common_safe()
                safer = [o for o in looks if o.cell in common and p[o.cell] < p[best.cell] - 1e-3]
                if safer:
                    best = max(safer, key=rank)
            cell = best.cell
            reason = (
                f"guess: mine probability {p[cell]:.3f} "
                f"(safest {best_p:.3f}), lookahead score {scores[cell]:.3f}"
            )
    return Decision((*moves, Move.reveal(*cell)), reason, "guess", False, probs)


def _mine_weight(a: _Analysis, cell: Cell) -> int:
    assert a.count is not None
    w = a.count.mine_weight.get(cell)
    return a.count.outside_mine_weight if w is None else w


def _pockets(a: _Analysis, decided: Frontier) -> list[fifty.Pocket]:
    """Places where a 50/50 may form, weighted by the layouts in which it does."""

    def count_with(forced: Mapping[Cell, bool]) -> int:
        try:
            fr = decided.fold(forced)
            return _count(fr.constraints, fr.outside_count, fr.mines_left, 20_000).weight
        except (InvalidPositionError, counting.TooBig):
            return 0

    return fifty.pockets(a.position, a.known, decided.mines_left, count_with)


def _degree(position: Position, cell: Cell) -> int:
    x, y = cell
    return (3 - (x == 0) - (x == position.width - 1)) * (3 - (y == 0) - (y == position.height - 1))


def _covered_around(a: _Analysis, cell: Cell) -> int:
    """Undecided covered neighbours: the fewer, the likelier the cell opens an area."""
    if a.around is None:
        position = a.position
        h, w = position.height, position.width
        board = np.frombuffer("".join(position.rows).encode("ascii"), dtype=np.uint8)
        grid = np.zeros((h + 2, w + 2), dtype=np.int8)
        grid[1:-1, 1:-1] = np.isin(board, _COVERED).reshape(h, w)
        for x, y in a.known:
            grid[y + 1, x + 1] = 0
        around = sum(
            (grid[1 + dy : h + 1 + dy, 1 + dx : w + 1 + dx] for dy in (-1, 0, 1)
             for dx in (-1, 0, 1) if dx or dy),
            np.zeros((h, w), dtype=np.int8),
        )
        a.around = around.tolist()
    return a.around[cell[1]][cell[0]]


_COVERED = np.array([ord(ch) for ch in COVERED_CHARS], dtype=np.uint8)


def _shortlist(a: _Analysis, candidates: list[Cell], best_p: float, profile: Profile) -> list[Cell]:
    """The cells worth a lookahead: frontier cells near the safest, and a few outside
    representatives (fewest undecided neighbours first: likeliest to open an area)."""
    p = a.probs
    frontier = set(a.frontier.cells)
    limit = 1.0 - (1.0 - best_p) * profile.ratio if profile.ratio else best_p + profile.tolerance
    inner = sorted((c for c in candidates if c in frontier and p[c] <= limit + 1e-12),
                   key=p.__getitem__)
    out = [c for c in candidates if c not in frontier and p[c] <= limit + 1e-12]
    out.sort(key=lambda c: (_covered_around(a, c), c[1], c[0]))
    return inner[: max(1, profile.candidates - profile.outside_candidates)] + out[
        : profile.outside_candidates
    ]


def _outlook(a: _Analysis, cell: Cell, outside: frozenset[Cell]) -> lookahead.Outlook:
    position, fr, known = a.position, a.frontier, a.known
    free = [
        c for c in position.neighbours(*cell) if position.is_covered(*c) and c not in known
    ]
    assert a.count is not None
    return lookahead.outlook(
        fr.constraints, outside, fr.mines_left, a.count.weight, cell, free, base=a.count
    )


def _score(a: _Analysis, o: lookahead.Outlook, profile: Profile) -> float:
    """The candidate's value (higher is better), per ``profile.score``:

    ``progress``: ``(1 - p) * (1 + w * P(progress))`` (w = ``progress_weight``);
    ``blended``: JSMinesweeper's secondary safety, the next click's safety blended 4:1
    with the runner-up's, times ``1 + w * P(progress)``;
    ``secondary``: P(surviving this click and the safest next one), same factor;
    ``cleared``: seed 002, ``(1 - p) * (1 + w * E[cells proven safe])``;
    ``hybrid``: a number worth ``1 + w`` when it proves a cell safe, else the safety of
    the guess it leaves.
    """
    w = profile.progress_weight
    if profile.score == "blended":
        return o.blended() * (1.0 + w * o.progress)
    if profile.score == "hybrid":
        return o.hybrid(w)
    if profile.score == "secondary":
        return o.secondary * (1.0 + w * o.progress)
    if profile.score == "cleared":
        return (1.0 - a.probs[o.cell]) * (1.0 + w * o.expected_cleared)
    return (1.0 - a.probs[o.cell]) * (1.0 + w * o.progress)
