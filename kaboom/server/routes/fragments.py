"""Drawing what changed: the fragments a move's answer (and the game's event stream) sends.

A fragment is a list of elements, each with ``hx-swap-oob``, that htmx swaps into the
element of the same id: the cells that changed and the parts of the page whose drawing
differs (counters, face, status, banner, buttons).  A one-cell change sends one cell; a
page that shows another version than the one the change started from gets the whole board.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace

from fastapi import Response
from fastapi.templating import Jinja2Templates

from kaboom.server.assets import WEB
from kaboom.server.game import Game
from kaboom.server.service import GameService
from kaboom.server.view import PRESET_LABELS, GameView, Role, changed_cells
from kaboom.solver import PRESETS, GameStatus, KaboomError, Proof

__all__ = ["PARTS", "all_made_by", "cells", "changes", "everything", "game_view", "html",
           "made_by", "part", "templates"]

templates = Jinja2Templates(directory=WEB / "templates")
templates.env.auto_reload = False  # installed files: no stat of the template on every part drawn
templates.env.globals["presets"] = {
    name: (f"{label} {PRESETS[name][0]}×{PRESETS[name][1]}/{PRESETS[name][2]}", PRESETS[name])
    for name, label in PRESET_LABELS.items()
}

PARTS = ("game_state", "mines_left", "timer", "moves", "forced", "face", "status", "badges",
         "banner", "undo", "hint", "same_board", "replay")
"""The parts of the page a change may redraw (macros of ``_game.html``)."""

_OWN: OrderedDict[tuple[str, int], str] = OrderedDict()
"""The page (its id) whose own request made each recent version of a game, in this process:
that page has the change from its answer, so its event stream need not send it again."""
_OWN_KEPT = 4096


def made_by(game_id: str, version: int, page: str) -> None:
    """Notes that ``page``'s request made ``version`` of the game."""
    if page:
        _OWN[game_id, version] = page
        while len(_OWN) > _OWN_KEPT:
            _OWN.popitem(last=False)


def all_made_by(game_id: str, versions: range, page: str) -> bool:
    """Whether ``page`` made every one of ``versions`` of the game (here)."""
    return bool(page) and all(_OWN.get((game_id, v)) == page for v in versions)


_PROOFS: OrderedDict[tuple[str, int], Proof | None] = OrderedDict()
"""Loss proofs by (game, version): a finished game's proof never changes."""
_PROOFS_KEPT = 512


def part(name: str, *args: object, oob: bool = True) -> str:
    """One macro of ``_game.html``, drawn."""
    macro = getattr(templates.env.get_template("_game.html").module, name)
    return str(macro(*args, oob=oob))


def html(body: str, status_code: int = 200) -> Response:
    return Response(body, status_code=status_code, media_type="text/html; charset=utf-8")


async def loss_proof(service: GameService, game: Game, client: str) -> Proof | None:
    """The proof of the safe cell a lost game ignored (free after the game), or None when
    there is none or it did not come within the analysis budget."""
    loss = game.loss
    if game.status is not GameStatus.LOST or loss is None or loss.safe_cell is None:
        return None
    key = (game.id, game.version)
    if key in _PROOFS:
        return _PROOFS[key]
    cell = loss.safe_cell
    try:
        _, proof = await service.gate.run(
            game.id, service.settings.analysis_budget_s,
            lambda budget: service.assistant.proof(game.id, cell, None, budget), client, "proof")
    except KaboomError:
        return None
    _PROOFS[key] = proof
    while len(_PROOFS) > _PROOFS_KEPT:
        _PROOFS.popitem(last=False)
    return proof


async def game_view(service: GameService, game: Game, role: Role, client: str) -> GameView:
    proof = await loss_proof(service, game, client)
    return GameView(game, service.move_limit(game.rules), role, proof)


def cells(view: GameView, where: Iterable[tuple[int, int]], mark: str = "") -> str:
    """The cells at ``where`` as out-of-band swaps; ``mark`` outlines them with that class
    until the page's next move or proof (the page clears such marks)."""
    macro = templates.env.get_template("_game.html").module.cell  # type: ignore[attr-defined]
    drawn = view.cells(where)
    if mark:
        drawn = [replace(c, marks=mark) for c in drawn]
    return "".join(str(macro(c, oob=True, mark=bool(mark))) for c in drawn)


def everything(view: GameView) -> str:
    """Every part and the whole board, for a page that may show any other version."""
    return "".join(part(name, view) for name in PARTS) + part("board", view)


def _clock(view: GameView) -> tuple[bool, int | None]:
    """What the page's clock needs anew: whether it runs, and where it stopped."""
    running = view.playing and view.started
    return running, None if running else view.game.elapsed_ms()


def changes(before: GameView, after: GameView, page_version: int | None) -> str:
    """What differs between two views of a game, as out-of-band swaps: every changed cell
    and part, or the whole board when the page shows another version than ``before``."""
    out = []
    for name in PARTS:
        if name == "timer" and _clock(before) == _clock(after):
            continue  # the page ticks the clock on by itself
        drawn = part(name, after)
        if drawn != part(name, before):
            out.append(drawn)
    if page_version is not None and page_version != before.game.version:
        out.append(part("board", after))
        return "".join(out)
    where = set(changed_cells(before.game.rows, after.game.rows))
    marks_before, marks_after = before.marks(), after.marks()
    where |= {xy for xy in marks_before.keys() | marks_after.keys()
              if marks_before.get(xy) != marks_after.get(xy)}
    out.append(cells(after, sorted(where, key=lambda xy: (xy[1], xy[0]))))
    return "".join(out)
