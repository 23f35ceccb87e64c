"""Kaboom's use cases, each written once for both faces: create a game, move (reveal, flag,
chord), undo, hint, proof, the debug overlay's analysis, a replay's step, watching a game,
and the analysis of any position.

A use case takes the caller (:class:`Caller`: the player's token if sent, the client, the
page's browser and page ids), admits it, waits for the game's solver turn with the budget
its work gets, and answers domain results: the game before and after as the caller sees
them (:class:`~kaboom.server.views.GameView`), the changed cells, a proof, an analysis.
The JSON routes render these as JSON and the page's routes as HTML fragments; neither
decides anything of its own.

Work that may be slow (a move, an analysis) runs on the gate's solver threads
(:mod:`kaboom.server.admission`): one at a time per game, queued on the event loop, so a
slow game never holds the threads that serve other games.  A change's views are drawn
in its turn, from the game it was computed on, so a diff never starts from a stale board.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from kaboom.server.admission import Gate
from kaboom.server.assistance import ANSWER_SHARE, Assistant, Hint
from kaboom.server.config import Settings
from kaboom.server.errors import NotPlayerError, StoreUnavailableError
from kaboom.server.game import Game, Rules
from kaboom.server.games import Games
from kaboom.server.history import History, Replay
from kaboom.server.limits import CreateLimiter
from kaboom.server.players import Players, token_hash
from kaboom.server.sessions import Sessions
from kaboom.server.statistics import EMPTY, Statistics, counts, tally
from kaboom.server.store import GameStore
from kaboom.server.views import GameView, Role, changed
from kaboom.server.watcher import Watcher
from kaboom.solver import (
    Analysis,
    Budget,
    BudgetExceededError,
    Cell,
    InvalidPositionError,
    KaboomError,
    Move,
    NoProofError,
    Position,
    Proof,
    analyse,
    prove,
)
from kaboom.solver.position import GameStatus

__all__ = ["Analysed", "Caller", "Change", "Created", "Health", "Hinted", "Kaboom", "Proved",
           "Shown", "Statistics", "Watched"]

log = logging.getLogger("kaboom")
T = TypeVar("T")

Step = Literal["first", "back", "next", "last"]
"""A replay bar's buttons."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks.  ``token``: the player token the request carries, if any; ``client``: its
    address's bucket, between which the solver threads are shared fairly; ``browser``:
    the page's anonymous browser id (its statistics; ``None`` for the API, which keeps
    none); ``page``: the id of the page that sent it (its own changes are not sent back
    to it by its event stream)."""

    token: str | None = None
    client: str = "?"
    browser: str | None = None
    page: str = ""

    def on_page(self, page: str) -> Caller:
        """The caller as the page ``page`` (whose request it is)."""
        return replace(self, page=page)


@dataclass(frozen=True, slots=True)
class Change:
    """A game before and after a use case, both as the caller sees them, and the caller's
    statistics when the game is one that counts for it (finished, as its player)."""

    before: GameView
    after: GameView
    statistics: Statistics | None = None

    @property
    def game(self) -> Game:
        return self.after.game

    @property
    def cells(self) -> list[Cell]:
        """The cells drawn differently after (their character or their marks)."""
        return changed(self.before, self.after)


@dataclass(frozen=True, slots=True)
class Created:
    game: GameView
    token: str
    """The player's token: shown once, here."""


@dataclass(frozen=True, slots=True)
class Hinted:
    change: Change
    hint: Hint


@dataclass(frozen=True, slots=True)
class Proved:
    view: GameView
    proof: Proof


@dataclass(frozen=True, slots=True)
class Shown:
    """A game's whole page: the game, and the caller's statistics."""

    view: GameView
    statistics: Statistics | None


@dataclass(frozen=True, slots=True)
class Analysed:
    """The analysis of a position, and the proof of the cell asked about when it is
    decided and its proof fits the budget."""

    analysis: Analysis
    proof: Proof | None = None


@dataclass(frozen=True, slots=True)
class Health:
    """What a load balancer asks of a process.  A full disk still answers: the process
    serves reads, and a balancer that took every process out would stop those too."""

    status: Literal["ok", "disk_full"]
    store: str
    schema_version: int


