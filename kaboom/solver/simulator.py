"""A seeded offline Minesweeper game for tests and benchmarks; it alone holds the mines.

Standard rules with a uniform random layout, placed at the first click under one of two
first-click rules (:class:`~kaboom.solver.position.FirstClick`):

* ``safe`` (SFAR, "safe first and random", Windows XP): the first cell is never a mine;
* ``opening`` (SNR, "safe neighbourhood", Windows 7): the first cell and its neighbours
  are mine-free, so the first click opens an area (falls back to ``safe`` when the
  mines leave no room).

The same ``(width, height, mines, rule, seed)`` and the same first click always give
the same game.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable

from kaboom.solver._kernels.simulator import flood, shown_of
from kaboom.solver.errors import IllegalMoveError, InvalidMoveError
from kaboom.solver.position import (
    Cell,
    CellState,
    FirstClick,
    GameStatus,
    Move,
    MoveKind,
    Position,
    neighbours,
)

__all__ = ["ANCHORS", "PRESETS", "SimulatedGame", "parse_board", "preset"]

COVERED, FLAG = CellState.COVERED.value, CellState.FLAG.value
_COVERED_BYTE, _FLAG_BYTE, _EXPLODED_BYTE = ord(COVERED), ord(FLAG), ord(CellState.EXPLODED.value)
_MINE_BYTE = ord(CellState.MINE.value)

PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (30, 16, 99),
}
"""The classic board sizes by name, each ``(width, height, mines)``."""


ANCHORS: dict[FirstClick, Cell] = {FirstClick.SAFE: (0, 0), FirstClick.OPENING: (2, 2)}
"""Per first-click rule, the click whose zone a layout is drawn around (the solver's
first clicks when this was written, so the benchmark boards stayed the same): any other
first click with a zone of the same size gets that layout with the mines of its own
zone carried into the anchor's."""


def _carry(layout: frozenset[Cell], source: frozenset[Cell], target: frozenset[Cell]
           ) -> frozenset[Cell]:
    """``layout`` keeps ``source`` free; the same layout keeping ``target`` free instead,
    each mine in ``target - source`` moved to its partner in ``source - target`` (both
    sorted, paired in order).  A fixed one-to-one map between the two sets of layouts,
    so a uniform layout stays uniform."""
    partner = dict(zip(sorted(target - source), sorted(source - target), strict=True))
    return frozenset(partner.get(c, c) for c in layout)


