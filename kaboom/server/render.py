"""The page's HTML, drawn from the use cases' results: whole pages from the templates, and
the fragments an answer (or an event of a game's stream) sends.

A fragment is a list of elements, each with ``hx-swap-oob``, that htmx swaps into the
element of the same id: the cells that changed and the parts of the page whose drawing
differs (counters, face, status, banner, buttons).  A one-cell change sends one cell; a
page that shows another version than the one the change started from gets the whole board.
The templates live in ``kaboom/web/templates/`` (package data).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from fastapi import Request, Response
from fastapi.templating import Jinja2Templates

from kaboom.server.application import Change, Hinted, Proved, Shown, Watched
from kaboom.server.assets import WEB
from kaboom.server.errors import MissingTokenError, status_of
from kaboom.server.statistics import Statistics
from kaboom.server.views import PRESET_LABELS, GameView, PositionView, hint_words, proof_marks
from kaboom.solver import PRESETS, Cell, IllegalMoveError, KaboomError, Proof

__all__ = ["PARTS", "analyser", "change", "event", "everything", "hinted", "html", "message",
           "page", "part", "proof_words", "proved", "refusal", "replay_step", "statistics",
           "templates"]

templates = Jinja2Templates(directory=WEB / "templates")
templates.env.auto_reload = False  # installed files: no stat of the template on every part drawn
templates.env.globals["presets"] = {
    name: (f"{label} {PRESETS[name][0]}×{PRESETS[name][1]}/{PRESETS[name][2]}", PRESETS[name])
    for name, label in PRESET_LABELS.items()
}

PARTS = ("game_state", "mines_left", "timer", "moves", "forced", "face", "status", "badges",
         "banner", "undo", "hint", "same_board", "replay")
"""The parts of the page a change may redraw (macros of ``_game.html``)."""

NO_CACHE = {"Cache-Control": "no-cache"}

WATCHING = "You are watching this game: only its player can move."


def _macro(template: str, name: str) -> Any:
    return getattr(templates.env.get_template(template).module, name)


def part(name: str, *args: object, oob: bool = True) -> str:
    """One macro of ``_game.html``, drawn."""
    return str(_macro("_game.html", name)(*args, oob=oob))


def html(body: str, status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status_code=status_code, media_type="text/html; charset=utf-8",
                    headers=headers)


def page(request: Request, name: str, context: dict[str, Any], status_code: int = 200
         ) -> Response:
    """A whole page from its template, never cached (it shows a game as it is now)."""
    return templates.TemplateResponse(request, name, context, status_code=status_code,
                                      headers=NO_CACHE)


def message(text: str, kind: str = "error", status_code: int = 200) -> Response:
    """The message line, as the whole answer."""
    return html(part("message", text, kind), status_code)


def refusal(exc: KaboomError, prefix: str) -> Response:
    """A refused request, said in the message line with the API's status code."""
    code = status_of(exc)
    if isinstance(exc, MissingTokenError):
        return message(WATCHING, "sticky", code)
    if isinstance(exc, IllegalMoveError):  # the rules' own words: a note, not a failure
        text = str(exc)
        return message(f"{text[:1].upper()}{text[1:]}.", "sticky", code)
    return message(f"{prefix}: {exc}", "error", code)


def cells(view: GameView, where: Iterable[Cell], mark: str = "") -> str:
    """The cells at ``where`` as out-of-band swaps; ``mark`` outlines them with that class
    until the page's next move or proof (the page clears such marks)."""
    macro = _macro("_game.html", "cell")
    drawn = view.cells(where)
    if mark:
        drawn = [replace(c, marks=mark) for c in drawn]
    return "".join(str(macro(c, oob=True, mark=bool(mark))) for c in drawn)


def everything(view: GameView) -> str:
    """Every part and the whole board, for a page that may show any other version."""
    return "".join(part(name, view) for name in PARTS) + part("board", view)


def statistics(found: Statistics | None, oob: bool = True) -> str:
    """The statistics table (nothing when there is none to draw)."""
    return "" if found is None else str(_macro("_stats.html", "table")(found.rows, oob=oob))


def _clock(view: GameView) -> tuple[bool, int | None]:
    """What the page's clock needs anew: whether it runs, and where it stopped."""
    running = view.playing and view.started
    return running, None if running else view.game.elapsed_ms()


def _parts(found: Change, page_version: int | None) -> str:
    """Every part and cell that differs between a change's two views, or the whole board
    when the page shows another version than the change started from."""
    before, after = found.before, found.after
    out = []
    for name in PARTS:
        if name == "timer" and _clock(before) == _clock(after):
            continue  # the page ticks the clock on by itself
        drawn = part(name, after)
        if drawn != part(name, before):
            out.append(drawn)
    if page_version is not None and page_version != before.game.version:
        return "".join(out) + part("board", after)
    return "".join(out) + cells(after, found.cells)


