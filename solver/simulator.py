"""A seeded offline Minesweeper game for tests and benchmarks; it alone holds the mines.

Standard rules with a uniform random layout, placed at the first click under one of two
first-click rules:

* ``sfar`` ("safe first and random", Windows XP): the first cell is never a mine;
* ``snr`` ("safe neighbourhood", Windows 7): the first cell and its neighbours are
  mine-free, so the first click opens an area (falls back to ``sfar`` when the mines
  leave no room).

The same ``(width, height, mines, rule, seed)`` and the same first click always give
the same game.
"""

from __future__ import annotations

import enum
import random

from solver.errors import IllegalMoveError, InvalidMoveError
from solver.position import Cell, Move, MoveKind, Position, neighbours

__all__ = ["PRESETS", "FirstClick", "Outcome", "SimulatedGame", "preset"]

PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (30, 16, 99),
}


def preset(name: str) -> tuple[int, int, int]:
    """Returns ``(width, height, mines)`` of a named board size."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


class FirstClick(enum.StrEnum):
    """Which cells the first click is guaranteed to keep free of mines."""

    SFAR = "sfar"
    SNR = "snr"


class Outcome(enum.StrEnum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


class SimulatedGame:
    """One game: the hidden layout, the player's board, and the outcome so far."""

    def __init__(
        self,
        width: int,
        height: int,
        mines: int,
        *,
        rule: FirstClick | str = FirstClick.SFAR,
        seed: int = 0,
    ) -> None:
        if not 0 <= mines < width * height:
            raise ValueError(f"{mines} mines do not fit a {width}x{height} board with a safe cell")
        self.width, self.height, self.mines = width, height, mines
        self.rule = FirstClick(rule)
        self.seed = seed
        self.layout: frozenset[Cell] | None = None
        self.outcome = Outcome.PLAYING
        self.moves = 0
        self._board = [["#"] * width for _ in range(height)]
        self._covered = width * height

    # ------------------------------------------------------------------ view
    def position(self) -> Position:
        """What the player sees now."""
        return Position(self.width, self.height, self.mines, tuple("".join(r) for r in self._board))

    def char(self, x: int, y: int) -> str:
        return self._board[y][x]

    @property
    def covered(self) -> int:
        return self._covered

    # ------------------------------------------------------------------ moves
    def play(self, move: Move) -> Outcome:
        """Applies a reveal, flag or chord; returns the outcome after it."""
        if self.outcome is not Outcome.PLAYING:
            raise IllegalMoveError("the game is over")
        if not (0 <= move.x < self.width and 0 <= move.y < self.height):
            raise InvalidMoveError(f"{move} is off the board")
        self.moves += 1
        if move.kind is MoveKind.FLAG:
            ch = self._board[move.y][move.x]
            if ch in "#F":
                self._board[move.y][move.x] = "F" if ch == "#" else "#"
            return self.outcome
        if move.kind is MoveKind.CHORD:
            return self._chord(move.x, move.y)
        return self.reveal(move.x, move.y)

    def reveal(self, x: int, y: int) -> Outcome:
        """Opens ``(x, y)`` (flood-filling zeros); a mine loses the game."""
        if self._board[y][x] != "#":
            if self._board[y][x] == "F":
                return self.outcome
            raise IllegalMoveError(f"({x}, {y}) is already open")
        if self.layout is None:
            self.layout = self._place(x, y)
        if (x, y) in self.layout:
            self._board[y][x] = "X"
            self.outcome = Outcome.LOST
            return self.outcome
        self._open(x, y)
        if self._covered == self.mines:
            self.outcome = Outcome.WON
        return self.outcome

    def _chord(self, x: int, y: int) -> Outcome:
        ch = self._board[y][x]
        if not ch.isdigit():
            raise IllegalMoveError(f"({x}, {y}) is not an open number")
        around = list(neighbours(x, y, self.width, self.height))
        if sum(self._board[ny][nx] == "F" for nx, ny in around) != int(ch):
            return self.outcome
        for nx, ny in around:
            if self._board[ny][nx] == "#" and self.reveal(nx, ny) is not Outcome.PLAYING:
                break
        return self.outcome

    # ------------------------------------------------------------------ internals
    def _place(self, x: int, y: int) -> frozenset[Cell]:
        rng = random.Random(self.seed)
        keep_free = {(x, y)}
        if self.rule is FirstClick.SNR:
            free = keep_free | set(neighbours(x, y, self.width, self.height))
            if self.width * self.height - len(free) >= self.mines:
                keep_free = free
        cells = [
            (cx, cy)
            for cy in range(self.height)
            for cx in range(self.width)
            if (cx, cy) not in keep_free
        ]
        return frozenset(rng.sample(cells, self.mines))

    def _open(self, x: int, y: int) -> None:
        layout = self.layout
        assert layout is not None
        board, width, height = self._board, self.width, self.height
        around_of = _neighbour_lists(width, height)
        stack = [(x, y)]
        while stack:
            cx, cy = stack.pop()
            if board[cy][cx] != "#":
                continue
            around = around_of[cy * width + cx]
            n = sum(1 for c in around if c in layout)
            board[cy][cx] = str(n)
            self._covered -= 1
            if n == 0:
                stack.extend(c for c in around if board[c[1]][c[0]] == "#")


_TABLES: dict[tuple[int, int], list[list[Cell]]] = {}


def _neighbour_lists(width: int, height: int) -> list[list[Cell]]:
    table = _TABLES.get((width, height))
    if table is None:
        table = _TABLES[(width, height)] = [
            list(neighbours(i % width, i // width, width, height)) for i in range(width * height)
        ]
    return table
