"""The analyser, ``/analyse``: any position built on a board editor, pasted as text or
opened from a link, answered with its analysis drawn as the debug overlay.

One form holds the whole position (its link, ``p``) and every control; each click on a
cell or button posts it, and the server answers with the analyser redrawn
(:func:`kaboom.solver.analysis.analyse`, under the analysis budget, in the client's own
solver turn as ``POST /api/analyse``) and the address ``/analyse?p=<link>``, which htmx
puts in the location bar, so the link reopens the position.  Without a script the form
posts and the whole page comes back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from kaboom.server.deps import ServiceDep
from kaboom.server.routes.api import analysis_turn
from kaboom.server.routes.fragments import templates
from kaboom.server.schemas import MAX_SIDE
from kaboom.server.service import GameService
from kaboom.server.view import ANALYSER_TOOLS, PositionView, cycled, proof_marks
from kaboom.solver import (
    PRESETS,
    Analysis,
    Budget,
    BudgetExceededError,
    InvalidPositionError,
    NoProofError,
    Position,
    Proof,
    analysable,
    analyse,
    from_link,
    prove,
    to_link,
)

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_START = Position.new(*PRESETS["beginner"])
_NO_CACHE = {"Cache-Control": "no-cache"}


_SIZE = re.compile(r"(\d+)x(\d+)m")


def _read(link: str) -> Position:
    """The position of a link, no side over 256 (checked before the cells are read, which
    a link could make millions of).  Raises :class:`InvalidPositionError`."""
    size = _SIZE.match(link)
    if size and max(int(size[1]), int(size[2])) > MAX_SIDE:
        raise InvalidPositionError(f"a board has at most {MAX_SIDE} cells a side")
    position = from_link(link)
    analysable(position.rows, position.mines)
    return position


@router.get("/analyse")
async def analyser_page(request: Request, service: ServiceDep, p: str = "") -> Response:
    """The analyser with the position of the link ``p`` (a blank Beginner board without)."""
    try:
        position, error = (_read(p) if p else _START), ""
    except InvalidPositionError as exc:
        position, error = _START, f"That link holds no position: {exc}."
    view = await _analysed(service, request, position, None, error=error)
    return _page(request, view, _status(view, 422 if error else 200))


@router.post("/analyse")
async def analyser_edit(request: Request, service: ServiceDep) -> Response:
    """An edit of the form's position (a cell, a new size, pasted text, the mine count),
    answered with the analyser redrawn, or the same position and the reason it was
    refused (422)."""
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    try:
        shown = _read(form.get("p", ""))
    except InvalidPositionError:
        shown = _START
    pasted = form.get("action") == "text"
    try:
        position, focus, why = _edited(shown, form)
        analysable(position.rows, position.mines)
    except InvalidPositionError as exc:
        view = await _analysed(service, request, shown, None, error=str(exc), pasted=pasted)
        return _answer(request, view, 422)
    view = await _analysed(service, request, position, why, focus, pasted=pasted)
    return _answer(request, view, _status(view, 200))


def _status(view: PositionView, otherwise: int) -> int:
    """503 when the solver was too busy to analyse at all."""
    a = view.analysis
    return 503 if a.knowledge is None and not a.impossible else otherwise


@router.get("/analyse/proof")
async def analyser_proof(request: Request, service: ServiceDep, p: str,
                         x: Annotated[int, Query(ge=0, le=MAX_SIDE - 1)],
                         y: Annotated[int, Query(ge=0, le=MAX_SIDE - 1)]) -> Response:
    """The proof of a decided cell the pointer or the focus is on: its words, and the cells
    to outline (``data-outline``, which the page's script puts on the board)."""
    try:
        position = _read(p)
        if x >= position.width or y >= position.height:
            raise InvalidPositionError(f"({x}, {y}) is off the board")
    except InvalidPositionError as exc:
        return _proof(None, f"No proof: {exc}.", 422)

    def run(budget: Budget) -> Proof | None:
        try:
            return prove(position, (x, y), budget)
        except (NoProofError, InvalidPositionError):
            return None

    try:
        found = await analysis_turn(service, request, run, "analyse_proof")
    except BudgetExceededError as exc:
        return _proof(None, f"No proof: {exc}.", 503)
    return _proof(found, "" if found else f"({x}, {y}) is not decided: it has no proof.")


def _proof(proof: Proof | None, note: str, status_code: int = 200) -> Response:
    macro = templates.env.get_template("_analyse.html").module.proof_words  # type: ignore[attr-defined]
    outline = [[f"{x},{y}", mark] for (x, y), mark in proof_marks(proof).items()]
    return Response(str(macro(proof, outline, note)), status_code=status_code,
                    media_type="text/html; charset=utf-8")


def _whole(text: str) -> bool:
    """Whether ``text`` is a whole number in ASCII digits (``isdigit`` alone takes ``²``)."""
    return text.isascii() and text.isdigit()


def _number(form: Mapping[str, str], name: str, low: int, high: int) -> int:
    text = form.get(name, "").strip()
    if not _whole(text) or not low <= int(text) <= high:
        raise InvalidPositionError(f"{name} must be a whole number from {low} to {high}")
    return int(text)


def _edited(shown: Position, form: Mapping[str, str]
            ) -> tuple[Position, tuple[int, int], tuple[int, int] | None]:
    """The position the form asks for, the cell to focus and the cell whose proof to
    show.  Raises :class:`InvalidPositionError` saying what is wrong."""
    action, cell = form.get("action", ""), form.get("cell", "")
    if action in PRESETS:
        return Position.new(*PRESETS[action]), (0, 0), None
    if action == "blank":
        width = _number(form, "width", 1, MAX_SIDE)
        height = _number(form, "height", 1, MAX_SIDE)
        return (Position.new(width, height, _number(form, "mines", 0, width * height)),
                (0, 0), None)
    mines = _number(form, "mines", 0, MAX_SIDE * MAX_SIDE)
    if action == "text":
        rows = [line.strip() for line in form.get("text", "").splitlines() if line.strip()]
        return analysable(rows, mines), (0, 0), None
    if not cell:
        return Position(shown.width, shown.height, mines, shown.rows), (0, 0), None
    xs, _, ys = cell.partition(",")
    if not (_whole(xs) and _whole(ys)) or int(xs) >= shown.width or int(ys) >= shown.height:
        raise InvalidPositionError(f"({cell}) is not a cell of the board")
    x, y, tool = int(xs), int(ys), form.get("tool", "cycle")
    if tool not in ANALYSER_TOOLS:
        raise InvalidPositionError(f"{tool!r} is not a tool of the analyser")
    if tool == "why":
        return Position(shown.width, shown.height, mines, shown.rows), (x, y), (x, y)
    value = cycled(shown.rows[y][x]) if tool == "cycle" else tool
    rows = list(shown.rows)
    rows[y] = rows[y][:x] + value + rows[y][x + 1:]
    return Position(shown.width, shown.height, mines, tuple(rows)), (x, y), None


async def _analysed(service: GameService, request: Request, position: Position,
                    why: tuple[int, int] | None, focus: tuple[int, int] = (0, 0),
                    error: str = "", pasted: bool = False) -> PositionView:
    """The position analysed in the client's solver turn, with ``why``'s proof when it
    is a decided cell (and fits the budget)."""

    def run(budget: Budget) -> PositionView:
        analysis = analyse(position, budget.share(0.7))
        proof = None
        if why is not None and analysis.knowledge is not None and (
                why in analysis.knowledge.safe or why in analysis.knowledge.mines):
            try:
                proof = prove(position, why, budget)
            except (BudgetExceededError, InvalidPositionError, NoProofError):
                proof = None
        return PositionView(analysis, proof, focus, error, pasted)

    try:
        return await analysis_turn(service, request, run, "analyse")
    except BudgetExceededError as exc:  # the solver threads are busy: nothing computed
        return PositionView(Analysis(position, None), None, focus,
                            f"Not analysed: {exc}.", pasted)


def _page(request: Request, view: PositionView, status_code: int) -> Response:
    return templates.TemplateResponse(request, "analyse.html", {"a": view},
                                      status_code=status_code, headers=_NO_CACHE)


def _answer(request: Request, view: PositionView, status_code: int) -> Response:
    """The analyser redrawn for htmx, with the position's address for the location bar;
    the whole page for a form posted without a script."""
    if not request.headers.get("hx-request"):
        return _page(request, view, status_code)
    macro = templates.env.get_template("_analyse.html").module.analyser  # type: ignore[attr-defined]
    return Response(str(macro(view)), status_code=status_code,
                    media_type="text/html; charset=utf-8",
                    headers={"HX-Replace-Url": f"/analyse?p={to_link(view.position)}"})