def preset(name: str) -> tuple[int, int, int]:
    """Returns ``(width, height, mines)`` of a named board size."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def parse_board(text: str) -> tuple[int, int, int]:
    """``(width, height, mines)`` of a board written ``WxH/MINES``, such as ``30x16/99``."""
    try:
        dims, mines = text.split("/")
        width, height = dims.split("x")
        return int(width), int(height), int(mines)
    except ValueError:
        raise ValueError(f"not a board {text!r}: write WxH/MINES, such as 30x16/99") from None


class SimulatedGame:
    """One game: the hidden layout, the player's board, and the outcome so far."""

    def __init__(
        self,
        width: int,
        height: int,
        mines: int,
        *,
        rule: FirstClick | str = FirstClick.SAFE,
        seed: int = 0,
    ) -> None:
        if not 0 <= mines < width * height:
            raise ValueError(f"{mines} mines do not fit a {width}x{height} board with a safe cell")
        self.width, self.height, self.mines = width, height, mines
        """The board's size and mine count."""
        self.rule = FirstClick(rule)
        """What the first click is guaranteed."""
        self.seed = seed
        """The seed the layout is drawn from."""
        self.layout: frozenset[Cell] | None = None
        """The mines, placed at the first reveal (``None`` before it)."""
        self._shown = b""
        """What each cell shows once opened, by flat index (``*`` for a mine), counted
        once the layout is placed."""
        self.outcome = GameStatus.PLAYING
        """Where the game stands."""
        self.moves = 0
        """Moves played with :meth:`play` and :meth:`play_all` (not the reveals
        ``play_all`` skips)."""
        self._board = bytearray(COVERED.encode("ascii") * (width * height))
        """The player's board, flat, one ASCII character a cell: a bench plays millions
        of moves, and a flat board is read and written without building tuples."""
        self._covered = width * height

    @classmethod
    def resume(cls, position: Position, layout: frozenset[Cell]) -> SimulatedGame:
        """The game of ``position`` played on ``layout`` (a consistent layout, such as
        :func:`kaboom.solver.sampling.sample_layout` draws): rollouts and what-ifs continue
        from a position the player saw, on a world that agrees with it."""
        game = cls(position.width, position.height, position.mines)
        game._lay(frozenset(layout))
        width, shown, board = position.width, game._shown, game._board
        for y, row in enumerate(position.rows):
            for x, ch in enumerate(row):
                i = y * width + x
                if ch == FLAG:
                    board[i] = _FLAG_BYTE
                elif ch.isdigit():
                    if ord(ch) != shown[i]:
                        raise ValueError(f"the layout does not agree with ({x}, {y})")
                    board[i] = shown[i]
                    game._covered -= 1
                elif ch not in (COVERED, CellState.QUESTION):
                    raise ValueError(f"({x}, {y}) shows {ch!r}: the game is over")
        return game

    # ------------------------------------------------------------------ view
    def position(self) -> Position:
        """What the player sees now."""
        flat, width = self._board.decode("ascii"), self.width
        rows = tuple([flat[i : i + width] for i in range(0, len(flat), width)])
        return Position.trusted(width, self.height, self.mines, rows, flat)

    def char(self, x: int, y: int) -> str:
        """The board character the player sees at ``(x, y)``."""
        return chr(self._board[y * self.width + x])

    @property
    def covered(self) -> int:
        """Covered cells left (flags included); the game is won when only the mines are."""
        return self._covered

    # ------------------------------------------------------------------ moves
    def play(self, move: Move) -> GameStatus:
        """Applies a reveal, flag or chord; returns the outcome after it."""
        if self.outcome is not GameStatus.PLAYING:
            raise IllegalMoveError("the game is over")
        if not (0 <= move.x < self.width and 0 <= move.y < self.height):
            raise InvalidMoveError(f"{move} is off the board")
        self.moves += 1
        if move.kind is MoveKind.FLAG:
            i = move.y * self.width + move.x
            ch = self._board[i]
            if ch in (_COVERED_BYTE, _FLAG_BYTE):
                self._board[i] = _FLAG_BYTE if ch != _FLAG_BYTE else _COVERED_BYTE
            return self.outcome
        if move.kind is MoveKind.CHORD:
            return self._chord(move.x, move.y)
        return self.reveal(move.x, move.y)

    def play_all(self, moves: Iterable[Move]) -> GameStatus:
        """Plays a decision's moves in order until the game ends; a reveal of a cell
        that a flood fill opened meanwhile is skipped, as a player would."""
        board, width, height = self._board, self.width, self.height
        for move in moves:
            if self.outcome is not GameStatus.PLAYING:
                break
            x, y = move.x, move.y
            if move.kind is not MoveKind.REVEAL or not (0 <= x < width and 0 <= y < height):
                self.play(move)
            elif board[y * width + x] == _COVERED_BYTE:  # play() without its checks
                self.moves += 1
                self.reveal(x, y)
        return self.outcome

    def reveal(self, x: int, y: int) -> GameStatus:
        """Opens ``(x, y)`` (flood-filling zeros); a mine loses the game."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise InvalidMoveError(f"({x}, {y}) is off the board")
        i = y * self.width + x
        ch = self._board[i]
        if ch != _COVERED_BYTE:
            if ch == _FLAG_BYTE:
                return self.outcome
            raise IllegalMoveError(f"({x}, {y}) is already open")
        if self.layout is None:
            self._lay(self._place(x, y))
        if self._shown[i] == _MINE_BYTE:
            self._board[i] = _EXPLODED_BYTE
            self.outcome = GameStatus.LOST
            return self.outcome
        self._open(i)
        if self._covered == self.mines:
            self.outcome = GameStatus.WON
        return self.outcome

    def _chord(self, x: int, y: int) -> GameStatus:
        ch = self.char(x, y)
        if not ch.isdigit():
            raise IllegalMoveError(f"({x}, {y}) is not an open number")
        around = list(neighbours(x, y, self.width, self.height))
        if sum(self.char(nx, ny) == FLAG for nx, ny in around) != int(ch):
            return self.outcome
        for nx, ny in around:
            if self.char(nx, ny) == COVERED and self.reveal(nx, ny) is not GameStatus.PLAYING:
                break
        return self.outcome

    # ------------------------------------------------------------------ internals
    def _place(self, x: int, y: int) -> frozenset[Cell]:
        """The layout for a first click at ``(x, y)``: uniform over the layouts that keep
        the click's zone free, and drawn for the rule's anchor click (:data:`ANCHORS`)
        then carried over, so that two first clicks on the same seed see nearly the same
        board (a paired comparison of first clicks; ``bench/first_clicks.py``)."""
        free = self._zone(x, y)
        anchor = ANCHORS[self.rule]
        if anchor[0] < self.width and anchor[1] < self.height:
            anchor_free = self._zone(*anchor)
            if len(anchor_free) == len(free):
                return _carry(self._draw(anchor_free), anchor_free, free)
        return self._draw(free)

    def _zone(self, x: int, y: int) -> frozenset[Cell]:
        """The cells a first click at ``(x, y)`` keeps free of mines: the cell, and under
        ``opening`` its neighbours too unless the mines would not fit."""
        free = {(x, y)}
        if self.rule is FirstClick.OPENING:
            around = free | set(neighbours(x, y, self.width, self.height))
            if self.width * self.height - len(around) >= self.mines:
                free = around
        return frozenset(free)

    def _draw(self, free: frozenset[Cell]) -> frozenset[Cell]:
        """A uniform layout over the cells outside ``free``, from the game's seed."""
        cells = _cells_outside(self.width, self.height, free)
        return frozenset(random.Random(self.seed).sample(cells, self.mines))

    def _lay(self, layout: frozenset[Cell]) -> None:
        """Places ``layout``: what every cell shows once opened, by flat index."""
        width = self.width
        self.layout = layout
        self._shown = shown_of(width, self.height, [y * width + x for x, y in layout])

    def _open(self, i: int) -> None:
        """Opens cell ``i`` and, from each zero it opens, the cells around (compiled)."""
        self._covered -= flood(self._board, self._shown, self.width, self.height, i)


@functools.lru_cache(maxsize=16)
def _cells_outside(width: int, height: int, free: frozenset[Cell]) -> tuple[Cell, ...]:
    """The cells a layout may use, row-major: the order the seeded draw samples from (a
    few zones a size are drawn around, so the list is kept)."""
    return tuple((x, y) for y in range(height) for x in range(width) if (x, y) not in free)
