"""Wire models: the JSON the API accepts and returns (``docs/api.md``).

Inputs are strict: a string where a number belongs is a 422, not a guess.  An integer
may be written ``55.0``, because the OpenAPI schema says "integer" and JSON Schema lets
an integer be written so: the parser and the schema a client reads agree.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, model_validator

from kaboom.server.assistance import Hint, HintKind
from kaboom.server.game import Game, Rules
from kaboom.server.history import Replay
from kaboom.server.views import GameView
from kaboom.solver import (
    Analysis,
    Cell,
    Contradiction,
    GameStatus,
    InvalidPositionError,
    LossReason,
    Position,
    Proof,
    Recommendation,
    WinChance,
    WinChances,
    analysable,
    to_link,
)

__all__ = [
    "XY",
    "AnalysisOut",
    "CellIn",
    "ContradictionOut",
    "CreatedGameOut",
    "GameOut",
    "HintOut",
    "LossOut",
    "MovesOut",
    "NewGame",
    "NumberOut",
    "PageOut",
    "PositionAnalysisOut",
    "PositionCellIn",
    "PositionIn",
    "ProofOut",
    "RecommendationOut",
    "ReplayMoveOut",
    "ReplayOut",
    "WinChanceOut",
    "WinChancesOut",
]

MIN_SIDE, MAX_SIDE = 2, 256
PAGE_MAX = 1000
"""Most moves one answer of ``/moves`` or ``/replay`` lists, and how many it lists unless
asked for fewer: eight spectators reading all 20,000 moves of one game at once held
another game's GET for 2.1 s (every step parsed on the thread pool, under the GIL).  A
page of 1000 is still one answer for nearly every game's whole history."""


def _whole(value: Any) -> Any:
    """``55.0`` is the integer 55 (as in JSON Schema); every other non-int is left for
    the strict check to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Int = Annotated[int, BeforeValidator(_whole)]


class NewGame(BaseModel):
    """A new game's size and settings."""

    model_config = ConfigDict(strict=True, extra="forbid")

    width: Int = Field(ge=MIN_SIDE, le=MAX_SIDE, description="columns, 2-256")
    height: Int = Field(ge=MIN_SIDE, le=MAX_SIDE, description="rows, 2-256")
    mines: Int = Field(ge=1, le=MAX_SIDE * MAX_SIDE - 1, description="1 to width*height - 1")
    first_click: Literal["safe", "opening"] = "safe"
    forced_guess: Literal["survive", "fair"] = "survive"
    outside_guess: bool = False
    # The range before the validator, so that the schema shows it as minimum/maximum.
    seed: Annotated[int, Field(ge=1, le=2**63 - 1), BeforeValidator(_whole)] | None = Field(
        default=None,
        description="replays a board: the same seed and clicks give the same game (the game"
        " then shows its seed; a server-drawn seed stays secret until the game ends)",
    )
    debug: bool = False
    question_marks: bool = True

    @model_validator(mode="after")
    def _mines_fit(self) -> NewGame:
        cells = self.width * self.height
        if self.mines > cells - 1:
            raise ValueError(
                f"mines must be at most width*height - 1 = {cells - 1} for a {self.width}x"
                f"{self.height} board, got {self.mines}"
            )
        return self

    def rules(self) -> Rules:
        return Rules(
            width=self.width,
            height=self.height,
            mines=self.mines,
            first_click=self.first_click,
            forced_guess=self.forced_guess,
            outside_guess=self.outside_guess,
            question_marks=self.question_marks,
            debug=self.debug,
            seed=self.seed or 0,
        )


class CellIn(BaseModel):
    """The cell a move acts on."""

    model_config = ConfigDict(strict=True, extra="forbid")

    x: Int = Field(ge=0, le=MAX_SIDE - 1, description="column, 0-based, below the width")
    y: Int = Field(ge=0, le=MAX_SIDE - 1, description="row, 0-based, below the height")


class PositionIn(BaseModel):
    """A position to analyse: its rows (``#`` covered, ``F`` flag, ``?`` question mark,
    ``0``-``8`` open) and the board's total mine count."""

    model_config = ConfigDict(strict=True, extra="forbid")

    rows: list[Annotated[str, Field(max_length=MAX_SIDE)]] = Field(
        min_length=1, max_length=MAX_SIDE, description="one string per row, 1-256 of 1-256"
        " cells, all of one length")
    mines: Int = Field(ge=0, le=MAX_SIDE * MAX_SIDE, description="the board's mines, flagged"
                       " or not")
    _position: Position | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _board(self) -> PositionIn:
        try:
            self._position = analysable(self.rows, self.mines)
        except InvalidPositionError as exc:
            raise ValueError(str(exc)) from None
        return self

    def position(self) -> Position:
        assert self._position is not None  # set by the validator
        return self._position


