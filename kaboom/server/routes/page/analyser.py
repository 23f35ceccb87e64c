"""The analyser, ``/analyse``: any position built on a board editor, pasted as text or
opened from a link, answered with its analysis drawn as the debug overlay.

One form holds the whole position (its link, ``p``) and every control; each click on a
cell or button posts it, and the server answers with the analyser redrawn (the use case
:meth:`kaboom.server.application.Kaboom.analyse`, in the client's own solver turn as
``POST /api/analyse``) and the address ``/analyse?p=<link>``, which htmx puts in the
location bar, so the link reopens the position.  Without a script the form posts and the
whole page comes back.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import ValidationError

from kaboom.server import render
from kaboom.server.application import Caller, Kaboom
from kaboom.server.deps import KaboomDep, Viewer
from kaboom.server.forms import AnalyserForm, LinkProofQuery, LinkQuery, errors_text
from kaboom.server.schemas import MAX_SIDE
from kaboom.server.views import PositionView, cycled
from kaboom.solver import (
    PRESETS,
    Analysis,
    BudgetExceededError,
    Cell,
    InvalidPositionError,
    NoProofError,
    Position,
    analysable,
    from_link,
    to_link,
)

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_START = Position.new(*PRESETS["beginner"])
_SIZE = re.compile(r"(\d+)x(\d+)m")


@router.get("/analyse")
async def analyser_page(request: Request, kaboom: KaboomDep, caller: Viewer,
                        query: Annotated[LinkQuery, Query()]) -> Response:
    """The analyser with the position of the link ``p`` (a blank Beginner board without)."""
    try:
        position, error = (_read(query.p) if query.p else _START), ""
    except InvalidPositionError as exc:
        position, error = _START, f"That link holds no position: {exc}."
    view = await _analysed(kaboom, caller, position, error=error)
    return _page(request, view, _status(view, 422 if error else 200))


@router.post("/analyse")
async def analyser_edit(request: Request, kaboom: KaboomDep, caller: Viewer) -> Response:
    """An edit of the form's position (a cell, a new size, pasted text, the mine count),
    answered with the analyser redrawn, or the same position and the reason it was
    refused (422)."""
    fields = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    try:
        shown = _read(fields.get("p", ""))
    except InvalidPositionError:
        shown = _START
    pasted = fields.get("action") == "text"
    try:
        form = AnalyserForm.model_validate(fields)
        position, focus, why = _edited(shown, form)
    except ValidationError as exc:
        view = await _analysed(kaboom, caller, shown, error=errors_text(exc), pasted=pasted)
        return _answer(request, view, 422)
    except InvalidPositionError as exc:
        view = await _analysed(kaboom, caller, shown, error=str(exc), pasted=pasted)
        return _answer(request, view, 422)
    view = await _analysed(kaboom, caller, position, why, focus, pasted=pasted)
    return _answer(request, view, _status(view, 200))


@router.get("/analyse/proof")
async def analyser_proof(kaboom: KaboomDep, caller: Viewer,
                         query: Annotated[LinkProofQuery, Query()]) -> Response:
    """The proof of a decided cell the pointer or the focus is on: its words, and the cells
    to outline."""
    x, y = query.x, query.y
    try:
        position = _read(query.p)
        if x >= position.width or y >= position.height:
            raise InvalidPositionError(f"({x}, {y}) is off the board")
    except InvalidPositionError as exc:
        return render.html(render.proof_words(None, f"No proof: {exc}."), 422)
    try:
        found = await kaboom.analyse_proof(position, (x, y), caller)
    except (NoProofError, InvalidPositionError):
        return render.html(render.proof_words(None, f"({x}, {y}) is not decided: it has no"
                                              " proof."))
    except BudgetExceededError as exc:
        return render.html(render.proof_words(None, f"No proof: {exc}."), 503)
    return render.html(render.proof_words(found, ""))


def _read(link: str) -> Position:
    """The position of a link, no side over 256 (checked before the cells are read, which
    a link could make millions of).  Raises :class:`InvalidPositionError`."""
    size = _SIZE.match(link)
    if size and max(int(size[1]), int(size[2])) > MAX_SIDE:
        raise InvalidPositionError(f"a board has at most {MAX_SIDE} cells a side")
    position = from_link(link)
    analysable(position.rows, position.mines)
    return position


def _status(view: PositionView, otherwise: int) -> int:
    """503 when the solver was too busy to analyse at all."""
    a = view.analysis
    return 503 if a.knowledge is None and not a.impossible else otherwise


def _number(value: int | None, name: str, low: int, high: int) -> int:
    if value is None or not low <= value <= high:
        raise InvalidPositionError(f"{name} must be a whole number from {low} to {high}")
    return value


def _edited(shown: Position, form: AnalyserForm) -> tuple[Position, Cell, Cell | None]:
    """The position the form asks for, the cell to focus and the cell whose proof to
    show.  Raises :class:`InvalidPositionError` saying what is wrong."""
    if form.action in PRESETS:
        return Position.new(*PRESETS[form.action]), (0, 0), None
    if form.action == "blank":
        width = _number(form.width, "width", 1, MAX_SIDE)
        height = _number(form.height, "height", 1, MAX_SIDE)
        return Position.new(width, height, _number(form.mines, "mines", 0, width * height)), (
            0, 0), None
    mines = _number(form.mines, "mines", 0, MAX_SIDE * MAX_SIDE)
    if form.action == "text":
        rows = [line.strip() for line in form.text.splitlines() if line.strip()]
        return analysable(rows, mines), (0, 0), None
    if not form.cell:
        return Position(shown.width, shown.height, mines, shown.rows), (0, 0), None
    xs, _, ys = form.cell.partition(",")
    x, y = int(xs), int(ys)
    if x >= shown.width or y >= shown.height:
        raise InvalidPositionError(f"({form.cell}) is not a cell of the board")
    if form.tool == "why":
        return Position(shown.width, shown.height, mines, shown.rows), (x, y), (x, y)
    value = cycled(shown.rows[y][x]) if form.tool == "cycle" else form.tool
    rows = list(shown.rows)
    rows[y] = rows[y][:x] + value + rows[y][x + 1:]
    return Position(shown.width, shown.height, mines, tuple(rows)), (x, y), None


async def _analysed(kaboom: Kaboom, caller: Caller, position: Position, why: Cell | None = None,
                    focus: Cell = (0, 0), error: str = "", pasted: bool = False) -> PositionView:
    """The position analysed, with ``why``'s proof when it is a decided cell (and fits the
    budget); a busy solver said, with nothing computed."""
    try:
        found = await kaboom.analyse(position, caller, why)
    except BudgetExceededError as exc:
        return PositionView(Analysis(position, None), None, focus, f"Not analysed: {exc}.",
                            pasted)
    return PositionView(found.analysis, found.proof, focus, error, pasted)


def _page(request: Request, view: PositionView, status_code: int) -> Response:
    return render.page(request, "analyse.html", {"a": view}, status_code)


def _answer(request: Request, view: PositionView, status_code: int) -> Response:
    """The analyser redrawn for htmx, with the position's address for the location bar;
    the whole page for a form posted without a script."""
    if not request.headers.get("hx-request"):
        return _page(request, view, status_code)
    return render.html(render.analyser(view), status_code,
                       {"HX-Replace-Url": f"/analyse?p={to_link(view.position)}"})
