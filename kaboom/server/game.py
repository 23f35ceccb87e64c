"""The cruel-but-fair rules: what happens on a click (``docs/rules.md``).

A :class:`Game` is a value: the rules chosen before play plus what the player has seen.
No layout is stored.  When a click needs mines, :class:`Referee` asks the SAT engine what
is certain, applies the rules below, and draws a consistent layout to show a number or
an explosion; then the layout is forgotten.  Nothing here knows about HTTP.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Literal

from kaboom.solver import (
    Budget,
    BudgetExceededError,
    CachePool,
    Cell,
    CountEncoding,
    Frontier,
    GameStatus,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    KnowledgeEngine,
    LayoutCounter,
    Loss,
    LossReason,
    Move,
    MoveKind,
    Position,
    Status,
    draw_layout,
    random_layout,
)
from kaboom.solver.position import COVERED_CHARS, neighbours

__all__ = ["Game", "Referee", "Rules", "Step"]

@dataclass(frozen=True, slots=True)
class Rules:
    """Everything chosen before the first click."""

    width: int
    height: int
    mines: int
    first_click: Literal["safe", "opening"] = "safe"
    forced_guess: Literal["survive", "fair"] = "survive"
    outside_guess: bool = False
    question_marks: bool = True
    debug: bool = False
    seed: int = 0
    seeded: bool = False
    """The creator chose the seed: the game is reproducible by anyone, so it may show it.
    A server-drawn seed stays secret until the game ends (it would predict the draws)."""


@dataclass(frozen=True, slots=True)
class Game:
    """One game: its rules, the board the player sees, and its counters."""

    id: str
    rules: Rules
    rows: tuple[str, ...]
    status: GameStatus = GameStatus.PLAYING
    moves: int = 0
    forced_guesses: int = 0
    assisted: bool = False
    started_at: float | None = None
    elapsed_final_ms: int | None = None
    loss: Loss | None = None
    created_at: float = field(default_factory=time.time)
    version: int = 0
    """Counts every stored change (moves, undos, the assisted mark); a change commits only
    if the stored game is still at the version it was computed from."""
    undos: int = 0
    """Undos so far: what an engine learned at an earlier position of the same ``undos``
    still holds, whatever other processes played since."""
    player_hash: str = ""
    """SHA-256 of the player's token; moves need the token, spectators only read."""

    @classmethod
    def new(cls, game_id: str, rules: Rules) -> Game:
        return cls(game_id, rules, tuple("#" * rules.width for _ in range(rules.height)))

    @property
    def position(self) -> Position:
        return Position(self.rules.width, self.rules.height, self.rules.mines, self.rows)

    @property
    def mines_left(self) -> int:
        return self.rules.mines - sum(row.count("F") for row in self.rows)

    def elapsed_ms(self, now: float | None = None) -> int:
        if self.elapsed_final_ms is not None:
            return self.elapsed_final_ms
        if self.started_at is None:
            return 0
        return int(((now or time.time()) - self.started_at) * 1000)

    @property
    def seed_shown(self) -> bool:
        """The seed is public once the game is over, or from the start when it was chosen."""
        return self.rules.seeded or self.status is not GameStatus.PLAYING

    @property
    def undo_allowed(self) -> bool:
        """Undo is offered after a loss and in a debug game."""
        return self.moves > 0 and (self.status is GameStatus.LOST or self.rules.debug)


@dataclass(frozen=True, slots=True)
class Step:
    """How to take one move back: the cells it changed and the game before it."""

    move: str
    cells: tuple[tuple[int, int, str], ...]
    before: Game
    after: str | None = None
    """What each of ``cells`` shows after the move, in the same order: a replay page
    steps forward with it without reading the moves after the page.  ``None`` in the
    records stored before it was kept (a replay then rebuilds it from the later moves)."""

    def undo(self, game: Game) -> Game:
        rows = [list(r) for r in game.rows]
        for x, y, ch in self.cells:
            rows[y][x] = ch
        return replace(
            self.before,
            rows=tuple("".join(r) for r in rows),
            assisted=True,
            version=game.version,
            undos=game.undos + 1,
            player_hash=game.player_hash,
        )


WORK_SHARE = 0.8
"""Share of a move's budget the solver works in; the rest is kept for what cannot be
interrupted after it (drawing the board, storing the move, answering)."""