class PositionCellIn(PositionIn):
    """A position and one of its cells (column ``x``, row ``y``, from 0)."""

    x: Int = Field(ge=0, le=MAX_SIDE - 1, description="column, 0-based, below the width")
    y: Int = Field(ge=0, le=MAX_SIDE - 1, description="row, 0-based, below the height")

    @model_validator(mode="after")
    def _on_board(self) -> PositionCellIn:
        width, height = len(self.rows[0]), len(self.rows)
        if self.x >= width or self.y >= height:
            raise ValueError(f"({self.x}, {self.y}) is off the {width}x{height} board")
        return self

    def cell(self) -> Cell:
        return self.x, self.y


class XY(BaseModel):
    x: int
    y: int


class HealthOut(BaseModel):
    """This process can read its store."""

    status: Literal["ok", "disk_full"] = Field(
        description="disk_full: this process's last write failed for a full disk (until a"
        " write commits); games are read, new games and moves are refused with 507")
    store: str = Field(description="sqlite or postgresql")
    schema_version: int
    worker: int = Field(description="the answering process's id (nginx spreads requests"
                        " over several)")
    version: str = Field(description="the server's version (kaboom's package)")


class LossOut(BaseModel):
    x: int
    y: int
    reason: LossReason
    safe_cell: XY | None = None


class GameOut(BaseModel):
    """A game as the player sees it."""

    id: str
    width: int
    height: int
    mines: int
    status: GameStatus
    board: list[str]
    mines_left: int
    moves: int = Field(description="the moves the game keeps in its history (an undo takes"
                       " one back)")
    move_limit: int = Field(
        description="the most moves the game may keep: once `moves` reaches it, a move is a"
        " 409 that changes nothing (an undo, where allowed, makes room)"
    )
    forced_guesses: int
    assisted: bool
    elapsed_ms: int
    first_click: str
    forced_guess: str
    outside_guess: bool
    question_marks: bool
    debug: bool
    seed: int | None = Field(
        description="shown when the game was created with a seed, or once it is over"
    )
    seeded: bool
    version: int = Field(description="counts every change; long polls wake when it moves")
    undo_allowed: bool
    loss: LossOut | None = None

    @classmethod
    def of(cls, view: GameView) -> GameOut:
        """The game of ``view``, with the move limit the server holds it to (from its
        settings, not stored with the game: a server restarted with other settings holds
        every game to its new limit)."""
        game, move_limit = view.game, view.move_limit
        r = game.rules
        loss = None
        if game.loss is not None:
            sc = game.loss.safe_cell
            loss = LossOut(
                x=game.loss.x,
                y=game.loss.y,
                reason=game.loss.reason,
                safe_cell=XY(x=sc[0], y=sc[1]) if sc else None,
            )
        return cls(
            id=game.id,
            width=r.width,
            height=r.height,
            mines=r.mines,
            status=game.status,
            board=list(game.rows),
            mines_left=game.mines_left,
            moves=game.moves,
            move_limit=move_limit,
            forced_guesses=game.forced_guesses,
            assisted=game.assisted,
            elapsed_ms=game.elapsed_ms(),
            first_click=r.first_click,
            forced_guess=r.forced_guess,
            outside_guess=r.outside_guess,
            question_marks=r.question_marks,
            debug=r.debug,
            seed=r.seed if game.seed_shown else None,
            seeded=r.seeded,
            version=game.version,
            undo_allowed=game.undo_allowed,
            loss=loss,
        )


class CreatedGameOut(GameOut):
    """A new game, with the token that its moves need: keep it, it is shown only here."""

    player_token: str = Field(
        description="send as `Authorization: Bearer <token>` with moves, undo and analysis"
    )


class PageOut(BaseModel):
    """Where a page of a game's moves lies in its history, and where the next begins."""

    offset: int = Field(description="how many moves come before this page's first (0: the"
                        " page starts at the game's first move)")
    total: int = Field(description="the game's moves when the page was read")
    next_offset: int | None = Field(
        description="the `offset` that asks for the next page; null when this page ends the"
        " history"
    )
    version: int = Field(
        description="the game's version when the page was read: pages with one version are"
        " of one history (between two versions a move may have been added at the end, or an"
        " undo taken the last one back)"
    )

    @staticmethod
    def place(game: Game, offset: int, count: int) -> dict[str, Any]:
        """The page's fields for ``count`` moves from ``offset`` of ``game``; an empty
        page has no next, so a client following ``next_offset`` always stops."""
        end = offset + count
        return {
            "offset": offset,
            "total": game.moves,
            "next_offset": end if count and end < game.moves else None,
            "version": game.version,
        }


