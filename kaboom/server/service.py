"""Games as a service: load, apply a move, commit it if nobody else did first, answer.

Any number of server processes may share one store.  A change is computed from the game
as stored and committed only if the game is still at that version (compare-and-set); the
loser of a race is computed again on the fresh game, so every acknowledged move is in the
game's history, and what the lost try taught the referee is forgotten.  Within one
process, a lock per game keeps its moves from racing at all.
Each game's :class:`Referee` (its warm engines) lives in a bounded in-memory cache, is
rebuilt when evicted, and forgets what it learned when another process undid a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from kaboom.server.admission import Gate
from kaboom.server.config import Settings
from kaboom.server.errors import ConflictError, MissingTokenError, MoveLimitError, NotPlayerError
from kaboom.server.game import Game, Referee, Rules, Step
from kaboom.server.metrics import (
    GAMES_CREATED,
    GAMES_ENDED,
    GAMES_EXPIRED,
    LONG_POLLS,
    MOVES_OUT_OF_TIME,
    SAT_FALLBACK_LAYOUTS,
    STORE_RACES,
)
from kaboom.server.store import GameStore
from kaboom.solver.budget import Budget
from kaboom.solver.cache import CachePool
from kaboom.solver.errors import (
    BudgetExceededError,
    IllegalMoveError,
    InvalidMoveError,
    NoProofError,
)
from kaboom.solver.knowledge import Knowledge
from kaboom.solver.position import Cell, GameStatus, Move, Position, row_major
from kaboom.solver.probability import probabilities
from kaboom.solver.proof import Proof, prove

__all__ = ["Analysis", "GameService", "Hint", "HintKind", "Replay", "token_hash"]

HintKind = Literal["safe", "first_click", "forced_guess"]

_Record = TypeVar("_Record")
"""What a change hands its commit besides the two games (a move's undo step, or nothing)."""
_Page = TypeVar("_Page")
"""What a page reads of a game's rows (its moves, or their undo records)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the debug overlay shows: the status of every cell and, when affordable,
    every covered cell's exact mine probability."""

    knowledge: Knowledge
    status: list[str]
    probability: list[list[float | None] | None]
    exact: bool


@dataclass(slots=True)
class _Session:
    referee: Referee
    lock: threading.Lock
    game: Game | None = None
    """The game as this process last stored it: a move computes on it first, saving a
    read, and the compare-and-set on its version catches any change made elsewhere."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Hint:
    """What to play next: a proven safe cell with its proof; on an untouched board any
    cell (the first click is safe); else a forced guess among the ``cells`` with the
    lowest mine ``probability`` (``None`` when it could not be computed in time)."""

    kind: HintKind
    cells: tuple[Cell, ...]
    proof: Proof | None = None
    probability: float | None = None


@dataclass(frozen=True, slots=True)
class Replay:
    """A page of a finished game's moves: each move of the page with the cells it
    changed, as ``(x, y, before, after)``, so a page can step forwards and back, and on
    the first page the game's first board.  ``offset`` moves come before the page."""

    start: tuple[str, ...] | None
    moves: tuple[tuple[str, tuple[tuple[int, int, str, str], ...]], ...]
    offset: int = 0


_HINT_CANDIDATES = 8
"""Safe cells whose proofs a hint compares, to show the shortest of them."""
_HINT_CELLS = 32
"""At most this many equally good guesses are named (the outside may have thousands)."""

_KNOWN_PLAYERS = 100_000
"""Games whose player-token hash is kept in memory (about 150 bytes each): a move is
authorized without a read of the store before it queues for the game's turn."""

_RETRIES = 8
"""Times a change is computed again, or a page read again, after losing a race to another
change before the answer is 409."""


def _page_length(game: Game, offset: int, limit: int) -> int:
    """How many of the game's moves a page from ``offset`` holds: at most ``limit``, and
    none past the game's move count (a record an undone move left is never listed)."""
    return max(0, min(limit, game.moves - offset))


class GameService:
    """Creates games, checks who may move them, and applies moves."""

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._guard = threading.Lock()
        self._players: OrderedDict[str, str] = OrderedDict()
        """Game id -> its player's token hash, which never changes once created."""
        self.watcher = Watcher(store, settings.long_poll_interval_s)
        self.pool = CachePool(settings.cache_mb << 20)
        self.gate = Gate(settings.solver_threads, settings.queued_moves, settings.queued_total)

    def _session(self, game_id: str) -> _Session:
        with self._guard:
            s = self._sessions.get(game_id)
            if s is None:
                referee = Referee(
                    self.settings.count_encoding,
                    self.settings.move_budget_s,
                    cache_bytes=self.settings.game_cache_mb << 20,
                    pool=self.pool,
                )
                s = _Session(referee, threading.Lock())
                self._sessions[game_id] = s
                while len(self._sessions) > self.settings.cached_games or (
                    len(self._sessions) > 1 and self._known_cells() > self.settings.cached_cells
                ):
                    old_id, old = self._sessions.popitem(last=False)
                    if old.lock.locked():  # in use: keep it
                        self._sessions[old_id] = old
                        break
            else:
                self._sessions.move_to_end(game_id)
            return s

    def _known_cells(self) -> int:
        return sum(len(s.referee.engine.known) for s in self._sessions.values())

    # ------------------------------------------------------------------ games
    def create(self, rules: Rules) -> tuple[Game, str]:
        """Stores a new game; returns it with the player's token (shown only here)."""
        if rules.seed == 0:
            rules = replace(rules, seed=secrets.randbits(63) or 1, seeded=False)
        else:
            rules = replace(rules, seeded=True)
        token = secrets.token_urlsafe(24)
        game = Game.new(secrets.token_urlsafe(24), rules)  # 192 random bits each
        game = replace(game, player_hash=token_hash(token))
        self.store.create(game)
        GAMES_CREATED.inc()
        self.watcher.changed(game.id)
        return game, token

    def get(self, game_id: str) -> Game:
        return self.store.get(game_id)

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

    @staticmethod
    def check_player(player_hash: str, token: str | None) -> None:
        """Raises unless ``token`` is the player token whose hash is ``player_hash``."""
        if token is None:
            raise MissingTokenError("only the player may do this: send the player's token as"
                                    " 'Authorization: Bearer <token>'")
        if not hmac.compare_digest(token_hash(token), player_hash):
            raise NotPlayerError("the token is not this game's player token")

    # ------------------------------------------------------------------ changes
    def _change(
        self,
        game_id: str,
        token: str | None,
        compute: Callable[[Referee, Game], tuple[Game, _Record]],
        commit: Callable[[Game, Game, _Record], bool],
    ) -> Game:
        """Computes a change on the stored game and commits it by compare-and-set,
        computing again on the fresh game when another process got there first."""
        session = self._session(game_id)
        with session.lock:
            remembered, session.game = session.game, None
            for _ in range(_RETRIES):
                stored = remembered is None
                game = self.store.get(game_id) if remembered is None else remembered
                remembered = None
                mark = session.referee.mark()
                try:
                    self.check_player(game.player_hash, token)
                    new, step = compute(session.referee, game)
                except Exception as exc:
                    session.referee.rollback(mark)  # nothing learned from a move not made
                    if stored or isinstance(exc, BudgetExceededError):
                        raise
                    continue  # the remembered game may be out of date: decide on the stored one
                new = replace(new, version=game.version + 1)
                if commit(game, new, step):
                    session.game = new
                    self.watcher.changed(game_id)
                    return new
                STORE_RACES.labels("change").inc()
                session.referee.rollback(mark)
            raise ConflictError("the game kept changing under this move; try again")

    def knows_player(self, game_id: str) -> bool:
        """Whether :meth:`authorize` can answer from memory (no read of the store)."""
        return game_id in self._players

    def authorize(self, game_id: str, token: str | None) -> None:
        """Raises unless ``token`` is the game's player token: checked before a request
        queues for the game's solver turn, so that watchers cannot crowd the player out.
        A game's token hash is read from the store once; the move itself checks it again
        on the game it changes."""
        player_hash = self._players.get(game_id)
        if player_hash is None:
            player_hash = self.store.get(game_id).player_hash
            with self._guard:
                self._players[game_id] = player_hash
                if len(self._players) > _KNOWN_PLAYERS:
                    self._players.popitem(last=False)
        self.check_player(player_hash, token)

    def move_limit(self, rules: Rules) -> int:
        """The moves a game with ``rules`` may keep: the history a move stores is bounded
        by the board, not by how long a client keeps clicking."""
        cells = rules.width * rules.height
        return max(self.settings.move_limit_min, self.settings.move_limit_per_cell * cells)

    def play(
        self, game_id: str, move: Move, token: str | None, budget: Budget | None = None
    ) -> Game:
        """Plays ``move``; ``budget`` (default: the move budget from now) bounds it all.
        A move past the game's :meth:`move_limit` is refused before the referee sees it."""
        budget = budget or Budget(self.settings.move_budget_s)

        def compute(referee: Referee, game: Game) -> tuple[Game, Step]:
            limit = self.move_limit(game.rules)
            if game.moves >= limit and game.status is GameStatus.PLAYING:
                way_out = ("undo a move to make room, or start a new game" if game.undo_allowed
                           else "start a new game to play on")
                raise MoveLimitError(
                    f"the game has made the {limit} moves a {game.rules.width}x"
                    f"{game.rules.height} game may keep; nothing changed: {way_out}"
                )
            before = referee.timeouts, referee.fallback_layouts
            try:
                return referee.apply(game, move, budget)
            finally:  # the fairness fallbacks, for the operator to see how often they apply
                MOVES_OUT_OF_TIME.inc(referee.timeouts - before[0])
                SAT_FALLBACK_LAYOUTS.inc(referee.fallback_layouts - before[1])

        game = self._change(game_id, token, compute, self.store.commit_move)
        if game.status is not GameStatus.PLAYING:  # a finished game refuses moves: this ended it
            GAMES_ENDED.labels(game.status.value).inc()
        return game

    def undo(self, game_id: str, token: str | None) -> Game:
        def compute(referee: Referee, game: Game) -> tuple[Game, None]:
            if not game.undo_allowed:
                raise IllegalMoveError("undo is offered after a loss or in a debug game")
            return referee.undo(game, self.store.last_step(game)), None

        return self._change(
            game_id, token, compute, lambda before, after, _: self.store.commit_undo(before, after)
        )

    def _mark_assisted(self, game_id: str, token: str | None) -> Game:
        def compute(referee: Referee, game: Game) -> tuple[Game, None]:
            if game.status is not GameStatus.PLAYING:
                raise IllegalMoveError(f"the game is over ({game.status}); nothing to analyse")
            return replace(game, assisted=True), None

        game = self.store.get(game_id)
        self.check_player(game.player_hash, token)
        if game.assisted and game.status is GameStatus.PLAYING:
            return game
        return self._change(
            game_id, token, compute, lambda before, after, _: self.store.commit(before, after)
        )

    def analyse(
        self, game_id: str, token: str | None, budget: Budget | None = None
    ) -> tuple[Game, Analysis]:
        """The analysis of the player's game; marks it assisted.  ``budget`` (default:
        the analysis budget from now) covers the classification and the probabilities
        together, and leaves 30 % for building the answer (1.3 MB of JSON at 256x256)."""
        budget = (budget or Budget(self.settings.analysis_budget_s)).share(0.7)
        game = self._mark_assisted(game_id, token)
        session = self._session(game_id)
        with session.lock:
            referee = session.referee
            referee.sync(game)
            position = game.position
            knowledge = referee.engine.classify(position, budget.share(0.5))
            rows: list[list[float | None] | None]
            try:
                probs = probabilities(
                    position,
                    known=referee.engine.known,
                    budget=budget,
                    counter=referee.counter,
                )
                rows = [
                    [
                        probs.cells.get((x, y)) if position.is_covered(x, y) else None
                        for x in range(position.width)
                    ]
                    for y in range(position.height)
                ]
                exact = True
            except BudgetExceededError:
                rows = [None] * position.height
                exact = False
        return game, Analysis(knowledge, knowledge.status_rows(position), rows, exact)

    # ------------------------------------------------------------------ proofs
    def proof(
        self, game_id: str, cell: Cell, token: str | None, budget: Budget | None = None
    ) -> tuple[Game, Proof]:
        """The proof of a covered cell.  During a game it is assistance: only the player
        may ask, and an answer about a covered cell (its proof, or that it is undecided)
        marks the game assisted; a refused request leaves it as it was.  After the game
        it is free and proves the cell in the position before the last move, where the
        loss was decided.  (A game that ends while its proof is computed is not marked:
        its proofs are free by then, and the answer came after the last move.)"""
        game = self.store.get(game_id)
        playing = game.status is GameStatus.PLAYING
        if playing:
            self.check_player(game.player_hash, token)
        position = game.position if playing else self._before_last(game)
        width, height = position.width, position.height
        if not (0 <= cell[0] < width and 0 <= cell[1] < height):
            raise InvalidMoveError(f"({cell[0]}, {cell[1]}) is off the {width}x{height} board")
        try:
            found = prove(position, cell, budget or Budget(self.settings.analysis_budget_s))
        except NoProofError:
            if playing and position.is_covered(*cell):  # "undecided" is an answer too
                self._mark_assisted_if_playing(game_id, token)
            raise
        return (self._mark_assisted_if_playing(game_id, token) if playing else game), found

    def _mark_assisted_if_playing(self, game_id: str, token: str | None) -> Game:
        try:
            return self._mark_assisted(game_id, token)
        except IllegalMoveError:
            game = self.store.get(game_id)
            if game.status is GameStatus.PLAYING:
                raise
            return game

    def hint(
        self, game_id: str, token: str | None, budget: Budget | None = None
    ) -> tuple[Game, Hint]:
        """A proven safe cell with the shortest proof among a few, or the best odds of a
        forced guess; only the player may ask, and the game is marked assisted.  Within
        ``budget`` (default: the analysis budget from now): one that runs out before the
        position is settled raises :class:`BudgetExceededError`, as calling the next click
        a forced guess then could send the player onto a mine."""
        if self.store.get(game_id).status is not GameStatus.PLAYING:
            raise IllegalMoveError("the game is over; no hint to give")
        game = self._mark_assisted(game_id, token)
        position = game.position
        if position.is_start:
            return game, Hint("first_click", ((position.width // 2, position.height // 2),))
        budget = budget or Budget(self.settings.analysis_budget_s)
        session = self._session(game_id)
        with session.lock:
            referee = session.referee
            referee.sync(game)
            knowledge = referee.engine.classify(position, budget.share(0.5))
            safe = sorted(
                (c for c in knowledge.safe if position.is_covered(*c) and position.char(*c) != "F"),
                key=row_major,
            )
            if safe:
                proofs = [prove(position, c, budget) for c in safe[:_HINT_CANDIDATES]]
                best = min(proofs, key=lambda p: (len(p.numbers), p.count is not None))
                return game, Hint("safe", (best.cell,), best)
            if not knowledge.complete:
                raise BudgetExceededError("no hint within the time budget; try again")
            try:
                probs = probabilities(
                    position, known=referee.engine.known, budget=budget, counter=referee.counter
                )
            except BudgetExceededError:
                return game, Hint("forced_guess", ())
        odds = {c: p for c, p in probs.cells.items() if position.char(*c) != "F"}
        frontier = set(position.frontier())
        if not game.rules.outside_guess and any(odds.get(c, 1.0) < 1.0 for c in frontier):
            # A guess off the frontier would lose outright while the frontier has a chance.
            odds = {c: p for c, p in odds.items() if c in frontier}
        low = min(odds.values())
        best_cells = sorted(
            (c for c, p in odds.items() if p <= low + 1e-12), key=row_major
        )
        return game, Hint("forced_guess", tuple(best_cells[:_HINT_CELLS]), probability=low)

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

    def _before_last(self, game: Game) -> Position:
        """The position the last move was played on (the board before a loss showed)."""
        if game.moves == 0:
            return game.position
        return self.store.last_step(game).undo(game).position

    # ------------------------------------------------------------------ expiry
    def expire(self, now: float | None = None) -> int:
        """Deletes finished games and idle games past their settings' ages."""
        now = time.time() if now is None else now
        removed = self.store.expire(
            now - self.settings.finished_expiry_s, now - self.settings.idle_expiry_s
        )
        GAMES_EXPIRED.inc(removed)
        return removed

    # ------------------------------------------------------------------ watching
    async def wait_for_change(self, game_id: str, moves: int, timeout: float) -> Game:
        """Returns the game once its move count differs from ``moves`` or it changes
        (a move or an undo, made by any process), or at the timeout."""
        deadline = time.monotonic() + min(timeout, self.settings.long_poll_max_s)
        game = await asyncio.to_thread(self.store.get, game_id)
        if game.moves != moves or game.status is not GameStatus.PLAYING:
            return game
        await self.watcher.wait(game_id, game.version, deadline)
        return await asyncio.to_thread(self.store.get, game_id)


class Watcher:
    """Wakes long polls when a watched game changes, in this process or another.

    Changes made here wake at once; for changes made elsewhere one task per process
    reads the versions of every watched game in one query each ``interval`` seconds,
    and only while someone is waiting.
    """

    def __init__(self, store: GameStore, interval: float) -> None:
        self.store = store
        self.interval = interval
        self._waiting: dict[str, list[tuple[int, asyncio.Future[None]]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._poke = asyncio.Event()

    def changed(self, game_id: str) -> None:
        """Called from any thread after this process committed a change: the watchers
        look at once instead of at the next interval."""
        loop = self._loop
        if loop is not None and game_id in self._waiting:
            loop.call_soon_threadsafe(self._poke.set)

    async def wait(self, game_id: str, version: int, deadline: float) -> None:
        self._loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = self._loop.create_future()
        entry = (version, future)
        self._waiting.setdefault(game_id, []).append(entry)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        LONG_POLLS.inc()
        try:
            await asyncio.wait_for(future, max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            pass  # answered with the unchanged game
        finally:
            LONG_POLLS.dec()
            waiters = self._waiting.get(game_id, [])
            if entry in waiters:
                waiters.remove(entry)
            if not waiters:
                self._waiting.pop(game_id, None)

    async def _run(self) -> None:
        while self._waiting:
            ids = list(self._waiting)
            try:
                versions = await asyncio.to_thread(self.store.versions, ids)
            except Exception:  # a store hiccup: the waiters time out at worst
                versions = {}
            for game_id in ids:
                current = versions.get(game_id)
                for version, future in self._waiting.get(game_id, []):
                    if current != version and not future.done():
                        future.set_result(None)
            self._poke.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), self.interval)
