"""Reading a game's history: pages of its moves, a finished game's replay, and the
position before the last move (where a loss was decided).

A page is read from the store in one version of the game: the game, then its rows,
then its version again, so an undo in between cannot pair one move count with another's
rows.  Only the page's rows are read, so a long history costs a reader no more than a
short one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from kaboom.server.errors import ConflictError
from kaboom.server.game import Game, Step
from kaboom.server.metrics import STORE_RACES
from kaboom.server.store import GameStore
from kaboom.solver import GameStatus, IllegalMoveError, Position

__all__ = ["History", "Replay"]

_Page = TypeVar("_Page")
"""What a page reads of a game's rows (its moves, or their undo records)."""

_RETRIES = 8
"""Times a page is read again after a change came in between, before the answer is 409."""

_WALK_PAGE = 1000
"""Records read at once while a replay walks back from the final board."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A page of a finished game's moves: each move of the page with the cells it
    changed, as ``(x, y, before, after)``, so a page can step forwards and back, and on
    the first page the game's first board.  ``offset`` moves come before the page."""

    start: tuple[str, ...] | None
    moves: tuple[tuple[str, tuple[tuple[int, int, str, str], ...]], ...]
    offset: int = 0


def _page_length(game: Game, offset: int, limit: int) -> int:
    """How many of the game's moves a page from ``offset`` holds: at most ``limit``, and
    none past the game's move count (a record an undone move left is never listed)."""
    return max(0, min(limit, game.moves - offset))


class History:
    """The stored history of a store's games."""

    def __init__(self, store: GameStore) -> None:
        self.store = store

    def moves(self, game_id: str, offset: int, limit: int) -> tuple[Game, list[str]]:
        """The game and its moves ``offset`` to ``offset + limit - 1`` (0 is the first
        move): the store reads only those, so a long history costs a reader no more than
        a short one.  The game's move count (read first) bounds the page."""

        def page(game: Game) -> list[str]:
            count = _page_length(game, offset, limit)
            return self.store.moves(game_id, offset, count) if count else []

        return self._one_version(game_id, page)

    def _one_version(self, game_id: str, read: Callable[[Game], _Page]) -> tuple[Game, _Page]:
        """The game and what ``read`` reads of its rows, both of one version: the game is
        read, then its rows, then its version again, until no change came in between (an
        undo there would have paired one move count with another's rows).  Every change
        of a game's rows changes its version in the same transaction."""
        for _ in range(_RETRIES):
            game = self.store.get(game_id)  # 404 for an unknown game
            got = read(game)
            if self.store.versions([game_id]).get(game_id) == game.version:
                return game, got
            STORE_RACES.labels("page").inc()
        raise ConflictError("the game kept changing while its page was read; try again")

    def replay(self, game_id: str, offset: int, limit: int) -> tuple[Game, Replay]:
        """Moves ``offset`` to ``offset + limit - 1`` of a finished game, from their undo
        records, which hold what each changed cell showed before and after the move: a
        page reads only its own records."""

        def page(game: Game) -> list[Step]:
            if game.status is GameStatus.PLAYING:
                raise IllegalMoveError(
                    "the game is still being played; its replay comes at the end")
            count = _page_length(game, offset, limit)
            steps = self.store.steps(game_id, offset, count) if count else []
            if any(step.after is None for step in steps):
                steps = self._rebuild_after(game, offset, len(steps))
            return steps

        game, steps = self._one_version(game_id, page)
        moves = tuple(
            (step.move, tuple(
                (x, y, before, after)
                for (x, y, before), after in zip(step.cells, step.after or "", strict=True)
            ))
            for step in steps
        )
        # every cell covered: the first page says so, the others would repeat it (66 KB a
        # page of a 256x256 game, whose thousand moves of flags take 52 KB)
        start = Game.new(game.id, game.rules).rows if offset == 0 else None
        return game, Replay(start, moves, offset)

    def _rebuild_after(self, game: Game, offset: int, count: int) -> list[Step]:
        """The page's records with what their cells showed after each move, for records
        stored before that was kept: the board is walked back from the end through every
        later move, as every replay was once.  Only games recorded before then read so
        much, and they expire (``finished_expiry_s``)."""
        rows = [list(r) for r in game.rows]
        rebuilt = []
        for step in reversed(self.store.steps(game.id, offset, game.moves - offset)):
            after = "".join(rows[y][x] for x, y, _ in step.cells)
            for x, y, ch in step.cells:
                rows[y][x] = ch
            rebuilt.append(replace(step, after=after))
        rebuilt.reverse()
        return rebuilt[:count]

    def before_last(self, game: Game) -> Position:
        """The position the last move was played on (the board before a loss showed)."""
        if game.moves == 0:
            return game.position
        return self.store.last_step(game).undo(game).position

    def boards(self, game_id: str, at: int, target: int
               ) -> tuple[Game, tuple[str, ...], tuple[str, ...], str]:
        """A replay's step of a finished game: the game, its boards after moves ``at`` and
        ``target`` (each at most the game's moves), and the move that led to ``target``
        (``""`` for the first board).  The boards are walked back from the final one, a
        page of records at a time, reading only the records they need."""

        def walk(game: Game) -> tuple[tuple[str, ...], tuple[str, ...], str]:
            if game.status is GameStatus.PLAYING:
                raise IllegalMoveError(
                    "the game is still being played; its replay comes at the end")
            shown, wanted = min(at, game.moves), min(target, game.moves)
            first, then = sorted((shown, wanted))
            lowest = min(first + 1, wanted) if wanted else first + 1  # the records read
            rows = [list(r) for r in game.rows]
            board, move, end = {game.moves: game.rows}, "", game.moves
            while end >= lowest:
                start = max(lowest - 1, end - _WALK_PAGE)
                records = self.store.steps(game_id, start, end - start)
                for n, step in zip(range(end, start, -1), reversed(records), strict=True):
                    move = step.move if n == wanted else move
                    if n <= first:
                        continue  # read for its move only
                    for x, y, ch in step.cells:
                        rows[y][x] = ch
                    if n - 1 in (first, then):
                        board[n - 1] = tuple("".join(r) for r in rows)
                end = start
            return board[shown], board[wanted], move

        game, (shown, wanted, move) = self._one_version(game_id, walk)
        return game, shown, wanted, move
