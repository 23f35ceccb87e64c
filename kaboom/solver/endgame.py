"""Endgame: exact search over few unknown cells (seed 000's LastTurns, seed 002 step 5).

With few undecided cells left, every consistent layout of them can be listed
(:func:`layouts`, seed 000's brute force).  The state of the game is then just the set
of layouts still possible, so the chance to win from it is

    win(S) = max over cells c of  sum over values v of  P(c shows v | S) * win(S_{c,v})

memoised on ``S`` (seed 002's BoardWinRate).  A cell that is safe in every layout of S
is played at once; the search ends when S agrees on every cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kaboom.solver import counting
from kaboom.solver._kernels.endgame import WinSearch, layout_masks
from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.frontier import Constraint, Frontier, frontier_of
from kaboom.solver.position import Cell, Position

__all__ = ["MEMO_BYTES", "Endgame", "best_move", "layouts", "win_chances"]

MEMO_BYTES = 256 * 2**20
"""What an endgame search's memo may hold by default: its node limit is lowered to fit.
`strong`'s largest search (3,000 layouts, 200,000 nodes) fits in about 100 MB, so no
profile's moves change; a spec asking for many more layouts or nodes gets a search that
gives up sooner, not one that takes the machine's memory (the memo holds a bitset over
the layouts for each node)."""

_MEMO_ENTRY = 128
"""Bytes a memo entry costs beside its bitset (the bytes object, its dict slot and the
float; 110 measured with tracemalloc, 127 at the dict's growth peaks)."""


def layouts(
    position: Position,
    known: Mapping[Cell, bool] | None = None,
    limit: int = 100_000,
    *,
    frontier: Frontier | None = None,
) -> list[frozenset[Cell]] | None:
    """Every placement of the remaining mines on the undecided cells that fits all numbers.

    Cells in ``known`` keep their status; a caller that holds the position's frontier
    with them folded in passes it as ``frontier`` instead (a guess has it, and reducing
    the board again cost a third of the search).  The numbers and the mine count (one
    more constraint, over every undecided cell) go to the counting engine's search,
    ``kaboom.solver.counting.solutions`` (the seed's brute force tries all
    ``C(cells, mines)`` placements; the result is the same).  Returns ``None`` when
    there are more than ``limit`` placements or the search takes more than
    ``20 * limit`` steps.
    """
    fr = _frontier(position, known, frontier)
    if fr is None:
        return []
    found = _undecided_layouts(fr, limit)
    if not found:
        return found
    fixed = frozenset(c for c, m in fr.known.items() if m)
    return [fixed | lay for lay in found]


def _frontier(
    position: Position, known: Mapping[Cell, bool] | None, frontier: Frontier | None
) -> Frontier | None:
    """``frontier``, or the position's; ``None`` when the numbers contradict."""
    if frontier is not None:
        return frontier
    try:
        return frontier_of(position, known)
    except InvalidPositionError:
        return None


def _undecided_layouts(fr: Frontier, limit: int) -> list[frozenset[Cell]] | None:
    """The layouts of :func:`layouts` without the known mines."""
    free = (*fr.cells, *fr.outside)
    if not 0 <= fr.mines_left <= len(free):
        return []
    return counting.solutions((*fr.constraints, Constraint(free, fr.mines_left)), limit)


@dataclass
class Endgame:
    """The win-probability search over a list of layouts, memoised on layout sets.

    A set of layouts is a bitset (bit ``i`` for layout ``i``), and for each cell and
    each number it may show, the layouts in which it shows it are one too, so splitting
    a set by a click is an ``&`` per number.  Two bounds prune without changing the
    result: a click can win no more often than it is safe (cells are tried safest
    first and the rest skipped once the best win beats their safety), and a click's
    value stops being summed once what its remaining numbers could add cannot beat the
    best.  The search itself is compiled (``WinSearch``, over the tables of
    ``layout_masks``, in ``kaboom.solver._kernels.endgame``).

    A mine that every layout holds may be left out of them (unless it is one of
    ``cells``): it adds the same count to its neighbours' numbers in every layout, so it
    splits no layouts apart.
    """

    position: Position
    """The position the layouts are of."""
    layouts: Sequence[frozenset[Cell]]
    """The consistent layouts (their mines), taken as equally likely."""
    cells: Sequence[Cell]
    """The cells the search may click, and whose numbers tell the layouts apart."""
    node_limit: int = 20_000
    """Search nodes (distinct layout sets) before the search gives up."""
    memo_bytes: int | None = MEMO_BYTES
    """What the memo may hold (``None``: no bound but ``node_limit``)."""

    def __post_init__(self) -> None:
        self._mine, shows = layout_masks(self.position.width, self.position.height,
                                         list(self.layouts), list(self.cells))
        self._search = WinSearch(self._mine, shows, len(self.layouts), self.nodes_allowed)
        self._index = {c: i for i, c in enumerate(self.cells)}
        self._safe_somewhere = {c for c, m in zip(self.cells, shows, strict=True) if m}

    @property
    def nodes_allowed(self) -> int:
        """``node_limit``, lowered so that the memo fits ``memo_bytes``."""
        if self.memo_bytes is None:
            return self.node_limit
        entry = 8 * ((len(self.layouts) + 63) // 64) + _MEMO_ENTRY
        return min(self.node_limit, self.memo_bytes // entry)

    @property
    def nodes(self) -> int:
        """Search nodes visited so far."""
        return int(self._search.nodes)

    def best(self, first: Iterable[Cell] | None = None) -> tuple[Cell, float] | None:
        """The best cell to click now (among ``first``) and its win probability;
        ``None`` when the search is too large."""
        state = (1 << len(self.layouts)) - 1
        total = len(self.layouts)
        options = list(first) if first is not None else list(self.cells)
        options = [c for c in options if c in self._safe_somewhere]
        mines = {c: self._mine[self._index[c]].bit_count() for c in options}
        # safest first; ties (within rounding) go to the safer cell, then reading order
        options.sort(key=lambda c: (mines[c], c[1], c[0]))
        top, scored = 0.0, []
        for c in options:
            if (total - mines[c]) / total < top - 1e-12:
                break
            w = self._search.after(self._index[c], state, top - 1e-9)
            if w is None:
                return None
            scored.append((w, c))
            top = max(top, w)
        if not scored:
            return None
        cell = next(c for w, c in scored if w >= top - 1e-12)
        return cell, top

    def values(self, cells: Iterable[Cell]) -> dict[Cell, float] | None:
        """Each cell's win probability if clicked now and the game played best after
        (0 for a cell that every layout mines); ``None`` when the search is too large.
        Raises :class:`ValueError` for a cell that is not one of :attr:`cells`."""
        state = (1 << len(self.layouts)) - 1
        out = {}
        for c in cells:
            if c not in self._index:
                raise ValueError(f"{c} is not a cell of the search")
            if c not in self._safe_somewhere:
                out[c] = 0.0
                continue
            w = self._search.after(self._index[c], state, -1.0)  # no floor: the exact value
            if w is None:
                return None
            out[c] = w
        return out


def best_move(
    position: Position,
    known: Mapping[Cell, bool],
    candidates: Sequence[Cell],
    *,
    max_layouts: int = 400,
    node_limit: int = 20_000,
    frontier: Frontier | None = None,
) -> tuple[Cell, float] | None:
    """The candidate with the best chance to win the game, and that chance.

    Layouts are equally likely (every cell left is in the search, so no outside cells
    weigh them); ``frontier`` as for :func:`layouts`.  Returns ``None`` when the
    position is too large to search.
    """
    game = _search(position, known, frontier, max_layouts, node_limit)
    return None if game is None else game.best(candidates)


def win_chances(
    position: Position,
    known: Mapping[Cell, bool],
    cells: Sequence[Cell],
    *,
    max_layouts: int = 400,
    node_limit: int = 20_000,
    frontier: Frontier | None = None,
) -> dict[Cell, float] | None:
    """Each of ``cells``' exact chance to win the game if clicked now, with best play
    after (options as :func:`best_move`; the cells must be covered and not in ``known``);
    ``None`` when the position is too large."""
    game = _search(position, known, frontier, max_layouts, node_limit)
    return None if game is None else game.values(cells)


def _search(
    position: Position,
    known: Mapping[Cell, bool],
    frontier: Frontier | None,
    max_layouts: int,
    node_limit: int,
) -> Endgame | None:
    """The search over every layout of the position, or ``None`` when it has more than
    ``max_layouts`` (or none)."""
    fr = _frontier(position, known, frontier)
    if fr is None:
        return None
    lays = _undecided_layouts(fr, max_layouts)
    if not lays:
        return None
    cells = [c for c in position.covered() if c not in known]
    # The known mines add the same count to a cell's number in every layout, which
    # splits no layouts apart: they are left out, except where they are cells to weigh.
    weighed = frozenset(c for c in cells if fr.known.get(c))
    if weighed:
        lays = [weighed | lay for lay in lays]
    return Endgame(position, lays, cells, node_limit)
