"""Guessing, when nothing is certain: an ordered list of small policies.

Each policy looks at the :class:`Situation` and either picks the cell or passes; the
first that picks wins.  In order (each behind its :class:`~kaboom.solver.profiles.Profile`
option): the exact endgame search when few layouts are left, a closed region played
on its own (:mod:`kaboom.solver.regions`), a 50/50 that will have to be guessed anyway
(:mod:`kaboom.solver.fifty`), and last the safest cell with near-ties broken by the one-move
lookahead (:mod:`kaboom.solver.lookahead`, seed 002 step 4), which always picks.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import cast

from kaboom.solver import counting, endgame, fifty, lookahead, regions
from kaboom.solver._kernels.guess import undecided_around
from kaboom.solver.budget import Budget
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import (
    Frontier,
    components,
    fold_constraints,
)
from kaboom.solver.position import COVERED_CHARS, Cell, Position, cells_by_index, neighbour_lists
from kaboom.solver.profiles import Profile

__all__ = ["POLICIES", "Guess", "Situation", "guess", "score", "shortlist"]


@dataclass(frozen=True, slots=True)
class Guess:
    """The cell to reveal, why, and which policy chose it."""

    cell: Cell
    reason: str
    algorithm: str
    win: float | None = None
    """The exact chance to win the game from here, when the endgame search chose."""
    ranked: tuple[tuple[Cell, float], ...] = ()
    """The cells the lookahead weighed, with their scores, the chosen one first and the
    others best first (when it weighed more than one)."""


@dataclass(slots=True)
class Situation:
    """A position where nothing is certain, with what the analysis found.

    ``frontier`` has the group method's mines folded in; ``known`` holds every decided
    cell; ``count`` is the exact count (``None`` when a component was too large and
    ``probs`` are the approximation's); ``candidates`` are the cells a guess may take.
    """

    position: Position
    profile: Profile
    frontier: Frontier
    known: dict[Cell, bool]
    count: counting.Count | None
    probs: dict[Cell, float]
    undecided: list[Cell]
    candidates: list[Cell]
    budget: Budget = field(default_factory=lambda: Budget(None))
    """The request's time: the lookahead stops weighing candidates when it runs out."""
    _memo: dict[str, object] = field(default_factory=dict)

    @property
    def candidate_set(self) -> frozenset[Cell]:
        """:attr:`candidates` as a set, for the policies that ask about a few cells."""
        got = self._memo.get("candidate_set")
        if got is None:
            got = self._memo["candidate_set"] = frozenset(self.candidates)
        assert isinstance(got, frozenset)
        return got

    def within(self, limit: float) -> tuple[list[Cell], list[Cell]]:
        """The candidates whose mine probability is at most ``limit``: those on the
        frontier, row-major, and those outside it.  After an exact count every outside
        cell has the same probability, so it is read once: an early guess has hundreds
        of outside candidates, and this ran over each of them several times a guess.
        The outside list may be the situation's own: read it, do not change it."""
        p = self.probs
        got = self._memo.get("sides")
        if got is None:
            cands = self.candidate_set
            got = self._memo["sides"] = (
                [c for c in self.frontier.cells if c in cands],
                [c for c in self.frontier.outside if c in cands],
            )
        assert isinstance(got, tuple)
        inner, outer = got
        near = [c for c in inner if p[c] <= limit]
        if self.count is None:  # approximate probabilities differ from cell to cell
            return near, [c for c in outer if p[c] <= limit]
        return near, outer if outer and p[outer[0]] <= limit else []

    def best_probability(self) -> float:
        """The lowest mine probability among the candidates."""
        near, far = self.within(1.0)
        p = self.probs
        return min(min(map(p.__getitem__, near), default=1.0),
                   min(map(p.__getitem__, far[:1] if self.count is not None else far),
                       default=1.0))

    @property
    def decided(self) -> Frontier:
        """The frontier with every decided cell folded in."""
        got = self._memo.get("decided")
        if got is None:
            got = self._memo["decided"] = self.frontier.fold(self.known)
        assert isinstance(got, Frontier)
        return got

    def pockets(self, pair_walls: int = 1, box_walls: int = 0) -> list[fifty.Pocket]:
        """Places where a 50/50 may form, weighted by the layouts in which it does; up to
        ``pair_walls`` more mines may be needed to wall in a pair, ``box_walls`` a 2x2
        block.  Found once, as wide as the long-term risk needs, and narrowed here: a
        narrower pocket is a wide one with fewer missing walls, of the same weight."""
        widest = self.profile.risk_walls
        key = (max(pair_walls, widest), max(box_walls, widest))
        wide = self._memo.setdefault("pockets", {})
        assert isinstance(wide, dict)
        found = wide.get(key)
        if found is None:
            found = wide[key] = fifty.pockets(
                self.position, self.known, self.decided.mines_left, self._count_with,
                pair_walls=key[0], box_walls=key[1],
            )
        if key == (pair_walls, box_walls):
            return found
        return [p for p in found
                if len(p.enablers) <= (pair_walls if len(p.cells) == 2 else box_walls)]

    def _count_with(self, forced: Mapping[Cell, bool]) -> int:
        """The layouts in which the ``forced`` undecided cells are as given: only the
        components they touch are counted again, and forced outside cells only change
        the binomials."""
        base = self._memo.get("base")
        if base is None:
            decided = self.decided
            try:
                tables = [counting.tabulate(cs, 20_000)
                          for _, cs in decided.components()]
            except counting.TooBig:
                tables = None
            base = self._memo["base"] = _Base(decided, tables, frozenset(decided.cells))
        assert isinstance(base, _Base)
        if base.tables is None:
            return 0
        mines = sum(forced.values())
        if base.cells.isdisjoint(forced):
            # outside cells only: the weight depends on how many and how many mines
            key = (len(forced), mines)
            got = base.outside.get(key)
            if got is None:
                got = base.outside[key] = counting.total_weight(
                    [t.totals for t in base.tables],
                    base.frontier.outside_count - len(forced), base.frontier.mines_left - mines,
                )
            return got
        inside = {c: m for c, m in forced.items() if c in base.cells}
        decided = base.frontier
        outside = decided.outside_count - (len(forced) - len(inside))
        kept, again = counting.untouched(base.tables, inside.keys())
        try:
            dists = [t.totals for t in kept] + [
                counting.tabulate(cs, 20_000).totals
                for _, cs in components(fold_constraints(again, inside))
            ]
        except (InvalidPositionError, counting.TooBig):
            return 0
        return counting.total_weight(dists, outside, decided.mines_left - mines)

    def mine_weight(self, cell: Cell) -> int:
        assert self.count is not None
        w = self.count.mine_weight.get(cell)
        return self.count.outside_mine_weight if w is None else w

    def covered_around(self, cell: Cell) -> int:
        """Undecided covered neighbours: the fewer, the likelier the cell opens an area."""
        return self._around()[cell[1] * self.position.width + cell[0]]

    def by_openness(self, cells: Iterable[Cell], *, degree: bool = False,
                    first: int | None = None) -> list[Cell]:
        """``cells`` by (undecided covered neighbours, row, column), or the ``first``
        of them; with ``degree``, by the cells they touch first (corners, then edges).
        Ordered as one integer a cell: a few hundred outside cells at each guess."""
        position = self.position
        width, size = position.width, position.width * position.height
        around = self._around()
        if degree:
            touches = _touches(width, position.height)
            keys = [(touches[i] * 9 + around[i]) * size + i
                    for i in [y * width + x for x, y in cells]]
        else:
            keys = [around[i] * size + i for i in [y * width + x for x, y in cells]]
        if first is not None and first < len(keys):
            keys = heapq.nsmallest(first, keys)
        else:
            keys.sort()
        every = cells_by_index(width, position.height)
        return [every[k % size] for k in keys]

    def _around(self) -> list[int]:
        """Each cell's undecided covered neighbours, by flat index."""
        around = self._memo.get("around")
        if around is None:
            position = self.position
            around = self._memo["around"] = undecided_around(
                position.width, position.height, position.flat.encode("ascii"), self.known
            )
        assert isinstance(around, list)
        return around

    def around(self, cell: Cell) -> frozenset[Cell]:
        """The cell's undecided covered neighbours."""
        near = cast("dict[Cell, frozenset[Cell]] | None", self._memo.get("near"))
        if near is None:
            near = self._memo["near"] = {}
        got = near.get(cell)
        if got is None:
            position, known = self.position, self.known
            width, rows = position.width, position.rows
            got = near[cell] = frozenset([
                n for n in neighbour_lists(width, position.height)[cell[1] * width + cell[0]]
                if rows[n[1]][n[0]] in COVERED_CHARS and n not in known
            ])
        return got

    def relief(self) -> dict[Cell, float]:
        """Per cell, the share of its safe layouts in which a mine there would be a
        50/50 lost anyway (long-term risk, JSMinesweeper): ``I / S`` capped by the
        cell's mine and safe layouts."""
        if not self.profile.risk or self.count is None:
            return {}
        cands = self.candidate_set
        if self.profile.risk_walls:
            influence = self._wide_influence()
        else:
            found = self.pockets()
            influence = {
                c: fifty.influence(found, c)
                for c in {c for pocket in found for c in (*pocket.cells, *pocket.enablers)}
            }
        out = {}
        for c, i in influence.items():
            mine = self.mine_weight(c)
            safe = self.count.weight - mine
            if safe and c in cands and i:
                out[c] = min(i, mine, safe) / safe
        return out

    def influenced(self, best_p: float) -> list[Cell]:
        """JSMinesweeper's extra candidates: cells in (or completing) a likely pocket,
        whose safety with that pocket's layouts counted as safe is within 0.9 of the
        best."""
        assert self.count is not None
        total = self.count.weight
        weight: dict[Cell, int] = {}
        for pocket in self._likely():
            for c in (*pocket.cells, *pocket.enablers):
                weight[c] = weight.get(c, 0) + pocket.weight
        cands, s = self.candidate_set, counting.float_shift(total)
        return sorted(
            c for c, w in weight.items()
            if c in cands
            and (total - self.mine_weight(c) + w) >> s >= 0.9 * (1 - best_p) * (total >> s)
        )

    def _likely(self) -> list[fifty.Pocket]:
        """The narrow pockets that form in over 2.5 % of the layouts."""
        assert self.count is not None
        return [p for p in self.pockets() if p.weight * 40 > self.count.weight]

    def _wide_influence(self) -> dict[Cell, int]:
        """JSMinesweeper's influence: the pairs a cell lies in, added, and its worst 2x2
        block, over pockets with up to ``risk_walls`` missing mines; plus the likely
        pockets that a mine in the cell would complete."""
        out: dict[Cell, int] = {}
        boxes: dict[Cell, int] = {}
        walls = self.profile.risk_walls
        for pocket in self.pockets(walls, walls):
            for c in pocket.cells:
                if len(pocket.cells) == 4:
                    boxes[c] = max(boxes.get(c, 0), pocket.weight)
                else:
                    out[c] = out.get(c, 0) + pocket.weight
        for c, w in boxes.items():
            out[c] = out.get(c, 0) + w
        for pocket in self._likely():
            for c in pocket.enablers:
                out[c] = out.get(c, 0) + pocket.weight
        return out


@dataclass(frozen=True, slots=True)
class _Base:
    """The decided frontier with its component tables (``None``: too large to count)."""

    frontier: Frontier
    tables: list[counting.Table] | None
    cells: frozenset[Cell]
    outside: dict[tuple[int, int], int] = field(default_factory=dict)
    """Weights with (cells, mines) forced among the outside cells only."""


Policy = Callable[[Situation], Guess | None]


def endgame_search(s: Situation) -> Guess | None:
    """Few undecided cells and layouts: the exact search for the best chance to win."""
    p = s.profile
    if (
        s.count is None
        or (p.endgame_cells is not None and len(s.undecided) > p.endgame_cells)
        or s.count.weight > p.endgame_layouts
    ):
        return None
    found = endgame.best_move(s.position, s.known, s.candidates, max_layouts=p.endgame_layouts,
                              node_limit=p.endgame_nodes, frontier=s.decided)
    if found is None:
        return None
    cell, win = found
    return Guess(cell, f"endgame: win probability {win:.3f}", "endgame", win)


def closed_region(s: Situation) -> Guess | None:
    """A closed region with a fixed mine count is a game of its own: play it now,
    perfectly."""
    if not s.profile.regions or s.count is None:
        return None
    cands = s.candidate_set
    for region in regions.closed_regions(s.position, s.decided, s.profile.regions):
        if not cands.issuperset(region.cells):
            continue
        found = regions.best_move(s.position, region, s.profile.endgame_nodes)
        if found is not None:
            cell, win = found
            return Guess(cell, f"closed region: win probability {win:.3f}", "region")
    return None


def forced_fifty(s: Situation) -> Guess | None:
    """An unavoidable 50/50 pair: it must be guessed anyway, so guess it first."""
    if not s.profile.fifty or s.count is None:
        return None
    pair = fifty.forced_pair(s.position, s.decided.constraints, s.known)
    if pair is not None and pair[0] in s.candidate_set:
        return Guess(pair[0], "guess: an unavoidable 50/50, played first", "guess")
    return None


def fifty_or_safe(s: Situation) -> Guess | None:
    """A cell that is safe, or else one half of a formed 50/50."""
    if not s.profile.fifty or s.count is None:
        return None
    cands = s.candidate_set
    for pocket in s.pockets():
        for c in pocket.cells:
            if c in cands and s.mine_weight(c) == pocket.weight:
                return Guess(c, "guess: a 50/50 or safe, played first", "guess")
    return None


def safest(s: Situation) -> Guess:
    """The lowest mine probability; near-ties (and cells a likely 50/50 makes cheaper)
    go to the one-move lookahead's best score, other ties to the cell with the fewest
    undecided neighbours."""
    profile, p = s.profile, s.probs
    relief = s.relief() if profile.risk else {}
    best_p = s.best_probability()
    bound = best_p + 1e-9
    reason = f"guess: lowest mine probability {best_p:.3f}"

    def most_open() -> Guess:
        near, far = s.within(bound)
        tied = near + far
        # many tied outside cells: only the corners/edges can win
        return Guess(s.by_openness(tied, degree=len(tied) > 16, first=1)[0], reason, "guess")

    if not profile.lookahead or s.count is None:
        return most_open()
    near = _weighed(s, best_p, relief)
    if len(near) <= 1:
        return most_open()
    outside = frozenset(s.frontier.outside)
    looks: list[lookahead.Outlook] = []
    for c in near:  # the safest first: out of time, the best of those weighed so far
        if looks and s.budget.expired():
            break
        looks.append(_outlook(s, c, outside))
    scores = {
        o.cell: score(s, o) * (1.0 + profile.risk * relief.get(o.cell, 0.0)) for o in looks
    }

    def rank(o: lookahead.Outlook) -> tuple[bool, float, float, int, int, int]:
        c = o.cell
        return (
            not (profile.avoid_dead and o.dead),
            scores[c],
            o.expected_cleared if profile.score == "blended" else 0.0,
            -s.covered_around(c),
            -c[1],
            -c[0],
        )

    cell = _preferred(s, looks, rank).cell
    reason = (
        f"guess: mine probability {p[cell]:.3f} "
        f"(safest {best_p:.3f}), lookahead score {scores[cell]:.3f}"
    )
    others = [o.cell for o in sorted(looks, key=rank, reverse=True) if o.cell != cell]
    ranked = tuple((c, scores[c]) for c in (cell, *others))
    return Guess(cell, reason, "guess", ranked=ranked)


def _weighed(s: Situation, best_p: float, relief: Mapping[Cell, float]) -> list[Cell]:
    """The cells the lookahead weighs: the shortlist, then those a likely 50/50 makes
    cheaper (with ``risk_walls``, JSMinesweeper's influenced cells)."""
    profile, p = s.profile, s.probs
    near = shortlist(s, best_p)
    if profile.risk_walls:
        extra = s.influenced(best_p)
    else:
        extra = [c for c, r in relief.items()
                 if (1 - p[c]) * (1 + profile.risk * r) >= 0.9 * (1 - best_p)]
    return near + [c for c in extra if c not in near]


def _preferred(
    s: Situation,
    looks: list[lookahead.Outlook],
    rank: Callable[[lookahead.Outlook], tuple[bool, float, float, int, int, int]],
) -> lookahead.Outlook:
    """The best-ranked outlook, or one the profile prefers to it: a safer candidate that
    is safe whenever it is (``dominance``), or the single safest cell that every number
    it could show leaves (``sole_safest``)."""
    profile, p = s.profile, s.probs
    best = max(looks, key=rank)
    if profile.dominance:
        common = best.common_safe()
        safer = [o for o in looks if o.cell in common and p[o.cell] < p[best.cell] - 1e-3]
        if safer:
            best = max(safer, key=rank)
    if profile.sole_safest:
        sole = best.sole_safest()
        if sole is not None and p[sole] < p[best.cell]:
            best = next((o for o in looks if o.cell == sole), best)
    return best


POLICIES: tuple[Policy, ...] = (endgame_search, closed_region, forced_fifty, fifty_or_safe)
"""The policies that may pass, in order; :func:`safest` comes last and always picks."""


def guess(s: Situation) -> Guess:
    """The first policy's pick."""
    for policy in POLICIES:
        found = policy(s)
        if found is not None:
            return found
    return safest(s)


def score(s: Situation, o: lookahead.Outlook) -> float:
    """The candidate's value (higher is better), per the profile's ``score``:

    ``progress``: ``(1 - p) * (1 + w * P(progress))`` (w = ``progress_weight``);
    ``blended``: JSMinesweeper's secondary safety, the next click's safety blended with
    the runner-up's (``blend``:1, 4:1 by default), times ``1 + w * P(progress)``;
    ``secondary``: P(surviving this click and the safest next one), same factor;
    ``cleared``: seed 002, ``(1 - p) * (1 + w * E[cells proven safe])``;
    ``hybrid``: a number worth ``1 + w`` when it proves a cell safe, else the safety of
    the guess it leaves.
    """
    kind, w = s.profile.score, s.profile.progress_weight
    if kind == "blended":
        return o.blended(s.profile.blend) * (1.0 + w * o.progress)
    if kind == "hybrid":
        return o.hybrid(w)
    if kind == "secondary":
        return o.secondary * (1.0 + w * o.progress)
    if kind == "cleared":
        return (1.0 - s.probs[o.cell]) * (1.0 + w * o.expected_cleared)
    return (1.0 - s.probs[o.cell]) * (1.0 + w * o.progress)


@functools.lru_cache(maxsize=8)
def _touches(width: int, height: int) -> list[int]:
    """How many cells each cell touches, itself included (9 inside, 6 on an edge, 4 in
    a corner), by flat index."""
    right, bottom = width - 1, height - 1
    return [(3 - (x == 0) - (x == right)) * (3 - (y == 0) - (y == bottom))
            for x, y in cells_by_index(width, height)]


def shortlist(s: Situation, best_p: float) -> list[Cell]:
    """The cells worth a lookahead: frontier cells near the safest, and a few outside
    representatives (fewest undecided neighbours first: likeliest to open an area)."""
    profile, p = s.profile, s.probs
    limit = 1.0 - (1.0 - best_p) * profile.ratio if profile.ratio else best_p + profile.tolerance
    inner, out = s.within(limit + 1e-12)
    inner.sort(key=p.__getitem__)  # row-major among equals
    if profile.outside_pick == "witness":
        out = _witness_outside(s, out, inner)
    out = s.by_openness(out, first=None if profile.near_outside else profile.outside_candidates)
    chosen = inner[: max(1, profile.candidates - profile.outside_candidates)] + out[
        : profile.outside_candidates
    ]
    if profile.near_outside and out:
        position, rest = s.position, set(out[profile.outside_candidates :])
        near = {n for f in s.frontier.cells if f not in s.known
                for n in position.neighbours(*f) if n in rest}
        chosen += s.by_openness(near)[: profile.near_outside]
    return chosen


def _witness_outside(s: Situation, out: list[Cell], inner: list[Cell]) -> list[Cell]:
    """JSMinesweeper's outside candidates: none unless the outside is within
    ``outside_gate`` (0.95) of the safest frontier cell's safety; all when fewer than 30;
    else those two steps straight from a number (their number can tell frontier cells
    apart) and those with two or three undecided neighbours (corners, pockets)."""
    if not out:
        return out
    p = s.probs
    if inner and 1.0 - p[out[0]] <= s.profile.outside_gate * (1.0 - p[inner[0]]):
        return []
    if s.frontier.outside_count < 30:
        return out
    width, height = s.position.width, s.position.height
    board = s.position.flat
    around = s._around()
    keep = []
    for c in out:
        x, y = c
        i = y * width + x
        if (1 < around[i] < 4
                or (x >= 2 and board[i - 2].isdigit())
                or (x < width - 2 and board[i + 2].isdigit())
                or (y >= 2 and board[i - 2 * width].isdigit())
                or (y < height - 2 and board[i + 2 * width].isdigit())):
            keep.append(c)
    return keep


def _outlook(s: Situation, cell: Cell, outside: frozenset[Cell]) -> lookahead.Outlook:
    fr = s.frontier
    assert s.count is not None
    return lookahead.outlook(
        fr.constraints, outside, fr.mines_left, s.count.weight, cell, sorted(s.around(cell)),
        base=s.count,
        around=s.around if s.profile.living else None,
    )
