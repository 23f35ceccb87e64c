"""The JSON API's analyses of any position, with no game: anyone may ask.  They take a
solver turn as a game's analysis does, one client's in line behind each other, and share
the threads fairly with every game's moves (:meth:`kaboom.server.application.Kaboom.
analyse`)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from kaboom.server.deps import ApiCaller, KaboomDep
from kaboom.server.openapi import ANALYSE
from kaboom.server.routes.api.games import json_answer, off_the_loop
from kaboom.server.schemas import PositionAnalysisOut, PositionCellIn, PositionIn, ProofOut

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["analysis"])


@router.post("/analyse", responses=ANALYSE, response_model=PositionAnalysisOut)
async def analyse_position(body: PositionIn, kaboom: KaboomDep, caller: ApiCaller) -> Response:
    """Every covered cell's status and exact probability, the move to play with its
    reason (and proof, when it is proven safe), or, for a position no layout fits, a
    minimal set of numbers (and the count) that cannot all hold.  Within the analysis
    budget: what it did not reach is said to be unsettled, never guessed."""
    found = await kaboom.analyse(body.position(), caller)
    return await off_the_loop(PositionAnalysisOut.of, found.analysis)


@router.post("/analyse/proof", responses={
    **ANALYSE, 409: {"description": "the cell is open or undecided, or the numbers a proof"
                     " would name cannot all hold"}}, response_model=ProofOut)
async def analyse_proof(body: PositionCellIn, kaboom: KaboomDep, caller: ApiCaller) -> Response:
    """Why a covered cell of the position is safe or a mine: a minimal set of open
    numbers (and the count, when needed), as a game's proof."""
    return json_answer(ProofOut.of(await kaboom.analyse_proof(body.position(), body.cell(),
                                                              caller)))
