"""What a player sees of a Minesweeper board, and the moves they can make.

A :class:`Position` is an immutable value: size, total mine count and one string per
row in the API's board notation (``#`` covered, ``F`` flag, ``?`` question mark,
``0``-``8`` open, and after the game ``X``, ``*``, ``!``).  Everything that reasons
about a board (the SAT engine, the solver, the bots) takes a ``Position``; only the
server's game and the simulator ever hold the mines.
"""

from __future__ import annotations

import enum
import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar, cast

from kaboom.solver.errors import InvalidMoveError, InvalidPositionError

__all__ = [
    "COVERED_CHARS",
    "Cell",
    "CellState",
    "FirstClick",
    "GameStatus",
    "Loss",
    "LossReason",
    "Move",
    "MoveKind",
    "Position",
    "cells_by_index",
    "covered_count",
    "neighbour_indices",
    "neighbour_lists",
    "neighbours",
    "row_major",
]

_T = TypeVar("_T")

Cell = tuple[int, int]
"""A cell as ``(x, y)``: ``x`` the column, ``y`` the row, both 0-based."""

class CellState(enum.StrEnum):
    """The state of one cell as shown to the player; its value is the board character,
    so ``row[x] == CellState.FLAG`` reads a board string directly."""

    COVERED = "#"
    FLAG = "F"
    QUESTION = "?"
    EXPLODED = "X"
    MINE = "*"
    WRONG_FLAG = "!"
    OPEN_0 = "0"
    OPEN_1 = "1"
    OPEN_2 = "2"
    OPEN_3 = "3"
    OPEN_4 = "4"
    OPEN_5 = "5"
    OPEN_6 = "6"
    OPEN_7 = "7"
    OPEN_8 = "8"

    @property
    def is_covered(self) -> bool:
        """Whether the cell is covered: ``#``, or one of the player's marks (``F``, ``?``)."""
        return self.value in COVERED_CHARS

    @property
    def number(self) -> int | None:
        """The open number ``0``-``8`` the cell shows, or ``None`` for any other state."""
        return int(self.value) if self.value in _OPEN_CHARS else None


COVERED_CHARS = frozenset(s.value for s in (CellState.COVERED, CellState.FLAG, CellState.QUESTION))
"""The characters of covered cells: the player's marks count as covered."""
_OPEN_CHARS = frozenset(str(n) for n in range(9))
_END_CHARS = frozenset(s.value for s in (CellState.EXPLODED, CellState.MINE, CellState.WRONG_FLAG))
_ALL_CHARS = COVERED_CHARS | _OPEN_CHARS | _END_CHARS
_DROP_KNOWN = str.maketrans("", "", "".join(_ALL_CHARS))
_MISSING = object()
_OPEN_DIGIT = re.compile("[0-8]")


class GameStatus(enum.StrEnum):
    """Where a game stands; the API, the store, the bots and the simulator all use it."""

    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


class LossReason(enum.StrEnum):
    """Why a Kaboom game was lost (the API's ``loss.reason``)."""

    CERTAIN_MINE = "certain_mine"
    """The cell was proven a mine."""
    GUESS_WHILE_SAFE = "guess_while_safe"
    """A guess while some covered cell was proven safe."""
    OUTSIDE_GUESS = "outside_guess"
    """A guess off the frontier while the frontier had a cell that may be safe (a game
    that does not allow outside guesses)."""
    FORCED_GUESS = "forced_guess"
    """A fair guess, with no safe cell anywhere, that the draw made a mine."""


@dataclass(frozen=True, slots=True)
class Loss:
    """Where and why a game was lost; ``safe_cell`` is the safe cell that proves a
    ``guess_while_safe`` loss."""

    x: int
    """The column of the cell whose reveal lost the game."""
    y: int
    """The row of the cell whose reveal lost the game."""
    reason: LossReason
    """Why that click lost."""
    safe_cell: Cell | None = None