class MovesOut(PageOut):
    """A page of the game's moves, in order, as move strings (``reveal 3 4``, ``flag 0 1``,
    ``chord 2 2``)."""

    moves: list[str]

    @classmethod
    def of(cls, game: Game, offset: int, moves: list[str]) -> MovesOut:
        return cls(moves=moves, **cls.place(game, offset, len(moves)))


class AnalysisOut(BaseModel):
    """Every covered cell's status (``s`` safe, ``m`` mine, ``u`` unknown, ``?`` not
    settled within the budget) and exact mine probability."""

    status: list[str]
    probability: list[list[float | None] | None]
    exact: bool
    complete: bool
    safe: int
    mines: int
    unknown: int
    unsettled: int = Field(description="covered cells the budget did not settle (`?`)")

    @classmethod
    def of(cls, analysis: Analysis) -> AnalysisOut:
        status = analysis.status_rows()
        count = {ch: sum(row.count(ch) for row in status) for ch in "smu?"}
        return cls(
            status=status,
            probability=analysis.probability_rows(),
            exact=analysis.exact,
            complete=analysis.complete,
            safe=count["s"],
            mines=count["m"],
            unknown=count["u"],
            unsettled=count["?"],
        )


class NumberOut(BaseModel):
    """An open number a proof uses: ``n`` at column ``x``, row ``y``."""

    x: int
    y: int
    n: int

    @classmethod
    def each(cls, numbers: tuple[tuple[Cell, int], ...]) -> list[NumberOut]:
        """The numbers of a proof or a contradiction, ``((x, y), n)`` each."""
        return [cls(x=c[0], y=c[1], n=n) for c, n in numbers]


class ProofOut(BaseModel):
    """Why a covered cell is safe or a mine: a minimal set of open numbers (and the total
    mine count, when it is needed) that leaves it no other value."""

    x: int
    y: int
    mine: bool
    numbers: list[NumberOut]
    count: int | None = Field(description="the board's mine count, when the proof needs it")
    text: str = Field(description="the proof in words, cells named (column, row)")

    @classmethod
    def of(cls, proof: Proof) -> ProofOut:
        return cls(
            x=proof.cell[0],
            y=proof.cell[1],
            mine=proof.mine,
            numbers=NumberOut.each(proof.numbers),
            count=proof.count,
            text=proof.text,
        )


class WinChanceOut(BaseModel):
    """A guess's chance to win the game, with its 95 % interval, and beside the first
    guess listed, how much lower or higher it is than that one, paired on the same
    layouts (far narrower than the two intervals)."""

    x: int
    y: int
    chance: float = Field(description="the chance to win the game after revealing the cell")
    low: float = Field(description="the 95 % interval's lower end (`chance` when exact)")
    high: float = Field(description="the 95 % interval's upper end (`chance` when exact)")
    safety: float = Field(description="the exact chance that the cell is safe")
    difference: float | None = Field(
        description="this chance minus the recommended guess's; null for that one")
    difference_low: float | None = Field(
        description="the difference's 95 % interval, lower end; null for the first guess")
    difference_high: float | None = Field(description="... and its upper end")

    @classmethod
    def of(cls, found: WinChances, chance: WinChance) -> WinChanceOut:
        first = found.chances[0]
        d = None if chance is first else found.difference(chance.cell, first.cell)
        return cls(x=chance.cell[0], y=chance.cell[1], chance=chance.chance, low=chance.low,
                   high=chance.high, safety=chance.safety,
                   difference=d.estimate if d else None, difference_low=d.low if d else None,
                   difference_high=d.high if d else None)


class WinChancesOut(BaseModel):
    """The chance to win the game after the recommended guess (first) and after the
    next best guesses: exact with best play after when the position has few layouts,
    else estimated over `rollouts` layouts drawn uniformly, every guess played on the
    same ones and the rest of each game by the solver's `policy` profile."""

    exact: bool
    rollouts: int = Field(description="layouts each guess was played on; 0 when exact")
    policy: str = Field(description="who plays on after the guess: a solver profile, or"
                        " `best play` when exact")
    guesses: list[WinChanceOut]

    @classmethod
    def of(cls, found: WinChances) -> WinChancesOut:
        return cls(exact=found.exact, rollouts=found.rollouts, policy=found.policy,
                   guesses=[WinChanceOut.of(found, c) for c in found.chances])


