"""What every game-playing client shares: the game view, the client protocol and the play loop.

A bot sees only what a player sees (a :class:`~kaboom.solver.position.Position` plus the game's
settings); it asks :func:`choose` what to play and sends the moves through a
:class:`GameClient`.  The HTTP client, the desktop client and the tests' fake all plug
into the same :func:`play_game` loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kaboom.solver import (
    CellState,
    FirstClick,
    GameStatus,
    KaboomError,
    Loss,
    LossReason,
    Move,
    MoveKind,
    Position,
    Solver,
)

__all__ = [
    "Choice",
    "ClientError",
    "GameClient",
    "GameResult",
    "GameSettings",
    "GameView",
    "Loss",
    "choose",
    "choose_with",
    "play_game",
    "think_in_thread",
]

logger = logging.getLogger(__name__)


class ClientError(KaboomError, RuntimeError):
    """Raised by a :class:`GameClient` when a game cannot be continued (the message says why)."""


@dataclass(frozen=True, slots=True)
class GameSettings:
    """What a new game is created with (the API's creation body); ``None`` = server default."""

    width: int
    height: int
    mines: int
    first_click: str | None = None
    forced_guess: str | None = None
    outside_guess: bool | None = None
    question_marks: bool | None = None
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The creation body, leaving out settings the server should default."""
        names = ("width", "height", "mines", "first_click", "forced_guess", "outside_guess",
                 "question_marks", "seed")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}


@dataclass(frozen=True, slots=True)
class GameView:
    """One game as the API returns it: the player's position, counters and settings."""

    id: str
    status: GameStatus
    position: Position
    moves: int
    forced_guesses: int = 0
    first_click: FirstClick = FirstClick.SAFE
    forced_guess: str = "survive"
    outside_guess: bool = False
    seed: int | None = None
    loss: Loss | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameView:
        """Parses the API's game object (extra fields are ignored).

        Raises :class:`ClientError` when it is not a game object.
        """
        try:
            return cls._parse(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ClientError(f"the server sent a malformed game ({exc!r})") from None

    @classmethod
    def _parse(cls, data: Mapping[str, Any]) -> GameView:
        loss = data.get("loss")
        safe = loss.get("safe_cell") if loss else None
        return cls(
            id=str(data["id"]),
            status=GameStatus(data["status"]),
            position=Position.from_rows(list(data["board"]), int(data["mines"])),
            moves=int(data.get("moves", 0)),
            forced_guesses=int(data.get("forced_guesses", 0)),
            first_click=FirstClick(data.get("first_click", "safe")),
            forced_guess=str(data.get("forced_guess", "survive")),
            outside_guess=bool(data.get("outside_guess", False)),
            seed=data.get("seed"),
            loss=Loss(int(loss["x"]), int(loss["y"]), LossReason(loss["reason"]),
                      (int(safe["x"]), int(safe["y"])) if safe else None) if loss else None,
        )

    @property
    def playing(self) -> bool:
        return self.status is GameStatus.PLAYING


class GameClient(Protocol):
    """A way to play Kaboom games: over HTTP, on a desktop window, or scripted in tests.

    Methods raise :class:`ClientError` when the game cannot be continued.
    """

    async def new_game(self, settings: GameSettings) -> GameView:
        """Starts a game and returns its first view."""
        ...

    async def state(self, game_id: str) -> GameView:
        """Returns the current view of a game."""
        ...

    async def play(self, game: GameView, move: Move) -> GameView:
        """Plays ``move`` in ``game`` (the latest view) and returns the view after it."""
        ...


@dataclass(frozen=True, slots=True)
class Choice:
    """The moves the bot plays next; ``certain`` is False for a guess."""

    moves: tuple[Move, ...]
    certain: bool
    reason: str


def choose(
    position: Position, *, outside_guess: bool = False,
    first_click: FirstClick | str = FirstClick.SAFE, profile: str = "strong",
) -> Choice:
    """Chooses the next moves: proven safe cells, else one guess by the solver's strategy.

    Deduction is the solver's complete one (all numbers and the total mine count), so a
    guess happens only when no covered cell is provably safe.  ``outside_guess`` is the
    game's setting: when False, a guess stays on the frontier unless the frontier is empty
    or all mines.  Flags are the player's notes and prove nothing, so the solver sees the
    board without them; a chosen cell under a flag is unflagged first (the bot never
    flags, but a position may carry marks).  ``profile`` is the solver's: ``strong``,
    ``fast`` or a spec such as ``strong,ratio=0.85``.
    """
    solver = Solver(profile, outside_guess=outside_guess, first_click=first_click)
    return choose_with(solver, position)


def choose_with(solver: Solver, position: Position) -> Choice:
    """:func:`choose` with a game's own :class:`~kaboom.solver.session.Solver`, which keeps what
    it learnt from the game's earlier positions (the same choice, found faster)."""
    plain = position
    if position.flags():
        plain = position.with_cells(dict.fromkeys(position.flags(), CellState.COVERED.value))
    decision = solver.decide(plain)
    moves = tuple(
        Move.flag(m.x, m.y)
        if m.kind is MoveKind.REVEAL and position.char(m.x, m.y) == CellState.FLAG
        else m
        for m in decision.moves
    )
    if not decision.certain and moves and moves[0].kind is MoveKind.FLAG:
        return Choice(moves[:1], True, f"lift a flag, then {decision.reason}")
    return Choice(moves, decision.certain, decision.reason)


@dataclass(slots=True)
class GameResult:
    """How one game went, from the bot's side."""

    game_id: str | None
    status: str
    """A :class:`~kaboom.solver.position.GameStatus` value, or ``error`` when the game could
    not be continued."""
    moves: int = 0
    forced_guesses: int = 0
    guesses: int = 0
    seconds: float = 0.0
    loss: Loss | None = None
    error: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def won(self) -> bool:
        return self.status == GameStatus.WON

    def to_json(self) -> dict[str, Any]:
        loss = None
        if self.loss is not None:
            loss = {"x": self.loss.x, "y": self.loss.y, "reason": self.loss.reason}
            if self.loss.safe_cell is not None:
                loss["safe_cell"] = {"x": self.loss.safe_cell[0], "y": self.loss.safe_cell[1]}
        return {"id": self.game_id, "status": self.status, "moves": self.moves,
                "forced_guesses": self.forced_guesses, "guesses": self.guesses,
                "seconds": round(self.seconds, 4), "loss": loss, "error": self.error}


Think = Callable[[Solver, Position], Awaitable[Choice]]


async def _think_inline(solver: Solver, position: Position) -> Choice:
    return choose_with(solver, position)


async def think_in_thread(solver: Solver, position: Position) -> Choice:
    """Runs :func:`choose_with` off the event loop, so other games' requests keep flowing
    (each game has its own solver, and one game thinks one move at a time)."""
    return await asyncio.to_thread(choose_with, solver, position)


def _stale(position: Position, move: Move) -> bool:
    """True when a planned reveal's cell was opened meanwhile (by a flood fill)."""
    return move.kind is MoveKind.REVEAL and position.char(move.x, move.y) not in (
        CellState.COVERED, CellState.QUESTION
    )


async def play_game(
    client: GameClient,
    settings: GameSettings,
    *,
    think: Think = _think_inline,
    delay: float = 0.0,
    on_start: Callable[[GameView], None] | None = None,
    on_move: Callable[[GameView], None] | None = None,
    profile: str = "strong",
) -> GameResult:
    """Plays one game to its end and returns how it went; client errors end it as ``error``.

    Proven safe cells of one decision are all played before thinking again (they stay
    safe whatever the reveals show); a guess is played alone, as the solver ``profile``
    chooses it.  ``delay`` seconds pass between moves so that a human can follow the game
    in the browser.
    """
    start = time.perf_counter()
    result = GameResult(None, "error", settings=settings.to_json())
    try:
        view = await client.new_game(settings)
        result.game_id = view.id
        if on_start is not None:
            on_start(view)
        solver = Solver(profile, first_click=view.first_click,
                        outside_guess=view.outside_guess)
        while view.playing:
            choice = await think(solver, view.position)
            if not choice.moves:
                raise ClientError(f"the solver found no move in a playing game:\n{view.position}")
            for move in choice.moves:
                if _stale(view.position, move):
                    continue
                if delay:
                    await asyncio.sleep(delay)
                view = await client.play(view, move)
                result.moves = view.moves
                result.guesses += not choice.certain
                if on_move is not None:
                    on_move(view)
                if not view.playing:
                    break
        result.status = view.status
        result.forced_guesses = view.forced_guesses
        result.loss = view.loss
    except ClientError as exc:
        result.error = str(exc)
    except Exception as exc:  # a bug, but one game's bug must not end a run of many
        logger.debug("game %s failed", result.game_id, exc_info=True)
        result.error = f"bot failure: {type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - start
    return result
