"""Moves from the page: htmx requests answered with what changed (out-of-band swaps).

Each route does what its JSON twin in :mod:`kaboom.server.routes.api` does — the same
service call, through the same solver gate — and answers HTML: the cells that changed and
the parts of the page that differ.  The player's token comes from the game's cookie.  A
refusal is said in the message line, with the status code the API would give.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Form, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from kaboom.server.assistance import Hint
from kaboom.server.deps import GameId, ServiceDep
from kaboom.server.edge import client_of
from kaboom.server.errors import GameNotFoundError, MissingTokenError, status_of
from kaboom.server.game import Game
from kaboom.server.players import check_player
from kaboom.server.routes.fragments import (
    PARTS,
    cells,
    changes,
    everything,
    game_view,
    html,
    made_by,
    part,
)
from kaboom.server.routes.pages import check_same_site, player_token, role_of
from kaboom.server.routes.statistics import noted
from kaboom.server.schemas import MAX_SIDE, PAGE_MAX
from kaboom.server.service import GameService
from kaboom.server.view import GameView, percent
from kaboom.solver import (
    Budget,
    BudgetExceededError,
    GameStatus,
    IllegalMoveError,
    KaboomError,
    Move,
    MoveKind,
)

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

Coordinate = Annotated[int, Form(ge=0, le=MAX_SIDE - 1)]
Version = Annotated[int | None, Form(ge=0)]
PageId = Annotated[str, Form(max_length=32)]
"""The id the page was drawn with: what its request changes, its event stream skips."""

_WATCHING = "You are watching this game: only its player can move."
_ANALYSIS_TRIES = 8
"""An analysis that ran out of time is asked again after 1, 2, 4, then 8 s, this often."""


def message(text: str, kind: str = "error", status_code: int = 200) -> Response:
    return html(part("message", text, kind), status_code)


def refusal(exc: KaboomError, prefix: str) -> Response:
    """A refused request, said in the message line with the API's status code."""
    code = status_of(exc)
    if isinstance(exc, MissingTokenError):
        return message(_WATCHING, "sticky", code)
    if isinstance(exc, IllegalMoveError):  # the rules' own words: a note, not a failure
        text = str(exc)
        return message(f"{text[:1].upper()}{text[1:]}.", "sticky", code)
    return message(f"{prefix}: {exc}", "error", code)


async def _change(request: Request, service: GameService, game_id: str, version: int | None,
                  change: Callable[[str | None, Budget], Game], work: str,
                  budget_s: float | None, page: str, quiet: bool = False) -> Response:
    """Runs a change of the game in its solver turn and answers what it changed;
    ``quiet``: a move the rules refuse changes nothing and says nothing (a click on a
    number chords only when its flags are satisfied)."""
    check_same_site(request)
    token = player_token(request)
    client = client_of(request)
    try:
        await service.players.admit(game_id, token)

        def run(budget: Budget) -> tuple[Game, Game]:
            before = service.get(game_id)
            after = change(token, budget)
            made_by(game_id, after.version, page)
            return before, after

        before, after = await service.gate.run(game_id, budget_s, run, client, work)
    except KaboomError as exc:
        if quiet and isinstance(exc, IllegalMoveError):
            return Response(status_code=204)
        return refusal(exc, "Move not played")
    old = await game_view(service, before, "player", client)
    new, stats = await noted(request, service, await game_view(service, after, "player", client))
    # a debug game that ends loses its overlay: the whole board, drawn without it
    ended = after.rules.debug and not new.playing and old.playing
    body = changes(old, new, -1 if ended else version) + part("message", "") + stats
    if after.moves != before.moves:
        body += part("reason", "")
    if after.rules.debug:
        body += part("overlay", new)
    return html(body)


def _move(kind: MoveKind) -> Callable[..., object]:
    async def play(game_id: GameId, request: Request, service: ServiceDep, x: Coordinate,
                   y: Coordinate, version: Version = None, page: PageId = "",
                   quiet: Annotated[str, Form()] = "") -> Response:
        move = Move(kind, x, y)
        return await _change(
            request, service, game_id, version,
            lambda token, budget: service.play(game_id, move, token, budget),
            kind.value, service.settings.move_budget_s, page, quiet == "on")

    return play


for _kind in (MoveKind.REVEAL, MoveKind.FLAG, MoveKind.CHORD):
    router.add_api_route(f"/games/{{game_id}}/{_kind.value}", _move(_kind), methods=["POST"])


@router.post("/games/{game_id}/undo")
async def undo(game_id: GameId, request: Request, service: ServiceDep,
               version: Version = None, page: PageId = "") -> Response:
    return await _change(request, service, game_id, version,
                         lambda token, _: service.undo(game_id, token), "undo", None, page)