class RecommendationOut(BaseModel):
    """The move to play: every proven safe reveal (``certain``, with the first one's
    ``proof``), or one guess (with ``win_chances``); the solver's ``reason`` says which
    rule chose it."""

    moves: list[str] = Field(description="move strings, `reveal 3 4`")
    reason: str
    certain: bool
    proof: ProofOut | None = None
    win_chances: WinChancesOut | None = Field(
        default=None, description="for a guess: its chance to win the game and the next"
        " best guesses'; null when the move is certain, or for a guess when"
        " `win_chances_note` says why")
    win_chances_note: str | None = Field(
        default=None, description="why a guess has no win chances: the position is too"
        " large to estimate them within the time budget, or the move is a first click")

    @classmethod
    def of(cls, found: Recommendation) -> RecommendationOut:
        return cls(
            moves=[str(m) for m in found.moves],
            reason=found.reason,
            certain=found.certain,
            proof=ProofOut.of(found.proof) if found.proof else None,
            win_chances=WinChancesOut.of(found.chances) if found.chances else None,
            win_chances_note=found.no_chances,
        )


class ContradictionOut(BaseModel):
    """Why no layout fits: open numbers that cannot all hold, with the board's mine
    ``count`` when it is part of the reason; drop any one and a layout fits."""

    numbers: list[NumberOut]
    count: int | None = Field(description="the board's mine count, when the reason needs it")
    text: str = Field(description="the reason in words, cells named (column, row)")

    @classmethod
    def of(cls, reason: Contradiction) -> ContradictionOut:
        return cls(
            numbers=NumberOut.each(reason.numbers),
            count=reason.count,
            text=reason.text,
        )


class PositionAnalysisOut(BaseModel):
    """The analysis of a position: ``analysis`` and the ``recommended`` move, or, when
    no layout fits, ``impossible`` with its ``contradiction``."""

    link: str = Field(description="the position as a URL-safe word (`/analyse?p=<link>`)")
    impossible: bool
    contradiction: ContradictionOut | None = Field(
        description="why no layout fits; null when the position is possible, or the reason"
        " did not fit the time budget")
    analysis: AnalysisOut | None = Field(description="null when the position is impossible")
    recommended: RecommendationOut | None = Field(
        description="null when impossible, or when the budget ran out before the move was"
        " proven safe or every cell settled")

    @classmethod
    def of(cls, analysis: Analysis) -> PositionAnalysisOut:
        found, reason = analysis.recommendation, analysis.contradiction
        return cls(
            link=to_link(analysis.position),
            impossible=analysis.impossible,
            contradiction=ContradictionOut.of(reason) if reason else None,
            analysis=None if analysis.impossible else AnalysisOut.of(analysis),
            recommended=RecommendationOut.of(found) if found else None,
        )


class HintOut(BaseModel):
    """What to play next: ``safe`` with a proof, ``first_click`` (any cell is safe), or
    ``forced_guess`` with the cells of the lowest mine ``probability``."""

    kind: HintKind
    cells: list[XY]
    proof: ProofOut | None = None
    probability: float | None = None

    @classmethod
    def of(cls, hint: Hint) -> HintOut:
        return cls(
            kind=hint.kind,
            cells=[XY(x=x, y=y) for x, y in hint.cells],
            proof=ProofOut.of(hint.proof) if hint.proof else None,
            probability=hint.probability,
        )


class ReplayMoveOut(BaseModel):
    """One move (``"reveal 3 4"``) and the cells it changed as ``[x, y, before, after]``."""

    move: str
    cells: list[tuple[int, int, str, str]]


class ReplayOut(PageOut):
    """A page of a finished game's moves, to step through forwards and back from its
    first board: the first page's moves apply to ``start``, each next page's to the
    board the page before it ends on (and each move's cells say what they showed before
    it, so a page also steps back from the game's last board)."""

    start: list[str] | None = Field(
        description="the game's first board, every cell covered: on the first page"
                    " (offset 0); null on the others")
    moves: list[ReplayMoveOut]

    @classmethod
    def of(cls, game: Game, replay: Replay) -> ReplayOut:
        return cls(
            start=None if replay.start is None else list(replay.start),
            moves=[ReplayMoveOut(move=m, cells=list(cells)) for m, cells in replay.moves],
            **cls.place(game, replay.offset, len(replay.moves)),
        )