class FirstClick(enum.StrEnum):
    """What the first click is guaranteed: its cell is never a mine (``safe``, known as
    SFAR: Windows XP), or its neighbours are mine-free too, so it opens an area
    (``opening``, known as SNR: Windows 7).  ``FirstClick("sfar")`` and ``"snr"`` read
    the literature's names."""

    SAFE = "safe"
    OPENING = "opening"

    @classmethod
    def _missing_(cls, value: object) -> FirstClick | None:
        return {"sfar": cls.SAFE, "snr": cls.OPENING}.get(str(value).lower())


def neighbours(x: int, y: int, width: int, height: int) -> Iterator[Cell]:
    """Yields the up to eight cells around ``(x, y)`` that lie on the board."""
    for ny in range(max(0, y - 1), min(height, y + 2)):
        for nx in range(max(0, x - 1), min(width, x + 2)):
            if nx != x or ny != y:
                yield nx, ny


row_major = operator.itemgetter(1, 0)
"""A cell's sort key in reading order: by row, then column."""


@functools.lru_cache(maxsize=8)
def cells_by_index(width: int, height: int) -> tuple[Cell, ...]:
    """Every cell ``(x, y)`` at its flat index ``y * width + x``."""
    return tuple((i % width, i // width) for i in range(width * height))


@functools.lru_cache(maxsize=16)
def neighbour_lists(width: int, height: int) -> tuple[tuple[Cell, ...], ...]:
    """:func:`neighbours` of every cell, indexed ``y * width + x``, for the loops that
    visit many cells (a flood fill); kept for a few board sizes only."""
    return tuple(
        tuple(neighbours(i % width, i // width, width, height)) for i in range(width * height)
    )


@functools.lru_cache(maxsize=16)
def neighbour_indices(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """:func:`neighbour_lists` as flat indices, for loops over a flat board."""
    return tuple(
        tuple(ny * width + nx for nx, ny in around) for around in neighbour_lists(width, height)
    )


@dataclass(frozen=True, slots=True)
class Position:
    """A board as the player sees it, plus the total number of mines.

    Marks (``F``, ``?``) are the player's notes: they count as covered cells and never
    change what can be deduced.
    """

    width: int
    """Cells per row."""
    height: int
    """Rows on the board."""
    mines: int
    """The total number of mines on the board, found or not."""
    rows: tuple[str, ...]
    """One string per row, top first, one board character per cell."""
    _cache: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise InvalidPositionError(f"board size {self.width}x{self.height} is empty")
        if len(self.rows) != self.height:
            raise InvalidPositionError(f"expected {self.height} rows, got {len(self.rows)}")
        if set(map(len, self.rows)) != {self.width}:  # one pass in C; the loop says where
            for y, row in enumerate(self.rows):
                if len(row) != self.width:
                    raise InvalidPositionError(
                        f"row {y} has {len(row)} cells, expected {self.width}")
        flat = self._cache["flat"] = "".join(self.rows)
        if flat.translate(_DROP_KNOWN):  # one C pass; the slow loop finds it
            for y, row in enumerate(self.rows):
                bad = set(row) - _ALL_CHARS
                if bad:
                    raise InvalidPositionError(f"row {y} has unknown characters {sorted(bad)}")
        if not 0 <= self.mines <= self.width * self.height:
            raise InvalidPositionError(f"{self.mines} mines do not fit on the board")

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_rows(cls, rows: Sequence[str], mines: int) -> Position:
        """Builds a position from the API's list of row strings."""
        if not rows:
            raise InvalidPositionError("a board needs at least one row")
        return cls(len(rows[0]), len(rows), mines, tuple(rows))

    @classmethod
    def trusted(cls, width: int, height: int, mines: int, rows: tuple[str, ...], flat: str
                ) -> Position:
        """A position its producer keeps well formed (the simulator's own board, ``flat``
        being the rows joined), built without the checks: a bench builds one at every
        decision of millions of games.  Anything read from outside goes through the
        constructor."""
        position = object.__new__(cls)
        put = object.__setattr__  # the dataclass is frozen
        put(position, "width", width)
        put(position, "height", height)
        put(position, "mines", mines)
        put(position, "rows", rows)
        put(position, "_cache", {"flat": flat})
        return position

    @classmethod
    def new(cls, width: int, height: int, mines: int) -> Position:
        """Returns the all-covered start position."""
        row = CellState.COVERED.value * width
        return cls(width, height, mines, (row,) * height)

    @classmethod
    def from_text(cls, text: str) -> Position:
        """Parses the diagram notation written by :meth:`to_text`.

        The first line is ``mines=N``; the other non-empty lines are the rows.  Spaces
        inside rows are ignored, so rows may be written ``# 1 2``.
        """
        lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
        match = re.fullmatch(r"mines\s*=\s*(\d+)", lines[0]) if lines else None
        if match is None:
            raise InvalidPositionError("a diagram starts with a line 'mines=N'")
        rows = [ln.replace(" ", "") for ln in lines[1:]]
        return cls.from_rows(rows, int(match.group(1)))

    def to_text(self) -> str:
        """Returns the diagram notation: ``mines=N`` and one line per row."""
        return "\n".join([f"mines={self.mines}", *self.rows])

    def __str__(self) -> str:
        return self.to_text()

    # ----------------------------------------------------------------- reading
    def char(self, x: int, y: int) -> str:
        """The board character at ``(x, y)``."""
        return self.rows[y][x]

    def state(self, x: int, y: int) -> CellState:
        """The state of the cell at ``(x, y)``."""
        return CellState(self.rows[y][x])

    def on_board(self, x: int, y: int) -> bool:
        """Whether ``(x, y)`` lies on the board."""
        return 0 <= x < self.width and 0 <= y < self.height

    def is_covered(self, x: int, y: int) -> bool:
        """Whether the cell at ``(x, y)`` is covered (flags and question marks included)."""
        return self.rows[y][x] in COVERED_CHARS

    def number(self, x: int, y: int) -> int | None:
        """The open number at ``(x, y)``, or ``None`` for any other cell."""
        ch = self.rows[y][x]
        return int(ch) if ch in _OPEN_CHARS else None

    def neighbours(self, x: int, y: int) -> Iterator[Cell]:
        """Yields the up to eight cells around ``(x, y)`` that lie on the board."""
        return neighbours(x, y, self.width, self.height)

    def cells(self) -> Iterator[Cell]:
        """Yields every cell of the board, row-major."""
        for y in range(self.height):
            for x in range(self.width):
                yield x, y

    @property
    def flat(self) -> str:
        """The rows as one string, cell ``(x, y)`` at ``y * width + x``: joined once, when
        the position was checked, for every check that reads the whole board."""
        return cast(str, self._cache["flat"])

    def covered(self) -> tuple[Cell, ...]:
        """Every covered cell (flags and question marks included), row-major."""
        return self._cached(
            "covered",
            lambda: tuple(itertools.compress(
                cells_by_index(self.width, self.height),
                map(COVERED_CHARS.__contains__, self.flat),
            )),
        )

    def flags(self) -> tuple[Cell, ...]:
        """Every flagged cell, row-major."""
        flag = CellState.FLAG.value
        if flag not in self.flat:  # a solver asks at every move; boards seldom have flags
            return ()
        return self._cached(
            "flags",
            lambda: tuple(
                (x, y)
                for y, row in enumerate(self.rows)
                if flag in row
                for x, ch in enumerate(row)
                if ch == flag
            ),
        )

    def numbers(self) -> tuple[tuple[Cell, int], ...]:
        """Every open number as ``((x, y), n)``, row-major."""
        return self._cached(
            "numbers",
            lambda: tuple(
                ((x, y), int(ch))
                for y, row in enumerate(self.rows)
                for x, ch in enumerate(row)
                if ch in _OPEN_CHARS
            ),
        )

    def frontier(self) -> tuple[Cell, ...]:
        """Covered cells next to at least one open number, row-major."""

        def build() -> tuple[Cell, ...]:
            seen: set[Cell] = set()
            for (x, y), _ in self.numbers():
                for c in self.neighbours(x, y):
                    if self.rows[c[1]][c[0]] in COVERED_CHARS:
                        seen.add(c)
            return tuple(sorted(seen, key=row_major))

        return self._cached("frontier", build)

    def outside(self) -> tuple[Cell, ...]:
        """Covered cells next to no open number; they are interchangeable."""
        front = set(self.frontier())
        return tuple(c for c in self.covered() if c not in front)

    @property
    def is_start(self) -> bool:
        """True while nothing has been opened yet."""
        return _OPEN_DIGIT.search(self.flat) is None

    @property
    def is_finished(self) -> bool:
        """True when the board shows an end-of-game character."""
        flat = self.flat
        return any(ch in flat for ch in _END_CHARS)  # a substring search each, in C

    # ----------------------------------------------------------------- updating
    def without_flags(self) -> Position:
        """The same board with every flag covered again: flags are the player's notes,
        not knowledge, so a search that must not trust them lifts them."""
        if not self.flags():
            return self
        return Position(self.width, self.height, self.mines,
                        tuple(row.replace(CellState.FLAG.value, CellState.COVERED.value)
                              for row in self.rows))

    def with_cells(self, changes: dict[Cell, str]) -> Position:
        """Returns a copy with the given cells set to new board characters."""
        if not changes:
            return self
        rows = [list(r) for r in self.rows]
        for (x, y), ch in changes.items():
            rows[y][x] = ch
        return Position(self.width, self.height, self.mines, tuple("".join(r) for r in rows))

    def _cached(self, key: str, build: Callable[[], _T]) -> _T:
        value = self._cache.get(key, _MISSING)  # a KeyError costs more than the build
        if value is _MISSING:
            value = self._cache[key] = build()
        return cast(_T, value)


class MoveKind(enum.Enum):
    """What a move does: open a cell, cycle its mark, or chord on a number."""

    REVEAL = "reveal"
    FLAG = "flag"
    CHORD = "chord"


class Move(NamedTuple):
    """A move on a cell; round-trips through text as ``reveal 3 4``.

    A named tuple, as :class:`~kaboom.solver.frontier.Constraint`: a benchmark makes hundreds
    of millions, and a frozen dataclass is built several times slower."""

    kind: MoveKind
    """What the move does to its cell."""
    x: int
    """The cell's column."""
    y: int
    """The cell's row."""

    @classmethod
    def reveal(cls, x: int, y: int) -> Move:
        """The move that opens ``(x, y)``."""
        return cls(MoveKind.REVEAL, x, y)

    @classmethod
    def flag(cls, x: int, y: int) -> Move:
        """The move that cycles the mark on ``(x, y)``."""
        return cls(MoveKind.FLAG, x, y)

    @classmethod
    def chord(cls, x: int, y: int) -> Move:
        """The move that chords on the open number at ``(x, y)``."""
        return cls(MoveKind.CHORD, x, y)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parses ``"reveal 3 4"`` (also ``flag`` and ``chord``)."""
        parts = text.split()
        if len(parts) != 3:
            raise InvalidMoveError(f"expected 'KIND X Y', got {text!r}")
        try:
            kind = MoveKind(parts[0].lower())
            x, y = int(parts[1]), int(parts[2])
        except ValueError as exc:
            raise InvalidMoveError(f"cannot parse move {text!r}") from exc
        return cls(kind, x, y)

    @property
    def cell(self) -> Cell:
        """The cell the move is on, as ``(x, y)``."""
        return self.x, self.y

    def __str__(self) -> str:
        return f"{self.kind.value} {self.x} {self.y}"


def covered_count(rows: Iterable[str]) -> int:
    """Counts covered cells (``#``, ``F``, ``?``) in board rows."""
    return sum(row.count(ch) for row in rows for ch in COVERED_CHARS)