def change(found: Change, page_version: int | None) -> str:
    """A move's or an undo's answer: what changed, the message line cleared, the reason
    line cleared after a move, the overlay asked for again in a debug game."""
    before, after = found.before, found.after
    # a debug game that ends loses its overlay: the whole board, drawn without it
    ended = after.game.rules.debug and not after.playing and before.playing
    body = _parts(found, -1 if ended else page_version) + part("message", "")
    body += statistics(found.statistics)
    if after.game.moves != before.game.moves:
        body += part("reason", "")
    if after.game.rules.debug:
        body += part("overlay", after)
    return body


def hinted(found: Hinted, page_version: int | None) -> str:
    """A hint's answer: its words, its proof's numbers and its cells outlined, and the
    cursor moved onto its first cell."""
    view, hint = found.change.after, found.hint
    body = part("reason", hint_words(hint)) + _parts(found.change, page_version)
    if hint.proof is not None:
        body += cells(view, [xy for xy, _ in hint.proof.numbers], mark="reason")
    body += cells(view, hint.cells, mark="hint" if hint.kind != "forced_guess" else "guess")
    if hint.cells:
        body += str(_macro("_game.html", "cursor")(*hint.cells[0]))
    return body


def proved(found: Proved) -> str:
    """A proof's answer: its words, and its numbers outlined."""
    (x, y), proof = found.proof.cell, found.proof
    what = "a mine" if proof.mine else "safe"
    return (part("reason", f"({x}, {y}) is {what}: {proof.text}.")
            + cells(found.view, [xy for xy, _ in proof.numbers], mark="reason"))


def overlay(found: Change, tries: int, again: bool, wait: int) -> str:
    """The debug overlay's answer: the board drawn with its analysis, and when the
    analysis ran out of time, that said and asked again ``wait`` seconds later."""
    before, view = found.before, found.after
    body = "".join(part(name, view) for name in PARTS if part(name, view) != part(name, before))
    body += part("board", view)
    if not overlay_complete(found):
        why = ("The analysis ran out of time for the probabilities; safe and mine marks are"
               " exact." if view.analysis is not None and view.analysis.complete else
               "The analysis ran out of time: the cells left unmarked may be safe or mines.")
        body += part("message", why + (" Asking again…" if again else ""), "sticky")
        if again:
            body += part("overlay", view, wait, tries + 1)
    elif tries > 1:
        body += part("message", "")
    return body


def overlay_complete(found: Change) -> bool:
    analysis = found.after.analysis
    return analysis is not None and analysis.complete and analysis.exact


def overlay_refused(exc: KaboomError, view: GameView | None, tries: int, wait: int) -> str:
    """An overlay refused: said, and asked again ``wait`` seconds later when ``view`` (the
    game as it is) is given: the solver was busy or out of time, and tries are left."""
    again = " Asking again…" if view is not None else ""
    body = part("message", f"Analysis failed: {exc}{again}", "error")
    if view is not None:
        body += part("overlay", view, wait, tries + 1)
    return body


def replay_step(found: Change, slider: bool) -> str:
    """A replay's step: the bar's words and state, the game's parts, and the cells that
    differ between the two boards; the slider too when a button moved it."""
    new, target = found.after, found.after.replay_at
    out = [part("replay_at", new, target), part("game_state", new), part("banner", new),
           part("replay_state", target)]
    if slider:
        out.append(part("replay_slider", new, target))
    out.append(cells(new, found.cells))
    return "".join(out)


def board(found: Shown, played: bool) -> str:
    """The whole game again, after a move whose answer never arrived, saying whether the
    move was ``played``."""
    body = everything(found.view) + statistics(found.statistics)
    if played:
        return body + part("message", "The server's answer was lost on the way, but the move"
                           " was played: the board shows it.", "sticky")
    return body + part("message", "Move not played: the server did not answer (is kaboom"
                       " serve running?)", "error")


_EVENTS_KEPT = 256
_events: OrderedDict[int, tuple[Watched, str]] = OrderedDict()
"""The last events drawn, by the identity of what they show: the application hands every
watcher of a game the same change, and a move watched by thousands of pages is drawn once
(a change's results are frozen values; each is kept with its event, so its id is not
reused while it is here).  Drawn on the event loop only."""


def event(found: Watched) -> str:
    """One server-sent event of a game's stream: the whole game, a change, or a comment
    that keeps the stream open."""
    if found is None:
        return ": still here\n\n"
    kept = _events.get(id(found))
    if kept is not None and kept[0] is found:
        return kept[1]
    if isinstance(found, Shown):
        view, data = found.view, everything(found.view)
    else:
        view, data = found.after, _parts(found, None) + statistics(found.statistics)
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    drawn = _events[id(found)] = (found, f"event: change\nid: {view.game.version}\n{lines}\n")
    while len(_events) > _EVENTS_KEPT:
        _events.popitem(last=False)
    return drawn[1]


def analyser(view: PositionView) -> str:
    """The analyser redrawn, for htmx."""
    return str(_macro("_analyse.html", "analyser")(view))


def proof_words(proof: Proof | None, note: str) -> str:
    """A proof in the analyser: its words, and the cells to outline (``data-outline``,
    which the page's script puts on the board)."""
    outline = [[f"{x},{y}", mark] for (x, y), mark in proof_marks(proof).items()]
    return str(_macro("_analyse.html", "proof_words")(proof, outline, note))