@router.post("/games/{game_id}/hint")
async def hint(game_id: GameId, request: Request, service: ServiceDep,
               version: Version = None, page: PageId = "") -> Response:
    """A proven safe cell and its proof outlined, or the best odds of a forced guess."""
    check_same_site(request)
    token, client = player_token(request), client_of(request)
    try:
        await service.players.admit(game_id, token)
        before = await run_in_threadpool(service.get, game_id)
        game, found = await service.gate.run(
            game_id, service.settings.analysis_budget_s,
            lambda budget: service.assistant.hint(game_id, token, budget), client, "hint")
    except KaboomError as exc:
        return refusal(exc, "No hint")
    made_by(game_id, game.version, page)
    old = await game_view(service, before, "player", client)
    view = await game_view(service, game, "player", client)
    body = part("reason", hint_words(found)) + changes(old, view, version)
    if found.proof is not None:
        body += cells(view, [xy for xy, _ in found.proof.numbers], mark="reason")
    body += cells(view, found.cells, mark="hint" if found.kind != "forced_guess" else "guess")
    if found.cells:
        x, y = found.cells[0]
        body += f'<template id="cursor" data-x="{x}" data-y="{y}" hx-swap-oob="true"></template>'
    return html(body)


def hint_words(found: Hint) -> str:
    names = [f"({x}, {y})" for x, y in found.cells]
    if found.kind == "safe" and found.proof is not None:
        return f"Hint: {names[0]} is safe: {found.proof.text}."
    if found.kind == "first_click":
        return f"Hint: the first click is always safe; {names[0]} is a good start."
    text = "Hint: no cell is provably safe, so the next click is a forced guess."
    if found.probability is not None and names:
        shown = ", ".join(names) if len(names) <= 6 else (
            f"{', '.join(names[:6])} and {len(names) - 6} more")
        text += f" The best odds: {percent(found.probability)} mine, at {shown}."
    return text


@router.get("/games/{game_id}/proof")
async def proof(game_id: GameId, request: Request, service: ServiceDep,
                x: Annotated[int, Query(ge=0, le=MAX_SIDE - 1)],
                y: Annotated[int, Query(ge=0, le=MAX_SIDE - 1)]) -> Response:
    """Why a covered cell is safe or a mine (the debug overlay's hover), outlined."""
    token, client = player_token(request), client_of(request)
    try:
        game = await run_in_threadpool(service.get, game_id)
        if game.status is GameStatus.PLAYING:
            check_player(game.player_hash, token)
        game, found = await service.gate.run(
            game_id, service.settings.analysis_budget_s,
            lambda budget: service.assistant.proof(game_id, (x, y), token, budget), client, "proof")
    except KaboomError as exc:
        return html(part("reason", f"({x}, {y}): no proof ({exc})"), status_of(exc))
    view = GameView(game, service.move_limit(game.rules), role_of(game, token))
    what = "a mine" if found.mine else "safe"
    return html(part("reason", f"({x}, {y}) is {what}: {found.text}.")
                + cells(view, [xy for xy, _ in found.numbers], mark="reason"))


@router.get("/games/{game_id}/analysis")
async def overlay(game_id: GameId, request: Request, service: ServiceDep,
                  tries: Annotated[int, Query(ge=1, le=_ANALYSIS_TRIES)] = 1,
                  page: Annotated[str, Query(max_length=32)] = "") -> Response:
    """The debug overlay: the whole board drawn with every covered cell's status and
    probability (it marks the game assisted).  An analysis out of time, or refused as
    busy, is said and asked again a little later."""
    token, client = player_token(request), client_of(request)
    again = tries < _ANALYSIS_TRIES
    wait = min(2 ** (tries - 1), 8)
    try:
        before = await run_in_threadpool(service.get, game_id)
        game, analysis = await service.gate.run(
            game_id, service.settings.analysis_budget_s,
            lambda budget: service.assistant.analyse(game_id, token, budget), client, "analysis")
        made_by(game_id, game.version, page)
    except KaboomError as exc:
        code = status_of(exc)
        busy = isinstance(exc, BudgetExceededError)
        text = f"Analysis failed: {exc}" + (" Asking again…" if busy and again else "")
        body = part("message", text, "error")
        if busy and again:
            view = GameView(before, service.move_limit(before.rules), "player")
            body += part("overlay", view, wait, tries + 1)
        return html(body, code)
    old = await game_view(service, before, "player", client)
    view = GameView(game, service.move_limit(game.rules), "player", old.loss_proof, analysis)
    body = "".join(part(name, view) for name in PARTS if part(name, view) != part(name, old))
    body += part("board", view)
    complete = analysis.complete and analysis.exact
    if not complete:
        why = ("The analysis ran out of time for the probabilities; safe and mine marks are"
               " exact." if analysis.complete else
               "The analysis ran out of time: the cells left unmarked may be safe or mines.")
        body += part("message", why + (" Asking again…" if again else ""), "sticky")
        if again:
            body += part("overlay", view, wait, tries + 1)
    elif tries > 1:
        body += part("message", "")
    answer = html(body)
    answer.headers["Kaboom-Analysis"] = "complete" if complete else "incomplete"
    return answer