Watched = Change | Shown | None
"""What watching a game gives, each time: the whole game (the page shows another version),
a change, or nothing new (a keep-alive)."""

KEEPALIVE_S = 15.0
"""A watch says it is still there this often, so that proxies keep a quiet stream."""

_PROOFS_KEPT = 512
_ORIGINS_KEPT = 4096
_CHANGES_KEPT = 1024


class Kaboom:
    """The use cases over one store, with this process's sessions, solver gate and
    watchers."""

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.watcher = Watcher(store, settings.long_poll_interval_s, settings.long_poll_max_s)
        self.sessions = Sessions(store, settings, committed=self.watcher.changed)
        self.games = Games(store, settings, self.sessions)
        self.history = History(store)
        self.assistant = Assistant(self.sessions, self.history, settings)
        self.players = Players(store)
        self.gate = Gate(settings.solver_threads, settings.queued_moves, settings.queued_total)
        self.limiter = CreateLimiter(settings, store)
        self._proofs: OrderedDict[tuple[str, int], Proof | None] = OrderedDict()
        """Loss proofs by (game, version): a finished game's proof never changes."""
        self._origins: OrderedDict[tuple[str, int], str] = OrderedDict()
        """The page whose request made each recent version of a game, in this process."""
        self._sent: OrderedDict[tuple[str, int, int, Role], Change] = OrderedDict()
        """The last changes sent to watchers, by game, versions and role."""

    # ------------------------------------------------------------------ games
    async def create(self, rules: Rules, caller: Caller) -> Created:
        """A new game, once the caller's creation buckets allow its cells."""
        cells = rules.width * rules.height
        await asyncio.to_thread(self.limiter.check, caller.client, cells)
        game, token = await asyncio.to_thread(self.games.create, rules)
        return Created(self._view(game, "player"), token)

    async def read(self, game_id: str, caller: Caller = Caller()) -> GameView:
        """The game as stored (off the event loop: the store's lock may be held by a move
        committing a large game).  No loss proof: the API's game has none."""
        game = await asyncio.to_thread(self.games.get, game_id)
        return self._view(game, self._role(game, caller))

    async def show(self, game_id: str, caller: Caller) -> Shown:
        """The game's whole page: with its loss proof, and counted in the caller's
        statistics when it counts."""
        game = await asyncio.to_thread(self.games.get, game_id)
        view = await self._seen(game, caller)
        return Shown(*await asyncio.to_thread(self._tallied, view, caller))

    async def wait(self, game_id: str, moves: int, timeout: float) -> GameView:
        """The game once its move count differs from ``moves`` or it changes (a move or
        an undo, made by any process), or at the timeout (a long poll)."""
        deadline = asyncio.get_running_loop().time() + min(timeout, self.watcher.longest)
        with self.watcher.watch(game_id) as watch:  # before the read: no change missed
            game = await asyncio.to_thread(self.games.get, game_id)
            if game.moves == moves and game.status is GameStatus.PLAYING:
                game = await watch.next(game.version, deadline) or game
        return self._view(game, "spectator")

    async def watch(self, game_id: str, version: int, caller: Caller
                    ) -> AsyncIterator[Watched]:
        """The game's changes from ``version`` on, made by any process, as they come; a
        change the caller's own page made is not given back (its answer had it).  Reads
        the game first, so an unknown one is refused before anything is given; an idle
        stream reads nothing (its keep-alives included)."""
        watch = self.watcher.watch(game_id)  # before the read: no change missed
        try:
            game = await asyncio.to_thread(self.games.get, game_id)
        except BaseException:
            watch.close()
            raise

        async def changes() -> AsyncIterator[Watched]:
            with watch:
                shown = await self._seen(game, caller)
                if game.version != version:  # the page is behind already: the whole game
                    yield Shown(*await asyncio.to_thread(self._tallied, shown, caller))
                while True:
                    deadline = asyncio.get_running_loop().time() + KEEPALIVE_S
                    now = await watch.next(shown.game.version, deadline)
                    if now is None:
                        yield None
                        continue
                    view = await self._seen(now, caller)
                    made = range(shown.game.version + 1, now.version + 1)
                    if not self._made_by(game_id, made, caller.page):
                        yield await self._changed(shown, view, caller)
                    shown = view

        found = changes()
        weakref.finalize(found, watch.close)  # a stream never started never closes it
        return found

    # ------------------------------------------------------------------ changes
    async def move(self, game_id: str, move: Move, caller: Caller) -> Change:
        """Plays ``move`` as the game's player."""

        def run(budget: Budget) -> Change:
            done = self.games.play(game_id, move, caller.token, budget)
            return self._change(done.before, done.after, caller)

        return await self._player_turn(game_id, caller, move.kind.value,
                                       self.settings.move_budget_s, run)

    async def undo(self, game_id: str, caller: Caller) -> Change:
        """Takes back the last move (after a loss, or in a debug game)."""

        def run(_: Budget) -> Change:
            done = self.games.undo(game_id, caller.token)
            return self._change(done.before, done.after, caller)

        return await self._player_turn(game_id, caller, "undo", None, run)

    async def hint(self, game_id: str, caller: Caller) -> Hinted:
        """A proven safe cell with its proof, or the best odds of a forced guess; marks the
        game assisted."""

        def run(budget: Budget) -> Hinted:
            before = self.games.get(game_id)
            game, hint = self.assistant.hint(game_id, caller.token, budget)
            return Hinted(self._change(before, game, caller), hint)

        return await self._player_turn(game_id, caller, "hint",
                                       self.settings.analysis_budget_s, run)

    async def analysis(self, game_id: str, caller: Caller) -> Change:
        """Every covered cell's status and odds (the debug overlay), drawn on the game
        after it: ``after.analysis``.  Marks the game assisted."""

        def run(budget: Budget) -> Change:
            before = self.games.get(game_id)
            game, analysis = self.assistant.analyse(game_id, caller.token, budget)
            return self._change(before, game, caller, analysis)

        return await self._player_turn(game_id, caller, "analysis",
                                       self.settings.analysis_budget_s, run)

    async def proof(self, game_id: str, cell: Cell, caller: Caller) -> Proved:
        """Why a covered cell is safe or a mine.  During a game only its player may ask
        (it marks the game assisted); after it anyone may, and the cell is proven in the
        position before the last move, where a loss was decided.  Either way the proof
        takes the game's solver turn."""
        game = await asyncio.to_thread(self.games.get, game_id)
        if game.status is GameStatus.PLAYING:
            await self.players.admit(game_id, caller.token)

        def run(budget: Budget) -> Proved:
            now, found = self.assistant.proof(self.games.get(game_id), cell, caller.token,
                                              budget)
            return Proved(self._view(now, self._role(now, caller)), found)

        return await self.gate.run(game_id, self.settings.analysis_budget_s, run,
                                   caller.client, "proof")

    # ------------------------------------------------------------------ history
    async def moves(self, game_id: str, offset: int, limit: int) -> tuple[GameView, list[str]]:
        """A page of the game's moves (``offset`` from 0), read in one version of it."""
        game, page = await asyncio.to_thread(self.history.moves, game_id, offset, limit)
        return self._view(game, "spectator"), page

    async def replay(self, game_id: str, offset: int, limit: int) -> tuple[GameView, Replay]:
        """A page of a finished game's moves with the cells each changed."""
        game, page = await asyncio.to_thread(self.history.replay, game_id, offset, limit)
        return self._view(game, "spectator"), page

    async def replay_step(self, game_id: str, at: int, to: int | None, step: Step | None,
                          caller: Caller) -> Change:
        """A finished game's replay moved from the board after move ``at`` to the one
        ``step`` asks for (or move ``to``): both boards, the move that led to the second,
        and the loss's marks where they belong."""
        game = await asyncio.to_thread(self.games.get, game_id)
        at = min(at, game.moves)
        wanted = {"first": 0, "back": at - 1, "next": at + 1, "last": game.moves,
                  None: at if to is None else to}[step]
        target = max(0, min(game.moves, wanted))
        game, shown, rows, move = await asyncio.to_thread(self.history.boards, game_id, at,
                                                          target)
        base, _ = await asyncio.to_thread(self._noted, await self._seen(game, caller), caller)
        return Change(replace(base, game=replace(game, rows=shown), replay_at=at),
                      replace(base, game=replace(game, rows=rows), replay_at=target,
                              replay_move=move))

    # ------------------------------------------------------------------ positions
    async def analyse(self, position: Position, caller: Caller, why: Cell | None = None
                      ) -> Analysed:
        """Every covered cell's status and odds, the move to play with its reason (a guess
        with its chance to win the game and the next best guesses'), or why no layout
        fits; with ``why``'s proof when it is decided.  In the client's own
        solver turn: a client's analyses wait behind each other, not behind games."""

        def run(budget: Budget) -> Analysed:
            analysis = analyse(position, budget.share(ANSWER_SHARE), chances=True)
            known = analysis.knowledge
            if why is None or known is None or (why not in known.safe and why not in known.mines):
                return Analysed(analysis)
            try:
                return Analysed(analysis, prove(position, why, budget))
            except (BudgetExceededError, InvalidPositionError, NoProofError):
                return Analysed(analysis)

        return await self._client_turn(caller, "analyse", run)

    async def analyse_proof(self, position: Position, cell: Cell, caller: Caller) -> Proof:
        """Why a covered cell of the position is safe or a mine (:class:`NoProofError`
        when it is undecided or open)."""
        return await self._client_turn(caller, "analyse_proof",
                                       lambda budget: prove(position, cell, budget))

    # ------------------------------------------------------------------ players
    async def statistics(self, caller: Caller) -> Statistics:
        """The caller's statistics table."""
        if caller.browser is None:
            return EMPTY
        return await asyncio.to_thread(tally, self.store, caller.browser, None)

    async def forget_statistics(self, caller: Caller) -> Statistics:
        """Resets the caller's statistics (its games stay counted, for no browser)."""
        if caller.browser is not None:
            await asyncio.to_thread(self.store.forget_counted, caller.browser)
        return await self.statistics(caller)

    async def check_player(self, game_id: str, token: str) -> None:
        """Refuses (:class:`NotPlayerError`) a token that is not the game's player's."""
        game = await asyncio.to_thread(self.games.get, game_id)
        if self._role(game, Caller(token)) != "player":
            raise NotPlayerError("the token is not this game's player token")

    # ------------------------------------------------------------------ upkeep
    async def health(self) -> Health:
        """Whether this process can read its store (:class:`StoreUnavailableError`
        when not), and whether its last write found the disk full."""
        try:
            version = await asyncio.to_thread(self.store.schema_version)
        except Exception as exc:
            log.warning("health check: the store cannot be read: %s", exc)
            raise StoreUnavailableError("the game store cannot be read") from exc
        return Health("disk_full" if self.store.disk_full else "ok", self.store.dialect,
                      version)

    async def expire_forever(self) -> None:
        """Deletes old games every ``expiry_interval_s``, for as long as it is not
        cancelled."""
        while True:
            try:
                removed = await asyncio.to_thread(self.games.expire)
                if removed:
                    log.info("expired %d games", removed)
            except Exception:
                log.exception("game expiry failed; trying again later")
            await asyncio.sleep(self.settings.expiry_interval_s)

    # ------------------------------------------------------------------ parts
    async def _player_turn(self, game_id: str, caller: Caller, work: str,
                           seconds: float | None, fn: Callable[[Budget], T]) -> T:
        """``fn`` in the game's solver turn, once the caller is admitted as its player
        (from memory, before it queues: watchers cannot crowd the player out)."""
        await self.players.admit(game_id, caller.token)
        return await self.gate.run(game_id, seconds, fn, caller.client, work)

    async def _client_turn(self, caller: Caller, work: str, fn: Callable[[Budget], T]) -> T:
        return await self.gate.run(f"analyse:{caller.client}", self.settings.analysis_budget_s,
                                   fn, caller.client, work)

    def _role(self, game: Game, caller: Caller) -> Role:
        token = caller.token
        return "player" if token and token_hash(token) == game.player_hash else "spectator"

    def _view(self, game: Game, role: Role, analysis: Analysis | None = None) -> GameView:
        return GameView(game, self.games.move_limit(game.rules), role,
                        self._proofs.get((game.id, game.version)), analysis)

    def _change(self, before: Game, after: Game, caller: Caller,
                analysis: Analysis | None = None) -> Change:
        """Both views of a change the caller made, with their loss proofs (in the change's
        own turn: the proof of a finished game is free), and the caller's statistics when
        it ended one of its games that counts."""
        if after.version != before.version:
            self._made(after, caller.page)
        self._loss_proof(before)
        self._loss_proof(after)
        role = self._role(after, caller)
        new, statistics = self._noted(self._view(after, role, analysis), caller)
        return Change(self._view(before, role), new, statistics)

    async def _changed(self, shown: GameView, view: GameView, caller: Caller) -> Change:
        """The change a watcher is sent: with the caller's statistics (read off the event
        loop) when it finished a game that counts for it; else the very change sent to the
        game's other watchers, so that a page's event is drawn once for all of them
        (:func:`kaboom.server.render.event`)."""
        if caller.browser is not None and counts(view):
            return Change(shown, *await asyncio.to_thread(self._tallied, view, caller))
        key = (view.game.id, shown.game.version, view.game.version, view.role)
        sent = self._sent.get(key)
        if sent is None or sent.before != shown or sent.after != view:
            sent = self._sent[key] = Change(shown, view)
            while len(self._sent) > _CHANGES_KEPT:
                self._sent.popitem(last=False)
        return sent

    def _noted(self, view: GameView, caller: Caller) -> tuple[GameView, Statistics | None]:
        """A finished game counted for the caller when it counts, and its view marked
        when it is the caller's best time, with the caller's table; the view as it is and
        no table when it does not count."""
        if caller.browser is None or not counts(view):
            return view, None
        return self._tallied(view, caller)

    def _tallied(self, view: GameView, caller: Caller) -> tuple[GameView, Statistics | None]:
        """The view (counted, when it counts) and the caller's table, for a whole page
        (none for a caller with no browser)."""
        if caller.browser is None:
            return view, None
        found = tally(self.store, caller.browser, view)
        return (replace(view, best=True) if found.best else view), found

    async def _seen(self, game: Game, caller: Caller) -> GameView:
        """The game as the caller sees it, with its loss proof: computed in the game's
        solver turn the first time it is needed."""
        if self._needs_proof(game):
            with contextlib.suppress(KaboomError):  # drawn without it
                await self.gate.run(game.id, self.settings.analysis_budget_s,
                                    lambda _: self._loss_proof(game), caller.client, "proof")
        return self._view(game, self._role(game, caller))

    def _needs_proof(self, game: Game) -> bool:
        loss = game.loss
        return (game.status is GameStatus.LOST and loss is not None
                and loss.safe_cell is not None and (game.id, game.version) not in self._proofs)

    def _loss_proof(self, game: Game) -> Proof | None:
        """The proof of the safe cell a lost game ignored, or None when there is none or it
        did not come within the analysis budget (kept, as a finished game's proof never
        changes)."""
        key = (game.id, game.version)
        if not self._needs_proof(game):
            return self._proofs.get(key)
        assert game.loss is not None and game.loss.safe_cell is not None
        try:
            _, found = self.assistant.proof(game, game.loss.safe_cell, None,
                                            Budget(self.settings.analysis_budget_s))
        except KaboomError:
            return None
        self._proofs[key] = found
        while len(self._proofs) > _PROOFS_KEPT:
            self._proofs.popitem(last=False)
        return found

    def _made(self, game: Game, page: str) -> None:
        """Notes that ``page``'s request made this version of the game."""
        if page:
            self._origins[game.id, game.version] = page
            while len(self._origins) > _ORIGINS_KEPT:
                self._origins.popitem(last=False)

    def _made_by(self, game_id: str, versions: range, page: str) -> bool:
        """Whether ``page`` made every one of ``versions`` of the game (here)."""
        return bool(page) and all(self._origins.get((game_id, v)) == page for v in versions)