CLASSIFY_SHARE = 0.5
"""Share of a move's budget the classification may take; the layout draw gets the rest."""

COUNT_SHARE = 0.5
"""Share of what is left that exact counting may take before the SAT fallback draws."""

FALLBACK_FLOOR_S = 0.2
"""Least time the SAT fallback gets even when the budget is spent: enough for one layout
of a small or medium board, so that running out of time rarely costs the player a 503;
part of the fixed margin a move may take past its budget."""


class Referee:
    """Applies moves to games of one id, owning that game's incremental engines.

    The engines only cache what is certain; a fresh referee (after a restart, or an
    undo) rebuilds them from the board, so nothing correct depends on them.  One
    :class:`Budget` covers a whole move, fallbacks included: each step takes a share of
    the time left, so a move ends by its deadline plus the time of the steps that
    cannot be interrupted (drawing the board, a few hundred milliseconds on 256x256).
    """

    def __init__(
        self,
        encoding: CountEncoding = CountEncoding.TOTALIZER,
        budget_s: float | None = 5.0,
        *,
        cache_bytes: int = 64 << 20,
        pool: CachePool | None = None,
    ) -> None:
        self.engine = KnowledgeEngine(encoding, cache_bytes=cache_bytes // 2, pool=pool)
        self.counter = LayoutCounter(cache_bytes // 2, pool)
        self._undos = 0  # the game's undo count the engines learned under
        self.budget_s = budget_s
        self.timeouts = 0
        """Moves answered after the budget ran out (the fairness fallback applied)."""
        self.fallback_layouts = 0
        """Layouts drawn by the SAT fallback (consistent, not exactly uniform)."""

    def mark(self) -> tuple[int, dict[Cell, bool]]:
        """What the engines believe now, to :meth:`rollback` to when a computed move is
        not committed: a chord learns from the positions between its reveals, which are
        true only if the move is stored (a move computed again draws other mines)."""
        return self._undos, self.engine.known

    def rollback(self, mark: tuple[int, dict[Cell, bool]]) -> None:
        self._undos, self.engine.known = mark

    def sync(self, game: Game) -> None:
        """Forgets what the engines learned if ``game`` was undone since (here or in
        another process): certainties only carry forward, never across an undo."""
        if game.undos != self._undos:
            self.engine.forget()
            self._undos = game.undos

    # ------------------------------------------------------------------ moves
    def apply(self, game: Game, move: Move, budget: Budget | None = None) -> tuple[Game, Step]:
        """Plays ``move``; returns the new game and how to undo it.

        ``budget`` (default: ``budget_s`` from now) bounds the whole move, a chord's
        reveals together.  Raises :class:`InvalidMoveError` (off the board),
        :class:`IllegalMoveError` (not allowed now) and :class:`BudgetExceededError` (no
        fair answer in time; the game is unchanged).
        """
        budget = (budget or Budget(self.budget_s)).share(WORK_SHARE)
        if not (0 <= move.x < game.rules.width and 0 <= move.y < game.rules.height):
            raise InvalidMoveError(
                f"({move.x}, {move.y}) is off the {game.rules.width}x{game.rules.height} board"
            )
        if game.status is not GameStatus.PLAYING:
            raise IllegalMoveError(f"the game is over ({game.status})")
        self.sync(game)
        rng = random.Random(f"{game.rules.seed}:{game.moves}:{move}")
        before = game
        if move.kind is MoveKind.FLAG:
            game = self._flag(game, move.x, move.y)
        elif move.kind is MoveKind.REVEAL:
            game = self._reveal(game, move.x, move.y, rng, budget)
        else:
            game = self._chord(game, move.x, move.y, rng, budget)
        game = replace(game, moves=game.moves + 1)
        changed = tuple(
            (x, y, before.rows[y][x])
            for y, (old, new) in enumerate(zip(before.rows, game.rows))
            if old != new
            for x in range(len(old))
            if old[x] != new[x]
        )
        after = "".join(game.rows[y][x] for x, y, _ in changed)
        return game, Step(str(move), changed, before, after)

    def undo(self, game: Game, step: Step) -> Game:
        """Takes back the last move (``step``); the engines forget what they learned since."""
        undone = step.undo(game)
        self.sync(undone)
        return undone

    def _flag(self, game: Game, x: int, y: int) -> Game:
        ch = game.rows[y][x]
        if ch not in COVERED_CHARS:
            raise IllegalMoveError(f"({x}, {y}) is open; only covered cells take marks")
        nxt = {"#": "F", "F": "?" if game.rules.question_marks else "#", "?": "#"}[ch]
        return replace(game, rows=_set(game.rows, {(x, y): nxt}))

    def _chord(self, game: Game, x: int, y: int, rng: random.Random, budget: Budget) -> Game:
        n = game.position.number(x, y)
        if n is None:
            raise IllegalMoveError(f"({x}, {y}) is not an open number; chords need one")
        around = list(neighbours(x, y, game.rules.width, game.rules.height))
        flags = sum(1 for cx, cy in around if game.rows[cy][cx] == "F")
        if flags != n:
            raise IllegalMoveError(f"a chord on ({x}, {y}) needs exactly {n} flag"
                                   f"{'' if n == 1 else 's'}; it has {flags}")
        targets = [(cx, cy) for cx, cy in around if game.rows[cy][cx] in ("#", "?")]
        if not targets:
            raise IllegalMoveError(f"({x}, {y}) has no covered unflagged neighbour to open")
        for cx, cy in targets:
            if game.status is not GameStatus.PLAYING:
                break
            if game.rows[cy][cx] in ("#", "?"):  # an earlier reveal may have opened it
                game = self._reveal(game, cx, cy, rng, budget)
        return game

    # ------------------------------------------------------------------ reveal
    def _reveal(self, game: Game, x: int, y: int, rng: random.Random, budget: Budget) -> Game:
        ch = game.rows[y][x]
        if ch == "F":
            raise IllegalMoveError(f"({x}, {y}) is flagged; remove the flag to open it")
        if ch not in COVERED_CHARS:
            raise IllegalMoveError(f"({x}, {y}) is already open")
        c = (x, y)
        position = game.position
        if game.started_at is None:
            game = replace(game, started_at=time.time())
        if position.is_start:
            return self._open(game, c, self._first_layout(game, c, rng, budget))
        knowledge = self.engine.classify(position, budget.share(CLASSIFY_SHARE))
        known, base = self.engine.known, knowledge.frontier

        def layout(fixed: dict[Cell, bool]) -> AbstractSet[Cell]:
            return self._layout(position, rng, fixed, known, budget, base)

        def explode(g: Game, reason: LossReason, proof: Cell | None = None) -> Game:
            return self._explode(g, c, reason, proof, rng, known, budget, base)

        status = knowledge.status(c)
        if c in knowledge.unresolved:
            # Out of time before c was settled: never punish without a proof.  If c
            # can be safe at all it opens; if no layout has it safe it is a mine.
            self.timeouts += 1
            try:
                drawn = layout({c: False})
            except InvalidPositionError:
                return explode(game, LossReason.CERTAIN_MINE)
            return self._open(game, c, drawn)
        if status is Status.SAFE:
            return self._open(game, c, layout({c: False}))
        if status is Status.MINE:
            return explode(game, LossReason.CERTAIN_MINE)
        safe = [s for s in knowledge.safe if position.is_covered(*s)]
        if safe:
            proof = min(safe, key=lambda s: (max(abs(s[0] - x), abs(s[1] - y)), s[1], s[0]))
            return explode(game, LossReason.GUESS_WHILE_SAFE, proof)
        if knowledge.unresolved:
            # A safe cell may hide among the unsettled cells: give the click the benefit
            # of the doubt and treat it as a forced guess that survives.
            self.timeouts += 1
            return self._open(game, c, layout({c: False}))
        frontier = position.frontier()
        # Outside guesses are fatal while the frontier offers somewhere to go.
        if (
            c not in frontier
            and not game.rules.outside_guess
            and any(knowledge.status(f) is not Status.MINE for f in frontier)
        ):
            return explode(game, LossReason.OUTSIDE_GUESS)
        game = replace(game, forced_guesses=game.forced_guesses + 1)
        if game.rules.forced_guess == "survive":
            return self._open(game, c, layout({c: False}))
        drawn = layout({})
        if c in drawn:
            return self._show_loss(game, c, LossReason.FORCED_GUESS, None, drawn)
        return self._open(game, c, drawn)

    def _first_layout(
        self, game: Game, c: Cell, rng: random.Random, budget: Budget
    ) -> AbstractSet[Cell]:
        """The first reveal is safe; with ``opening`` its neighbours too, when M leaves room."""
        position = game.position
        fixed = {c: False}
        around = list(position.neighbours(*c))
        if game.rules.first_click == "opening" and (
            len(position.covered()) - 1 - len(around) >= position.mines
        ):
            fixed.update(dict.fromkeys(around, False))
        return self._layout(position, rng, fixed, {}, budget)

    def _layout(
        self,
        position: Position,
        rng: random.Random,
        fixed: dict[Cell, bool],
        known: dict[Cell, bool],
        budget: Budget,
        base: Frontier | None = None,
    ) -> AbstractSet[Cell]:
        """Draws a consistent layout agreeing with ``fixed``: exactly uniform when the
        components can be counted in a share of the budget, else a randomised SAT model
        in what is left of it (:class:`BudgetExceededError` when that runs out too).
        ``base`` is the position's frontier when the caller has it (saves a board scan).
        :class:`InvalidPositionError` when no layout agrees with ``fixed``."""
        try:
            return draw_layout(
                position,
                rng,
                fixed=fixed,
                known=known,
                budget=budget.share(COUNT_SHARE),
                counter=self.counter,
                base=base,
            )
        except BudgetExceededError:
            # Counting was too large or too slow: a SAT model in the time left.
            self.fallback_layouts += 1
            left = budget.remaining()
            return random_layout(
                position,
                rng,
                fixed=fixed,
                known=known,
                encoding=self.engine.encoding,
                budget=Budget(None if left is None else max(left, FALLBACK_FLOOR_S)),
                base=base,
            )

    def _open(self, game: Game, c: Cell, layout: AbstractSet[Cell]) -> Game:
        w, h = game.rules.width, game.rules.height
        rows = game.rows
        changes: dict[Cell, str] = {}
        queue = deque([c])
        while queue:
            cell = queue.popleft()
            if cell in changes:
                continue
            n = sum(1 for nb in neighbours(*cell, w, h) if nb in layout)
            changes[cell] = str(n)
            if n == 0:
                for nx, ny in neighbours(*cell, w, h):
                    if (nx, ny) not in changes and rows[ny][nx] in ("#", "?"):
                        queue.append((nx, ny))
        rows = _set(rows, changes)
        covered = sum(r.count("#") + r.count("F") + r.count("?") for r in rows)
        if covered == game.rules.mines:
            rows = tuple("".join("F" if ch in COVERED_CHARS else ch for ch in r) for r in rows)
            return self._finish(replace(game, rows=rows), GameStatus.WON, None)
        return replace(game, rows=rows)

    def _explode(
        self,
        game: Game,
        c: Cell,
        reason: LossReason,
        proof: Cell | None,
        rng: random.Random,
        known: dict[Cell, bool],
        budget: Budget,
        base: Frontier | None = None,
    ) -> Game:
        layout = self._layout(game.position, rng, {c: True}, known, budget, base)
        return self._show_loss(game, c, reason, proof, layout)

    def _show_loss(
        self, game: Game, c: Cell, reason: LossReason, proof: Cell | None, layout: AbstractSet[Cell]
    ) -> Game:
        changes: dict[Cell, str] = {}
        for y, row in enumerate(game.rows):
            for x, ch in enumerate(row):
                if ch not in COVERED_CHARS:
                    continue
                mine = (x, y) in layout
                if (x, y) == c:
                    changes[(x, y)] = "X"
                elif ch == "F":
                    changes[(x, y)] = "F" if mine else "!"
                elif mine:
                    changes[(x, y)] = "*"
        loss = Loss(c[0], c[1], reason, proof)
        return self._finish(replace(game, rows=_set(game.rows, changes)), GameStatus.LOST, loss)

    @staticmethod
    def _finish(game: Game, status: GameStatus, loss: Loss | None) -> Game:
        return replace(game, status=status, loss=loss, elapsed_final_ms=game.elapsed_ms())


def _set(rows: tuple[str, ...], changes: dict[Cell, str]) -> tuple[str, ...]:
    if not changes:
        return rows
    out = list(rows)
    by_row: dict[int, list[tuple[int, str]]] = {}
    for (x, y), ch in changes.items():
        by_row.setdefault(y, []).append((x, ch))
    for y, items in by_row.items():
        row = list(out[y])
        for x, ch in items:
            row[x] = ch
        out[y] = "".join(row)
    return tuple(out)