@router.get("/games/{game_id}/replay")
async def replay(game_id: GameId, request: Request, service: ServiceDep,
                 at: Annotated[int, Query(ge=0)],
                 to: Annotated[int | None, Query(ge=0)] = None,
                 go: Literal["first", "back", "next", "last"] | None = None) -> Response:
    """A step of a finished game's replay: the cells that differ between the board the
    page shows (after move ``at``) and the one asked for (``to``, or a step ``go``)."""
    client = client_of(request)
    try:
        game = await run_in_threadpool(service.get, game_id)
        n = game.moves
        at = min(at, n)
        target = {"first": 0, "back": at - 1, "next": at + 1, "last": n, None: to}[go]
        target = max(0, min(n, at if target is None else target))
        shown, rows, move = await run_in_threadpool(_replay_diff, service, game, at, target)
    except KaboomError as exc:
        return message(f"No replay: {exc}", "error", status_of(exc))
    role = role_of(game, player_token(request))
    base, _ = await noted(request, service, await game_view(service, game, role, client))
    old = replace(base, game=replace(game, rows=shown), replay_at=at)
    new = replace(base, game=replace(game, rows=rows), replay_at=target, replay_move=move)
    out = [part("replay_at", new, target), part("game_state", new), part("banner", new)]
    out.append(f'<input type="hidden" id="replay-state" name="at" value="{target}"'
               ' hx-swap-oob="true">')
    if go is not None:
        out.append(part("replay_slider", new, target))
    where = set(_changed_between(old, new))
    marks_old, marks_new = old.marks(), new.marks()
    where |= {xy for xy in marks_old.keys() | marks_new.keys()
              if marks_old.get(xy) != marks_new.get(xy)}
    out.append(cells(new, sorted(where, key=lambda xy: (xy[1], xy[0]))))
    return html("".join(out))


def _changed_between(old: GameView, new: GameView) -> list[tuple[int, int]]:
    return [(x, y) for y, (a, b) in enumerate(zip(old.game.rows, new.game.rows, strict=True))
            if a != b for x in range(len(a)) if a[x] != b[x]]


def _replay_diff(service: GameService, game: Game, at: int, target: int
                 ) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The boards after moves ``at`` and ``target`` and the move that led to ``target``,
    from the replay's records (walked back from the final board)."""
    low, high = min(at, target), max(at, target)
    changed: dict[tuple[int, int], str] = {}
    first: dict[tuple[int, int], str] = {}
    move = ""
    offset = low
    steps: list[tuple[str, tuple[tuple[int, int, str, str], ...]]] = []
    while offset < high:
        _, page = service.history.replay(game.id, offset, min(PAGE_MAX, high - offset))
        steps.extend(page.moves)
        if not page.moves:
            break
        offset += len(page.moves)
    for _, cells_ in steps:
        for x, y, before, after in cells_:
            first.setdefault((x, y), before)
            changed[x, y] = after
    if target > 0:
        last, _ = service.history.replay(game.id, target - 1, 1)[1].moves[0]
        move = last
    shown = _board_at(service, game, at)
    rows = [list(r) for r in shown]
    for (x, y), ch in (changed if target > at else first).items():
        rows[y][x] = ch
    return shown, tuple("".join(r) for r in rows), move


def _board_at(service: GameService, game: Game, at: int) -> tuple[str, ...]:
    """The board after move ``at`` of a finished game, walked back from its end."""
    rows = [list(r) for r in game.rows]
    offset = game.moves
    while offset > at:
        start = max(at, offset - PAGE_MAX)
        _, page = service.history.replay(game.id, start, offset - start)
        for _, cells_ in reversed(page.moves):
            for x, y, before, _after in cells_:
                rows[y][x] = before
        offset = start
    return tuple("".join(r) for r in rows)


@router.get("/games/{game_id}/board")
async def board(game_id: GameId, request: Request, service: ServiceDep,
                moves: Annotated[int, Query(ge=0)]) -> Response:
    """The whole game again, after a move whose answer never arrived: says whether the
    move was played (the game has other than ``moves`` moves) or not."""
    try:
        game = await run_in_threadpool(service.get, game_id)
    except GameNotFoundError as exc:
        return message(f"Move not played: {exc}")
    view, stats = await noted(request, service, await game_view(
        service, game, role_of(game, player_token(request)), client_of(request)))
    body = everything(view) + stats
    if game.moves != moves:
        body += part("message", "The server's answer was lost on the way, but the move was"
                     " played: the board shows it.", "sticky")
    else:
        body += part("message", "Move not played: the server did not answer (is kaboom serve"
                     " running?)", "error")
    return html(body)
